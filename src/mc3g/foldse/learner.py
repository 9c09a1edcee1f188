"""FOLD-SE: default rules with exceptions, learned by sequential covering.

Wang & Gupta, "FOLD-SE: An Efficient Rule-Based Machine Learning Algorithm with Scalable
Explainability", PADL 2024 (arXiv 2208.07912), building on FOLD-R++ (Wang & Gupta, FLAIRS 2022)
and FOLD-RM for several classes.  No public source of FOLD-SE exists; this follows the
reconstruction in the project's design notes (magic-Gini heuristic, the refined ``>`` operator,
the tail cut) and reproduces the published adult and cars rule sets.

Every candidate literal of a feature is scored in one pass: the training rows are ranked once per
numeric feature at fit time, so the counts below and above every threshold of the current subset
come from one ``bincount`` and a prefix sum.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from ..exceptions import InputError, UnknownNameError
from ..params import Constraints, Free, Instance, Number, OneOf, Text, validate
from ..rules import Column, Explanation, Literal, Rule, RuleSet, Table
from ..values import first_non_number, stray_text
from .heuristics import HEURISTICS

NEG_INF = -np.inf


@dataclass
class _Encoded:
    """One feature prepared for counting: ranks of its numbers and codes of its other tokens."""

    name: str
    rank: np.ndarray | None  # index into ``thresholds`` per row, -1 for cells that are not numbers
    thresholds: np.ndarray  # sorted distinct numbers
    token_code: np.ndarray  # index into ``tokens`` per row, -1 for numbers
    tokens: np.ndarray  # sorted distinct tokens


class _Search:
    """The state of one FOLD-SE run: encoded columns, the heuristic and the fixed training size."""

    def __init__(self, table: Table, numeric: set[str], names: Sequence[str], ratio: float, tail: float, heuristic: str) -> None:
        self.table = table
        self.ratio = ratio
        self.min_cover = tail * table.n_rows
        self.score = HEURISTICS[heuristic]
        self.features = [self._encode(name, table[name], name in numeric) for name in names]
        self._layout()

    def _layout(self) -> None:
        """Every candidate key of every feature in one array, in scan order (per feature its
        thresholds, then its tokens), so one pass counts and scores all of them: a row's code in
        each block is its key's position in that array (the end when it has none there)."""
        blocks = []
        for enc in self.features:
            if enc.rank is not None and len(enc.thresholds):
                blocks.append((enc.name, enc.thresholds, ("<=", ">"), float, enc.rank))
            if len(enc.tokens):
                blocks.append((enc.name, enc.tokens, ("==", "!="), str, enc.token_code))
        sizes = np.array([len(b[1]) for b in blocks], dtype=np.int64)
        starts = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)
        self._size = int(sizes.sum())
        columns = [np.where(codes >= 0, codes + start, self._size) for (*_, codes), start in zip(blocks, starts)]
        self._codes = np.column_stack(columns) if columns else np.full((self.table.n_rows, 1), self._size)
        self._blocks = blocks
        self._block_of = np.repeat(np.arange(len(blocks)), sizes)
        self._start_of = np.repeat(starts, sizes)
        self._cumulative = np.repeat(np.array([kind is float for _, _, _, kind, _ in blocks], dtype=bool), sizes)
        self._keys = {(name, kind is str): (start, keys) for (name, keys, _, kind, _), start in zip(blocks, starts)}

    @staticmethod
    def _encode(name: str, column: Column, numeric: bool) -> _Encoded:
        if not numeric:
            return _Encoded(name, None, np.empty(0), column.codes, column.categories)
        numbers = column.numbers
        finite = ~np.isnan(numbers)
        thresholds = np.unique(numbers[finite])
        rank = np.full(len(numbers), -1, dtype=np.int64)
        rank[finite] = np.searchsorted(thresholds, numbers[finite])
        token_code = np.full(len(numbers), -1, dtype=np.int64)
        others = np.flatnonzero(~finite)
        tokens = np.empty(0, dtype=object)
        if len(others):
            rest = Column(column.values[others])
            token_code[others] = rest.codes
            tokens = rest.categories
        return _Encoded(name, rank, thresholds, token_code, tokens)

    # -- scoring -------------------------------------------------------------------------------
    def _scores(self, tp: np.ndarray, fp: np.ndarray, n_pos: int, n_neg: int, valid: np.ndarray) -> np.ndarray:
        tp = tp.astype(np.float64)
        fp = fp.astype(np.float64)
        fn = n_pos - tp
        tn = n_neg - fp
        with np.errstate(divide="ignore", invalid="ignore"):
            s = self.score(tp, fp, tn, fn)
        # A literal must cover a positive, and must beat the trivial split (FOLD-R++'s guard).
        s[~valid | (tp == 0) | (tp + tn < fp + fn)] = NEG_INF
        return s

    def best_literal(self, pos: np.ndarray, neg: np.ndarray, path: Sequence[Literal]) -> Literal | None:
        """The best literal in scan order (features as declared; thresholds ascending with ``<=``
        before ``>``; then tokens sorted with ``==`` before ``!=``); None if none is admissible.
        The first best in scan order wins a tie."""
        n_pos, n_neg = len(pos), len(neg)
        cp, cn = self._count(pos), self._count(neg)
        tp, fp = np.empty(2 * self._size, dtype=np.int64), np.empty(2 * self._size, dtype=np.int64)
        # Each key gives a literal and its complement, side by side; a threshold counts the rows at or below it.
        tp[0::2], fp[0::2] = self._first(cp), self._first(cn)
        tp[1::2], fp[1::2] = n_pos - tp[0::2], n_neg - fp[0::2]
        valid = np.repeat(cp + cn > 0, 2)
        for lit in path:
            start, keys = self._keys.get((lit.feature, isinstance(lit.value, str)), (0, np.empty(0)))
            k = int(np.searchsorted(keys, lit.value))
            if k < len(keys) and keys[k] == lit.value:
                valid[2 * (start + k) : 2 * (start + k) + 2] = False
        scores = self._scores(tp, fp, n_pos, n_neg, valid)
        k = int(np.argmax(scores)) if len(scores) else 0
        if not len(scores) or scores[k] == NEG_INF:
            return None
        name, keys, ops, kind, _ = self._blocks[self._block_of[k // 2]]
        key = keys[k // 2 - self._start_of[k // 2]]
        return Literal(name, ops[k % 2], key.item() if kind is float else str(key))

    def _count(self, rows: np.ndarray) -> np.ndarray:
        """How many of ``rows`` have each key."""
        return np.bincount(self._codes[rows].ravel(), minlength=self._size + 1)[: self._size]

    def _first(self, counts: np.ndarray) -> np.ndarray:
        """Counts of the first literal of each key: cumulated within a threshold block."""
        run = np.cumsum(counts)
        before = run[self._start_of] - counts[self._start_of]
        return np.where(self._cumulative, run - before, counts)

    # -- learning ------------------------------------------------------------------------------
    def covered(self, rule: Rule, rows: np.ndarray) -> np.ndarray:
        return rule.covers(self.table.take(rows))

    def learn_rule(self, pos: np.ndarray, neg: np.ndarray, path: list[Literal], head: Literal | None) -> Rule | None:
        """Specialise a rule until few enough negatives remain, then learn its exceptions."""
        body: list[Literal] = []
        while True:
            lit = self.best_literal(pos, neg, path + body)
            if lit is None:
                return Rule(head, tuple(body)) if body else None
            body.append(lit)
            pos = pos[lit.mask(self.table.take(pos)[lit.feature])]
            neg = neg[lit.mask(self.table.take(neg)[lit.feature])]
            if len(neg) <= self.ratio * len(pos):
                exceptions = self.learn_rule_set(neg, pos, path + body, None) if len(neg) else []
                return Rule(head, tuple(body), tuple(exceptions))

    def learn_rule_set(self, pos: np.ndarray, neg: np.ndarray, path: list[Literal], head: Literal | None) -> list[Rule]:
        """Sequential covering; rules covering fewer than ``tail`` of the training rows are cut."""
        rules: list[Rule] = []
        while len(pos):
            rule = self.learn_rule(pos, neg, path, head)
            if rule is None:
                break
            hit = self.covered(rule, pos)
            n_hit = int(hit.sum())
            if n_hit == 0 or n_hit < self.min_cover:
                break
            pos = pos[~hit]
            rules.append(rule)
        return rules


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
        ratio: float = 0.5,
        tail: float = 0.005,
        heuristic: str = "mgi",
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
        table = Table.from_frame(frame)
        search = _Search(table, numeric, list(frame.columns), self.ratio, self.tail, self.heuristic)
        label_name = str(getattr(y, "name", None) or "label")
        if len(classes) == 2:
            target = self._binary_target(classes, y_codes)
            self.target_ = self.classes_[int(np.flatnonzero(classes == target)[0])]
            pos = np.flatnonzero(classes[y_codes] == target)
            neg = np.flatnonzero(classes[y_codes] != target)
            head = Literal(label_name, "==", target)
            rules = search.learn_rule_set(pos, neg, [], head)
            default = str(classes[classes != target][0])
        else:
            if self.target is not None:
                raise InputError(
                    f"target={self.target!r} needs a binary y; y has {len(classes)} classes, for which FoldSE "
                    "learns an ordered decision list (leave target unset)"
                )
            self.target_ = None
            rules, default = _decision_list(search, classes, y_codes, label_name)
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


def _decision_list(search: _Search, classes: np.ndarray, y_codes: np.ndarray, label_name: str) -> tuple[list[Rule], str]:
    """FOLD-RM: one rule at a time for the most frequent remaining class; covered rows leave.

    A class whose next rule is cut by the tail is done; the others go on.  The default is the
    most frequent class of the rows no rule covers.
    """
    remaining = np.arange(len(y_codes))
    rules: list[Rule] = []
    done: set[int] = set()
    while len(remaining):
        counts = np.bincount(y_codes[remaining], minlength=len(classes))
        counts[list(done)] = 0
        label = int(np.argmax(counts))
        if counts[label] == 0 or counts[label] == len(remaining):
            break
        is_label = y_codes[remaining] == label
        rule = search.learn_rule(remaining[is_label], remaining[~is_label], [], Literal(label_name, "==", str(classes[label])))
        hit = search.covered(rule, remaining) if rule is not None else np.zeros(len(remaining), dtype=bool)
        n_hit = int((hit & is_label).sum())
        if rule is None or n_hit == 0 or n_hit < search.min_cover:
            done.add(label)
            continue
        rules.append(rule)
        remaining = remaining[~hit]
    counts = np.bincount(y_codes[remaining] if len(remaining) else y_codes, minlength=len(classes))
    return rules, str(classes[int(np.argmax(counts))])


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
