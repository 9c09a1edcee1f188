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

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from ..rules import Column, Literal, Rule, RuleSet, Table
from ..rules.ruleset import Explanation
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
        before ``>``; then tokens sorted with ``==`` before ``!=``); None if none is admissible."""
        n_pos, n_neg = len(pos), len(neg)
        used = {(lit.feature, lit.value) for lit in path}
        best_score, best = NEG_INF, None
        for enc in self.features:
            blocks = []
            if enc.rank is not None and len(enc.thresholds):
                # Counts per threshold, accumulated: rows at or below each value.
                cp, cn = _counts(enc.rank, pos, len(enc.thresholds)), _counts(enc.rank, neg, len(enc.thresholds))
                blocks.append((np.cumsum(cp), np.cumsum(cn), cp + cn, enc.thresholds, ("<=", ">"), float))
            if len(enc.tokens):
                cp, cn = _counts(enc.token_code, pos, len(enc.tokens)), _counts(enc.token_code, neg, len(enc.tokens))
                blocks.append((cp, cn, cp + cn, enc.tokens, ("==", "!="), str))
            for tp_first, fp_first, present, keys, ops, kind in blocks:
                # Each key gives a literal and its complement, side by side in scan order.
                tp = np.column_stack([tp_first, n_pos - tp_first]).ravel()
                fp = np.column_stack([fp_first, n_neg - fp_first]).ravel()
                valid = np.repeat(present > 0, 2)
                for f, v in used:
                    if f == enc.name and isinstance(v, str) == (kind is str):
                        k = int(np.searchsorted(keys, v))
                        if k < len(keys) and keys[k] == v:
                            valid[2 * k : 2 * k + 2] = False
                scores = self._scores(tp, fp, n_pos, n_neg, valid)
                k = int(np.argmax(scores))
                if scores[k] > best_score:
                    best_score = scores[k]
                    key = keys[k // 2]
                    best = Literal(enc.name, ops[k % 2], key.item() if kind is float else str(key))
        return best

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


def _counts(codes: np.ndarray, rows: np.ndarray, size: int) -> np.ndarray:
    """How many of ``rows`` have each code (codes below 0 are not counted)."""
    picked = codes[rows]
    return np.bincount(picked[picked >= 0], minlength=size)


class FoldSE(ClassifierMixin, BaseEstimator):
    """FOLD-SE rule learner with a scikit-learn interface.

    Parameters
    ----------
    ratio : exception ratio; a rule stops specialising once its negatives are at most
        ``ratio`` times its positives, and then learns exceptions for them.
    tail : rules (and exceptions) covering fewer than ``tail`` x training rows are dropped.
    heuristic : ``"mgi"`` (FOLD-SE's magic Gini), ``"ig"`` (FOLD-R++'s information gain) or
        ``"gini"``.  ``FoldSE(heuristic="ig", tail=0)`` is FOLD-R++ with the refined operator.
    target : the class the rules describe when ``y`` has two classes.  By default the class
        ``1``/``True`` of a 0/1 or boolean target, otherwise the most frequent class.  With more
        than two classes the learner builds an ordered decision list (FOLD-RM style) instead.
    numeric : names of the numeric features; by default the columns with a numeric dtype.
        Cells of a numeric feature that are not numbers (``?``, NaN) become tokens it can use.

    Attributes
    ----------
    rules_ : RuleSet, the learned program (flattened as FOLD-SE prints it).
    classes_, target_, numeric_, feature_names_in_, n_features_in_.
    """

    def __init__(
        self,
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
    def fit(self, X: pd.DataFrame, y: Any) -> FoldSE:
        if self.heuristic not in HEURISTICS:
            raise ValueError(f"heuristic must be one of {sorted(HEURISTICS)}, not {self.heuristic!r}")
        if not 0 <= self.ratio:
            raise ValueError(f"ratio must be >= 0, not {self.ratio}")
        if not 0 <= self.tail < 1:
            raise ValueError(f"tail must be in [0, 1), not {self.tail}")
        X = _as_frame(X)
        labels = _as_labels(y, len(X))
        self.feature_names_in_ = np.array(X.columns, dtype=object)
        self.n_features_in_ = X.shape[1]
        numeric = self._numeric_features(X)
        self.numeric_ = [c for c in X.columns if c in numeric]
        classes, y_codes = np.unique(labels.astype(str), return_inverse=True)
        self._label_of = {str(v): v for v in labels}
        self.classes_ = np.array([self._label_of[c] for c in classes], dtype=object)
        if len(classes) < 2:
            raise ValueError(f"y has a single class {str(classes[0])!r}; FOLD-SE needs at least two classes")
        table = Table.from_frame(X)
        search = _Search(table, numeric, list(X.columns), self.ratio, self.tail, self.heuristic)
        label_name = str(getattr(y, "name", None) or "label")
        if len(classes) == 2:
            target = self._binary_target(labels, classes)
            self.target_ = self._label_of[target]
            pos = np.flatnonzero(classes[y_codes] == target)
            neg = np.flatnonzero(classes[y_codes] != target)
            head = Literal(label_name, "==", target)
            rules = search.learn_rule_set(pos, neg, [], head)
            default = str(classes[classes != target][0])
        else:
            if self.target is not None:
                raise ValueError(
                    f"target={self.target!r} needs a binary y; y has {len(classes)} classes, for which FoldSE "
                    "learns an ordered decision list (leave target unset)"
                )
            self.target_ = None
            rules, default = _decision_list(search, classes, y_codes, label_name)
        self.rules_ = RuleSet(tuple(rules), label_name, default, tuple(str(c) for c in classes)).flattened()
        return self

    def _numeric_features(self, X: pd.DataFrame) -> set[str]:
        if self.numeric is None:
            return {c for c in X.columns if pd.api.types.is_numeric_dtype(X[c]) and not pd.api.types.is_bool_dtype(X[c])}
        declared = [self.numeric] if isinstance(self.numeric, str) else list(self.numeric)
        unknown = [c for c in declared if c not in X.columns]
        if unknown:
            raise ValueError(f"numeric names column(s) {unknown} that X does not have; X has {list(X.columns)}")
        for c in declared:
            numbers = pd.to_numeric(X[c], errors="coerce")
            if numbers.notna().sum() == 0:
                example = X[c].dropna().iloc[0] if X[c].notna().any() else None
                raise ValueError(f"feature {c!r} is declared numeric but none of its {len(X)} values is a number (e.g. {example!r})")
        return set(declared)

    def _binary_target(self, labels: np.ndarray, classes: np.ndarray) -> str:
        if self.target is not None:
            t = str(self.target)
            if t not in classes:
                raise ValueError(f"target {self.target!r} is not a class of y; the classes are {list(self.classes_)}")
            return t
        if set(classes) in ({"0", "1"}, {"False", "True"}):
            return "1" if "1" in classes else "True"
        values, counts = np.unique(labels.astype(str), return_counts=True)
        return str(values[int(np.argmax(counts))])

    # -- prediction ----------------------------------------------------------------------------
    def _check_columns(self, X: Any) -> pd.DataFrame:
        check_is_fitted(self, "rules_")
        X = _as_frame(X, list(self.feature_names_in_))
        expected = list(self.feature_names_in_)
        missing = [c for c in expected if c not in X.columns]
        unknown = [c for c in X.columns if c not in expected]
        if missing or unknown:
            parts = []
            if missing:
                parts.append(f"missing column(s) {missing}")
            if unknown:
                parts.append(f"unknown column(s) {unknown}")
            raise ValueError(f"X does not match the columns seen in fit: {'; '.join(parts)}")
        return X

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        X = self._check_columns(X)
        out = self.rules_.predict(X)
        return np.array([self._label_of[v] for v in out], dtype=self.classes_.dtype)

    def explain(self, row: pd.Series | dict[str, Any]) -> Explanation:
        """Which rule decided this row, or why none fired."""
        check_is_fitted(self, "rules_")
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


def _as_frame(X: Any, names: list[str] | None = None) -> pd.DataFrame:
    if isinstance(X, pd.DataFrame):
        frame = X
    elif isinstance(X, (np.ndarray, list, tuple)):
        arr = np.asarray(X, dtype=object)
        if arr.ndim != 2:
            raise ValueError(f"X must be a table (2-D); got an array of shape {arr.shape}")
        cols = names if names is not None and len(names) == arr.shape[1] else [f"x{i}" for i in range(arr.shape[1])]
        frame = pd.DataFrame(arr, columns=cols).infer_objects()
    else:
        raise TypeError(f"X must be a pandas DataFrame (or a 2-D array), not {type(X).__name__}")
    if frame.shape[0] == 0 or frame.shape[1] == 0:
        raise ValueError(f"X is empty ({frame.shape[0]} rows, {frame.shape[1]} columns)")
    if any(not isinstance(c, str) for c in frame.columns):
        frame = frame.rename(columns=str)
    duplicated = frame.columns[frame.columns.duplicated()].tolist()
    if duplicated:
        raise ValueError(f"X has duplicate column names {duplicated}")
    return frame


def _as_labels(y: Any, n_rows: int) -> np.ndarray:
    labels = np.asarray(y.to_numpy() if isinstance(y, pd.Series) else y, dtype=object).reshape(-1)
    if len(labels) != n_rows:
        raise ValueError(f"y has {len(labels)} labels but X has {n_rows} rows")
    missing = pd.isna(pd.Series(labels)).to_numpy()
    if missing.any():
        rows = np.flatnonzero(missing)[:5].tolist()
        raise ValueError(f"y has {int(missing.sum())} missing label(s), e.g. at row(s) {rows}")
    return labels
