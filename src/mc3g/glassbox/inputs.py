"""The columns a model's estimator reads, as functions of the raw features a person has.

A pipeline's preprocessing (a ``ColumnTransformer`` of one-hot, ordinal and target encoders,
scalers, imputers, a discretizer's bins, passthrough and drop, or one such transformer, and
feature selections after them) turns a row of raw features into the columns its estimator
reads.  Each transformer allowed here maps every raw column on its own, so each input column
depends on one raw feature at most.  Which one is found
by changing one feature at a time in a baseline row and running the preprocessing itself.  A
category's columns are then a table over its values; a number's are a non-decreasing function of
it, evaluated by the preprocessing itself wherever a split needs it, so a threshold is placed on
the model's own arithmetic (its float32 cast included), not on a formula written here; or steps
of it (a discretizer's bins, one-hot or ordinal), each found the same way (:meth:`Inputs.steps`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..models import ChangedRows, typed_frame
from ..values import LARGEST
from .opaque import Opaque

Transform = Callable[[pd.DataFrame], Any]
PROBES = 64  # values of a number its columns are probed at (its training values, spread out)
MOST_STEPS = 4096  # a number's steps read at most (a discretizer's bins)


def column_wise(step: Any) -> bool:
    """Whether a preprocessing step maps each raw column on its own (the kinds named here, a
    pipeline of them, or a ``ColumnTransformer`` of them), or keeps some of its input columns as
    they are (a feature selection: ``SelectKBest``, ``VarianceThreshold``, ...)."""
    from sklearn.compose import ColumnTransformer
    from sklearn.feature_selection import SelectorMixin
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import (
        FunctionTransformer,
        KBinsDiscretizer,
        MaxAbsScaler,
        MinMaxScaler,
        OneHotEncoder,
        OrdinalEncoder,
        RobustScaler,
        StandardScaler,
        TargetEncoder,
    )

    if step is None or (isinstance(step, str) and step in ("passthrough", "drop")):
        return True
    if isinstance(step, FunctionTransformer):  # a fitted ColumnTransformer's passthrough
        return step.func is None
    if isinstance(step, Pipeline):
        return all(column_wise(s) for _, s in step.steps)
    if isinstance(step, ColumnTransformer):
        return all(column_wise(t) for _, t, _ in step.transformers_)
    encoders = (OneHotEncoder, OrdinalEncoder, TargetEncoder, KBinsDiscretizer)
    kinds = (*encoders, StandardScaler, MinMaxScaler, MaxAbsScaler, RobustScaler, SimpleImputer, SelectorMixin)
    return isinstance(step, kinds)


class Inputs:
    """The estimator's input columns of a model whose preprocessing is ``transform`` (None: the
    estimator reads the raw columns themselves), found from a ``baseline`` row (a value of every
    raw column), the values each category may take (``categories``) and the values each number
    was seen at (``numbers``).  ``source[j]`` is the raw feature input column ``j`` depends on
    (None: a constant, ``constant[j]``)."""

    def __init__(
        self,
        transform: Transform | None,
        dtypes: Mapping[str, Any],
        baseline: Mapping[str, Any],
        categories: Mapping[str, Sequence[str]],
        numbers: Mapping[str, np.ndarray],
    ) -> None:
        self._transform = transform
        self.dtypes = dict(dtypes)
        self.baseline = dict(baseline)
        self.categories = {name: tuple(values) for name, values in categories.items()}
        first = typed_frame([self.baseline], self.dtypes)
        given = first if transform is None else transform(first)
        self.sparse = hasattr(given, "toarray")  # a sparse matrix, whose left-out entries XGBoost reads as missing
        self.constant = self._dense(given, len(first))[0]
        self._own = _Own.of(transform, self.dtypes)
        self.source: list[str | None] = [None] * len(self.constant)
        self.tables: dict[int, np.ndarray] = {}  # a category's input column: its value for each of the category's values
        self.falling: set[int] = set()  # a number's input columns that fall somewhere as it rises (a discretizer's one-hot bins)
        self._numbers = numbers
        for name in self.dtypes:
            probes = self.categories[name] if name in self.categories else _spread(numbers.get(name, np.array([0.0])))
            values = self.rows(name, list(probes))
            for j in np.flatnonzero((values != values[:1]).any(axis=0)):
                if self.source[j] is not None:
                    raise Opaque(f"input column {j} of the estimator reads both {self.source[j]!r} and {name!r}")
                self.source[j] = name
                if name in self.categories:
                    self.tables[int(j)] = values[:, j]
                elif np.any(np.diff(values[:, j]) < 0):
                    self.falling.add(int(j))

    def _matrix(self, frame: pd.DataFrame) -> np.ndarray:
        return self._dense(frame if self._transform is None else self._transform(frame), len(frame))

    @staticmethod
    def _dense(out: Any, rows: int) -> np.ndarray:
        matrix = np.asarray(out.toarray() if hasattr(out, "toarray") else out, dtype=np.float64)
        if matrix.ndim != 2 or matrix.shape[0] != rows:
            raise Opaque(f"the preprocessing gave an array of shape {matrix.shape} for {rows} row(s)")
        return matrix

    def rows(self, name: str, values: Sequence[Any]) -> np.ndarray:
        """The estimator's input for the baseline row with ``name`` at each of ``values``."""
        return self.at([(name, v) for v in values])

    def at(self, pairs: Sequence[tuple[str, Any]]) -> np.ndarray:
        """The estimator's input for the baseline row with each pair's feature at its value, a row a
        pair: by the transformers that read the pairs' features alone where the preprocessing is
        one ``ColumnTransformer`` (:class:`_Own`), else by the whole preprocessing."""
        own = None if self._own is None else self._own.at(pairs, self)
        return self._matrix(typed_frame([{**self.baseline, name: v} for name, v in pairs], self.dtypes)) if own is None else own

    def numeric(self, j: int) -> bool:
        return self.source[j] is not None and self.source[j] not in self.categories

    # -- a split on one input column, on its raw feature ----------------------------------------
    def cuts(self, asked: Mapping[int, np.ndarray], strict: bool, single: bool) -> dict[int, np.ndarray]:
        """For numbers' input columns that rise with them (``asked``: each with its thresholds;
        none of :attr:`falling`): per split, the largest value of the number whose column takes
        the branch (the column compared with the threshold, ``<`` when ``strict``, after a
        float32 cast when ``single``), found by bisection on the floats' order with the
        preprocessing itself, every column at once; -inf where no value takes it, +inf where
        every value does."""
        out: dict[int, np.ndarray] = {}
        layers: list[dict[str, int]] = []  # each feature once a layer: its values vary in its own column
        for j in asked:
            name = self.source[j]
            assert name is not None
            layer = next((layer for layer in layers if name not in layer), None)
            if layer is None:
                layers.append(layer := {})
            layer[name] = j
        for layer in layers:
            out.update(self._bisected({name: (j, np.asarray(asked[j], dtype=np.float64)) for name, j in layer.items()}, strict, single))
        return out

    def _bisected(self, asked: Mapping[str, tuple[int, np.ndarray]], strict: bool, single: bool) -> dict[int, np.ndarray]:
        rows = max(len(t) for _, t in asked.values())

        def taken(x: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
            if self._transform is None:  # the estimator reads the numbers as they are: no frame to build
                return {name: _compare(np.asarray(x[name], dtype=np.float64), t, strict, single) for name, (_, t) in asked.items()}
            padded = {name: np.resize(x[name], rows) for name in asked}
            changes = [tuple((name, float(padded[name][i])) for name in asked) for i in range(rows)]
            Z = self._matrix(typed_frame(ChangedRows.around(self.baseline, changes), self.dtypes))
            return {name: _compare(Z[: len(t), j], t, strict, single) for name, (j, t) in asked.items()}

        low = {name: np.full(len(t), -LARGEST) for name, (_, t) in asked.items()}
        high = {name: np.full(len(t), LARGEST) for name, (_, t) in asked.items()}
        never = {name: ~v for name, v in taken(low).items()}
        always = taken(high)
        lo, hi = ({name: _order_key(v[name]) for name in asked} for v in (low, high))
        while True:
            gap = {name: ~(never[name] | always[name]) & (hi[name] - 1 > lo[name]) for name in asked}  # hi - lo may pass int64
            if not any(g.any() for g in gap.values()):
                break
            mid = {name: np.where(gap[name], (lo[name] >> 1) + (hi[name] >> 1) + (lo[name] & hi[name] & 1), lo[name]) for name in asked}
            yes = taken({name: _float_of(m) for name, m in mid.items()})
            for name in asked:
                lo[name] = np.where(gap[name] & yes[name], mid[name], lo[name])
                hi[name] = np.where(gap[name] & ~yes[name], mid[name], hi[name])
        return {j: np.where(never[name], -np.inf, np.where(always[name], np.inf, _float_of(lo[name]))) for name, (j, _) in asked.items()}

    def affine(self, j: int) -> tuple[float, float]:
        """For a number's input column ``j``: its slope and intercept, checked on the values probed."""
        name = self.source[j]
        assert name is not None
        x = np.array([-1.0, 0.0, 1.0, 1e3, 1e6])
        z = self.rows(name, x.tolist())[:, j]
        slope = (z[4] - z[1]) / 1e6
        intercept = z[1]
        if not np.allclose(slope * x + intercept, z, rtol=1e-9, atol=1e-9 * (1 + abs(intercept))):
            raise Opaque(f"the preprocessing maps the number {name!r} to a column that is not a straight line of it")
        return float(slope), float(intercept)

    def steps(self, name: str) -> tuple[np.ndarray, np.ndarray, list[int]]:
        """For a number whose input columns are steps of it (a discretizer's bins): the largest
        value of each step but the last, in order, the number's input columns on each step (a
        row a step), and those columns.  Wherever two of its training values (or the ends of the
        numbers) give different columns, the first change between them is found by bisection on
        the floats' order with the preprocessing itself, then the next, so a step no training
        value falls in is found too, and its column (constant at every value probed) becomes the
        number's; :class:`Opaque` where the columns come back to a step's after leaving it."""
        columns = np.flatnonzero([source in (name, None) for source in self.source])
        seen = np.unique(np.r_[-LARGEST, np.asarray(self._numbers.get(name, np.zeros(0)), dtype=np.float64), LARGEST])
        rows = self.rows(name, seen.tolist())[:, columns]
        changed = np.flatnonzero((rows[1:] != rows[:-1]).any(axis=1))
        low, stop = _order_key(seen[changed]), _order_key(seen[changed + 1])  # the columns differ at these two ends
        starts, ends, found = rows[changed], rows[changed + 1], []
        while len(low):
            high = stop.copy()
            while (gap := high - 1 > low).any():  # the start's columns at low, others at high
                middle = np.where(gap, (low >> 1) + (high >> 1) + (low & high & 1), low)
                same = (self.rows(name, _float_of(middle).tolist())[:, columns] == starts).all(axis=1)
                low, high = np.where(gap & same, middle, low), np.where(gap & ~same, middle, high)
            found += _float_of(low).tolist()  # the last value of a step
            after = self.rows(name, _float_of(high).tolist())[:, columns]
            more = (after != ends).any(axis=1)  # another step before the end
            low, stop, starts, ends = high[more], stop[more], after[more], ends[more]
            if len(found) > MOST_STEPS:
                raise Opaque(f"the preprocessing maps the number {name!r} to columns in more than {MOST_STEPS:,} steps")
        cuts = np.unique(found)
        on = self.rows(name, np.r_[-LARGEST, _float_of(_order_key(cuts) + 1)].tolist())[:, columns]  # the first value of each step
        if len(np.unique(on, axis=0)) < len(on):
            raise Opaque(f"the preprocessing maps the number {name!r} to columns that are no steps of it (they come back to values they left)")
        mine = [i for i, j in enumerate(columns) if self.source[j] == name or (on[:, i] != on[0, i]).any()]
        for i in mine:
            self.source[columns[i]] = name
        return cuts, on[:, mine], [int(columns[i]) for i in mine]


def _compare(values: np.ndarray, thresholds: np.ndarray, strict: bool, single: bool) -> np.ndarray:
    seen = values.astype(np.float32).astype(np.float64) if single else values
    return seen < thresholds if strict else seen <= thresholds


def _spread(values: np.ndarray) -> list[float]:
    """Up to :data:`PROBES` of a number's training values, smallest and largest among them."""
    values = np.unique(np.asarray(values, dtype=np.float64))
    if len(values) <= PROBES:
        return values.tolist() if len(values) > 1 else [*values.tolist(), float(values[0]) + 1 if len(values) else 1.0]
    return values[np.linspace(0, len(values) - 1, PROBES).round().astype(int)].tolist()


_SIGN = np.int64(-(2**63))


def _order_key(x: np.ndarray) -> np.ndarray:
    """Floats as int64 keys in the same order (-0.0 just below 0.0)."""
    bits = np.asarray(x, dtype=np.float64).view(np.int64)
    return np.where(bits >= 0, bits, -(bits & ~_SIGN) - 1)


def _float_of(key: np.ndarray) -> np.ndarray:
    return np.where(key >= 0, key, (-(key + 1)) | _SIGN).view(np.float64)


class _Own:
    """A preprocessing that is one fitted ``ColumnTransformer`` of named columns, by the raw
    feature each transformer reads: the transformer, its raw columns and the input columns it
    writes.  A probe of a few values of a feature then runs its transformer alone, the other
    input columns the baseline's (a one-hot encoder of eight text columns is most of a probe of a
    number: about 7 ms of 16 on adult).  Each transformer's probes are set once against the
    whole preprocessing's, number for number; where they differ it is never taken alone."""

    def __init__(self, parts: list[tuple[Any, list[str], slice]], scales: list[bool]) -> None:
        self.parts = parts
        self.scales = scales  # a scaler of integers and doubles: probed with a float64 array, as it turns their frame into one (8x cheaper)
        self.by_feature = {name: i for i, (_, columns, _) in enumerate(parts) for name in columns}
        self.checked: dict[int, bool] = {}  # a part's probes, set against the whole preprocessing's

    @classmethod
    def of(cls, transform: Transform | None, dtypes: Mapping[str, Any]) -> _Own | None:
        from sklearn.compose import ColumnTransformer
        from sklearn.pipeline import Pipeline
        from sklearn.preprocessing import MaxAbsScaler, MinMaxScaler, RobustScaler, StandardScaler

        owner = getattr(transform, "__self__", None)  # the preprocessing whose transform is given
        step = owner.steps[0][1] if isinstance(owner, Pipeline) and len(owner.steps) == 1 else owner
        if not isinstance(step, ColumnTransformer) or not hasattr(step, "output_indices_"):
            return None
        parts = []
        for name, transformer, columns in step.transformers_:
            if isinstance(transformer, str) and transformer == "drop":
                continue
            if isinstance(transformer, str) or not isinstance(columns, list) or not all(isinstance(c, str) and c in dtypes for c in columns):
                return None  # passthrough as a string, columns by position or mask: the whole preprocessing
            parts.append((transformer, list(columns), step.output_indices_[name]))
        scalers = (StandardScaler, MinMaxScaler, MaxAbsScaler, RobustScaler)
        return cls(parts, [type(t) in scalers and all(np.dtype(dtypes[c]).kind in "iu" or np.dtype(dtypes[c]) == np.float64 for c in cs) for t, cs, _ in parts])

    def at(self, pairs: Sequence[tuple[str, Any]], inputs: Inputs) -> np.ndarray | None:
        """:meth:`Inputs.at` by each pair's own transformer (None: one of them is not taken alone)."""
        found = [self.by_feature.get(name) for name, _ in pairs]
        if None in found or any(self.checked.get(i) is False for i in found):  # type: ignore[arg-type]
            return None
        matrix = np.tile(inputs.constant, (len(pairs), 1))
        for i in dict.fromkeys(found):
            mine = [at for at, part in enumerate(found) if part == i]
            out = self._written(i, [pairs[at] for at in mine], inputs)  # type: ignore[arg-type]
            if out is None:
                return None
            matrix[slice(None) if len(mine) == len(pairs) else mine, self.parts[i][2]] = out  # type: ignore[index]
        if fresh := [i for i in dict.fromkeys(found) if i not in self.checked]:
            whole = inputs._matrix(typed_frame([{**inputs.baseline, name: v} for name, v in pairs], inputs.dtypes))
            self.checked.update(dict.fromkeys(fresh, bool(np.array_equal(matrix, whole, equal_nan=True))))  # type: ignore[arg-type]
            return whole
        return matrix

    def _written(self, i: int, pairs: Sequence[tuple[str, Any]], inputs: Inputs) -> np.ndarray | None:
        """The input columns part ``i`` writes for the baseline with each pair's feature at its
        value (None, and never taken alone again, where they are not the columns it writes)."""
        transformer, columns, place = self.parts[i]
        rows = [{c: inputs.baseline[c] for c in columns} | {name: value} for name, value in pairs]
        if self.scales[i] and all(_real(row[c]) for row in rows for c in columns):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # fitted with column names, given an array
                out = transformer.transform(np.array([[row[c] for c in columns] for row in rows], dtype=np.float64))
        else:
            out = transformer.transform(typed_frame(rows, {c: inputs.dtypes[c] for c in columns}))
        out = np.asarray(out.toarray() if hasattr(out, "toarray") else out, dtype=np.float64)
        if out.shape != (len(pairs), place.stop - place.start):
            self.checked[i] = False
            return None
        return out


def _real(value: Any) -> bool:
    """Whether ``value`` is a number a float array holds as the frame's column would (no truth value, no text)."""
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))
