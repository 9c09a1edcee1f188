"""A model's decision read as a sum over the raw features a person has: trees and linear terms.

Every model read here decides by the sign of one number, its *margin*: positive is the
favourable decision.  The margin is ``bias`` plus the value of the leaf each tree reaches plus,
for a linear model, a term per feature (a slope times a number, or a weight per category).  A
tree tests one raw feature at a node: a number ``value <= cut`` (the cut found on the model's
own arithmetic, so the test is exact for every float) or a category ``value in members``.  The
margin computed here in float64 differs from the model's own by rounding only; ``tolerance``
bounds that difference, so a margin farther from 0 than it gives the model's decision, and one
nearer is left to the model itself.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from ..rules import token

FACTORIZED = 64  # values past which a category's codes are found once per distinct value


@dataclass(frozen=True, eq=False)
class Splits:
    """The tests of one raw feature: a number's ``cuts`` (``value <= cut`` takes ``yes``), or a
    category's ``members`` (a row per test, a column per value of ``domain``).  A number's test
    may have a ``hole``, a stretch ``low < value <= high`` where ``inside`` says the test's truth
    instead (NaN ends: none): where the model reads the value's column as missing, or where a
    one-hot bin's column is 1."""

    cuts: np.ndarray | None = None
    members: np.ndarray | None = None
    domain: tuple[str, ...] = ()
    holes: np.ndarray | None = None
    inside: np.ndarray | None = None

    @property
    def numeric(self) -> bool:
        return self.cuts is not None

    def truth(self, values: Sequence[float] | np.ndarray) -> np.ndarray:
        """A number's tests on ``values``: a row per test, a column per value."""
        assert self.cuts is not None
        x = np.asarray(values, dtype=np.float64)[None, :]
        truth = x <= self.cuts[:, None]
        if self.holes is None or self.inside is None:
            return truth
        return np.where((self.holes[:, :1] < x) & (x <= self.holes[:, 1:]), self.inside[:, None], truth)

    @property
    def points(self) -> np.ndarray:
        """Where a number's tests change, the holes' ends included."""
        assert self.cuts is not None
        return self.cuts if self.holes is None else np.concatenate([self.cuts, self.holes[~np.isnan(self.holes)]])

    def codes(self, values: Sequence[Any]) -> np.ndarray:
        """Each category's place in the domain (-1 where it is not in it)."""
        where = {v: i for i, v in enumerate(self.domain)}
        if len(values) < FACTORIZED:
            return np.array([where.get(token(v), -1) for v in values], dtype=np.int64)
        at, distinct = pd.factorize(np.asarray(values, dtype=object), use_na_sentinel=True)  # many rows, a few values
        places = np.array([where.get(token(v), -1) for v in distinct] + [-1], dtype=np.int64)  # a missing value (-1) is in no domain
        return places[at]


@dataclass(frozen=True, eq=False)
class Trees:
    """Trees in arrays, node by node: the feature tested (its place in the box's features; -1 at
    a leaf), which of its tests, the child when it holds (``yes``) and when it does not
    (``no``), and each leaf's value (toward the favourable decision); ``roots``, one per tree."""

    feature: np.ndarray
    test: np.ndarray
    yes: np.ndarray
    no: np.ndarray
    value: np.ndarray
    roots: np.ndarray

    @property
    def size(self) -> int:
        return len(self.feature)

    def leaves(self, truth: np.ndarray, column: np.ndarray) -> np.ndarray:
        """The leaf each tree reaches for each row (a row per row, a column per tree), where
        ``truth`` holds each row's tests (a column per test) and ``column[node]`` is the column
        of a node's test (a level of every tree at a time: the rows' nodes move together)."""
        node = np.tile(self.roots, (len(truth), 1))
        rows = np.arange(len(truth))[:, None]
        inner = self.feature >= 0
        while True:
            moving = inner[node]
            if not moving.any():
                return node
            node = np.where(moving, np.where(truth[rows, column[node]], self.yes[node], self.no[node]), node)


@dataclass(frozen=True, eq=False)
class GlassBox:
    """A model's decision read exactly: the raw ``features`` it reads and each one's ``splits``,
    its ``trees`` (None for a linear model), its linear ``slopes`` (a number's) and ``weights``
    (a category's, per value of its domain), the ``bias``, the ``tolerance`` of the margin
    computed here, and what was read (``kind``: the estimator's class, ``size``: its nodes or
    terms); ``headroom``, how far past 0 an option's margin must be (a margin on the model's
    probability, :class:`~mc3g.models.Robustness`: the options' box is :meth:`for_options`);
    ``other_cuts``, where other models that judge the options (retrained) cut each number."""

    kind: str
    features: tuple[str, ...]
    splits: tuple[Splits, ...]
    trees: Trees | None
    bias: float
    tolerance: float
    slopes: Mapping[str, float] = field(default_factory=dict)
    weights: Mapping[str, np.ndarray] = field(default_factory=dict)
    headroom: float = 0.0
    other_cuts: Mapping[str, np.ndarray] = field(default_factory=dict)  # other models' tests of each number (retrained ones'): candidates too

    def for_options(self) -> GlassBox:
        """The box whose positive margin is an option's: past the decision by the headroom."""
        return self if not self.headroom else replace(self, bias=self.bias - self.headroom, headroom=0.0)

    @property
    def linear(self) -> bool:
        """Whether the model is a linear score (its numbers in steps read as trees of one feature each)."""
        return self.trees is None or bool(self.slopes or self.weights)

    @property
    def size(self) -> int:
        """Nodes of the trees, or terms of a linear model (a number's steps one each)."""
        if not self.linear:
            return self.trees.size  # type: ignore[union-attr]
        steps = 0 if self.trees is None else int((self.trees.feature < 0).sum())
        return len(self.slopes) + sum(len(w) for w in self.weights.values()) + steps

    def fingerprint(self) -> str:
        """The SHA-256 of what was read: a model read again (a saved explainer loaded) must give
        the same."""
        said = (self.kind, self.features, self.bias, self.tolerance, sorted(self.slopes.items())) + ((self.headroom,) if self.headroom else ())
        digest = hashlib.sha256(repr(said).encode())
        for split in self.splits:
            for array in (split.cuts, split.members):
                digest.update(b"-" if array is None else np.ascontiguousarray(array).tobytes())
            for array in (split.holes, split.inside) if split.holes is not None else ():  # a reading without holes digests as it did
                digest.update(np.ascontiguousarray(array).tobytes())
            digest.update(repr(split.domain).encode())
        arrays = () if self.trees is None else (self.trees.feature, self.trees.test, self.trees.yes, self.trees.no, self.trees.value, self.trees.roots)
        for array in (*arrays, *(self.weights[name] for name in sorted(self.weights))):
            digest.update(np.ascontiguousarray(array).tobytes())
        return digest.hexdigest()

    def margins(self, columns: Mapping[str, Sequence[Any]]) -> np.ndarray:
        """The margin of each row, the rows given as a column of values per feature read."""
        rows = len(next(iter(columns.values()))) if columns else 0
        total = np.full(rows, self.bias)
        if self.trees is not None:
            truth = []
            for f, split in zip(self.features, self.splits):
                if split.numeric:
                    truth.append(split.truth(columns[f]).T)
                else:
                    truth.append(split.members[:, split.codes(columns[f])].T)  # type: ignore[index]
            table = np.concatenate([*truth, np.zeros((rows, 1), dtype=bool)], axis=1)  # a last column for the leaves, never read
            total += self.trees.value[self.trees.leaves(table, self._columns)].sum(axis=1)
        for name, slope in self.slopes.items():
            total += slope * np.asarray(columns[name], dtype=np.float64)
        for name, weights in self.weights.items():
            total += weights[self.splits[self.features.index(name)].codes(columns[name])]
        return total

    @cached_property
    def _columns(self) -> np.ndarray:
        """The column of each node's test in :meth:`margins`' table of every feature's tests laid
        side by side (a leaf's: the last, which it never reads)."""
        assert self.trees is not None
        widths = [len(s.cuts) if s.numeric else len(s.members) for s in self.splits]  # type: ignore[arg-type]
        starts = np.concatenate([[0], np.cumsum(widths)]).astype(np.int64)
        inner = self.trees.feature >= 0
        return np.where(inner, starts[:-1][np.where(inner, self.trees.feature, 0)] + self.trees.test, starts[-1])

    def verdicts(self, margins: np.ndarray) -> np.ndarray:
        """+1 where the model accepts, -1 where it refuses, 0 where only it can tell (the margin
        within the tolerance of 0)."""
        return np.where(margins > self.tolerance, 1, np.where(margins < -self.tolerance, -1, 0))
