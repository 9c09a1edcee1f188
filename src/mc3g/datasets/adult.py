"""UCI Adult census income, as UCI publishes it and as the MC3G authors split it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from .build import AGE, NOT_NEGATIVE, Spec, make_dataset
from .dataset import Dataset
from .files import check_cells, check_values, locate, read_table

_ADULT_UCI_COLUMNS = (
    "age", "workclass", "fnlwgt", "education", "education_num", "marital_status", "occupation",
    "relationship", "race", "sex", "capital_gain", "capital_loss", "hours_per_week", "native_country", "income",
)  # fmt: skip
_ADULT_PAPER_HEADER = (
    "Age", "Workclass", "Fnlwgt", "Education_num", "Marital_Status", "Occupation", "Relationship",
    "Race", "Sex", "Capital_gain", "Hours_per_week", "Native_country", "Label",
)  # fmt: skip
_ADULT_PAPER_COLUMNS = tuple(c for c in _ADULT_UCI_COLUMNS if c not in ("education", "capital_loss"))
_ADULT_CLASSES = ("<=50K", ">50K")
_UNKNOWN = "'?' = unknown, kept as a value"

# The values of each categorical column, as UCI's adult.names lists them ('?' marks an unknown).
_WORKCLASS = ("Private", "Self-emp-not-inc", "Self-emp-inc", "Federal-gov", "Local-gov", "State-gov", "Without-pay", "Never-worked", "?")
_EDUCATION = (
    "Bachelors", "Some-college", "11th", "HS-grad", "Prof-school", "Assoc-acdm", "Assoc-voc", "9th", "7th-8th", "12th", "Masters",
    "1st-4th", "10th", "Doctorate", "5th-6th", "Preschool",
)  # fmt: skip
_MARITAL_STATUS = ("Married-civ-spouse", "Divorced", "Never-married", "Separated", "Widowed", "Married-spouse-absent", "Married-AF-spouse")
_OCCUPATION = (
    "Tech-support", "Craft-repair", "Other-service", "Sales", "Exec-managerial", "Prof-specialty", "Handlers-cleaners",
    "Machine-op-inspct", "Adm-clerical", "Farming-fishing", "Transport-moving", "Priv-house-serv", "Protective-serv", "Armed-Forces", "?",
)  # fmt: skip
_RELATIONSHIP = ("Wife", "Own-child", "Husband", "Not-in-family", "Other-relative", "Unmarried")
_RACE = ("White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black")
_NATIVE_COUNTRY = (
    "United-States", "Cambodia", "England", "Puerto-Rico", "Canada", "Germany", "Outlying-US(Guam-USVI-etc)", "India", "Japan",
    "Greece", "South", "China", "Cuba", "Iran", "Honduras", "Philippines", "Italy", "Poland", "Jamaica", "Vietnam", "Mexico",
    "Portugal", "Ireland", "France", "Dominican-Republic", "Laos", "Ecuador", "Taiwan", "Haiti", "Columbia", "Hungary", "Guatemala",
    "Nicaragua", "Scotland", "Thailand", "Yugoslavia", "El-Salvador", "Trinadad&Tobago", "Peru", "Hong", "Holand-Netherlands", "?",
)  # fmt: skip


# What a person reads for each value: the words of the UCI documentation (adult.names), with the
# education levels in order, 1 (Preschool) to 16 (Doctorate), as education_num codes them.
_EDUCATION_LEVELS = (
    ("Preschool", "preschool"), ("1st-4th", "1st to 4th grade"), ("5th-6th", "5th or 6th grade"), ("7th-8th", "7th or 8th grade"),
    ("9th", "9th grade"), ("10th", "10th grade"), ("11th", "11th grade"), ("12th", "12th grade, no diploma"),
    ("HS-grad", "high school graduate"), ("Some-college", "some college"), ("Assoc-voc", "associate degree (vocational)"),
    ("Assoc-acdm", "associate degree (academic)"), ("Bachelors", "bachelor's degree"), ("Masters", "master's degree"),
    ("Prof-school", "professional school"), ("Doctorate", "doctorate"),
)  # fmt: skip
_UNKNOWN_WORDS = {"?": "unknown"}
_WORDS: dict[str, dict[str, str]] = {
    "workclass": {
        "Private": "private sector", "Self-emp-not-inc": "self-employed (not incorporated)", "Self-emp-inc": "self-employed (incorporated)",
        "Federal-gov": "federal government", "Local-gov": "local government", "State-gov": "state government",
        "Without-pay": "without pay", "Never-worked": "never worked", **_UNKNOWN_WORDS,
    },
    "education": dict(_EDUCATION_LEVELS),
    "marital_status": {
        "Married-civ-spouse": "married (civilian spouse)", "Divorced": "divorced", "Never-married": "never married", "Separated": "separated",
        "Widowed": "widowed", "Married-spouse-absent": "married (spouse absent)", "Married-AF-spouse": "married (armed forces spouse)",
    },
    "occupation": {
        "Tech-support": "technical support", "Craft-repair": "craft and repair", "Other-service": "other service", "Sales": "sales",
        "Exec-managerial": "executive or managerial", "Prof-specialty": "professional specialty", "Handlers-cleaners": "handler or cleaner",
        "Machine-op-inspct": "machine operator or inspector", "Adm-clerical": "administrative or clerical", "Farming-fishing": "farming or fishing",
        "Transport-moving": "transport and moving", "Priv-house-serv": "private household service", "Protective-serv": "protective service",
        "Armed-Forces": "armed forces", **_UNKNOWN_WORDS,
    },
    "relationship": {
        "Wife": "wife", "Own-child": "own child", "Husband": "husband", "Not-in-family": "not in a family", "Other-relative": "other relative",
        "Unmarried": "unmarried",
    },
    "race": {
        "White": "White", "Asian-Pac-Islander": "Asian or Pacific Islander", "Amer-Indian-Eskimo": "American Indian or Eskimo", "Other": "other",
        "Black": "Black",
    },
    "sex": {"Female": "female", "Male": "male"},
    "native_country": {
        **{country: country.replace("-", " ") for country in _NATIVE_COUNTRY},
        "Outlying-US(Guam-USVI-etc)": "outlying US territories (Guam, US Virgin Islands, ...)", "Trinadad&Tobago": "Trinidad and Tobago",
        "Hong": "Hong Kong", "Holand-Netherlands": "Netherlands", "Columbia": "Colombia", **_UNKNOWN_WORDS,
    },
}  # fmt: skip


def _said(name: str, label: str) -> dict[str, object]:
    """A categorical column's label and the words of its values; '?' (UCI's mark of an unknown
    value) as a value that means unknown, which a person may have and advice never gives."""
    return {"label": label, "value_labels": _WORDS[name], **({"unknown": ("?",)} if "?" in _WORDS[name] else {})}


_ADULT = Spec(
    label="income",
    numeric=("age", "fnlwgt", "education_num", "capital_gain", "capital_loss", "hours_per_week"),
    features={
        "age": {"valid": AGE, "direction": "increase", "protected": True, "description": "age in years; only grows"},
        "workclass": {
            "domain": tuple(sorted(_WORKCLASS)), "description": "kind of employer, or unknown",
            **_said("workclass", "type of employer"),
        },
        "fnlwgt": {"valid": NOT_NEGATIVE, "description": "census sampling weight: how many people the row stands for", "label": "census weight"},
        "education": {
            "domain": tuple(sorted(_EDUCATION)), "description": "highest education, in words (the same as the education level)",
            **_said("education", "education"),
        },
        "education_num": {
            "valid": (1.0, 16.0), "direction": "increase",
            "description": "highest education, from preschool to doctorate; only grows",
            "label": "education level", "value_labels": {level: words for level, (_, words) in enumerate(_EDUCATION_LEVELS, 1)},
        },
        "marital_status": {
            "domain": tuple(sorted(_MARITAL_STATUS)), "protected": True, "description": "marital status",
            **_said("marital_status", "marital status"),
        },
        "occupation": {
            "domain": tuple(sorted(_OCCUPATION)), "description": "occupation, or unknown",
            **_said("occupation", "occupation"),
        },
        "relationship": {
            "domain": tuple(sorted(_RELATIONSHIP)), "protected": True, "description": "role in the household (marital status by another name)",
            **_said("relationship", "household relationship"),
        },
        "race": {
            "domain": tuple(sorted(_RACE)), "immutable": True, "protected": True, "description": "race as recorded by the census", **_said("race", "race"),
        },
        "sex": {"domain": ("Female", "Male"), "immutable": True, "protected": True, "description": "sex as recorded by the census", **_said("sex", "sex")},
        "capital_gain": {"valid": NOT_NEGATIVE, "description": "capital gains in the year (USD)"},
        "capital_loss": {"valid": NOT_NEGATIVE, "description": "capital losses in the year (USD)"},
        "hours_per_week": {"valid": (0.0, 168.0), "description": "hours worked per week"},
        "native_country": {
            "domain": tuple(sorted(_NATIVE_COUNTRY)), "immutable": True, "protected": True, "description": "country of birth, or unknown",
            **_said("native_country", "country of birth"),
        },
    },
)  # fmt: skip
_ADULT_PAPER = Spec(
    label=_ADULT.label,
    numeric=tuple(c for c in _ADULT.numeric if c != "capital_loss"),
    features={
        **{name: settings for name, settings in _ADULT.features.items() if name not in ("education", "capital_loss")},
        "capital_gain": {"description": "capital gains minus capital losses in the year (USD); may be negative"},
    },
)


def _read(rel: str, data_dir: Path | str | None, columns: Sequence[str], spec: Spec, **options: Any) -> pd.DataFrame:
    path = locate(rel, data_dir)
    frame = read_table(path, columns, **options)
    check_cells(frame, spec.declared(), path)
    frame["income"] = frame["income"].str.removesuffix(".")  # adult.test writes "<=50K."
    check_values(frame, "income", _ADULT_CLASSES, path)
    return frame.reset_index(drop=True)


def load_adult(split: str, data_dir: Path | str | None) -> Dataset:
    if split == "uci":
        frames = [_read(rel, data_dir, _ADULT_UCI_COLUMNS, _ADULT, comment="|") for rel in ("adult/adult.data", "adult/adult.test")]
        notes = (
            "UCI adult.data (train) and adult.test (test); the test file's comment line and the dots "
            f"after its labels are removed. {_UNKNOWN} in workclass, occupation and native_country."
        )
        return make_dataset("adult", split, *frames, _ADULT, "<=50K", notes)
    columns, header = _ADULT_PAPER_COLUMNS, _ADULT_PAPER_HEADER
    frames = [_read(f"paper-splits/adult/{part}_fold_1.csv", data_dir, columns, _ADULT_PAPER, header=header) for part in ("train", "test")]
    notes = (
        "The MC3G authors' 80/20 split (fold 1) of adult.data: no education or capital_loss column, "
        f"capital_gain is capital gain minus capital loss. {_UNKNOWN}."
    )
    return make_dataset("adult", split, *frames, _ADULT_PAPER, "<=50K", notes)
