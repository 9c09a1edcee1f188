"""The MC3G authors' data scheme, piece by piece: the training values a numeric feature may take
in one escape box of the decision rules, and the combinations of categories the knowledge forbids."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..rules import Column, Literal


def data_numeric(original: float, box: Sequence[Literal], seen: np.ndarray, data_k: int, lo: float, hi: float) -> tuple[list[float], int]:
    """The authors' candidates for one box: ``data_k`` nearest training values below, at and
    above the original within the box's interval; returns the values and the number of pieces."""
    column = Column.from_values(seen)
    inside = np.ones(len(seen), dtype=bool)
    for lit in box:
        inside &= lit.mask(column)
    inside &= (seen >= lo) & (seen <= hi)
    values = seen[inside]
    below = values[values < original][::-1][:data_k]
    above = values[values > original][:data_k]
    at_original = all(lit.holds(original) for lit in box) and lo <= original <= hi
    pieces = int(len(below) > 0) + int(len(above) > 0) + int(at_original)
    chosen = ([original] if at_original else []) + below.tolist() + above.tolist()
    return chosen, pieces


def forbidden_combo(values: dict[str, Any], forbidden: Sequence[tuple[Literal, ...]]) -> bool:
    return any(all(lit.holds(values[lit.feature]) for lit in combo) for combo in forbidden)
