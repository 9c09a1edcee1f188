"""Rows around people encoded as a pipeline's estimator reads them, in arrays, without a frame.

A black box is asked about thousands of rows a person, and a pipeline's ``ColumnTransformer``
spends most of such a call on its frame (a one-hot encoder of text columns: about 23 ms of
27 for 10,000 adult rows with a small MLP behind it).  Where the preprocessing maps each raw
column on its own (:func:`.inputs.column_wise`), an estimator input column is a function of one
feature's value, so a row's input is the columns of each of its values, found once for each value
by the preprocessing itself and laid side by side.  Nothing is computed here that the
preprocessing does not compute: the input is the same, number for number, and the estimator's
own ``predict`` judges it, as the pipeline's would.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from itertools import chain
from typing import Any

import numpy as np

from ..exceptions import InputError
from ..models import ChangedRows, Coded, typed_frame
from .inputs import Inputs, column_wise
from .opaque import Opaque


class Encoded:
    """A pipeline ``model`` (column-wise steps before its estimator) taken apart: ``matrix``
    builds the estimator's input for rows, ``estimator`` judges it.  Built with what
    :class:`~.inputs.Inputs` needs (the model's raw ``dtypes``, a ``baseline`` row, each
    category's values, each number's seen values); raises :class:`Opaque` where the pipeline is
    of another kind or its preprocessing gives neither an array of floats nor a CSR matrix."""

    def __init__(
        self,
        model: Any,
        dtypes: Mapping[str, Any],
        baseline: Mapping[str, Any],
        categories: Mapping[str, Sequence[str]],
        numbers: Mapping[str, np.ndarray],
    ) -> None:
        from sklearn.pipeline import Pipeline

        if not isinstance(model, Pipeline) or len(model.steps) < 2:
            raise Opaque("not a pipeline with steps before its estimator")
        if not all(column_wise(step) for _, step in model.steps[:-1]):
            raise Opaque("the pipeline's preprocessing does not map each raw column on its own")
        transform = Pipeline(model.steps[:-1]).transform
        self.inputs = Inputs(transform, dtypes, baseline, categories, numbers)
        first = transform(typed_frame([dict(baseline)], dtypes))
        if not (isinstance(first, np.ndarray) or getattr(first, "format", None) == "csr") or first.dtype.kind != "f":
            raise Opaque(f"the preprocessing gives {type(first).__name__}, not an array of floats or a CSR matrix")
        self.dtype = first.dtype
        self._sparse = None if isinstance(first, np.ndarray) else type(first)  # the estimator reads a CSR matrix: built as its own
        self._transform = transform
        self.estimator = model.steps[-1][1]
        source = self.inputs.source
        self.names = list(dict.fromkeys(filter(None, source)))  # the features some input column reads
        self.columns = [np.array([j for j, s in enumerate(source) if s == name]) for name in self.names]
        self._index = {name: f for f, name in enumerate(self.names)}
        self._blocks = [np.empty((0, len(c))) for c in self.columns]  # each feature's columns at each of its values known
        self._known: list[dict[Any, int]] = [{} for _ in self.names]  # a value's row in its feature's block
        self._ids: dict[tuple[str, Any], int] = {}  # a pair of a feature and its value, as changes give them: its number
        self._feature = np.empty(0, dtype=np.int64)  # by a pair's number: its feature (-1: no input column reads it)
        self._place = np.empty(0, dtype=np.int64)  # and its value's row in that feature's block
        self._nonzero = _Nonzeros(_runs(source), self._index, self.inputs.constant.astype(self.dtype))  # a CSR matrix's, by run and value
        self.usable = True  # False once a value was seen to change a column no probe showed it change
        self._lock = threading.Lock()  # a service's searches run in threads: one builds at a time

    def __getstate__(self) -> dict[str, Any]:
        return {name: value for name, value in self.__dict__.items() if name != "_lock"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def matrix(self, rows: ChangedRows) -> np.ndarray | None:
        """The estimator's input for ``rows`` (the person's columns, then each change's, feature
        by feature), or None where a value turns out to reach other columns than probed (then
        never again: the pipeline is asked with frames)."""
        with self._lock:
            return self._matrix(rows) if self.usable else None

    def _matrix(self, rows: ChangedRows) -> np.ndarray | None:
        parts = rows.parts
        heads = [(name, base[name]) for base, _ in parts for name in self.names]  # each person's values
        pools = [pair for _, changes in parts if isinstance(changes, Coded) for pool in changes.pools for pair in pool]
        listed = [changes for _, changes in parts if not isinstance(changes, Coded)]
        pairs = heads + pools + list(chain.from_iterable(chain.from_iterable(listed)))  # rows come in tens of thousands
        try:
            ids = self._numbered(pairs)
        except Opaque:
            self.usable = False
            return None
        places = self._places(parts, ids)
        if self._sparse is not None:
            return self._nonzero.matrix(places, self._sparse)
        out = np.empty((len(places), len(self.inputs.constant)), dtype=self.dtype)
        out[:] = self.inputs.constant
        for f, columns in enumerate(self.columns):
            out[:, columns] = self._blocks[f][places[:, f]]
        return out

    def _places(self, parts: list, ids: np.ndarray) -> np.ndarray:
        """Each row's value of each feature, as its row in the feature's block: the person's
        values (the first pairs ``ids`` numbers, a person's features in order) with the row's
        changes laid over them; then come the pools of the rows given as codes (:class:`Coded`),
        then every other row's changes."""
        width, n = len(self.names), len(parts)
        heads = self._place[ids[: n * width]].reshape(n, width)
        start, out = n * width, [None] * n
        for p, (_, changes) in enumerate(parts):
            if isinstance(changes, Coded):
                size = sum(map(len, changes.pools))
                out[p] = self._coded_places(heads[p], changes, ids[start : start + size])
                start += size
        listed = [p for p, (_, changes) in enumerate(parts) if not isinstance(changes, Coded)]
        counts = [len(parts[p][1]) for p in listed]
        places = heads[np.repeat(np.asarray(listed, dtype=np.int64), counts)]
        changed = ids[start:]
        where = np.repeat(np.arange(len(places)), list(map(len, chain.from_iterable(parts[p][1] for p in listed))))
        features = self._feature[changed]
        read = features >= 0
        places[where[read], features[read]] = self._place[changed[read]]
        for p, block in zip(listed, np.split(places, np.cumsum(counts)[:-1]) if listed else []):
            out[p] = block
        return np.concatenate(out) if out else np.empty((0, width), dtype=np.int64)

    def _coded_places(self, head: np.ndarray, rows: Coded, pool: np.ndarray) -> np.ndarray:
        """:meth:`_places` of rows given as codes: the person's ``head`` with each code's value laid
        over, a column at a time (``pool``: the numbers of the rows' pools' pairs, in turn)."""
        places = np.repeat(head[None, :], len(rows), axis=0)
        first = 0
        for j, pairs in enumerate(rows.pools):
            f = self._feature[pool[first]] if pairs else -1
            if f >= 0:
                lookup = np.concatenate([[0], self._place[pool[first : first + len(pairs)]]])
                codes = rows.codes[:, j]
                moved = codes > 0
                places[moved, f] = lookup[codes[moved]]
            first += len(pairs)
        return places

    def check(self, rows: ChangedRows) -> None:
        """Raise :class:`Opaque` unless the input built for ``rows`` is the preprocessing's own
        for their frame, number for number."""
        built, own = self.matrix(rows), self._transform(typed_frame(rows, self.inputs.dtypes))
        if built is None or type(built) is not type(own) or not all(np.array_equal(a, b, equal_nan=True) for a, b in zip(_parts(built), _parts(own))):
            raise Opaque("the input built column by column differs from the preprocessing's own")

    def _numbered(self, pairs: list[tuple[str, Any]]) -> np.ndarray:
        """The number of each pair (a feature and its value), the new ones numbered first."""
        ids = self._ids
        numbers = list(map(ids.get, pairs))
        if None in numbers:
            self._number([pair for pair in dict.fromkeys(pairs) if pair not in ids])
            numbers = list(map(ids.__getitem__, pairs))
        return np.asarray(numbers, dtype=np.int64)

    def _number(self, new: list[tuple[str, Any]]) -> None:
        """Number the pairs ``new``, each value's columns found by the preprocessing the first
        time it comes, every new value of every feature in one call (every value not equal to
        itself, NaN, as one)."""
        for name in dict.fromkeys(name for name, _ in new):
            if name not in self.inputs.dtypes:
                raise InputError(f"the row does not match the columns the model was fitted on: unknown ['{name}']")
        keys = [(name, _key(value)) for name, value in new]
        fresh = {key: pair for key, pair in zip(keys, new) if key[0] in self._index and key[1] not in self._known[self._index[key[0]]]}
        if fresh:
            found, named = self._probed(list(fresh.values())), list(fresh)
            for f, name in enumerate(self.names):
                mine = [i for i, (n, _) in enumerate(named) if n == name]
                if mine:
                    start = len(self._blocks[f])
                    self._known[f].update((named[i][1], start + n) for n, i in enumerate(mine))
                    self._blocks[f] = np.concatenate([self._blocks[f], found[mine][:, self.columns[f]]])
                    self._nonzero.extend(f, found[mine])
        start = len(self._ids)
        self._ids.update((pair, start + n) for n, pair in enumerate(new))
        places = [self._known[self._index[name]][key] if name in self._index else -1 for name, key in keys]
        self._feature = np.concatenate([self._feature, [self._index.get(name, -1) for name, _ in new]]).astype(np.int64)
        self._place = np.concatenate([self._place, places]).astype(np.int64)

    def _probed(self, pairs: list[tuple[str, Any]]) -> np.ndarray:
        """The estimator's input for the baseline with each pair's feature at its value (a row a
        pair), by the preprocessing, checked to move no column but the feature's own."""
        matrix = self.inputs.at(pairs)
        others = np.ones(matrix.shape, dtype=bool)
        for i, (name, _) in enumerate(pairs):
            others[i, self.columns[self._index[name]]] = False
        constant = np.broadcast_to(self.inputs.constant, matrix.shape)
        moved = others & (matrix != constant) & ~(np.isnan(matrix) & np.isnan(constant))
        if moved.any():
            name, value = pairs[int(np.flatnonzero(moved.any(axis=1))[0])]
            raise Opaque(f"{name!r} at {value!r} changes an input column no probe showed it change")
        return matrix


def _runs(source: Sequence[str | None]) -> list[tuple[str | None, np.ndarray]]:
    """The input columns in runs of neighbours that read the same feature (or none), in order."""
    runs: list[tuple[str | None, np.ndarray]] = []
    for j, name in enumerate(source):
        if runs and runs[-1][0] == name:
            runs[-1] = (name, np.append(runs[-1][1], j))
        else:
            runs.append((name, np.array([j])))
    return runs


class _Nonzeros:
    """A CSR matrix's parts for each run of input columns (:func:`_runs`) at each value of its
    feature: a row's nonzeros are its runs' in column order, the order the preprocessing's own
    matrix holds them in (scipy drops zeros, keeps NaN)."""

    def __init__(self, runs: list[tuple[str | None, np.ndarray]], index: Mapping[str, int], constant: np.ndarray) -> None:
        self.width = len(constant)
        self.indices = np.empty(0, dtype=np.int32)
        self.data = np.empty(0, dtype=constant.dtype)
        self.runs = [(-1 if name is None else index[name], cols) for name, cols in runs]  # each run's feature (-1: none), its columns
        self.starts = [np.empty(0, dtype=np.int64) for _ in runs]  # by run: each value's first nonzero in ``indices`` and ``data``
        self.counts = [np.empty(0, dtype=np.int64) for _ in runs]  # and how many it has
        self._laid: tuple[np.ndarray, np.ndarray | None, np.ndarray, np.ndarray, np.ndarray] | None = None  # :meth:`_laid_out`
        self.extend(-1, constant[None, :])  # the columns no feature reads: the same in every row

    def extend(self, feature: int, rows: np.ndarray) -> None:
        """The nonzeros of ``feature``'s new values (``rows``: the estimator's input at each, every
        column; -1: the constant columns)."""
        for r, (f, _) in enumerate(self.runs):
            if f == feature:
                self._append(r, rows)

    def _append(self, run: int, rows: np.ndarray) -> None:
        """The nonzeros of ``rows`` (the estimator's input, a value a row) in ``run``'s columns."""
        cols = self.runs[run][1]
        values = rows[:, cols].astype(self.data.dtype)
        at, where = np.nonzero(values)
        self.starts[run] = np.concatenate([self.starts[run], len(self.indices) + np.searchsorted(at, np.arange(len(values)))])
        self.counts[run] = np.concatenate([self.counts[run], np.bincount(at, minlength=len(values))])
        self.indices = np.concatenate([self.indices, cols[where].astype(np.int32)])
        self.data = np.concatenate([self.data, values[at, where]])
        self._laid = None

    def matrix(self, places: np.ndarray, kind: type) -> Any:
        """The CSR matrix of rows whose values are ``places`` (by feature, the value's row)."""
        firsts, sizes, feature, constant, offset = self._laid_out()
        starts = np.empty((len(places), len(self.runs)), dtype=np.int64)
        counts = None if sizes is None else np.empty_like(starts)  # none: every value has one nonzero a run
        for lo in range(0, len(places), _ROWS_AT_ONCE):  # a pooled call's rows are up to millions: a block at a time, no more held than the result
            at = places[lo : lo + _ROWS_AT_ONCE, feature]  # each row's entry of each run in the tables laid end to end
            at[:, constant] = 0
            at += offset
            starts[lo : lo + _ROWS_AT_ONCE] = firsts[at]
            if counts is not None:
                counts[lo : lo + _ROWS_AT_ONCE] = sizes[at]
        if counts is None or (len(counts) and counts.min() == counts.max() == 1):  # one nonzero a run, as one-hot codes and numbers mostly are
            taken, indptr = starts.ravel(), np.arange(0, starts.size + 1, len(self.runs))
        else:
            flat = counts.ravel()
            ends = np.cumsum(flat)
            taken = np.repeat(starts.ravel() - (ends - flat), flat) + np.arange(ends[-1] if len(ends) else 0)
            indptr = np.concatenate([[0], np.cumsum(counts.sum(axis=1))])
        index = np.int32 if len(taken) < 2**31 else np.int64  # scipy's own choice: no copy made to match the indices
        return kind((self.data[taken], self.indices[taken].astype(index, copy=False), indptr.astype(index)), shape=(len(places), self.width))

    def _laid_out(self) -> tuple[np.ndarray, np.ndarray | None, np.ndarray, np.ndarray, np.ndarray]:
        """Every run's ``starts`` and ``counts`` laid end to end (no counts where every value has
        one nonzero in every run), and for each run the feature whose value picks its entry,
        whether it is the constant columns' (their one entry, whatever the row), and where its
        entries begin: one gather for every run of a draw's tens of thousands of rows, three
        times cheaper than a gather a run.  Laid out again once values are added."""
        if self._laid is None:
            offset = np.cumsum([0, *(len(starts) for starts in self.starts[:-1])]).astype(np.int64)
            feature = np.array([max(f, 0) for f, _ in self.runs], dtype=np.int64)
            constant = np.array([f < 0 for f, _ in self.runs])
            counts = np.concatenate(self.counts)
            self._laid = (np.concatenate(self.starts), None if (counts == 1).all() else counts, feature, constant, offset)
        return self._laid


_ROWS_AT_ONCE = 1 << 16  # rows whose entries are looked up together (:meth:`_Nonzeros.matrix`)
_NAN = object()  # the key of every value not equal to itself


def _key(value: Any) -> Any:
    try:
        return value if value == value else _NAN
    except TypeError:  # pd.NA: no truth value
        return _NAN


def _parts(matrix: Any) -> tuple[np.ndarray, ...]:
    """An input's arrays: a CSR matrix's structure and values (the same nonzeros in the same
    order: the estimator's sums run in the same order), or the array itself."""
    return (matrix,) if isinstance(matrix, np.ndarray) else (np.asarray(matrix.shape), matrix.indptr, matrix.indices, matrix.data)
