"""Columns prepared once for vectorised rule evaluation.

A cell is seen two ways: as a number (NaN when it is not one) for the comparisons ``<``, ``<=``,
``>``, ``>=``, and as a token (its canonical text) for ``==``, ``!=``, ``in``, ``not in``.  Both
views are computed lazily and kept, so a table can be sliced to a subset of rows cheaply while
a learner or a search evaluates many literals on it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..exceptions import UnknownNameError

SMALL = 64  # cells up to which a column is tokenized one by one: hashing through pandas costs more (a search's candidates)

MISSING = "?"
"""The token of a missing cell (NaN, None) — the same token the UCI files use."""


def token(value: Any) -> str:
    """The canonical text of one cell: ``2`` and ``2.0`` are both ``'2'``; missing is ``'?'``."""
    if value is None or (isinstance(value, float) and np.isnan(value)) or value is pd.NA:
        return MISSING
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    return str(value)


def _tokens(values: np.ndarray) -> np.ndarray:
    if values.dtype.kind in "iub":
        return values.astype(str).astype(object)
    if values.dtype.kind == "f":
        out = np.full(values.shape, MISSING, dtype=object)
        present = ~np.isnan(values)
        whole = present & np.isfinite(values) & (values == np.round(values))
        small = whole & (np.abs(values) < 2.0**63)  # what int64 holds; larger whole numbers go one by one, as token does
        out[small] = values[small].astype(np.int64).astype(str)
        large = whole & ~small
        out[large] = [token(v) for v in values[large]]
        rest = present & ~whole
        out[rest] = values[rest].astype(str)
        return out
    return np.fromiter((token(v) for v in values), dtype=object, count=len(values))


class Column:
    """One feature's cells, with a numeric view and a token view computed on demand."""

    __slots__ = ("_values", "_numbers", "_codes", "_categories")

    def __init__(
        self,
        values: np.ndarray,
        numbers: np.ndarray | None = None,
        codes: np.ndarray | None = None,
        categories: np.ndarray | None = None,
    ) -> None:
        self._values = values
        self._numbers = numbers
        self._codes = codes
        self._categories = categories

    @classmethod
    def from_values(cls, values: Any) -> Column:
        if isinstance(values, pd.Series):
            if isinstance(values.dtype, pd.CategoricalDtype) or pd.api.types.is_extension_array_dtype(values.dtype):
                values = values.astype(object)
            values = values.to_numpy()
        return cls(np.asarray(values))

    @classmethod
    def cell(cls, value: Any) -> Column:
        """One row's cell: a number keeps a numeric column (no parsing of text per literal)."""
        number = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))
        return cls(np.array([value], dtype=None if number else object))

    def __len__(self) -> int:
        return len(self._values)

    @property
    def values(self) -> np.ndarray:
        """The cells as given."""
        return self._values

    @property
    def numbers(self) -> np.ndarray:
        """Cells as float64; NaN where a cell is not a number."""
        if self._numbers is None:
            v = self._values
            if v.dtype.kind in "iufb":
                self._numbers = v.astype(np.float64)
            else:
                self._numbers = pd.to_numeric(pd.Series(v, dtype=object), errors="coerce").to_numpy(np.float64)
        return self._numbers

    def _tokenize(self) -> None:
        if self._values.dtype == object and len(self._values) <= SMALL:
            tokens = [token(v) for v in self._values]
            self._categories = np.array(sorted(set(tokens)), dtype=object)
            code = {t: i for i, t in enumerate(self._categories)}
            self._codes = np.array([code[t] for t in tokens], dtype=np.int32)
            return
        # Hash the cells once, then canonicalise only the distinct ones ('2', 2 and 2.0 merge).
        first, distinct = pd.factorize(self._values, use_na_sentinel=False)
        self._categories, merged = np.unique(_tokens(np.asarray(distinct)), return_inverse=True)
        self._codes = merged.reshape(-1).astype(np.int32)[first]

    @property
    def codes(self) -> np.ndarray:
        """Index of each cell's token in :attr:`categories`."""
        if self._codes is None:
            self._tokenize()
        return self._codes

    @property
    def categories(self) -> np.ndarray:
        """The distinct tokens, sorted."""
        if self._categories is None:
            self._tokenize()
        return self._categories

    def code(self, tok: str) -> int:
        """The code of a token, or -1 when no cell has it."""
        cats = self.categories
        i = int(np.searchsorted(cats, tok))
        return i if i < len(cats) and cats[i] == tok else -1

    def take(self, rows: np.ndarray) -> Column:
        def cut(a: np.ndarray | None) -> np.ndarray | None:
            return None if a is None else a[rows]

        return Column(self._values[rows], cut(self._numbers), cut(self._codes), self._categories)


class Table(Mapping[str, Column]):
    """Named columns of equal length; slicing by rows is lazy per column."""

    def __init__(self, columns: Mapping[str, Column], rows: np.ndarray | None = None, n_rows: int | None = None) -> None:
        self._columns = dict(columns)
        self._rows = rows
        self._cut: dict[str, Column] = {}
        if rows is not None:
            n_rows = len(rows)
        elif n_rows is None:
            n_rows = len(next(iter(self._columns.values()))) if self._columns else 0
        self._length = n_rows

    @classmethod
    def from_frame(cls, frame: pd.DataFrame | Mapping[str, Any]) -> Table:
        if isinstance(frame, Table):
            return frame
        if isinstance(frame, pd.DataFrame):
            return cls({str(c): Column.from_values(frame[c]) for c in frame.columns}, n_rows=len(frame))
        if isinstance(frame, pd.Series):
            return cls({str(k): Column.cell(v) for k, v in frame.items()})
        columns = {}
        for name, values in frame.items():
            if isinstance(values, (pd.Series, np.ndarray, list, tuple)):
                columns[str(name)] = Column.from_values(np.asarray(values, dtype=None if not isinstance(values, list) else object))
            else:
                columns[str(name)] = Column.cell(values)
        return cls(columns)

    def __getitem__(self, name: str) -> Column:
        if self._rows is None:
            try:
                return self._columns[name]
            except KeyError:
                raise UnknownNameError(f"no column {name!r}; the data has {sorted(self._columns)}") from None
        col = self._cut.get(name)
        if col is None:
            if name not in self._columns:
                raise UnknownNameError(f"no column {name!r}; the data has {sorted(self._columns)}")
            col = self._cut[name] = self._columns[name].take(self._rows)
        return col

    def __iter__(self) -> Iterator[str]:
        return iter(self._columns)

    def __len__(self) -> int:
        return len(self._columns)

    @property
    def n_rows(self) -> int:
        return self._length

    def take(self, rows: np.ndarray) -> Table:
        """The same table restricted to ``rows`` (positions in this table)."""
        rows = np.asarray(rows, dtype=np.intp)
        return Table(self._columns, rows if self._rows is None else self._rows[rows])
