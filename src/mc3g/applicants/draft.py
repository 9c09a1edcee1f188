"""A first draft of causal knowledge, read off a file of applicants, for a person to review
(``mc3g init``).

The draft parses as it is.  What the data show is written as it is: each feature's kind and its
categories or range.  What is guessed says so in a comment beside it, with its evidence, and a
person keeps it or not: a step (whole numbers step 1; multiples of 100 step 100), values a
person may have (a number never negative in the data), protections (a characteristic that
fair-lending law protects, age, a row's identifier or weight: :mod:`.protections`), a value
meaning "unknown" that advice never moves to, and dependencies between columns, written
commented out (:mod:`.dependencies`).  ``guess=False`` writes the kinds and ranges alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..causal import CausalModel, declaration_line, statement_line
from ..exceptions import InputError
from ..rules import Column, token
from ..values import LARGEST, plain
from .dependencies import MOST, MOST_VALUES, Dependency, dependencies
from .directions import direction
from .files import decision_classes
from .fitting import favourable_value
from .protections import Proposal, protection

MOST_LISTED = 100
"""A categorical feature with more values is declared without them (the data's are taken)."""

UNKNOWN = frozenset({"?", "unknown", "n/a", "not known", "not stated", "missing", "undisclosed"})
"""Values that say a cell is unknown (compared in lower case): a state, never advice."""

MOST_DECIMALS = 6  # a number with more decimals has no step
COMMENT_COLUMN = 80  # comments start after the declarations, aligned up to here


@dataclass(frozen=True)
class FeatureDraft:
    """One feature of the draft: its settings (:class:`~mc3g.schema.Feature` fields) and the
    comments written beside it: ``guesses`` (what was guessed, and the evidence) and ``notes``
    (facts); ``record``: it seems to describe the record (an identifier, a weight), not the person;
    ``guarded``: a protection was proposed for it (:mod:`.protections`); ``directed``: which way
    advice may move it was guessed (:mod:`.directions`)."""

    name: str
    settings: dict[str, Any]
    guesses: tuple[tuple[str, str], ...] = ()
    notes: tuple[str, ...] = ()
    record: bool = False
    guarded: bool = False
    directed: bool = False


@dataclass(frozen=True)
class Draft:
    """Causal knowledge drafted from ``rows`` rows of ``source`` whose decision is the column
    ``target`` (``classes``: each of its values and how many rows have it)."""

    source: str
    rows: int
    target: str
    classes: Mapping[str, int]
    favourable: str | None
    features: tuple[FeatureDraft, ...]
    dependencies: tuple[Dependency, ...] = ()
    guessed: bool = True
    left_out: tuple[str, ...] = field(default=())

    @property
    def protected(self) -> list[str]:
        """The features the draft proposes to protect: a protected characteristic, age, a row's
        identifier or weight."""
        return [f.name for f in self.features if f.guarded]

    @property
    def directed(self) -> list[str]:
        """The features whose way the draft guessed (time, a history, a career, an amount owed,
        the way the data favour)."""
        return [f.name for f in self.features if f.directed]

    def knowledge(self) -> CausalModel:
        """What the draft says as it stands (its dependencies are commented out)."""
        return CausalModel(features={f.name: f.settings for f in self.features}, name=f"draft for {self.source}")

    def to_text(self) -> str:
        """The draft as a knowledge file, comments and all; it parses as it is."""
        width = max(len(declaration_line(f.name, {})) for f in self.features) + 1
        lines = [declaration_line(f.name, f.settings, width) for f in self.features]
        column = min(max(map(len, lines)), COMMENT_COLUMN)
        out = [*self._header(), "", "## Features"]
        for f, line in zip(self.features, lines):
            guessed = "guessed: " + "; ".join(f"{what} ({why})" for what, why in f.guesses) if f.guesses else ""
            comment = "; ".join(c for c in (guessed, *f.notes) if c)
            out.append(f"{line:<{column}}  # {comment}" if comment else line)
        if self.guessed:
            out += ["", *self._dependencies()]
        return "\n".join(out) + "\n"

    def _header(self) -> list[str]:
        shares = ", ".join(f"{c!r} {n / self.rows:.1%}" for c, n in self.classes.items())
        favourable = f"; favourable: {self.favourable!r} (give it to mc3g fit as --favourable)" if self.favourable is not None else ""
        return [
            f"# Causal knowledge for {self.source}, drafted by mc3g init: {self.rows:,} rows, {len(self.features)} features.",
            f"# The decision: {self.target} ({shares}){favourable}.",
            "#",
            "# Review every line before use. What the data show is written as it is: each feature's kind",
            "# and its categories, or the range of its numbers, which bounds where advice may take them.",
            "# What was guessed says so in its comment, with its evidence: keep it, change it or delete it."
            if self.guessed
            else "# Nothing was guessed (--no-guess): steps, protections and dependencies are yours to write.",
            "# Then check the file against the data (mc3g check FILE --data DATA) and give it to mc3g fit",
            "# with --causal. The format: docs/causal-knowledge.md.",
        ]

    def _dependencies(self) -> list[str]:
        out = [
            "## Dependencies found in the data",
            "## Each holds in (nearly) every row with enough support. Which way cause and effect run is",
            "## yours to say, so each is written as a constraint, a combination no state may have:",
            "## uncomment those that are true of the world, or write them as causal rules (EFFECT <- CAUSE).",
            "## Numbers are left out as conditions (a threshold implying a category is most often a",
            f"## correlation), and so are columns of more than {MOST_VALUES} values.",
        ]
        if not self.dependencies:
            return [*out, "## (none found)"]
        categorical = {f.name for f in self.features if f.settings.get("kind") == "categorical"}
        for d in self.dependencies:
            out.append(f"# {statement_line(d.constraint, categorical)}  # {d.evidence(self.rows)}")
        return out


def draft(frame: pd.DataFrame, target: str, *, favourable: Any = None, guess: bool = True, source: str = "the data", most: int = MOST) -> Draft:
    """A draft of causal knowledge for the rows of ``frame`` whose decision is the column
    ``target`` (``favourable``: its good value, if given, checked and recorded); ``guess=False``
    writes each feature's kind and its categories or range alone.  See the module's description."""
    classes = decision_classes(frame, target, source)
    if favourable is not None and str(favourable) not in classes:
        raise InputError(f"--favourable {favourable!r} is not a value of {target!r} in {source}: its values are {list(classes)}")
    features = frame.drop(columns=[target])
    good = _favourable(frame[target], list(classes), favourable, target)
    drafts = tuple(_feature(str(name), features[name], len(frame), guess, good) for name in features.columns)
    found: tuple[Dependency, ...] = ()
    if guess:
        usable = [f for f in drafts if not f.record]  # an identifier's or a weight's dependencies are no news
        categorical = [f.name for f in usable if f.settings["kind"] == "categorical"]
        numeric = [f.name for f in usable if f.settings["kind"] == "numeric"]
        found = tuple(dependencies(features, categorical, numeric, most))
    return Draft(source, len(frame), target, classes, None if favourable is None else str(favourable), drafts, found, guess)


def _favourable(decisions: pd.Series, classes: list[str], favourable: Any, target: str) -> pd.Series | None:
    """Whether each row's decision is the favourable one: ``favourable`` when given, else the
    value its word names (approved, yes); None when neither says."""
    try:
        good, _ = favourable_value(classes, favourable, target)
    except InputError:
        return None
    return decisions.astype(str).map(token).eq(good).astype(float)


def _feature(name: str, values: pd.Series, rows: int, guess: bool, good: pd.Series | None = None) -> FeatureDraft:
    numeric = pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)
    missing = int(values.isna().sum())
    notes = [f"{missing:,} cell(s) missing: mc3g refuses a row with a missing cell"] if missing else []
    if numeric:
        numbers = pd.to_numeric(values, errors="coerce").to_numpy(np.float64)
        present = numbers[~np.isnan(numbers)]
        settings: dict[str, Any] = {"kind": "numeric", "range": (plain(present.min()), plain(present.max()))} if len(present) else {"kind": "numeric"}
    else:
        domain = tuple(str(c) for c in Column.from_values(values.dropna()).categories)
        settings = {"kind": "categorical"}
        if len(domain) <= MOST_LISTED:
            settings["domain"] = domain
        else:
            notes.append(f"{len(domain):,} values, not listed: the data's are taken")
    if values.nunique(dropna=True) == 1:
        notes.append("the same in every row")
    if not guess:
        return FeatureDraft(name, settings, (), tuple(notes))
    guesses, proposal, way = _guesses(name, values, numeric, rows, settings, good)
    return FeatureDraft(name, settings, tuple(guesses), tuple(notes), proposal is not None and proposal.record, proposal is not None, way)


def _guesses(
    name: str, values: pd.Series, numeric: bool, rows: int, settings: dict[str, Any], good: pd.Series | None
) -> tuple[list[tuple[str, str]], Proposal | None, bool]:
    """Lay the guessed settings over ``settings`` and say, for each, what it is and why; the
    protection proposed, and whether which way advice may move it was guessed (``good``: whether
    each row's decision is favourable: :mod:`.directions`)."""
    guesses = []
    if numeric and "range" in settings:
        numbers = pd.to_numeric(values, errors="coerce").dropna().to_numpy(np.float64)
        step = inferred_step(numbers)
        if step is not None:
            settings["step"] = step[0]
            guesses.append((f"step {plain(step[0])}", step[1]))
        if settings["range"][0] >= 0:
            settings["valid"] = (0, LARGEST)
            guesses.append(("valid from 0", "never negative here: a negative value is refused"))
    proposal = protection(name, values, numeric, rows)
    if proposal is not None:
        settings.update(proposal.settings)
        what = "immutable" if proposal.settings.get("immutable") else ", ".join(_item(k, v) for k, v in proposal.settings.items())
        guesses.append((what, proposal.reason))
    elif not numeric and "domain" in settings:
        unknown = [v for v in settings["domain"] if v.lower() in UNKNOWN]
        if unknown and len(unknown) < len(settings["domain"]):
            settings["unknown"] = tuple(unknown)
            guesses.append(("unknown", f"{', '.join(map(repr, unknown))} says the value is unknown: a person may have it, advice never moves to it"))
    way = direction(name, values, numeric, settings.get("domain"), good) if proposal is None else None
    if way is not None:
        settings.update(way[0])
        guesses.append((", ".join(_item(k, v) for k, v in way[0].items() if k != "efforts"), way[1]))
    return guesses, proposal, way is not None


def inferred_step(numbers: np.ndarray) -> tuple[float, str] | None:
    """The coarsest step every number is a multiple of, and why (whole numbers: 1; multiples of
    100: 100; prices in cents: 0.01); None when they have more than :data:`MOST_DECIMALS` decimals."""
    numbers = numbers[np.isfinite(numbers)]
    if not len(numbers):
        return None
    for decimals in range(MOST_DECIMALS + 1):
        scaled = numbers * 10**decimals
        if np.abs(scaled).max() >= 2**53:
            return None
        whole = np.round(scaled)
        if np.all(np.abs(scaled - whole) <= 1e-9 * np.maximum(1, np.abs(scaled))):
            nonzero = np.abs(whole[whole != 0]).astype(np.int64)
            divisor = int(np.gcd.reduce(nonzero)) if len(nonzero) else 1
            step = divisor / 10**decimals
            if decimals == 0:
                return float(step), "whole numbers" if divisor == 1 else f"every value is a multiple of {divisor:,}"
            return float(step), f"every value is a multiple of {step:g}"
    return None


def _item(key: str, value: Any) -> str:
    """A proposed setting as the format writes it."""
    if key == "direction":
        return f"{value}-only"
    if key == "moves":
        return "moves"
    if key == "waits":
        return f'waits "{value}"' if value else key
    return f"max-change {plain(value)}" if key == "max_change" else key
