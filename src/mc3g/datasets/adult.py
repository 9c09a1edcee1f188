"""UCI Adult census income, as UCI publishes it and as the MC3G authors split it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from .build import Spec, make_dataset
from .dataset import Dataset
from .files import check_numbers, check_values, locate, read_table

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

_ADULT = Spec(
    label="income",
    numeric=("age", "fnlwgt", "education_num", "capital_gain", "capital_loss", "hours_per_week"),
    features={
        "age": {"direction": "increase", "description": "age in years; only grows"},
        "workclass": {"description": f"kind of employer (Private, Self-emp-inc, State-gov, ...; {_UNKNOWN})"},
        "fnlwgt": {"description": "census sampling weight: how many people the row stands for"},
        "education": {"description": "highest education as text (same information as education_num)"},
        "education_num": {
            "direction": "increase",
            "description": "highest education as a number, 1 (Preschool) to 16 (Doctorate); only grows",
        },
        "marital_status": {"description": "marital status (Married-civ-spouse, Never-married, Divorced, ...)"},
        "occupation": {"description": f"occupation (Prof-specialty, Craft-repair, ...; {_UNKNOWN})"},
        "relationship": {"description": "role in the household (Husband, Wife, Own-child, Not-in-family, ...)"},
        "race": {"immutable": True, "description": "race as recorded by the census"},
        "sex": {"immutable": True, "description": "sex as recorded by the census"},
        "capital_gain": {"description": "capital gains in the year (USD)"},
        "capital_loss": {"description": "capital losses in the year (USD)"},
        "hours_per_week": {"description": "hours worked per week"},
        "native_country": {"immutable": True, "description": f"country of birth ({_UNKNOWN})"},
    },
)
_ADULT_PAPER = Spec(
    label=_ADULT.label,
    numeric=tuple(c for c in _ADULT.numeric if c != "capital_loss"),
    features={
        **_ADULT.features,
        "capital_gain": {"description": "capital gains minus capital losses in the year (USD); may be negative"},
    },
)


def _read(rel: str, data_dir: Path | str | None, columns: Sequence[str], numeric: Sequence[str], **options: Any) -> pd.DataFrame:
    path = locate(rel, data_dir)
    frame = read_table(path, columns, **options)
    check_numbers(frame, numeric, path)
    frame["income"] = frame["income"].str.removesuffix(".")  # adult.test writes "<=50K."
    check_values(frame, "income", _ADULT_CLASSES, path)
    return frame.reset_index(drop=True)


def load_adult(split: str, data_dir: Path | str | None) -> Dataset:
    if split == "uci":
        frames = [_read(rel, data_dir, _ADULT_UCI_COLUMNS, _ADULT.numeric, comment="|") for rel in ("adult/adult.data", "adult/adult.test")]
        notes = (
            "UCI adult.data (train) and adult.test (test); the test file's comment line and the dots "
            f"after its labels are removed. {_UNKNOWN} in workclass, occupation and native_country."
        )
        return make_dataset("adult", split, *frames, _ADULT, "<=50K", notes)
    columns, numeric, header = _ADULT_PAPER_COLUMNS, _ADULT_PAPER.numeric, _ADULT_PAPER_HEADER
    frames = [_read(f"paper-splits/adult/{part}_fold_1.csv", data_dir, columns, numeric, header=header) for part in ("train", "test")]
    notes = (
        "The MC3G authors' 80/20 split (fold 1) of adult.data: no education or capital_loss column, "
        f"capital_gain is capital gain minus capital loss. {_UNKNOWN}."
    )
    return make_dataset("adult", split, *frames, _ADULT_PAPER, "<=50K", notes)
