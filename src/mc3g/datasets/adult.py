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


_ADULT = Spec(
    label="income",
    numeric=("age", "fnlwgt", "education_num", "capital_gain", "capital_loss", "hours_per_week"),
    features={
        "age": {"valid": AGE, "direction": "increase", "description": "age in years; only grows"},
        "workclass": {"domain": tuple(sorted(_WORKCLASS)), "description": f"kind of employer (Private, Self-emp-inc, State-gov, ...; {_UNKNOWN})"},
        "fnlwgt": {"valid": NOT_NEGATIVE, "description": "census sampling weight: how many people the row stands for"},
        "education": {"domain": tuple(sorted(_EDUCATION)), "description": "highest education as text (same information as education_num)"},
        "education_num": {
            "valid": (1.0, 16.0),
            "direction": "increase",
            "description": "highest education as a number, 1 (Preschool) to 16 (Doctorate); only grows",
        },
        "marital_status": {"domain": tuple(sorted(_MARITAL_STATUS)), "description": "marital status (Married-civ-spouse, Never-married, Divorced, ...)"},
        "occupation": {"domain": tuple(sorted(_OCCUPATION)), "description": f"occupation (Prof-specialty, Craft-repair, ...; {_UNKNOWN})"},
        "relationship": {"domain": tuple(sorted(_RELATIONSHIP)), "description": "role in the household (Husband, Wife, Own-child, Not-in-family, ...)"},
        "race": {"domain": tuple(sorted(_RACE)), "immutable": True, "description": "race as recorded by the census"},
        "sex": {"domain": ("Female", "Male"), "immutable": True, "description": "sex as recorded by the census"},
        "capital_gain": {"valid": NOT_NEGATIVE, "description": "capital gains in the year (USD)"},
        "capital_loss": {"valid": NOT_NEGATIVE, "description": "capital losses in the year (USD)"},
        "hours_per_week": {"valid": (0.0, 168.0), "description": "hours worked per week"},
        "native_country": {"domain": tuple(sorted(_NATIVE_COUNTRY)), "immutable": True, "description": f"country of birth ({_UNKNOWN})"},
    },
)
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
