"""FOLD-SE as a scikit-learn classifier: a user's data checked, then learned from
(:mod:`.covering`, Wang & Gupta, PADL 2024)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from ..exceptions import InputError, UnknownNameError
from ..params import Constraints, Free, Instance, Number, OneOf, Text, validate
from ..rules import Explanation, RuleSet, Table
from ..values import first_non_number, stray_text
from .covering import HEURISTIC, RATIO, TAIL, Search, decision_list, rules_of
from .heuristics import HEURISTICS


class FoldSE(ClassifierMixin, BaseEstimator):
    """FOLD-SE rule learner with a scikit-learn interface.

    Parameters (keyword only)
    -------------------------
    ratio : exception ratio, from 0 to 1; a rule stops specialising once its negatives are at
        most ``ratio`` times its positives, and then learns exceptions for them.
    tail : rules (and exceptions) covering fewer than ``tail`` x training rows are dropped.
    heuristic : ``"mgi"`` (FOLD-SE's magic Gini), ``"ig"`` (FOLD-R++'s information gain) or
        ``"gini"``.  ``FoldSE(heuristic="ig", tail=0)`` is FOLD-R++ with the refined operator.
    target : the class the rules describe when ``y`` has two classes.  By default the class
        ``1``/``True`` of a 0/1 or boolean target, otherwise the most frequent class.  With more
        than two classes the learner builds an ordered decision list (FOLD-RM style) instead.
    numeric : names of the numeric features; by default the columns with a numeric dtype.
        Missing cells of a numeric feature (``?``, NaN, None) become tokens it can use; any other
        text, and numbers that are infinite or beyond ±1e15, are refused with their row.  A
        column of Python objects that mixes numbers and text must be declared here.

    ``X`` is a DataFrame (columns of any dtype, strings included) or a 2-D array; the rules name
    the columns of an array (or of a frame whose column names are not strings) ``x0``, ``x1``...

    Attributes
    ----------
    rules_ : RuleSet, the learned program (flattened as FOLD-SE prints it); its labels are the
        classes as text.
    classes_ : the classes, sorted, with the dtype of ``y`` (``predict`` returns them).
    target_ : the class the rules describe (an element of ``classes_``), None for a decision list.
    numeric_ : the names of the features treated as numeric, in column order.
    n_features_in_ : the number of columns seen in ``fit``.
    feature_names_in_ : the column names seen in ``fit``, when they are all strings.

    What each parameter accepts is declared in ``_parameter_constraints`` and checked at ``fit``.
    """

    _parameter_constraints: ClassVar[Constraints] = {
        # ratio 1 already lets a rule stand that covers as many rows of the other class as of its own
        "ratio": [Number(0, 1)],
        "tail": [Number(0, 1, closed="left")],
        "heuristic": [OneOf(tuple(HEURISTICS))],
        "target": [Free("a class of y (checked at fit)")],
        "numeric": [None, Text("a column name"), Instance(Iterable, "a list of column names")],
    }

    def __init__(
        self,
        *,
        ratio: float = RATIO,
        tail: float = TAIL,
        heuristic: str = HEURISTIC,
        target: Any = None,
        numeric: Sequence[str] | None = None,
    ) -> None:
        self.ratio = ratio
        self.tail = tail
        self.heuristic = heuristic
        self.target = target
        self.numeric = numeric

    # -- fitting -------------------------------------------------------------------------------
    def fit(self, X: pd.DataFrame | np.ndarray, y: Any) -> FoldSE:
        validate(self.get_params(deep=False), self._parameter_constraints)
        frame = self._frame(X, reset=True)
        labels = _as_labels(y, len(frame))
        numeric = self._numeric_features(frame)
        self.numeric_ = [c for c in frame.columns if c in numeric]
        self.classes_, y_codes = np.unique(labels, return_inverse=True)
        if len(self.classes_) < 2:
            raise InputError(f"y has 1 class ({self.classes_[0]!r}); FOLD-SE needs at least two classes")
        classes = self._class_names()
        _check_numbers(frame, self.numeric_)
        search = Search(Table.from_frame(frame), numeric, list(frame.columns), self.ratio, self.tail, self.heuristic)
        label_name = str(getattr(y, "name", None) or "label")
        if len(classes) == 2:
            target = self._binary_target(classes, y_codes)
            self.target_ = self.classes_[int(np.flatnonzero(classes == target)[0])]
            self.rules_ = rules_of(search, classes[y_codes] == target, target, tuple(classes), label_name)
            return self
        if self.target is not None:
            raise InputError(
                f"target={self.target!r} needs a binary y; y has {len(classes)} classes, for which FoldSE learns an ordered decision list (leave target unset)"
            )
        self.target_ = None
        rules, default = decision_list(search, classes, y_codes, label_name)
        self.rules_ = RuleSet(tuple(rules), label_name, default, tuple(classes)).flattened()
        return self

    def _frame(self, X: Any, *, reset: bool) -> pd.DataFrame:
        """``X`` as a DataFrame named as the rules name its columns, after scikit-learn's checks
        (shape, sparse and complex data, infinity in an all-number array, the columns seen in fit)."""
        if isinstance(X, pd.DataFrame):
            duplicated = X.columns[X.columns.duplicated()].tolist()
            if duplicated:
                raise InputError(f"X has duplicate column names {duplicated}")
        checked = validate_data(self, X, reset=reset, dtype=None, accept_sparse=False, ensure_all_finite="allow-nan")
        names = list(self.feature_names_in_) if hasattr(self, "feature_names_in_") else [f"x{i}" for i in range(checked.shape[1])]
        if not isinstance(X, pd.DataFrame):
            return pd.DataFrame(checked, columns=names).infer_objects()
        return X if list(X.columns) == names else X.set_axis(names, axis=1)

    def _numeric_features(self, X: pd.DataFrame) -> set[str]:
        if self.numeric is None:
            for c in X.columns:
                stray = stray_text(X[c])
                if stray is not None:
                    raise InputError(
                        f"column {c!r} holds numbers and text (row {stray[0]}: {stray[1]!r}), so its kind is unclear: "
                        "declare it numeric (numeric=[...]; a number's column takes '?' or NaN for a missing cell) or make every cell text"
                    )
            return {c for c in X.columns if pd.api.types.is_numeric_dtype(X[c]) and not pd.api.types.is_bool_dtype(X[c])}
        declared = [self.numeric] if isinstance(self.numeric, str) else list(self.numeric)
        unknown = [c for c in declared if c not in X.columns]
        if unknown:
            raise UnknownNameError(f"numeric names column(s) {unknown} that X does not have; X has {list(X.columns)}")
        for c in declared:
            numbers = pd.to_numeric(X[c], errors="coerce")
            if numbers.notna().sum() == 0:
                example = X[c].dropna().iloc[0] if X[c].notna().any() else None
                raise InputError(f"feature {c!r} is declared numeric but none of its {len(X)} values is a number (e.g. {example!r})")
        return set(declared)

    def _class_names(self) -> np.ndarray:
        """The classes as the rules write them (text), in the order of ``classes_``."""
        return np.array([str(c) for c in self.classes_], dtype=object)

    def _binary_target(self, classes: np.ndarray, y_codes: np.ndarray) -> str:
        if self.target is not None:
            t = str(self.target)
            if t not in classes:
                raise InputError(f"target {self.target!r} is not a class of y; the classes are {list(self.classes_)}")
            return t
        if set(classes) in ({"0", "1"}, {"False", "True"}):
            return "1" if "1" in classes else "True"
        # The most frequent class; a tie goes to the first class in text order.
        counts = np.bincount(y_codes, minlength=len(classes))
        by_text = np.argsort(classes, kind="stable")
        return str(classes[by_text[int(np.argmax(counts[by_text]))]])

    # -- prediction ----------------------------------------------------------------------------
    def predict(self, X: pd.DataFrame | np.ndarray) -> np.ndarray:
        check_is_fitted(self)
        frame = self._frame(X, reset=False)
        _check_numbers(frame, self.numeric_)
        decided = self.rules_.predict(Table.from_frame(frame))
        return self.classes_[pd.Index(self._class_names()).get_indexer(decided)]

    def explain(self, row: pd.Series | dict[str, Any]) -> Explanation:
        """Which rule decided this row, or why none fired."""
        check_is_fitted(self)
        return self.rules_.explain(row)

    def __sklearn_tags__(self):  # noqa: D105 - scikit-learn protocol
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.input_tags.allow_nan = True
        return tags


def _as_labels(y: Any, n_rows: int) -> np.ndarray:
    """``y`` as a 1-D array of its own dtype, checked: one label per row, none missing, classes."""
    if y is None:
        raise InputError("FoldSE requires y to be passed, but the target y is None")
    labels = column_or_1d(y, warn=True)
    if len(labels) != n_rows:
        raise InputError(f"y has {len(labels)} labels but X has {n_rows} rows")
    missing = pd.isna(labels)
    if missing.any():
        rows = np.flatnonzero(missing)[:5].tolist()
        raise InputError(f"y has {int(missing.sum())} missing label(s), e.g. at row(s) {rows}")
    if labels.dtype.kind == "f" and np.isinf(labels).any():
        raise InputError(f"y has {int(np.isinf(labels).sum())} infinite label(s); the labels must be classes")
    if labels.dtype == object:
        # Python numbers or booleans in an object array are labels of their own type.
        labels = pd.Series(labels, dtype=object).infer_objects().to_numpy()
    kinds = sorted({type(v).__name__ for v in labels}) if labels.dtype == object else []
    if len(kinds) > 1:
        raise InputError(f"y mixes labels of types {kinds}; the classes must be of one kind")
    check_classification_targets(labels)
    return labels


def _check_numbers(frame: pd.DataFrame, numeric: Sequence[str]) -> None:
    """A numeric feature's cells are numbers (finite, within mc3g's bounds) or missing ('?',
    NaN, None: tokens FOLD-SE can use); anything else is refused, with its row and value."""
    for name in numeric:
        bad = first_non_number(frame[name], missing_ok=True)
        if bad is not None:
            raise InputError(f"feature {name!r} is numeric, but row {bad[0]} is {bad[1]}; FOLD-SE takes numbers, or '?' or NaN for a missing cell")
