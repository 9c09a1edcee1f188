"""Literal scores for FOLD-SE and FOLD-R++.

Each takes the confusion counts of every candidate literal at once (arrays) and returns scores to
maximise.  The guard ``tp + tn < fp + fn -> -inf`` is applied by the learner, not here, so that
every heuristic gets it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Heuristic = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def magic_gini(tp: np.ndarray, fp: np.ndarray, tn: np.ndarray, fn: np.ndarray) -> np.ndarray:
    """FOLD-SE's "magic Gini impurity" (Wang & Gupta, PADL 2024), negated."""
    return -(np.sqrt(tp * fp) + np.sqrt(tn * fn)) / (tp + fp + tn + fn)


def _xlogx(x: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x > 0, x * np.log2(np.where(x > 0, x, 1.0)), 0.0)


def information_gain(tp: np.ndarray, fp: np.ndarray, tn: np.ndarray, fn: np.ndarray) -> np.ndarray:
    """FOLD-R++'s heuristic: minus the entropy left after the split (a constant away from the
    information gain, so the ranking is the same)."""
    inside = _xlogx(tp) + _xlogx(fp) - _xlogx(tp + fp)
    outside = _xlogx(tn) + _xlogx(fn) - _xlogx(tn + fn)
    return (inside + outside) / (tp + fp + tn + fn)


def gini(tp: np.ndarray, fp: np.ndarray, tn: np.ndarray, fn: np.ndarray) -> np.ndarray:
    """Weighted Gini impurity of the two sides of the split, negated."""
    with np.errstate(divide="ignore", invalid="ignore"):
        inside = np.where(tp + fp > 0, 2 * tp * fp / np.maximum(tp + fp, 1), 0.0)
        outside = np.where(tn + fn > 0, 2 * tn * fn / np.maximum(tn + fn, 1), 0.0)
    return -(inside + outside) / (tp + fp + tn + fn)


HEURISTICS: dict[str, Heuristic] = {"mgi": magic_gini, "ig": information_gain, "gini": gini}
