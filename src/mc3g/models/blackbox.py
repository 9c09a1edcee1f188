"""A classifier seen from outside: rows in, one known label per row out.

MC3G explains any model that labels rows (model-agnostic, Dasgupta et al., NeSy 2025): a
scikit-learn estimator or pipeline, xgboost, lightgbm, or a plain function.  This adapter is the
one place mc3g calls it.  Rows are built as the model saw its training data (its columns, in its
order, with its dtypes), and what comes back is checked before anything trusts it: one label per
row, no missing label, and after fitting only labels the model gave on the training data.  A
model that fails or answers something else raises :class:`~mc3g.exceptions.BlackBoxError`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from operator import itemgetter
from typing import Any

import numpy as np
import pandas as pd

from ..exceptions import BlackBoxError, InputError, listed, said
from .categories import pandas_categories
from .labels import label_texts
from .robust import Robustness


class BlackBox:
    """``model``'s ``predict`` (or ``model`` itself, when it is a function of a DataFrame).

    ``labels`` are the classes the model may answer (known after fitting: the ones it gave on the
    training data); ``unfavourable`` is the one that means a refusal."""

    def __init__(
        self,
        model: Any,
        columns: Sequence[str],
        dtypes: Mapping[str, Any],
        labels: Sequence[str] | None = None,
        unfavourable: str | None = None,
    ) -> None:
        self.model = model
        self.columns = list(columns)
        self._names = set(self.columns)  # a row whose keys are these needs no closer look
        self.dtypes = dict(dtypes)
        self._categories = [c for c, d in self.dtypes.items() if isinstance(d, pd.CategoricalDtype)]  # :meth:`as_fitted`
        self.labels = tuple(labels) if labels is not None else None
        self.unfavourable = unfavourable
        self.robust: Robustness | None = None  # what an option must clear beyond predict (set at fit)
        self.encoded: Any = None  # rows around people as a pipeline's estimator reads them (:class:`~mc3g.glassbox.Encoded`, set at fit)
        self._predict = _predictor(model)

    @classmethod
    def of(cls, model: Any, X: pd.DataFrame) -> BlackBox:
        """The adapter for a model trained on frames like ``X``; a LightGBM or XGBoost model fitted
        on pandas categories takes those columns as pandas categories, whatever ``X`` holds."""
        dtypes = X.dtypes.to_dict()
        dtypes.update({c: pd.CategoricalDtype() for c in pandas_categories(model) if c in dtypes and not isinstance(dtypes[c], pd.CategoricalDtype)})
        return cls(model, list(X.columns), dtypes)

    # -- asking the model ----------------------------------------------------------------------
    def as_fitted(self, frame: pd.DataFrame) -> pd.DataFrame:
        """``frame`` with the columns the model takes as pandas categories made so, values kept
        (a lender's file is read as text; LightGBM and XGBoost refuse text there)."""
        cast = {c: "category" for c in self._categories if c in frame.columns and not isinstance(frame[c].dtype, pd.CategoricalDtype)}
        return frame.astype(cast) if cast else frame

    def labels_of(self, frame: pd.DataFrame) -> np.ndarray:
        """The model's label for each row of ``frame``, as text, checked."""
        return self._checked(self._predict, self.as_fitted(frame), len(frame))

    def _checked(self, predict: Callable[[Any], Any], rows: Any, n: int) -> np.ndarray:
        """``predict``'s labels of ``n`` ``rows``, as text, checked."""
        try:
            raw = predict(rows)
        except Exception as exc:  # the model is the user's code: report what it said
            raise BlackBoxError(f"the model's predict failed on {n} row(s): {said(exc)}") from exc
        answer = raw if isinstance(raw, np.ndarray) and raw.dtype.kind in "biufUS" else np.asarray(raw, dtype=object)
        if answer.ndim == 2 and answer.shape[1] == 1:
            answer = answer[:, 0]
        if answer.ndim != 1:
            raise BlackBoxError(
                f"the model's predict returned an array of shape {answer.shape} for {n} row(s); it must return one label per row"
                + (" (a matrix of class probabilities? give mc3g the model's predict, not predict_proba)" if answer.ndim == 2 else "")
            )
        if len(answer) != n:
            raise BlackBoxError(f"the model's predict returned {len(answer)} label(s) for {n} row(s); it must return one per row")
        missing = np.flatnonzero(pd.isna(answer))
        if len(missing):
            raise BlackBoxError(f"the model's predict returned no label (NaN or None) for {len(missing)} row(s), the first at position {missing[0]}")
        labels = label_texts(answer)
        if self.labels is not None:
            unknown = sorted(set(labels) - set(self.labels))
            if unknown:
                raise BlackBoxError(
                    f"the model's predict returned label(s) [{listed(unknown)}] it never gave on the training data (it gave [{listed(self.labels)}])"
                )
        return labels

    def refuses(self, rows: Sequence[Mapping[str, Any]]) -> list[bool]:
        """Whether the model refuses each row (one ``predict`` call for all of them)."""
        if self.unfavourable is None:
            raise InputError("the black box does not know which label is unfavourable yet: fit the explainer first")
        if not rows:
            return []
        matrix = self.encoded.matrix(self._checked_rows(rows)) if self.encoded is not None and isinstance(rows, ChangedRows) else None
        labels = self.labels_of(self.frame(rows)) if matrix is None else self._checked(self.encoded.estimator.predict, matrix, len(rows))
        return (labels == self.unfavourable).tolist()

    def holding(self, rows: Sequence[Mapping[str, Any]]) -> list[bool]:
        """Whether each row (one the model accepts) clears :attr:`robust`'s margin and retrained
        models (every row does when there is nothing more to clear)."""
        if self.robust is None or not rows:
            return [True] * len(rows)
        return self.robust.holds(self.model, self.frame(rows)).tolist()

    def survival(self, rows: Sequence[Mapping[str, Any]]) -> list[float | None]:
        """The share of :attr:`robust`'s retrained models that accept each row (None: there are none)."""
        if self.robust is None or not self.robust.retrained or not rows:
            return [None] * len(rows)
        return [float(s) for s in self.robust.survival(self.frame(rows))]

    def cost(self, X: pd.DataFrame, rows: int = 512, repeats: int = 3) -> tuple[float, float]:
        """What the model charges, timed on ``X``'s first rows (taken again where it has fewer):
        the seconds of a call of one row, and of each row more, each the least of ``repeats``
        (a shared machine only ever adds time), the two timed in turn so a busy spell slows both.
        Real time: a model may wait on other threads.  Each row more may measure as nothing: a
        model whose call of 512 rows costs what a call of one does, within the machine's noise."""
        many = X.iloc[np.resize(np.arange(len(X)), rows)]
        pairs = [(self._timed(X.iloc[:1]), self._timed(many)) for _ in range(repeats)]
        one, full = (min(times) for times in zip(*pairs))
        return one, max(full - one, 0.0) / (rows - 1)

    def _timed(self, frame: pd.DataFrame) -> float:
        start = time.perf_counter()
        self.labels_of(frame)
        return time.perf_counter() - start

    # -- rows as the model knows them ----------------------------------------------------------
    def frame(self, rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
        """Rows as the model saw its data: its columns, in its order, with its dtypes."""
        return typed_frame(self._checked_rows(rows), self.dtypes)

    def _checked_rows(self, rows: Sequence[Mapping[str, Any]]) -> Sequence[Mapping[str, Any]]:
        for row in rows.bases() if isinstance(rows, ChangedRows) else rows:
            if row.keys() != self._names:
                self.check_columns(row)
        return rows

    def check_columns(self, row: Mapping[str, Any]) -> None:
        unknown = [c for c in row if c not in self.columns]
        absent = [c for c in self.columns if c not in row]
        if unknown or absent:
            raise InputError(
                "the row does not match the columns the model was fitted on: "
                + "; ".join(p for p in (f"unknown {unknown}" if unknown else "", f"missing {absent}" if absent else "") if p)
            )


class Coded(Sequence[tuple[tuple[str, Any], ...]]):
    """Rows around a person given as codes, each read as its changes (pairs of a column and its
    new value, in the pools' order) only where something reads it so: ``codes`` holds a row
    each and a column each of ``pools`` (0: the person's value; c: the c-th pair of that
    column's pool).  A model that reads arrays takes the codes whole
    (:class:`~mc3g.glassbox.Encoded`); :class:`ChangedRows` holds them as a part like any other."""

    codes: np.ndarray
    pools: list[list[tuple[str, Any]]]


class ChangedRows(Sequence[dict[str, Any]]):
    """Rows that are each a base row with a few changes (pairs of a column and its new value):
    how a search asks about thousands of rows around one person.  A frame of them is built
    column by column from the bases and the changes, no row built as a mapping of every column
    (:func:`typed_frame`); several people's rows ask together once :meth:`joined`."""

    def __init__(self, parts: Iterable[tuple[Mapping[str, Any], Sequence[Iterable[tuple[str, Any]]]]]) -> None:
        self.parts = [(base, changes) for base, changes in parts]

    @classmethod
    def around(cls, base: Mapping[str, Any], changes: Sequence[Iterable[tuple[str, Any]]]) -> ChangedRows:
        return cls([(base, changes)])

    @staticmethod
    def joined(parts: Sequence[Sequence[Mapping[str, Any]]]) -> Sequence[Mapping[str, Any]]:
        """The rows of ``parts``, in order: changed rows stay so, other rows become a list."""
        if all(isinstance(part, ChangedRows) for part in parts):
            return ChangedRows(p for part in parts for p in part.parts)  # type: ignore[attr-defined]
        return [row for part in parts for row in part]

    def bases(self) -> list[Mapping[str, Any]]:
        return [base for base, changes in self.parts if changes]

    def columns(self, names: Sequence[str]) -> list[list[Any]]:
        """Each of ``names``' values down the rows (NaN where a base lacks it)."""
        out: list[list[Any]] = [[] for _ in names]
        for base, changes in self.parts:
            columns = {name: [base.get(name, np.nan)] * len(changes) for name in names}
            for i, change in enumerate(changes):
                for name, value in change:
                    if name not in columns:
                        raise InputError(f"the row does not match the columns the model was fitted on: unknown ['{name}']")
                    columns[name][i] = value
            for column, name in zip(out, names):
                column += columns[name]
        return out

    def __len__(self) -> int:
        return sum(len(changes) for _, changes in self.parts)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return ({**base, **dict(change)} for base, changes in self.parts for change in changes)

    def __getitem__(self, index: Any) -> Any:
        """A row, or a list of rows for a slice (read rarely: a frame reads the rows by column)."""
        if isinstance(index, slice):
            return list(self)[index]
        position = index + len(self) if index < 0 else index
        for base, changes in self.parts:
            if 0 <= position < len(changes):
                return {**base, **dict(changes[position])}
            position -= len(changes)
        raise IndexError("row index out of range")


def typed_frame(rows: Sequence[Mapping[str, Any]] | Sequence[Sequence[Any]], dtypes: Mapping[str, Any]) -> pd.DataFrame:
    """Rows (mappings, or lists in column order) as a frame of the training columns, each column
    built with its training dtype where its values fit (otherwise the values stay as they are, and
    the model decides what to make of them).  Built column by column: the model is asked often,
    and a frame of records cast afterwards costs more than the model's own ``predict``."""
    names = list(dtypes)
    if isinstance(rows, ChangedRows):
        values = rows.columns(names)
    else:
        rows = list(rows)
        if rows and isinstance(rows[0], Mapping):
            rows = _records(rows, names)  # type: ignore[arg-type]
        values = [list(column) for column in zip(*rows)] if rows else [[] for _ in names]
    # A dict in column order needs no ``columns`` (which reindexes), and fresh columns no copy.
    return pd.DataFrame({c: _column(v, dtypes[c]) for c, v in zip(names, values)}, copy=False)


def _records(rows: list[Mapping[str, Any]], names: list[str]) -> list[Sequence[Any]]:
    """Each row's values in ``names`` order (a missing one NaN), read in one call a row when
    every row has them all: rows come in thousands."""
    try:
        pick = itemgetter(*names)
        return [pick(r) for r in rows] if len(names) > 1 else [(pick(r),) for r in rows]
    except (KeyError, TypeError):  # a row without some column (or no columns at all)
        return [[r.get(c, np.nan) for c in names] for r in rows]


def _column(values: list[Any], dtype: Any) -> np.ndarray | pd.Series:
    """``values`` as a column of ``dtype`` when they fit it (numbers of an integer column must be
    whole), else as they are.  A category's token is turned back into the model's type: a column
    of truth values or of numbers that mc3g reads as categories (``True``, ``2``) gets them back."""
    if isinstance(dtype, np.dtype) and dtype.kind in "biuf":
        column = np.asarray(values)
        if column.dtype.kind in "OUS":
            column = np.asarray([_untokened(v, dtype.kind) for v in values])
        if column.dtype.kind in "biuf" and (dtype.kind not in "iu" or column.dtype.kind != "f" or bool(np.all(np.mod(column, 1) == 0))):
            return column.astype(dtype)
        return pd.Series(values)
    try:
        return pd.Series(values, dtype=dtype)
    except (TypeError, ValueError):
        return pd.Series(values)


def _untokened(value: Any, kind: str) -> Any:
    """A token as a value of a column of ``kind`` (``b``: truth values, else numbers), when it
    reads as one; otherwise the value as it is, for the model to judge."""
    if not isinstance(value, str):
        return value
    if kind == "b":
        return {"True": True, "False": False}.get(value, value)
    try:
        return float(value)
    except ValueError:
        return value


def _predictor(model: Any) -> Callable[[pd.DataFrame], Any]:
    """The black box's ``predict``, or the model itself when it is a plain function."""
    predict = getattr(model, "predict", None)
    if callable(predict):
        return predict
    if callable(model):
        return model
    raise InputError(f"model must be a RuleSet, have a predict method, or be a function of a DataFrame; got {type(model).__name__}")
