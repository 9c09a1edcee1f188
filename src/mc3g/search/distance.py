"""Distances between a person and a candidate state (MC3G's ``compute_weighted_Lp``).

A numeric change is measured in units of the feature's spread in the training data (the sample
standard deviation, or the median absolute deviation); a categorical change counts 1.  Weighted
L0 counts changes, L1 sums ``w·|Δ|``, L2 is ``sqrt(Σ w·Δ²)`` (or the plain sum with
``root=False``, as the paper's Algorithm 4 writes it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd

from ..moves import effort
from ..params import OneOf, validate
from ..rules import token
from ..schema import Feature
from .space import decimal

NORMS = ("l0", "l1", "l2")
POWERS = {"l0": 0, "l1": 1, "l2": 2}  # of a change's size in each norm
SCALINGS = ("std", "mad")


def spread(values: pd.Series, scaling: str = "std") -> float:
    """The unit of change of a numeric feature.

    The MAD is 0 for a feature most people share one value of (capital gain: mostly 0); it then
    falls back to the standard deviation, and that to 1 for a constant feature.
    """
    validate({"scaling": scaling}, {"scaling": [OneOf(SCALINGS)]})
    numbers = pd.to_numeric(values, errors="coerce").dropna().to_numpy(np.float64)
    if len(numbers) < 2:
        return 1.0
    for s in (float(np.median(np.abs(numbers - np.median(numbers)))) if scaling == "mad" else 0.0, float(np.std(numbers, ddof=1))):
        if s > 0 and math.isfinite(s):
            return s
    return 1.0


def change_size(feature: Feature, before: Any, after: Any, unit: float) -> float:
    """A change's size before the norm: in ``unit`` (the feature's spread) for a number, the
    move's effort for a category (1 unless the knowledge says); 0 where nothing changed."""
    if feature.is_numeric:
        return abs(float(after) - float(before)) / unit
    return effort(feature.efforts, token(before), token(after))


@dataclass(frozen=True)
class Distance:
    """How a change of one feature is priced: ``term`` per feature, then combined by the norm."""

    norm: str = "l1"
    root: bool = True

    def __post_init__(self) -> None:
        validate({"norm": self.norm}, {"norm": [OneOf(NORMS)]})

    def size(self, change: float) -> float:
        """The norm's measure of one change: 1 if any (L0), ``|change|`` (L1) or ``change²`` (L2);
        exact for an exact ``change``."""
        if self.norm == "l0":
            return 1 if change else 0
        return abs(change) if self.norm == "l1" else change * change

    def term(self, delta: float, weight: float) -> float:
        """The contribution of one changed feature; ``delta`` is in spread units (1 for categories)."""
        return weight * self.size(delta)

    def factor(self, unit: Fraction, weight: float) -> Fraction:
        """The exact term of a change of one ``unit`` (its weight taken as the decimal it is
        written as): a change of ``n`` units costs ``factor × size(n)``."""
        return decimal(weight) * unit ** POWERS[self.norm]

    def total(self, terms_sum: float) -> float:
        """The distance from the sum of the terms."""
        return math.sqrt(terms_sum) if self.norm == "l2" and self.root else terms_sum

    @property
    def label(self) -> str:
        return f"{self.norm}" + ("" if self.norm != "l2" or self.root else " (squared)")
