"""Which columns of a file of applicants should not be advice: characteristics that fair-lending
law protects, recognised by a column's name or by its values, and columns that describe the
record rather than the person (an identifier, a sampling weight).

What is found here is only ever proposed: ``mc3g init`` writes it into the draft with its
evidence, and a person keeps it or not.  The characteristics are those of the US Equal Credit
Opportunity Act (race, colour, religion, national origin, sex, marital status, age, receipt of
public assistance) and Fair Housing Act (also disability and familial status); ethnicity is how
lenders record national origin (HMDA), and being a foreign worker is national origin too; the
people an applicant provides for are familial status.  Age is the one a person's own record
changes by itself: it may only grow, with time, so advice is a wait (``waits "years"``), and no
one is asked to wait more than :data:`AGE_MAX_CHANGE` years.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pandas as pd

AGE_MAX_CHANGE = 10.0
"""Years an applicant may be told to wait at most: the product profile's bound on adult's age."""


@dataclass(frozen=True)
class Characteristic:
    """A protected characteristic: the name phrases that name it (whole words of a column's
    name: ``applicant_sex``, ``CountryOfBirth``; ``=word``: the whole name) and values that show
    it (at least two of a column's values)."""

    name: str
    names: tuple[str, ...]
    values: frozenset[str] = frozenset()


_COUNTRIES = frozenset(
    """united states|usa|us|mexico|canada|philippines|germany|india|china|japan|vietnam|korea|south korea|cuba|jamaica|puerto rico|
    el salvador|guatemala|honduras|nicaragua|dominican republic|haiti|colombia|ecuador|peru|brazil|argentina|chile|venezuela|
    england|united kingdom|uk|scotland|ireland|france|italy|spain|portugal|poland|greece|hungary|yugoslavia|netherlands|
    holand netherlands|belgium|sweden|norway|denmark|finland|russia|ukraine|turkey|iran|iraq|israel|egypt|nigeria|ghana|kenya|
    ethiopia|south africa|morocco|pakistan|bangladesh|thailand|cambodia|laos|taiwan|hong kong|hong|indonesia|malaysia|
    singapore|australia|new zealand|trinadad&tobago|trinidad and tobago|outlying us guam usvi etc|austria|switzerland|
    czech republic|romania|bulgaria|afghanistan|syria|lebanon|saudi arabia|sri lanka|nepal|somalia|sudan""".replace("\n", "").split("|")
)

CHARACTERISTICS: tuple[Characteristic, ...] = (
    Characteristic("sex", ("sex", "gender"), frozenset({"male", "female", "man", "woman", "men", "women", "non binary", "nonbinary"})),
    Characteristic(
        "race",
        ("race", "racial"),
        frozenset({"white", "black", "asian", "amer indian eskimo", "asian pac islander", "american indian", "alaska native", "native hawaiian",
                   "pacific islander", "african american", "black or african american", "caucasian", "american indian or alaska native"}),
    ),  # fmt: skip
    Characteristic("ethnicity", ("ethnicity", "ethnic", "hispanic", "latino"), frozenset({"hispanic", "latino", "latina", "not hispanic", "non hispanic",
                   "hispanic or latino", "not hispanic or latino"})),  # fmt: skip
    Characteristic("colour", ("=colour", "=color", "skin colour", "skin color", "skin tone")),  # a car's colour is no one's
    Characteristic(
        "national origin",
        ("nationality", "national origin", "native country", "country of birth", "birth country", "birthplace", "place of birth", "country of origin",
         "origin country", "citizenship", "immigration", "immigrant", "foreign worker", "foreign national", "foreign born", "foreigner"),
        _COUNTRIES,
    ),  # fmt: skip
    Characteristic("religion", ("religion", "religious", "faith", "creed"), frozenset({"christian", "catholic", "protestant", "muslim", "islam",
                   "jewish", "judaism", "hindu", "buddhist", "sikh", "atheist", "agnostic", "mormon"})),  # fmt: skip
    Characteristic(
        "marital status",
        ("marital", "marriage", "married", "spouse", "civil status", "personal status"),
        frozenset({"married", "single", "divorced", "widowed", "widow", "widower", "separated", "never married", "unmarried", "husband", "wife",
                   "spouse", "married civ spouse", "married af spouse", "married spouse absent", "civil partnership", "domestic partner"}),
    ),  # fmt: skip
    Characteristic("receipt of public assistance", ("public assistance", "welfare")),
    Characteristic("disability", ("disability", "disabled", "handicap")),
    Characteristic(
        "familial status",
        ("familial status", "pregnant", "pregnancy", "dependents", "dependants", "dependent children", "children", "people liable", "household size"),
    ),
)

_AGE = ("age",)
_WEIGHT = re.compile(r"wgt|weight|^w(eigh)?t$|pweight|sampling", re.IGNORECASE)
_IDENTIFIER = ("id", "uuid", "guid", "identifier", "key", "ref", "reference", "record", "row", "index", "ssn", "email", "phone")


@dataclass(frozen=True)
class Proposal:
    """A protection proposed for a column: its settings (``immutable``, or for age a wait in years,
    a direction and a max-change) and why, with the evidence, in words a reviewer reads beside them."""

    settings: dict[str, Any]
    reason: str
    record: bool = False  # the column describes the record (an identifier, a weight), not the person


def words(name: str) -> list[str]:
    """A column's name as lower-case words: ``CountryOfBirth`` and ``country_of_birth`` are
    ``['country', 'of', 'birth']``."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name)
    return [w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if w]


def _names(name: str, phrases: tuple[str, ...]) -> bool:
    text = f" {' '.join(words(name))} "
    return any(text.strip() == phrase[1:] if phrase.startswith("=") else f" {phrase} " in text for phrase in phrases)


def _value(value: str) -> str:
    return " ".join(re.split(r"[^a-z0-9&]+", value.lower())).strip()


def protection(name: str, values: pd.Series, numeric: bool, rows: int) -> Proposal | None:
    """The protection a column seems to need, or None: a protected characteristic by its name or
    values, age, a sampling weight or an identifier (one value per row)."""
    found = characteristic(name, values, numeric)
    if found is not None:
        return found
    if _names(name, _AGE):
        if numeric:
            return Proposal(
                {"direction": "increase", "waits": "years", "max_change": AGE_MAX_CHANGE, "protected": True},
                f"age, by its name: fair-lending law protects it; it only grows, with time: advice may be a wait of {AGE_MAX_CHANGE:g} years at most",
            )
        return Proposal({"immutable": True, "protected": True}, "age, by its name: fair-lending law protects it, and as categories it cannot be told to grow")
    if numeric and _WEIGHT.search(name):
        return Proposal({"immutable": True}, "a weight of the row, by its name (a sampling weight?): it describes the record, not the person", True)
    distinct = values.nunique(dropna=True)
    if rows >= 20 and distinct == rows and (not numeric or _names(name, _IDENTIFIER) or _is_sequence(values)):
        why = f"identifies the row, {distinct:,} values in {rows:,} rows: it describes the record, not the person"
        if not numeric:  # a new applicant's new value would be refused as none of its categories
            why += f"; to leave it out, delete this line and give mc3g fit --ignore {name}"
        return Proposal({"immutable": True}, why, True)
    return None


def characteristic(name: str, values: pd.Series, numeric: bool) -> Proposal | None:
    """A protected characteristic the column's name names, or at least two of its values show."""
    seen = [] if numeric else sorted({str(v) for v in values.dropna().unique()})
    for c in CHARACTERISTICS:
        by_name = _names(name, c.names)
        shown = [v for v in seen if _value(v) in c.values]
        if by_name or len(shown) >= 2:
            evidence = " and ".join(e for e in ("its name" if by_name else "", _listed(shown) if len(shown) >= 2 else "") if e)
            return Proposal({"immutable": True, "protected": True}, f"{c.name}, by {evidence}: fair-lending law protects it")
    return None


def _listed(values: list[str], most: int = 4) -> str:
    shown = ", ".join(values[:most]) + (", ..." if len(values) > most else "")
    return f"values {shown}"


def _is_sequence(values: pd.Series) -> bool:
    """Whole numbers that number the rows (each once, from their least to their greatest)."""
    numbers = pd.to_numeric(values, errors="coerce").dropna()
    return bool(len(numbers)) and bool((numbers == numbers.round()).all()) and numbers.max() - numbers.min() + 1 == len(numbers)
