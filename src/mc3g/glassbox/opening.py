"""A model read into a :class:`GlassBox`: its pipeline taken apart, its estimator read, its
decision rule applied, and the reading checked against the model's own ``predict``.

What is read, inside a search of settings refitted on its best (``GridSearchCV``, ...) or
not: a scikit-learn ``Pipeline`` whose steps before the estimator map each raw column
on their own (:func:`.inputs.column_wise`; one in its last step too), or the estimator alone,
after any coding of categories a booster does itself (:func:`.estimators.own_coding`); a
``CalibratedClassifierCV`` of one sigmoid or one isotonic fit around either
(:mod:`.calibration`), a ``FixedThresholdClassifier`` or ``TunedThresholdClassifierCV`` around
any of those (a lender's own threshold on the probability or the decision function); and an
estimator :func:`.estimators.read_estimator` reads.  The
reading is kept only when, on the rows given to check it, its margin never contradicts ``predict``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from ..models import SEARCHES, label_text
from .box import GlassBox, Splits, Trees
from .calibration import Accepts, Calibration
from .estimators import InputTrees, Read, own_coding, read_estimator
from .inputs import Inputs, Transform, column_wise
from .opaque import Opaque

Threshold = tuple[str, float, int]  # the response method, the threshold, the positive class's index


def read_model(
    model: Any,
    dtypes: Mapping[str, Any],
    baseline: Mapping[str, Any],
    categories: Mapping[str, Sequence[str]],
    numbers: Mapping[str, np.ndarray],
    favourable: str,
    check: tuple[pd.DataFrame, Callable[[pd.DataFrame], np.ndarray]] | None = None,
    margin: float = 0.0,
) -> GlassBox:
    """``model``'s decision read over its raw columns (``dtypes``, as the model takes them), with
    the ``favourable`` label's side positive; ``baseline`` is a row of every column,
    ``categories`` the values each category may take, ``numbers`` the values each number was
    seen at; ``check``: rows and the model's labels of rows, which the reading must agree with;
    ``margin``: how far past its decision point the favourable class's probability must be at an
    option (the box's ``headroom``).  Raises :class:`Opaque` with the reason when the model cannot be read."""
    transform, estimator, threshold, calibration = _taken_apart(model)
    classes = getattr(model, "classes_", None)
    if classes is None or len(classes) != 2:
        raise Opaque("the model has no two classes_ to read a decision between")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an estimator fitted with column names, given arrays
        read = read_estimator(estimator)  # first: an estimator not read says so, whatever it is given
        inputs = Inputs(transform, dtypes, baseline, categories, numbers)
        read = _fed(read, inputs)
        features = [name for name in dtypes if name in set(filter(None, inputs.source))]
        sign = 1.0 if label_text(classes[1]) == favourable else -1.0
        cut = _cut(read, threshold, calibration)
        box = replace(_box(read, inputs, features, cut, sign), headroom=_headroom(read, threshold, margin, sign, calibration, cut))
    if check is not None:
        rows, labels_of = check
        _agrees(box, rows, labels_of(rows) == favourable)
    return box


def _taken_apart(model: Any) -> tuple[Transform | None, Any, Threshold | None, Calibration | None]:
    """The preprocessing (None: none), the estimator, the threshold around them (None:
    predict's own) and the calibration between (None: none; the threshold is then on its
    probability)."""
    from sklearn.pipeline import Pipeline

    kind = type(model).__name__
    if kind in SEARCHES and hasattr(model, "best_estimator_"):  # a search refitted on its best settings predicts with them
        return _taken_apart(model.best_estimator_)
    if kind in ("FixedThresholdClassifier", "TunedThresholdClassifierCV") and hasattr(model, "estimator_"):
        transform, estimator, inner, calibration = _taken_apart(model.estimator_)
        if inner is not None:
            raise Opaque("a threshold around a threshold")
        return transform, estimator, _threshold(model), calibration
    if kind == "CalibratedClassifierCV" and hasattr(model, "calibrated_classifiers_"):
        calibration, base = Calibration.of(model)
        transform, estimator, inner, again = _taken_apart(base)
        if inner is not None or again is not None:
            raise Opaque("a calibration around a threshold or another calibration")
        return transform, estimator, None, calibration
    if isinstance(model, Pipeline):
        steps = [step for _, step in model.steps[:-1] if step not in (None, "passthrough")]
        if not all(column_wise(step) for step in steps):
            said = "one-hot, ordinal and target encoders, scalers, imputers, bins, passthrough and drop, feature selections"
            raise Opaque(f"the pipeline's preprocessing is not one mc3g reads ({said})")
        transform, estimator, threshold, calibration = _taken_apart(model.steps[-1][1])  # a pipeline's, or a booster's own coding of categories
        return _then(Pipeline(model.steps[:-1]).transform if steps else None, transform), estimator, threshold, calibration
    return own_coding(model), model, None, None


def _fed(read: Read, inputs: Inputs) -> Read:
    """The estimator as the preprocessing feeds it: a booster that reads a missing value (XGBoost)
    given a sparse matrix reads every entry left out, every 0, as missing."""
    trees = read.trees
    if not inputs.sparse or trees is None or trees.missing_yes is None or read.raw is None:
        return read
    from scipy import sparse

    raw = read.raw
    return replace(read, trees=replace(trees, absent=0.0), raw=lambda Z: raw(sparse.csr_matrix(Z)))


def _then(first: Transform | None, second: Transform | None) -> Transform | None:
    """One preprocessing after the other (None: none)."""
    if first is None or second is None:
        return first or second
    return lambda frame: second(first(frame))


def _threshold(model: Any) -> Threshold:
    method = model._get_response_method()
    inner = model.estimator_
    if not isinstance(method, str):
        method = next(m for m in method if hasattr(inner, m))
    if type(model).__name__ == "FixedThresholdClassifier":
        value = model.threshold if model.threshold != "auto" else 0.5 if method == "predict_proba" else 0.0
        pos = model.pos_label
    else:
        value, pos = model.best_threshold_, model._curve_scorer._get_pos_label()
    classes = list(model.classes_)
    return method, float(value), 1 if pos is None else classes.index(pos)


def _cut(read: Read, threshold: Threshold | None, calibration: Calibration | None) -> float:
    """The score toward the second class at which the decision turns (a tie is left to the model)."""
    if calibration is not None:
        return _scored(read, calibration, calibration.turn(_accepts(threshold)))
    if threshold is None:
        return _link(read, 0.5) if read.link != "identity" else 0.0
    method, value, positive = threshold
    if method == "predict_proba":
        return _link(read, value if positive == 1 else 1 - value)
    return value if positive == 1 else -value


def _accepts(threshold: Threshold | None) -> Accepts:
    """Whether a calibrated model gives the second class, from the two classes' probabilities:
    the likelier (the first on a tie), or the positive class's past a lender's threshold."""
    if threshold is None:
        return lambda second, first: second > first
    _, value, positive = threshold
    return (lambda second, first: second >= value) if positive == 1 else (lambda second, first: ~(first >= value))


def _scored(read: Read, calibration: Calibration, response: float) -> float:
    """The score toward the second class where the estimator's response a calibration reads is ``response``."""
    if not math.isfinite(response) or calibration.response != "predict_proba":
        return response
    return _link(read, response)


def _link(read: Read, p: float) -> float:
    """The score toward the second class at which its probability is ``p``."""
    if read.link == "mean":
        return read.count * p
    if read.link == "logistic":
        return math.log(p / (1 - p)) if 0 < p < 1 else math.copysign(math.inf, p - 0.5)
    raise Opaque(f"the threshold is on the probability, and the {read.kind} has no logistic probability")


def _headroom(read: Read, threshold: Threshold | None, margin: float, sign: float, calibration: Calibration | None, cut: float) -> float:
    """How far past the decision (``cut``) an option's margin must be for the favourable class's
    probability (the calibrated one, behind a calibration) to clear its decision point by
    ``margin`` (:class:`~mc3g.models.Robustness`)."""
    if not margin:
        return 0.0
    if threshold is not None and threshold[0] != "predict_proba":
        raise Opaque(f"the margin is on the probability, and the threshold on the {threshold[0]}")
    at = 0.5 if threshold is None else threshold[1] if threshold[2] == 1 else 1 - threshold[1]  # the second class's probability at the decision
    beyond = at + sign * margin
    if not 0 < beyond < 1:
        raise Opaque(f"a margin of {margin:g} leaves no probability the model could give")
    if calibration is None:
        return sign * (_link(read, beyond) - _link(read, at))
    edge = calibration.turn((lambda second, first: second >= beyond) if sign > 0 else (lambda second, first: second > beyond))
    if not math.isfinite(edge):
        raise Opaque(f"a margin of {margin:g} leaves no probability the calibration gives")
    return max(0.0, sign * (_scored(read, calibration, edge) - cut))


def _box(read: Read, inputs: Inputs, features: list[str], cut: float, sign: float) -> GlassBox:
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
    numbers = {j: nodes for j, nodes in columns.items() if inputs.numeric(j)}
    cuts = inputs.cuts({j: trees.threshold[nodes] for j, nodes in numbers.items()}, trees.strict, trees.single)
    holes = _holes(trees, inputs, numbers)
    for j, nodes in columns.items():
        name = inputs.source[j]
        if name is None:
            always[nodes] = np.where(trees.holds(np.full(len(nodes), inputs.constant[j]), nodes), 1, -1)
            continue
        hole, inside = holes.get(j, (None, None))
        if j in cuts:
            tests = cuts[j]
            fixed = np.where(tests == np.inf, 1, np.where(tests == -np.inf, -1, 0))
            if hole is not None:  # a test is fixed only where its hole agrees
                fixed = np.where(np.isnan(hole[:, 0]) | (inside == (fixed > 0)), fixed, 0)
        else:
            tests = trees.holds(inputs.tables[j][None, :], nodes[:, None])  # a row per node, a column per value of the category
            fixed = np.where(tests.all(axis=1), 1, np.where(~tests.any(axis=1), -1, 0))
        always[nodes] = fixed
        kept = nodes[fixed == 0]
        mine = fixed == 0
        feature[kept] = place[name]
        test[kept] = splits[name].add(tests[mine]) if hole is None else splits[name].add(tests[mine], hole[mine], inside[mine])
    return _collapsed(trees, feature, test, always)


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


def _agrees(box: GlassBox, rows: pd.DataFrame, favourable: np.ndarray) -> None:
    """Refuse a reading whose margin contradicts the model's own labels of ``rows``."""
    verdicts = box.verdicts(box.margins({f: rows[f].tolist() for f in box.features}))
    wrong = np.flatnonzero((verdicts > 0) & ~favourable | (verdicts < 0) & favourable)
    if len(wrong):
        raise Opaque(
            f"the reading of the {box.kind} disagrees with its predict on {len(wrong)} of {len(rows)} rows checked (the first: row {rows.index[wrong[0]]!r})"
        )
