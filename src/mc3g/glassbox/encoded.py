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

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..exceptions import InputError
from ..models import ChangedRows, typed_frame
from .inputs import Inputs, column_wise
from .opaque import Opaque


class Encoded:
    """A pipeline ``model`` (column-wise steps before its estimator) taken apart: ``matrix``
    builds the estimator's input for rows, ``estimator`` judges it.  Built with what
    :class:`~.inputs.Inputs` needs (the model's raw ``dtypes``, a ``baseline`` row, each
    category's values, each number's seen values); raises :class:`Opaque` where the pipeline is
    of another kind or its preprocessing gives no array of floats."""

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
        if not isinstance(first, np.ndarray) or first.dtype.kind != "f":
            raise Opaque(f"the preprocessing gives {type(first).__name__}, not an array of floats")
        self.dtype = first.dtype
        self._transform = transform
        self.estimator = model.steps[-1][1]
        source = self.inputs.source
        self.columns = {name: np.array([j for j, s in enumerate(source) if s == name]) for name in dict.fromkeys(filter(None, source))}
        self._known: dict[str, dict[Any, int]] = {name: {} for name in self.columns}  # a value's place in its feature's block
        self._blocks = {name: np.empty((0, len(c))) for name, c in self.columns.items()}  # a feature's columns at each value known
        self.usable = True  # False once a value was seen to change a column no probe showed it change

    def matrix(self, rows: ChangedRows) -> np.ndarray | None:
        """The estimator's input for ``rows`` (the person's columns, then each change's, feature
        by feature), or None where a value turns out to reach other columns than probed (then
        never again: the pipeline is asked with frames)."""
        if not self.usable:
            return None
        out = np.empty((len(rows), len(self.inputs.constant)), dtype=self.dtype)
        at = 0
        try:
            for base, changes in rows.parts:
                out[at : at + len(changes)] = self._row(base)
                cells: dict[str, tuple[list[int], list[Any]]] = {}
                for i, change in enumerate(changes, at):
                    for name, value in change:
                        where, values = cells.get(name) or cells.setdefault(name, ([], []))
                        where.append(i)
                        values.append(value)
                for name, (where, values) in cells.items():
                    if name in self.columns:
                        out[np.asarray(where)[:, None], self.columns[name]] = self._at(name, values)
                    elif name not in self.inputs.dtypes:  # else no input column reads it
                        raise InputError(f"the row does not match the columns the model was fitted on: unknown ['{name}']")
                at += len(changes)
        except Opaque:
            self.usable = False
            return None
        return out

    def check(self, rows: ChangedRows) -> None:
        """Raise :class:`Opaque` unless the input built for ``rows`` is the preprocessing's own
        for their frame, number for number."""
        built, own = self.matrix(rows), self._transform(typed_frame(rows, self.inputs.dtypes))
        if built is None or not np.array_equal(built, own, equal_nan=True):
            raise Opaque("the input built column by column differs from the preprocessing's own")

    def _row(self, base: Mapping[str, Any]) -> np.ndarray:
        row = self.inputs.constant.copy()
        for name, columns in self.columns.items():
            row[columns] = self._at(name, [base[name]])[0]
        return row

    def _at(self, name: str, values: list[Any]) -> np.ndarray:
        """``name``'s input columns at each of ``values``, each value's found by the preprocessing
        the first time it comes (every value not equal to itself, NaN, as one)."""
        known = self._known[name]
        keys = [_key(v) for v in values]
        new = {k: v for k, v in zip(keys, values) if k not in known}  # the first value of each key not known
        if new:
            found = self._probed(name, list(new.values()))
            start = len(self._blocks[name])
            known.update((k, start + n) for n, k in enumerate(new))
            self._blocks[name] = np.concatenate([self._blocks[name], found])
        return self._blocks[name][[known[k] for k in keys]]

    def _probed(self, name: str, values: list[Any]) -> np.ndarray:
        """``name``'s input columns at ``values``, by the preprocessing, checked to change no other."""
        matrix = self.inputs.rows(name, values)
        others = np.ones(matrix.shape[1], dtype=bool)
        others[self.columns[name]] = False
        if not np.array_equal(matrix[:, others], np.broadcast_to(self.inputs.constant[others], (len(values), int(others.sum()))), equal_nan=True):
            raise Opaque(f"a value of {name!r} changes an input column no probe showed it change")
        return matrix[:, self.columns[name]]


_NAN = object()  # the key of every value not equal to itself


def _key(value: Any) -> Any:
    try:
        return value if value == value else _NAN
    except TypeError:  # pd.NA: no truth value
        return _NAN
