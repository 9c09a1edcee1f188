"""An estimator read over its input columns (:mod:`.estimators`), carried onto the raw features a
person has (:mod:`.inputs`): each tree test becomes a test of one raw feature (a number's cut,
with a hole where the model reads the value's column as missing; a category's members), a test
the same for every value gives way to the child it always takes, and a linear score becomes a
slope per number, a weight per category's value, or steps of a binned number.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np

from .box import GlassBox, Splits, Trees
from .estimators import InputTrees, Read
from .inputs import Inputs
from .opaque import Opaque


def on_raw(read: Read, inputs: Inputs, features: list[str], cut: float, sign: float) -> GlassBox:
    """``read`` over the raw ``features``, its margin toward the favourable side (``sign``), less
    the score ``cut`` where the decision turns."""
    if not math.isfinite(cut):
        raise Opaque("the threshold leaves one decision only")
    splits = {name: _Tests(name in inputs.categories) for name in features}
    if read.trees is not None:
        trees, scale = _on_features(read.trees, inputs, features, splits), read.trees
        bias = _bias(read, inputs) - cut
        total = abs(bias) + sum(_largest_leaf(trees))
        tolerance = (len(trees.roots) + 2) * scale.epsilon * total  # twice the rounding of a sum of that many terms
        trees = Trees(trees.feature, trees.test, trees.yes, trees.no, sign * trees.value, trees.roots)
        return GlassBox(read.kind, tuple(features), tuple(splits[f].done(inputs.categories.get(f, ())) for f in features), trees, sign * bias, tolerance)
    slopes, weights, steps, bias = _linear_terms(read, inputs, features)
    bias -= cut
    stepped = _stepped(steps, {name: i for i, name in enumerate(features)}, splits) if steps else None
    size = abs(bias) + sum(abs(s) for s in slopes.values()) + sum(float(np.abs(w).max()) for w in [*weights.values(), *(v for _, v in steps.values())])
    return GlassBox(
        read.kind, tuple(features), tuple(splits[f].done(inputs.categories.get(f, ())) for f in features),
        None if stepped is None else replace(stepped, value=sign * stepped.value), sign * bias, 1e-9 * (1 + size),
        {f: sign * s for f, s in slopes.items()}, {f: sign * w for f, w in weights.items()},
    )  # fmt: skip


class _Tests:
    """The tests of one raw feature as they are collected: cuts, or rows of members."""

    def __init__(self, categorical: bool) -> None:
        self.categorical = categorical
        self.parts: list[np.ndarray] = []

        self.holes: list[np.ndarray] = []  # a number's: each test's hole (NaN: none), and its truth there
        self.inside: list[np.ndarray] = []

    def add(self, tests: np.ndarray, holes: np.ndarray | None = None, inside: np.ndarray | None = None) -> np.ndarray:
        """Take ``tests`` in (a number's with their holes, :class:`~.box.Splits`); their places among this feature's tests."""
        start = sum(len(p) for p in self.parts)
        self.parts.append(tests)
        self.holes.append(np.full((len(tests), 2), np.nan) if holes is None else holes)
        self.inside.append(np.zeros(len(tests), dtype=bool) if inside is None else inside)
        return np.arange(start, start + len(tests))

    def done(self, domain: Sequence[str]) -> Splits:
        if self.categorical:
            return Splits(members=np.concatenate(self.parts) if self.parts else np.zeros((0, len(domain)), dtype=bool), domain=tuple(domain))
        if not self.parts:
            return Splits(cuts=np.zeros(0))
        holes = np.concatenate(self.holes)
        if np.isnan(holes).all():
            return Splits(cuts=np.concatenate(self.parts))
        return Splits(cuts=np.concatenate(self.parts), holes=holes, inside=np.concatenate(self.inside))


def _on_features(trees: InputTrees, inputs: Inputs, features: list[str], splits: dict[str, _Tests]) -> Trees:
    """The trees with each node's test on its raw feature; a test the same for every value of
    it is no test (the node gives way to the child it always takes)."""
    if trees.column.max(initial=-1) >= len(inputs.source):
        raise Opaque(f"the estimator reads {trees.column.max() + 1} columns or more, the preprocessing gives {len(inputs.source)}")
    feature = np.full(len(trees.column), -1, dtype=np.int64)
    test = np.zeros(len(trees.column), dtype=np.int64)
    always = np.zeros(len(trees.column), dtype=np.int64)  # +1: always yes, -1: always no
    place = {name: i for i, name in enumerate(features)}
    columns = {int(j): np.flatnonzero(trees.column == j) for j in np.unique(trees.column[trees.column >= 0])}
    native = trees.set_of >= 0 if trees.set_of is not None else np.zeros(len(trees.column), dtype=bool)
    for j, nodes in columns.items():
        if inputs.numeric(j) and native[nodes].any():
            raise Opaque(f"the {inputs.source[j]!r} number is split as a category natively; mc3g reads a number's thresholds")
    numbered = _numbered(trees, inputs, {j: nodes for j, nodes in columns.items() if inputs.numeric(j)})
    for j, nodes in columns.items():
        name = inputs.source[j]
        if name is None:
            always[nodes] = np.where(trees.holds(np.full(len(nodes), inputs.constant[j]), nodes), 1, -1)
            continue
        hole, inside = None, None
        if j in numbered:
            tests, hole, inside = numbered[j]
            fixed = np.where(tests == np.inf, 1, np.where(tests == -np.inf, -1, 0))
            if hole is not None:  # a test is fixed only where its hole agrees
                fixed = np.where(np.isnan(hole[:, 0]) | (inside == (fixed > 0)), fixed, 0)
        else:
            tests = trees.holds(inputs.tables[j][None, :], nodes[:, None])  # a row per node, a column per value of the category
            fixed = np.where(tests.all(axis=1), 1, np.where(~tests.any(axis=1), -1, 0))
        always[nodes] = fixed
        mine = fixed == 0
        feature[nodes[mine]] = place[name]
        test[nodes[mine]] = splits[name].add(tests[mine]) if hole is None else splits[name].add(tests[mine], hole[mine], inside[mine])
    return _collapsed(trees, feature, test, always)


Numbered = tuple[np.ndarray, "np.ndarray | None", "np.ndarray | None"]  # a number's tests: cuts, holes (NaN: none) and the truth in them


def _numbered(trees: InputTrees, inputs: Inputs, numbers: Mapping[int, np.ndarray]) -> dict[int, Numbered]:
    """Each node's test on a number's input column as a test of the number: a cut found by
    bisection through the preprocessing where the column rises with it, with a hole where the
    booster reads its value as missing; over the number's steps where it falls somewhere (a
    discretizer's one-hot bin)."""
    rising = {j: nodes for j, nodes in numbers.items() if j not in inputs.falling}
    cuts = inputs.cuts({j: trees.threshold[nodes] for j, nodes in rising.items()}, trees.strict, trees.single)
    holes = _holes(trees, inputs, rising)
    out: dict[int, Numbered] = {j: (cuts[j], *holes.get(j, (None, None))) for j in rising}
    steps: dict[str, tuple[np.ndarray, np.ndarray, list[int]]] = {}
    for j, nodes in numbers.items():
        if j in inputs.falling:
            name = inputs.source[j]
            assert name is not None
            if name not in steps:  # once a number: its steps are all its columns
                steps[name] = inputs.steps(name)
            ends, on, columns = steps[name]
            truth = trees.holds(on[:, columns.index(j)][None, :], nodes[:, None])  # a row per node, a column per step
            out[j] = _stretched(truth, np.r_[-np.inf, ends, np.inf], name)
    return out


def _stretched(truth: np.ndarray, bounds: np.ndarray, name: str) -> Numbered:
    """Tests true on some of a number's steps (a row per test, a column per step, step ``s`` the
    values past ``bounds[s]`` up to ``bounds[s + 1]``) as cuts and holes: true on one stretch,
    on two, or on two with the first (a one-hot bin's column is 1 on one stretch, 0 around)."""
    cuts, holes, inside = np.empty(len(truth)), np.full((len(truth), 2), np.nan), np.zeros(len(truth), dtype=bool)
    for i, row in enumerate(truth):
        change, first = np.flatnonzero(row[1:] != row[:-1]) + 1, bool(row[0])
        if len(change) == 0:
            cuts[i] = np.inf if first else -np.inf
        elif len(change) == 1 and first:
            cuts[i] = bounds[change[0]]
        elif len(change) == 1:
            cuts[i], holes[i], inside[i] = -np.inf, (bounds[change[0]], np.inf), True
        elif len(change) == 2:
            cuts[i], holes[i], inside[i] = np.inf if first else -np.inf, bounds[change], not first
        elif len(change) == 3 and first:
            cuts[i], holes[i], inside[i] = bounds[change[2]], bounds[change[:2]], False
        else:
            raise Opaque(f"a tree's test of the number {name!r} is true on more than two stretches of it")
    return cuts, holes, inside


def _holes(trees: InputTrees, inputs: Inputs, numbers: Mapping[int, np.ndarray]) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """For each number's column where the booster reads a value as missing (``absent``): the
    stretch of the number that gives the column that value (``low < value <= high``, found by
    bisection with the preprocessing itself), as each node's hole where the way it sends a
    missing value is not the way its threshold sends that value (NaN elsewhere), and that way."""
    if trees.absent is None or trees.missing_yes is None or not numbers:
        return {}
    at = {j: np.array([trees.absent]) for j in numbers}
    below, upto = inputs.cuts(at, strict=True, single=False), inputs.cuts(at, strict=False, single=False)
    out = {}
    for j, nodes in numbers.items():
        low, high = float(below[j][0]), float(upto[j][0])
        inside = trees.missing_yes[nodes]
        natural = replace(trees, missing_yes=None).holds(np.full(len(nodes), trees.absent), nodes)  # the threshold's way
        differs = (inside != natural) & (low < high)
        hole = np.where(differs[:, None], [low, high], np.nan)
        if differs.any():
            out[j] = (hole, inside)
    return out


def _collapsed(trees: InputTrees, feature: np.ndarray, test: np.ndarray, always: np.ndarray) -> Trees:
    """The trees without the nodes whose test is fixed, and without what no root reaches."""
    target = np.where(always > 0, trees.yes, np.where(always < 0, trees.no, np.arange(len(feature))))
    while not np.array_equal(target, target[target]):
        target = target[target]
    yes, no, roots = target[trees.yes], target[trees.no], target[trees.roots]
    leaf = trees.column < 0
    reached, frontier = np.zeros(len(feature), dtype=bool), roots
    while len(frontier):
        reached[frontier] = True
        inner = frontier[~leaf[frontier]]
        frontier = np.concatenate([yes[inner], no[inner]])
    keep = np.flatnonzero(reached)
    renumber = np.full(len(feature), -1, dtype=np.int64)
    renumber[keep] = np.arange(len(keep))
    inner = ~leaf[keep]
    return Trees(
        np.where(inner, feature[keep], -1), np.where(inner, test[keep], 0), np.where(inner, renumber[yes[keep]], -1), np.where(inner, renumber[no[keep]], -1),
        np.where(inner, 0.0, trees.value[keep]), renumber[roots],
    )  # fmt: skip


def _largest_leaf(trees: Trees) -> list[float]:
    """Each tree's largest leaf in size."""
    bounds = np.append(trees.roots, trees.size)  # each tree's nodes follow its root, trees in order
    return [float(np.abs(trees.value[a:b]).max(initial=0.0)) for a, b in zip(bounds, bounds[1:])]


def _bias(read: Read, inputs: Inputs) -> float:
    """A booster's score less its leaves, the same on every row probed (0 for a forest)."""
    if read.raw is None:
        return read.bias
    assert read.trees is not None
    Z = np.vstack([inputs.constant, inputs.constant + 1.0, inputs.constant - 1.0])
    gaps = np.asarray(read.raw(Z), dtype=np.float64).reshape(-1) - read.trees.scores(Z)
    if np.ptp(gaps) > 1e-4 * (1 + abs(float(gaps[0]))):
        raise Opaque(f"the {read.kind}'s trees do not sum to its score (their gap varies by {np.ptp(gaps):.3g})")
    return float(np.median(gaps))


def _linear_terms(read: Read, inputs: Inputs, features: list[str]) -> tuple[dict[str, float], dict[str, np.ndarray], Steps, float]:
    """A linear score's slope per number, weights per category's value, steps per number in
    steps (a discretizer's bins: each step's last value, and the score on each step), and bias."""
    assert read.coef is not None
    if len(read.coef) != len(inputs.source):
        raise Opaque(f"the {read.kind} takes {len(read.coef)} columns, the preprocessing gives {len(inputs.source)}")
    slopes: dict[str, float] = {}
    weights: dict[str, np.ndarray] = {}
    bias = read.intercept
    straight = {j: _straight(inputs, j) for j in range(len(inputs.source)) if inputs.numeric(j)}
    steps: Steps = {}
    for name in sorted({inputs.source[j] for j, line in straight.items() if line is None}):  # type: ignore[type-var]  # a number any of whose columns is no straight line of it
        if any(line is not None and line[0] != 0 for j, line in straight.items() if inputs.source[j] == name):
            raise Opaque(f"the number {name!r} is read both as it is and in steps")
        cuts, on, columns = inputs.steps(name)  # type: ignore[arg-type]  # its columns: a step no training value falls in is one too
        steps[name] = (cuts, on @ read.coef[columns])  # type: ignore[index]
    for j, (w, name) in enumerate(zip(read.coef, inputs.source)):
        if name is None:
            bias += w * inputs.constant[j]
        elif name in steps:
            continue
        elif inputs.numeric(j):
            slope, intercept = straight[j]  # type: ignore[misc]
            slopes[name] = slopes.get(name, 0.0) + w * slope
            bias += w * intercept
        else:
            weights[name] = weights.get(name, 0.0) + w * inputs.tables[j]
    return slopes, weights, steps, bias


Steps = dict[str, tuple[np.ndarray, np.ndarray]]  # a number's steps: the last value of each but the last, and the score on each


def _straight(inputs: Inputs, j: int) -> tuple[float, float] | None:
    """A number's input column ``j`` as a straight line of it (slope, intercept), None where it is not one."""
    if j in inputs.falling:
        return None
    try:
        return inputs.affine(j)
    except Opaque:
        return None


def _stepped(steps: Steps, place: Mapping[str, int], splits: Mapping[str, _Tests]) -> Trees:
    """Each number in steps as a tree of its own, a balanced one over its cuts, its leaves the
    score on each step (each tree's nodes together, its root first)."""
    nodes: list[tuple[int, int, int, int, float]] = []  # feature, test, yes, no, value

    def grow(at: int, tests: np.ndarray, scores: np.ndarray, low: int, high: int) -> int:
        node = len(nodes)
        nodes.append((-1, 0, -1, -1, float(scores[low])))  # a leaf, or made a test once its children are grown
        if high - low > 1:
            middle = (low + high) // 2  # the steps before it: at or below the cut that ends the one before
            nodes[node] = (at, int(tests[middle - 1]), grow(at, tests, scores, low, middle), grow(at, tests, scores, middle, high), 0.0)
        return node

    roots = [grow(place[name], splits[name].add(cuts), scores, 0, len(scores)) for name, (cuts, scores) in steps.items()]
    feature, test, yes, no = (np.array(column, dtype=np.int64) for column in list(zip(*nodes))[:4])
    return Trees(feature, test, yes, no, np.array([node[4] for node in nodes], dtype=np.float64), np.array(roots, dtype=np.int64))
