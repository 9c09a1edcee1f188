"""A calibrated model's decision as a threshold on its estimator's own response.

scikit-learn's ``CalibratedClassifierCV`` maps the estimator's response (its decision function,
or else its probability of the second class) to a probability through a function that rises with
it: one sigmoid, or an isotonic fit.  Its decision, and a lender's threshold on that probability,
turn where the function crosses a point, so each is a threshold on the response.  The point is
found on the calibrator itself, by bisection over the floating-point numbers in their order: the
cut is where scikit-learn's own arithmetic turns (an isotonic fit's flat stretch at exactly one
half included), not where an inverse formula says it would.
"""

from __future__ import annotations

import math
import struct
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .opaque import Opaque

Accepts = Callable[[np.ndarray, np.ndarray], np.ndarray]  # from the two classes' probabilities, whether the second class is given

ROUNDED_TO_ONE = 1e-5  # a probability this little past 1 is 1, as scikit-learn makes it


@dataclass(frozen=True)
class Calibration:
    """The one calibrator of a ``CalibratedClassifierCV`` (``calibrator``: its ``method``'s fit,
    sigmoid or isotonic), reading the estimator's ``response`` (``decision_function`` or
    ``predict_proba``)."""

    method: str
    calibrator: Any
    response: str

    @classmethod
    def of(cls, model: Any) -> tuple[Calibration, Any]:
        """A fitted ``CalibratedClassifierCV``'s calibration, and the estimator it calibrates
        (out of a ``FrozenEstimator``); :class:`Opaque` where it is not one rising function."""
        first, *more = model.calibrated_classifiers_
        if more:
            raise Opaque(
                f"the calibration averages {len(more) + 1} calibrated models (ensemble=True); mc3g reads one "
                "(calibrate with ensemble=False, or around a FrozenEstimator of the model already fitted)"
            )
        if first.method not in ("sigmoid", "isotonic") or len(first.calibrators) != 1:
            raise Opaque(f"the calibration is {first.method!r}; mc3g reads one sigmoid's or one isotonic fit's")
        calibrator = first.calibrators[0]
        rises = calibrator.a_ < 0 if first.method == "sigmoid" else bool(calibrator.increasing_)  # the sigmoid is the logistic of -(a * response + b)
        if not rises:
            raise Opaque("the calibration's probability does not rise with the model's score")
        base = first.estimator
        response = "decision_function" if hasattr(base, "decision_function") else "predict_proba"  # as the calibration read it
        base = base.estimator if type(base).__name__ == "FrozenEstimator" else base
        return cls(first.method, calibrator, response), base

    def probabilities(self, response: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The second class's calibrated probability at each ``response``, and the first's, as
        scikit-learn computes them for two classes."""
        second = np.asarray(self.calibrator.predict(np.asarray(response, dtype=np.float64)), dtype=np.float64)
        first = 1.0 - second
        for p in (first, second):
            p[(p > 1.0) & (p <= 1.0 + ROUNDED_TO_ONE)] = 1.0
        return second, first

    def turn(self, accepts: Accepts) -> float:
        """The least response at which ``accepts`` holds of the probabilities (which must rise
        with them): math.inf where it holds at none, -math.inf where it holds at every one."""

        def holds(key: int) -> bool:
            return bool(accepts(*self.probabilities(np.array([_number(key)])))[0])

        low, high = (
            (_key(float(self.calibrator.X_min_)), _key(float(self.calibrator.X_max_)))
            if self.method == "isotonic"
            else (_key(-sys.float_info.max), _key(sys.float_info.max))
        )  # an isotonic fit is flat past its ends
        if not holds(high):
            return math.inf
        if holds(low):
            return -math.inf
        while high - low > 1:  # holds at high, not at low: at most 64 halvings of the numbers in order
            middle = (low + high) // 2
            low, high = (low, middle) if holds(middle) else (middle, high)
        return _number(high)


def _key(number: float) -> int:
    """A float's place among all floats in order (both zeros at 0)."""
    (bits,) = struct.unpack("<q", struct.pack("<d", number))
    return bits if bits >= 0 else -(bits & 0x7FFF_FFFF_FFFF_FFFF)


def _number(key: int) -> float:
    """The float at ``key`` (:func:`_key`)."""
    (number,) = struct.unpack("<d", struct.pack("<Q", key if key >= 0 else -key | 1 << 63))
    return float(number)
