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
from .box import GlassBox
from .calibration import Accepts, Calibration
from .estimators import Read, own_coding, read_estimator
from .inputs import Inputs, Transform, column_wise
from .opaque import Opaque
from .raw import on_raw

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
        box = replace(on_raw(read, inputs, features, cut, sign), headroom=_headroom(read, threshold, margin, sign, calibration, cut))
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


def _agrees(box: GlassBox, rows: pd.DataFrame, favourable: np.ndarray) -> None:
    """Refuse a reading whose margin contradicts the model's own labels of ``rows``."""
    verdicts = box.verdicts(box.margins({f: rows[f].tolist() for f in box.features}))
    wrong = np.flatnonzero((verdicts > 0) & ~favourable | (verdicts < 0) & favourable)
    if len(wrong):
        raise Opaque(
            f"the reading of the {box.kind} disagrees with its predict on {len(wrong)} of {len(rows)} rows checked (the first: row {rows.index[wrong[0]]!r})"
        )
