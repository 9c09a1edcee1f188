"""The nearest counterfactual without causal knowledge: what MACE computes (the closest state
the model accepts, constraints and causal rules ignored), here as MC3G's exact search with the
causal knowledge switched off and every change priced (mode ``none``)."""

from __future__ import annotations

from typing import Any

from ..exceptions import InputError
from ..explain import MC3G


def nearest_noncausal(model: Any, causal: Any = None, **options: Any) -> MC3G:
    """MC3G for ``model`` without ``causal`` (ignored) in mode ``none``; ``options`` are MC3G's
    other keyword options (``k``, ``norm``, ``schema``, ``features_to_vary``, ...), not ``mode``."""
    if "mode" in options:
        raise InputError("nearest_noncausal fixes mode='none'; it takes no mode option")
    return MC3G(model, None, mode="none", **options)
