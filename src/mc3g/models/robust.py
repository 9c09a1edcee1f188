"""Options that hold beyond today's model: a margin on its probability, and models retrained.

A plan that just clears today's model may not clear next quarter's, retrained on fresh data: the
person does the work and is refused again.  Two checks guard against that (robust recourse in the
sense of ROAR and RBR, done here as checks on the model's own outputs, not as a new objective):

- a **margin**: the model's probability of the favourable class must clear the point where its
  decision turns (0.5, or a lender's threshold on ``predict_proba``) by at least this much;
- **retrained models**: the lender's recipe (an estimator to clone, or a function of ``(X, y)``
  returning a fitted model) fitted again on bootstrap resamples of the training data; an option's
  *survival* is the share of them that accept it (with the margin, where they give a
  probability: its classes in the same order as the model's), and a search may require at
  least ``survive``.

A row passes only the checks asked for; the person's own row is never judged by them (a person
the model accepts is not refused, however thin the margin).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..exceptions import InputError, said
from .labels import label_text, label_texts

Judge = Callable[[Mapping[str, list[Any]]], np.ndarray]  # the rows as a column of values per feature


@dataclass(frozen=True)
class Robustness:
    """What an option must clear beyond the model's own decision: ``margin`` (probability) past
    ``point`` on the favourable class (``column`` of ``predict_proba``), and acceptance by at
    least ``survive`` of the ``retrained`` models (their labels compared with ``favourable``);
    ``exact`` when the search proves its options the least-cost states that hold (set where the
    model and its retrained ones are read exactly)."""

    favourable: str
    margin: float = 0.0
    point: float = 0.5
    column: int = 0
    retrained: tuple[Any, ...] = ()
    survive: float = 0.0
    exact: bool = False  # the options proved the least-cost that hold: the model and every retrained one read exactly
    judges: tuple[Judge | None, ...] = ()  # per retrained model, its decision read exactly where it was (+1, -1; 0: only it can tell)

    @classmethod
    def of(cls, model: Any, favourable: str, *, margin: float = 0.0, retrained: Sequence[Any] = (), survive: float = 0.0) -> Robustness:
        """The checks for ``model``: a margin needs its ``predict_proba`` and where its decision turns."""
        point, column = decision_point(model, favourable) if margin else (0.5, 0)
        return cls(favourable, float(margin), point, column, tuple(retrained), float(survive))

    @property
    def settings(self) -> dict[str, Any]:
        """What shapes the options (for the run record): the margin, the retrained models, the share required."""
        return {"margin": self.margin, "retrains": len(self.retrained), "survive": self.survive, "exact": self.exact}

    def survival(self, frame: pd.DataFrame) -> np.ndarray:
        """The share of the retrained models that accept each row, with the margin where they
        give a probability (NaN where there are none)."""
        if not self.retrained or frame.empty:
            return np.full(len(frame), np.nan)
        judges = self.judges or (None,) * len(self.retrained)
        columns = {name: frame[name].tolist() for name in frame.columns} if any(judges) else {}
        return np.mean([self._judged(model, judge, frame, columns) for model, judge in zip(self.retrained, judges)], axis=0)

    def _judged(self, model: Any, judge: Judge | None, frame: pd.DataFrame, columns: Mapping[str, list[Any]]) -> np.ndarray:
        """Whether ``model`` accepts each row: read off its decision read exactly where it was
        (many times faster than its ``predict``), the rows only it can tell asked of it."""
        if judge is None:
            return self._accepts(model, frame)
        verdicts = judge(columns)
        accepted = verdicts > 0
        ties = np.flatnonzero(verdicts == 0)
        if len(ties):
            accepted[ties] = self._accepts(model, frame.iloc[ties])
        return accepted

    def _accepts(self, model: Any, frame: pd.DataFrame) -> np.ndarray:
        if self.margin and callable(getattr(model, "predict_proba", None)):
            return _probability(model, frame, self.column) >= self.point + self.margin
        return _labels(model, frame) == self.favourable

    def holds(self, model: Any, frame: pd.DataFrame) -> np.ndarray:
        """Whether each row (one the model accepts) clears the margin and enough retrained models."""
        held = np.ones(len(frame), dtype=bool)
        if frame.empty:
            return held
        if self.margin:
            held &= _probability(model, frame, self.column) >= self.point + self.margin
        if self.retrained and self.survive:
            held &= self.survival(frame) >= self.survive - 1e-12
        return held


def decision_point(model: Any, favourable: str) -> tuple[float, int]:
    """Where ``model``'s decision turns on its probability of the ``favourable`` class, and that
    class's column of ``predict_proba``: 0.5 for a classifier that predicts the likelier class, or
    a lender's threshold (scikit-learn's ``FixedThresholdClassifier``, ``TunedThresholdClassifierCV``)."""
    classes = [label_text(c) for c in getattr(model, "classes_", ())]
    if not callable(getattr(model, "predict_proba", None)) or len(classes) != 2 or favourable not in classes:
        raise InputError("margin is a band on the model's probability: it needs a model of two classes_ with predict_proba")
    column = classes.index(favourable)
    kind = type(model).__name__
    if kind not in ("FixedThresholdClassifier", "TunedThresholdClassifierCV"):
        return 0.5, column
    method = model._get_response_method()
    method = method if isinstance(method, str) else next(m for m in method if hasattr(model.estimator_, m))
    if method != "predict_proba":
        raise InputError(f"margin is a band on the model's probability, and its threshold is on its {method}")
    threshold = (0.5 if model.threshold == "auto" else model.threshold) if kind == "FixedThresholdClassifier" else model.best_threshold_
    positive = model.pos_label if kind == "FixedThresholdClassifier" else model._curve_scorer._get_pos_label()
    positive_column = 1 if positive is None else classes.index(label_text(positive))
    return (float(threshold), column) if positive_column == column else (1.0 - float(threshold), column)


def retrained_models(recipe: Any, X: pd.DataFrame, y: Any, count: int, seed: int, labels: Sequence[str]) -> tuple[Any, ...]:
    """``count`` models made by ``recipe`` (an estimator, cloned, or a function of ``(X, y)``
    returning a fitted model), each on a bootstrap resample of ``X`` and ``y`` (seeds ``seed``,
    ``seed + 1``, ...), each checked to answer only ``labels``."""
    from sklearn.base import clone

    if y is None:
        raise InputError("retrain fits the model again on resampled training data: give fit the training labels, fit(X, y)")
    target = np.asarray(y)
    if len(target) != len(X):
        raise InputError(f"fit's y has {len(target):,} labels for {len(X):,} rows of X")
    models = []
    for i in range(count):
        rows = np.random.RandomState(seed + i).randint(0, len(X), len(X))
        Xb, yb = X.iloc[rows], target[rows]
        try:
            model = clone(recipe).fit(Xb, yb) if hasattr(recipe, "fit") else recipe(Xb, yb)
            answered = set(_labels(model, X.iloc[: min(len(X), 500)]))
        except Exception as exc:  # the recipe is the lender's code: say what it did
            raise InputError(f"retrain failed on resample {i + 1} of {count}: {said(exc)}") from exc
        if not answered <= set(labels):
            raise InputError(f"a model retrained by retrain answers [{', '.join(sorted(answered - set(labels)))}], which the model explained never gives")
        models.append(model)
    return tuple(models)


def _labels(model: Any, frame: pd.DataFrame) -> np.ndarray:
    predict = model.predict if callable(getattr(model, "predict", None)) else model
    return label_texts(np.asarray(predict(frame)).reshape(-1))


def _probability(model: Any, frame: pd.DataFrame, column: int) -> np.ndarray:
    return np.asarray(model.predict_proba(frame), dtype=np.float64)[:, column]
