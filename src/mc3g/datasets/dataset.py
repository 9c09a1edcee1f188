"""A data set as the experiments use it: train and test frames with their schema."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ..schema import Schema


@dataclass(frozen=True)
class Dataset:
    """Train and test frames (features and label) with their schema."""

    name: str
    split: str
    train: pd.DataFrame
    test: pd.DataFrame
    schema: Schema

    @property
    def X_train(self) -> pd.DataFrame:
        return self.train[self.schema.feature_names]

    @property
    def y_train(self) -> pd.Series:
        return self.train[self.schema.label]

    @property
    def X_test(self) -> pd.DataFrame:
        return self.test[self.schema.feature_names]

    @property
    def y_test(self) -> pd.Series:
        return self.test[self.schema.label]
