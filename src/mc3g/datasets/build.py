"""From read frames to a :class:`Dataset`: typed columns, the fixed split, the schema with each
profile's settings for the data set and split (:func:`~mc3g.datasets.shipped.shipped_profiles`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import pandas as pd
from sklearn.model_selection import train_test_split

from ..schema import Feature, Schema, observed_feature
from ..values import LARGEST
from .dataset import Dataset
from .shipped import shipped_profiles

SPLIT_SEED = 0
TEST_SIZE = 0.2

AGE = (0.0, 120.0)
"""The ages a person may have, in years."""
NOT_NEGATIVE = (0.0, LARGEST)
"""A count or an amount that cannot be negative (mc3g takes no number beyond ±LARGEST)."""


@dataclass(frozen=True)
class Spec:
    """What a data set family's schema needs besides the data: label, numeric columns, metadata.
    The metadata declares what a person may have (a categorical ``domain``, a numeric
    ``valid``): every file is checked against it, and it is the schema's."""

    label: str
    numeric: tuple[str, ...]
    features: Mapping[str, Mapping[str, Any]]  # Feature keyword arguments, description included

    def declared(self) -> list[Feature]:
        """The features as the metadata declares them, before any data is read."""
        return [Feature(name, "numeric" if name in self.numeric else "categorical", **settings) for name, settings in self.features.items()]


def make_dataset(
    name: str,
    split: str,
    train: pd.DataFrame,
    test: pd.DataFrame,
    spec: Spec,
    unfavourable: str,
    notes: str,
    features: Sequence[str] | None = None,
) -> Dataset:
    """The Dataset with typed frames and a schema read off them.

    Numeric range = [min, max] over train (step 1 if integral); ``spec.features`` adds the
    declared domains and valid values (the files have been checked against them),
    mutability and descriptions, and may override a range.  ``features`` restricts the schema
    (not the frames) to the experimental setting.
    """
    train, test = _typed(train, spec.numeric), _typed(test, spec.numeric)
    both = pd.concat([train, test])
    made = []
    for col in features or [c for c in train.columns if c != spec.label]:
        numeric = col in spec.numeric
        made.append(observed_feature(col, train[col] if numeric else both[col], numeric, **spec.features.get(col, {})))
    classes = tuple(sorted(both[spec.label].astype(str).unique()))
    schema = Schema(name, tuple(made), spec.label, classes, unfavourable, notes=notes)
    return Dataset(name, split, train, test, replace(schema, profiles=shipped_profiles(schema, split)))


def _typed(frame: pd.DataFrame, numeric: Sequence[str]) -> pd.DataFrame:
    """Numeric columns as int64/float64 (the loaders have refused a file whose numeric column
    holds anything but numbers, naming its line); every other column is object of ``str``."""
    out = frame.copy()
    for col in out.columns:
        out[col] = pd.to_numeric(out[col]) if col in numeric else out[col].astype(object)
    return out


def split_80_20(frame: pd.DataFrame, stratify: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The fixed stratified 80/20 split used where UCI publishes no test file."""
    train, test = train_test_split(frame, test_size=TEST_SIZE, random_state=SPLIT_SEED, stratify=frame[stratify])
    return train.sort_index(), test.sort_index()
