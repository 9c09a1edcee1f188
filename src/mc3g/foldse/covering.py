"""FOLD-SE's learning: default rules with exceptions, by sequential covering.

Wang & Gupta, "FOLD-SE: An Efficient Rule-Based Machine Learning Algorithm with Scalable
Explainability", PADL 2024 (arXiv 2208.07912), building on FOLD-R++ (Wang & Gupta, FLAIRS 2022)
and FOLD-RM for several classes.  No public source of FOLD-SE exists; this follows the
reconstruction in the project's design notes (magic-Gini heuristic, the refined ``>`` operator,
the tail cut) and reproduces the published adult and cars rule sets.

Every candidate literal of a feature is scored in one pass: the training rows are ranked once per
numeric feature at fit time, so the counts below and above every threshold of the current subset
come from one ``bincount`` and a prefix sum.  :class:`~.learner.FoldSE` is the estimator that
checks a user's data and learns with it; :func:`described` learns from a table the package builds.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np

from ..rules import Column, Literal, Rule, RuleSet, Table
from .heuristics import HEURISTICS

NEG_INF = -np.inf
RATIO, TAIL, HEURISTIC = 0.5, 0.005, "mgi"  # FoldSE's defaults (:func:`described` learns with them too)


@dataclass
class _Encoded:
    """One feature prepared for counting: ranks of its numbers and codes of its other tokens."""

    name: str
    rank: np.ndarray | None  # index into ``thresholds`` per row, -1 for cells that are not numbers
    thresholds: np.ndarray  # sorted distinct numbers
    token_code: np.ndarray  # index into ``tokens`` per row, -1 for numbers
    tokens: np.ndarray  # sorted distinct tokens


class Search:
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


def described(table: Table, numeric: Collection[str], is_target: np.ndarray, target: str, classes: Sequence[str], *, tail: float = TAIL) -> RuleSet:
    """FOLD-SE's rules of ``target`` (the rows where ``is_target``) against the other of the two
    ``classes`` (text, sorted as :attr:`FoldSE.classes_` would be), learned as :meth:`FoldSE.fit`
    learns them once it has checked its input, with its default ratio and heuristic.  For tables
    the package builds itself (a black box's verdicts on rows around a person): a user's data
    goes through ``fit``, whose checks and frame cost more than learning from a few hundred rows."""
    search = Search(table, set(numeric), list(table), RATIO, tail, HEURISTIC)
    return rules_of(search, is_target, target, tuple(classes), "label")


def rules_of(search: Search, is_target: np.ndarray, target: str, classes: tuple[str, ...], label_name: str) -> RuleSet:
    """The rules of ``target`` against the other class, which is their default."""
    head = Literal(label_name, "==", target)
    rules = search.learn_rule_set(np.flatnonzero(is_target), np.flatnonzero(~is_target), [], head)
    default = next(c for c in classes if c != target)
    return RuleSet(tuple(rules), label_name, default, classes).flattened()


def decision_list(search: Search, classes: np.ndarray, y_codes: np.ndarray, label_name: str) -> tuple[list[Rule], str]:
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
