"""The people a fitted explainer is asked about, from outside Python: the rows of an input file
(every column the explainer reads, each cell one its feature can hold) or one person given as
JSON (every feature the explainer needs, and no feature it does not know)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from ..exceptions import InputError
from ..explain import MC3G
from ..reading import loads
from ..values import suggest
from .files import DataFile, read_data


def needed(explainer: MC3G) -> list[str]:
    """The features the explainer cannot answer without: every column a black box reads, the
    features in play for decision rules."""
    box = explainer.black_box_
    return list(box.columns) if box is not None else list(explainer.features_in_play_)


def people_of(explainer: MC3G, path: str | Path, *, check: bool = True) -> DataFile:
    """The rows of the data file ``path`` for ``explainer``: it must have every column the
    explainer was fitted on (its categorical features are read as text, as they were at fit), and
    with ``check`` every cell of them is one its feature can hold (the first that is not is
    refused, naming its line and column), so that nothing is explained before a bad row is found."""
    schema = explainer.schema_
    columns = [str(c) for c in explainer.feature_names_in_]
    data = read_data(path, categorical=[c for c in columns if c in schema and not schema.feature(c).is_numeric])
    data.require(columns, "the explainer reads")
    if check:
        data.check(schema.feature(c) for c in columns if c in schema)
    return data


def person_of(explainer: MC3G, text: str, option: str = "--person") -> dict[str, Any]:
    """One person given as a JSON object of feature -> value: every feature the explainer needs,
    none it does not know (the nearest known name is suggested); the values are checked when the
    person is explained, as every row's are."""
    try:
        person = loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{option} is not JSON ({exc}): give an object such as '{{\"age\": 38, \"job\": \"clerk\"}}'") from None
    if not isinstance(person, dict):
        raise InputError(f"{option} must be a JSON object of feature -> value, not {type(person).__name__}")
    known = [str(c) for c in explainer.feature_names_in_]
    unknown = [k for k in person if k not in known]
    if unknown:
        raise InputError(f"{option} has unknown feature(s) {unknown}{suggest(unknown[0], known)}; the explainer knows {known}")
    missing = [f for f in needed(explainer) if f not in person]
    if missing:
        raise InputError(f"{option} lacks the feature(s) {missing}, which the explainer needs; give every one of {needed(explainer)}")
    return person


def row_of(data: DataFile, row: int, columns: list[str]) -> pd.Series:
    """Row ``row`` (a position, from 0) of ``data``, named for errors by its line."""
    if not 0 <= row < len(data.frame):
        raise InputError(f"row {row} is out of range: {data.path} has rows 0 to {len(data.frame) - 1}")
    return data.frame[columns].iloc[row].rename(f"{row} ({data.where(row)})")
