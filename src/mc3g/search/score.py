"""A model read exactly (:class:`~mc3g.glassbox.GlassBox`), over one person's candidate values.

Each tree test becomes a pattern of truth over the candidate values of its feature.  A test
with the same truth for every candidate is no test: its node gives way to the child it always
takes, so a person's trees keep only the nodes their candidates can send either way (an
immutable feature's tests all go), and a tree left testing one feature alone is summed into that
feature's terms, one per candidate (:func:`_folded`).  The solver is told a bound the sum of the
leaves and terms must reach, counted in integers rounded up (:meth:`Score.weights`): every state
the model accepts reaches it, so no state reaching it means the model accepts none (a proof), and
the few states that reach it only by the rounding are refused again here, exactly
(:meth:`Score.verdicts`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from ..glassbox import GlassBox, Trees
from .space import CandidateSpace

State = tuple[int, ...]

WEIGHT_BITS = 30  # the integers the solver sums, leaves and terms together, stay below 2^30


@dataclass(frozen=True, eq=False)
class Score:
    """The model over a person's candidates: its ``trees`` testing ``patterns`` (per position of
    a feature in the space, a row of truth over its candidates per test), its linear ``terms``
    (per position, each candidate's term), and its ``bias`` with the trees that no candidate
    changes folded in; ``optimistic`` terms bound what a candidate's interval may add (the
    solver's, see :mod:`.encoding`)."""

    box: GlassBox
    space: CandidateSpace
    trees: Trees | None
    patterns: dict[int, np.ndarray]
    terms: dict[int, np.ndarray]
    optimistic: dict[int, np.ndarray]
    bias: float

    @property
    def tolerance(self) -> float:
        return self.box.tolerance

    @classmethod
    def of(cls, box: GlassBox, space: CandidateSpace) -> Score:
        position = {f.name: i for i, f in enumerate(space.features)}
        missing = [f for f in box.features if f not in position]
        if missing:
            raise ValueError(f"the candidate space lacks the features {missing} the model reads")
        truth: dict[int, np.ndarray] = {}
        for f, split in zip(box.features, box.splits):
            values = space[f].values
            if split.numeric:
                truth[position[f]] = split.truth(values)
            else:
                codes = split.codes(values)
                if (codes < 0).any():
                    raise ValueError(f"{f} = {values[int(np.argmin(codes))]!r} is none of the values the model was read for")
                truth[position[f]] = split.members[:, codes]  # type: ignore[index]
        terms = {position[f]: slope * np.asarray(space[f].values, dtype=np.float64) for f, slope in box.slopes.items()}
        optimistic = dict(terms)
        for f, slope in box.slopes.items():
            if space[f].spans is not None:  # a candidate may stand for the values after it: the best of them
                optimistic[position[f]] = np.maximum(terms[position[f]], slope * np.asarray(space[f].spans, dtype=np.float64))
        for f, weights in box.weights.items():
            terms[position[f]] = optimistic[position[f]] = weights[box.splits[box.features.index(f)].codes(space[f].values)]
        bias = box.bias
        trees, patterns = None, {}
        if box.trees is not None:
            trees, patterns, fixed = _pruned(box, truth, [position[f] for f in box.features])
            bias += fixed
            foldable = {p for p in patterns if space.features[p].spans is None}
            trees, patterns, folded = _folded(trees, patterns, foldable)
            for p, added in folded.items():
                terms[p] = terms[p] + added if p in terms else added
                optimistic[p] = optimistic[p] + added if p in optimistic else added
        return cls(box, space, trees, patterns, terms, optimistic, bias)

    def margins(self, grid: np.ndarray) -> np.ndarray:
        """The margin of each state (a row of candidate indices, in space order)."""
        total = np.full(len(grid), self.bias)
        if self.trees is not None and len(self.trees.roots):
            total += self.trees.value[self._leaves(grid)].sum(axis=1)
        for position, terms in self.terms.items():
            total += terms[grid[:, position]]
        return total

    @cached_property
    def _steps(self) -> tuple[np.ndarray, ...]:
        """The trees as one table a state walks down, a level at a time: each node's feature
        (0 at a leaf), where its pattern starts in all patterns laid end to end, and its
        children (a leaf its own), with the depth of the deepest leaf, and 1 at each inner node
        (0 at a leaf, which reads the table's first entry whatever the state)."""
        trees = self.trees
        assert trees is not None
        inner = trees.feature >= 0
        flat, starts, width = [], {}, {}
        offset = 0
        for position, rows in self.patterns.items():
            starts[position], width[position] = offset, rows.shape[1]
            flat.append(rows.reshape(-1))
            offset += rows.size
        start = np.zeros(trees.size, dtype=np.int64)
        for position in self.patterns:
            mine = inner & (trees.feature == position)
            start[mine] = starts[position] + trees.test[mine] * width[position]
        here = np.arange(trees.size)
        depth, level = 0, trees.roots
        while len(level := level[inner[level]]):
            depth, level = depth + 1, np.concatenate([trees.yes[level], trees.no[level]])
        table = np.concatenate(flat) if flat else np.zeros(1, dtype=bool)
        yes, no = np.where(inner, trees.yes, here), np.where(inner, trees.no, here)
        return np.where(inner, trees.feature, 0), start, yes, no, table, np.array(depth), inner.astype(np.intp)

    def _leaves(self, grid: np.ndarray) -> np.ndarray:
        """The leaf each tree reaches for each state (a row per state, a column per tree)."""
        feature, start, yes, no, table, depth, inner = self._steps
        node = np.tile(self.trees.roots, (len(grid), 1))  # type: ignore[union-attr]
        rows = np.arange(len(grid))[:, None]
        for _ in range(int(depth)):  # a leaf reached stays: its own children; its lookup kept within the table
            node = np.where(table[start[node] + grid[rows, feature[node]] * inner[node]], yes[node], no[node])
        return node

    def ceiling(self) -> float:
        """No state's margin passes this: each tree's best leaf and each feature's best term
        taken together, whether or not one state reaches them all (a state reaches none past)."""
        total = self.bias + sum(float(t.max(initial=-np.inf)) for t in self.optimistic.values())
        if self.trees is not None and len(self.trees.roots):
            leaf = np.flatnonzero(self.trees.feature < 0)
            best = np.full(len(self.trees.roots), -np.inf)
            np.maximum.at(best, np.searchsorted(self.trees.roots, leaf, side="right") - 1, self.trees.value[leaf])
            total += float(best.sum())
        return total

    def refuses_every_state(self) -> bool:
        """Whether no state can be accepted: even the :meth:`ceiling` falls short of the decision
        by more than the tolerance (a tie is the model's to tell)."""
        return self.ceiling() < -self.tolerance

    def refuses_at_each_value(self) -> bool:
        """Whether no state can be accepted because, for some feature, the ceiling with it held
        at each of its candidates in turn falls short (:meth:`ceilings`): a tree's best leaf is
        often one no value of it reaches together with another tree's.  Worth its walk over a
        person's own candidates, not over every cell of every feature."""
        return any(float(best.max()) < -self.tolerance for best in self.ceilings().values())

    def ceilings(self) -> dict[int, np.ndarray]:
        """For each position the trees or terms read, the :meth:`ceiling` with that feature held
        at each of its candidates: every position's candidates as rows of one walk down the
        trees, level by level (a tree test of another feature lets both children through)."""
        positions = sorted(set(self.patterns) | set(self.optimistic))
        sizes = [len(self.space.features[p].values) for p in positions]
        starts = dict(zip(positions, np.cumsum([0, *sizes[:-1]]).tolist()))
        best_terms = {p: float(t.max(initial=-np.inf)) for p, t in self.optimistic.items()}
        total = np.full(sum(sizes), self.bias + sum(best_terms.values()))
        for p, terms in self.optimistic.items():
            total[starts[p] : starts[p] + len(terms)] += terms - best_terms[p]
        trees = self.trees
        if trees is not None and len(trees.roots):
            yes, no = np.ones((len(total), trees.size), dtype=bool), np.ones((len(total), trees.size), dtype=bool)
            for p, rows in self.patterns.items():
                nodes = np.flatnonzero(trees.feature == p)
                block = rows[trees.test[nodes]].T  # a row per candidate, a column per node testing it
                yes[starts[p] : starts[p] + block.shape[0], nodes], no[starts[p] : starts[p] + block.shape[0], nodes] = block, ~block
            reach = np.zeros_like(yes)
            reach[:, trees.roots] = True
            level = trees.roots
            while len(level := level[trees.feature[level] >= 0]):
                here = reach[:, level]
                reach[:, trees.yes[level]], reach[:, trees.no[level]] = here & yes[:, level], here & no[:, level]
                level = np.concatenate([trees.yes[level], trees.no[level]])
            leaf = np.flatnonzero(trees.feature < 0)
            values = np.where(reach[:, leaf], trees.value[leaf], -np.inf)
            firsts = np.searchsorted(leaf, trees.roots)  # each tree's first leaf among them (a tree's nodes lie together)
            total += np.maximum.reduceat(values, firsts, axis=1).sum(axis=1)
        return {p: total[starts[p] : starts[p] + n] for p, n in zip(positions, sizes)}

    @property
    def spanned(self) -> bool:
        """Whether some candidate stands for an interval of a number the score is linear in."""
        return any(self.space.features[p].spans is not None for p in self.optimistic)

    def possible(self, grid: np.ndarray) -> np.ndarray:
        """Whether the model may accept some state of each box (a state whose candidates stand
        for intervals: the best of each counted); the state itself where none does."""
        if not self.spanned:
            return self.verdicts(grid) >= 0
        best = self.margins(grid) + sum(self.optimistic[p][grid[:, p]] - self.terms[p][grid[:, p]] for p in self.optimistic)
        return best >= -self.tolerance

    def verdicts(self, grid: np.ndarray) -> np.ndarray:
        """+1 where the model accepts the state, -1 where it refuses it, 0 where only it can tell."""
        return self.box.verdicts(self.margins(grid))

    def weights(self) -> tuple[np.ndarray, dict[int, np.ndarray], int]:
        """The solver's integers: each leaf's value and each candidate's optimistic term at one
        scale, rounded up, and the least sum a state the model may accept reaches.  The scale
        keeps every sum of them below 2^30 (the solver counts each tree's leaves and each
        feature's terms from their least, in steps that add up to its best: :mod:`.encoding`)."""
        leaves = self.trees.value[self.trees.feature < 0] if self.trees is not None else np.zeros(0)
        floor = self.bias + self.tolerance
        largest = sum(float(np.abs(t).max(initial=0.0)) for t in self.optimistic.values())
        if self.trees is not None and len(self.trees.roots):
            leaf = np.flatnonzero(self.trees.feature < 0)
            most = np.zeros(len(self.trees.roots))
            np.maximum.at(most, np.searchsorted(self.trees.roots, leaf, side="right") - 1, np.abs(self.trees.value[leaf]))
            largest += float(most.sum())
        scale = 2.0 ** (WEIGHT_BITS - 2 - math.ceil(math.log2(largest + abs(floor) + 1.0)))
        counted = {p: np.ceil(t * scale).astype(np.int64) for p, t in self.optimistic.items()}
        return np.ceil(leaves * scale).astype(np.int64), counted, math.floor(-floor * scale)


def _pruned(box: GlassBox, truth: dict[int, np.ndarray], positions: list[int]) -> tuple[Trees, dict[int, np.ndarray], float]:
    """The trees with only the tests a person's candidates split, each test as a pattern of
    truth (one per distinct pattern of a feature), and the sum of the trees fixed outright."""
    trees = box.trees
    assert trees is not None
    inner = trees.feature >= 0
    always = np.zeros(trees.size, dtype=np.int64)
    pattern = np.zeros(trees.size, dtype=np.int64)
    patterns: dict[int, np.ndarray] = {}
    for f, position in enumerate(positions):
        nodes = np.flatnonzero(trees.feature == f)
        rows = truth[position][trees.test[nodes]]
        always[nodes] = np.where(rows.all(axis=1), 1, np.where(~rows.any(axis=1), -1, 0))
        split = nodes[always[nodes] == 0]
        if len(split):
            patterns[position], pattern[split] = _distinct_rows(truth[position][trees.test[split]])
    target = np.where(always > 0, trees.yes, np.where(always < 0, trees.no, np.arange(trees.size)))
    target[~inner] = np.flatnonzero(~inner)
    while not np.array_equal(target, target[target]):
        target = target[target]
    roots = target[trees.roots]
    fixed = float(trees.value[roots[trees.feature[roots] < 0]].sum())
    reached, frontier = np.zeros(trees.size, dtype=bool), roots[trees.feature[roots] >= 0]
    while len(frontier):
        reached[frontier] = True
        inner_now = frontier[trees.feature[frontier] >= 0]
        frontier = np.concatenate([target[trees.yes[inner_now]], target[trees.no[inner_now]]])
    keep = np.flatnonzero(reached)
    renumber = np.full(trees.size, -1, dtype=np.int64)
    renumber[keep] = np.arange(len(keep))
    is_inner = trees.feature[keep] >= 0
    pruned = Trees(
        np.where(is_inner, np.asarray(positions)[trees.feature[keep].clip(0)], -1),
        np.where(is_inner, pattern[keep], 0),
        np.where(is_inner, renumber[target[trees.yes[keep]]], -1),
        np.where(is_inner, renumber[target[trees.no[keep]]], -1),
        np.where(is_inner, 0.0, trees.value[keep]),
        renumber[roots[trees.feature[roots] >= 0]],
    )  # fmt: skip
    return pruned, patterns, fixed


def _distinct_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of a boolean matrix and, for each row, which of them it is (rows packed
    into bytes and compared whole: cheaper than sorting them column by column)."""
    packed = np.ascontiguousarray(np.packbits(rows, axis=1))
    keys = packed.view(np.dtype((np.void, packed.shape[1]))).reshape(-1)
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    return rows[first], inverse.reshape(-1)


def _folded(trees: Trees, patterns: dict[int, np.ndarray], foldable: set[int]) -> tuple[Trees, dict[int, np.ndarray], dict[int, np.ndarray]]:
    """The trees that test one feature alone among a person's candidates (of ``foldable``)
    summed into that feature's terms, one per candidate, and the other trees with the tests
    they still use: a term is one weight per candidate to the solver, a tree a node and a leaf
    each (adult's histogram boosting: about half a person's trees test one feature)."""
    inner = trees.feature >= 0
    if not len(trees.roots):
        return trees, patterns, {}
    tree_of = np.zeros(trees.size, dtype=np.int64)  # each node's tree, handed down from its root
    tree_of[trees.roots] = np.arange(len(trees.roots))
    level = trees.roots
    while len(level := level[inner[level]]):
        tree_of[trees.yes[level]] = tree_of[trees.no[level]] = tree_of[level]
        level = np.concatenate([trees.yes[level], trees.no[level]])
    low = np.full(len(trees.roots), np.iinfo(np.int64).max)
    high = np.full(len(trees.roots), -1)
    np.minimum.at(low, tree_of[inner], trees.feature[inner])
    np.maximum.at(high, tree_of[inner], trees.feature[inner])
    alone = (low == high) & np.isin(high, list(foldable))
    if not alone.any():
        return trees, patterns, {}
    folded = {}
    for p in np.unique(high[alone]).tolist():  # each candidate of p walked down the trees that test p alone
        leaves = replace(trees, roots=trees.roots[alone & (high == p)]).leaves(patterns[p].T, trees.test)
        folded[p] = trees.value[leaves].sum(axis=1)
    keep = np.flatnonzero(~alone[tree_of])
    renumber = np.full(trees.size, -1, dtype=np.int64)
    renumber[keep] = np.arange(len(keep))
    feature, test = trees.feature[keep], trees.test[keep].copy()
    kept: dict[int, np.ndarray] = {}
    for p, rows in patterns.items():
        mine = feature == p
        if mine.any():
            used, test[mine] = np.unique(test[mine], return_inverse=True)
            kept[p] = rows[used]
    is_inner = feature >= 0
    rest = Trees(
        feature,
        test,
        np.where(is_inner, renumber[trees.yes[keep]], -1),
        np.where(is_inner, renumber[trees.no[keep]], -1),
        trees.value[keep],
        renumber[trees.roots[~alone]],
    )  # fmt: skip
    return rest, kept, folded
