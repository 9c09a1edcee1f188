"""How unlike past applicants a state is: advice should lead somewhere people have been.

A state's distance to a past applicant sums its numbers' differences in units of their spread
and 1 for each category that differs (the distance of the search's L1 norm, before efforts).  A
sample of the training rows (at most :data:`SAMPLE`) is the reference; how far each of them lies
from the nearest other is what is typical, and its :data:`QUANTILE` the bound (never below
:data:`LEAST_TYPICAL`: where most past applicants have a twin, the quantile says nothing).  A state's
*remoteness* is its distance to the nearest past applicant over that bound, or over the person's
own distance where the person is farther (an unusual person is not kept from advice for being
unusual): above 1, the state is unlike every past applicant, as the options FACE and CARLA flag
as implausible are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ..schema import Feature

SAMPLE = 2000  # past applicants kept as the reference
QUANTILE = 0.99  # of their distances to the nearest other: a state farther than this is unlike them
LEAST_TYPICAL = 1.0  # the bound is never below one spread of one number, or one category: many past applicants alike say nothing of how far is unlike
CHUNK = 64  # states compared with every past applicant at once


@dataclass(frozen=True, eq=False)
class PastApplicants:
    """The reference: the ``columns`` compared (``numeric`` or not), each number's ``spreads``,
    each category's ``codes``, the sample's ``rows`` encoded, and ``typical``, the bound."""

    columns: tuple[str, ...]
    numeric: tuple[bool, ...]
    spreads: tuple[float, ...]
    codes: Mapping[str, Mapping[str, int]]
    rows: np.ndarray
    typical: float
    quantile: ClassVar[float] = QUANTILE
    farthest: ClassVar[float] = 1.0  # the remoteness past which a state is unlike every past applicant

    @classmethod
    def of(cls, train: pd.DataFrame, features: Sequence[Feature], spreads: Mapping[str, float], seed: int = 0) -> PastApplicants | None:
        """The reference of the training rows, over ``features`` (those present; a number in its
        unit of ``spreads``, the search's); None when fewer than two rows or no feature."""
        present = [f for f in features if f.name in train.columns]
        if len(train) < 2 or not present:
            return None
        chosen = np.sort(np.random.default_rng(seed).choice(len(train), size=min(SAMPLE, len(train)), replace=False))
        sample = train.iloc[chosen]
        codes = {f.name: {v: i for i, v in enumerate(pd.unique(sample[f.name].astype(str)))} for f in present if not f.is_numeric}
        units = tuple(float(spreads.get(f.name) or 1.0) if f.is_numeric else 1.0 for f in present)
        numeric = tuple(f.is_numeric for f in present)
        bare = cls(tuple(f.name for f in present), numeric, units, codes, np.zeros((0, len(present))), 0.0)
        reference = replace(bare, rows=bare._encoded(sample.to_dict("records")))
        nearest = reference._nearest(reference.rows, own=np.arange(len(reference.rows)))
        return replace(reference, typical=max(float(np.quantile(nearest, QUANTILE)), LEAST_TYPICAL))

    def remoteness(self, person: Mapping[str, Any], states: Sequence[Mapping[str, Any]], base: Mapping[str, Any] | None = None) -> np.ndarray:
        """How unlike past applicants each state is (see the module): above 1, unlike them all.
        With ``base``, a row each state changes in a few features (the person's, as a search's
        states are): its distances are found once and carried over, to the same numbers."""
        if not states:
            return np.zeros(0)
        own = float(self._nearest(self._encoded([person]))[0])
        return self._nearest(self._encoded(states), base=None if base is None else self._encoded([base])[0]) / max(self.typical, own, 1e-12)

    def unlike(self, person: Mapping[str, Any], states: Sequence[Mapping[str, Any]], base: Mapping[str, Any] | None = None) -> np.ndarray:
        """Whether each state is unlike every past applicant: its :meth:`remoteness` above :attr:`farthest`."""
        return self.remoteness(person, states, base) > self.farthest

    def _encoded(self, rows: Sequence[Mapping[str, Any]]) -> np.ndarray:
        out = np.empty((len(rows), len(self.columns)))
        for i, (name, numeric, unit) in enumerate(zip(self.columns, self.numeric, self.spreads)):
            if numeric:
                out[:, i] = [float(row[name]) / unit for row in rows]
            else:
                codes = self.codes[name]
                out[:, i] = [codes.get(str(row[name]), -1) for row in rows]
        return out

    def _nearest(self, points: np.ndarray, own: np.ndarray | None = None, base: np.ndarray | None = None) -> np.ndarray:
        """Each point's distance to the nearest past applicant (``own``: the point's own row, left
        out): the numbers' differences added a column at a time, then the categories that differ,
        counted (a column at a time, half the time of a block of every column at once).  With
        ``base`` (a row the points change in a few columns), the base's numbers' sum is taken by
        the points that keep all its numbers, and its count of categories that differ is
        corrected where a point's category is not the base's: the same numbers, summed in the
        same order, in a fraction of the passes."""
        numbers, categories = self._columns
        if base is not None:
            kept_sum, kept_count = self._differences(base[None, :], numbers, categories)
            at = [j for j, _ in numbers]
        out = np.empty(len(points))
        for start in range(0, len(points), CHUNK):
            block = points[start : start + CHUNK]
            if base is None:
                distance, differ = self._differences(block, numbers, categories)
            else:
                distance, differ = np.repeat(kept_sum, len(block), axis=0), np.repeat(kept_count, len(block), axis=0)
                moved = np.flatnonzero((block[:, at] != base[at]).any(axis=1))
                if len(moved):
                    distance[moved] = self._differences(block[moved], numbers, [])[0]
                for j, column in categories:
                    if len(changed := np.flatnonzero(block[:, j] != base[j])):
                        differ[changed] += (block[changed, j, None] != column[None, :]).astype(np.int64) - (base[j] != column)
            distance += differ
            if own is not None:
                distance[np.arange(len(block)), own[start : start + CHUNK]] = np.inf
            out[start : start + CHUNK] = distance.min(axis=1)
        return out

    def _differences(self, block: np.ndarray, numbers: list[tuple[int, np.ndarray]], categories: list[tuple[int, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
        """The rows of ``block`` against every past applicant: the sum of the ``numbers``'
        differences, and the count of the ``categories`` that differ."""
        distance = np.zeros((len(block), len(self.rows)))
        for j, column in numbers:
            distance += np.abs(block[:, j, None] - column[None, :])
        differ = np.zeros(distance.shape, dtype=np.int64)
        for j, column in categories:
            differ += block[:, j, None] != column[None, :]
        return distance, differ

    @cached_property
    def _columns(self) -> tuple[list[tuple[int, np.ndarray]], list[tuple[int, np.ndarray]]]:
        """The sample's numbers and categories, each column by its place, laid out on its own."""
        columns = [(j, np.ascontiguousarray(self.rows[:, j])) for j in range(len(self.columns))]
        return [c for c in columns if self.numeric[c[0]]], [c for c in columns if not self.numeric[c[0]]]

    def to_dict(self) -> dict[str, Any]:
        return {
            "columns": list(self.columns), "numeric": list(self.numeric), "spreads": list(self.spreads),
            "codes": {name: dict(codes) for name, codes in self.codes.items()}, "rows": self.rows.tolist(), "typical": self.typical,
        }  # fmt: skip

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PastApplicants:
        rows = np.asarray(data["rows"], dtype=np.float64).reshape(-1, len(data["columns"]))
        return cls(tuple(data["columns"]), tuple(data["numeric"]), tuple(data["spreads"]), dict(data["codes"]), rows, float(data["typical"]))
