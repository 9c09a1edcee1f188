"""One interface for every counterfactual method, and the registry that names them.

MC3G and the baselines it is compared with (DiCE, CFNOW, Wachter et al., the nearest
counterfactual without causal knowledge) are built the same way — ``factory(model, causal,
**options)`` — fitted on training rows and asked about people; every one answers with
:class:`Recourse` objects, so a benchmark, the CLI or a service loops over methods without knowing
which is which.  Factories are named by import path and loaded on first use: a baseline's heavy
dependency (``dice-ml``, ``cfnow``) is imported only when that baseline is asked for.  This module stands above :mod:`mc3g.explain` and
:mod:`mc3g.baselines`, whose classes it names; neither of them imports it.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

import pandas as pd

from .exceptions import UnknownNameError
from .explain import Recourse


@runtime_checkable
class Explainer(Protocol):
    """Fit on training rows (no labels needed: the model gives them), then explain people:
    one row (a Series or mapping) gives one :class:`Recourse`, a DataFrame a list in row order."""

    def fit(self, X: pd.DataFrame, y: Any = None) -> Explainer: ...

    def explain(self, rows: pd.DataFrame | pd.Series | Mapping[str, Any], k: int | None = None) -> Recourse | list[Recourse]: ...


# name -> "module:factory"; each factory takes (model, causal=None, **options) and returns an Explainer.
REGISTRY: dict[str, str] = {
    "mc3g": "mc3g.explain.mc3g:MC3G",
    # Baselines without causal knowledge (they take ``causal`` and ignore it):
    "nearest_noncausal": "mc3g.baselines.nearest:nearest_noncausal",  # MC3G's options, mode fixed to "none"
    "dice": "mc3g.baselines.dice:DiceExplainer",  # k, features_to_vary, desired_class, method, continuous, permitted_range, seed, timeout
    "cfnow": "mc3g.baselines.cfnow:CfnowExplainer",  # k, features_to_vary, desired_class, strategy, continuous, tuning_seconds, seed, timeout
    "wachter": "mc3g.baselines.wachter:WachterExplainer",  # k, features_to_vary, desired_class, mad_weighted, max_iter, seed
}


def register(name: str, factory: str) -> None:
    """Make ``factory`` ("package.module:callable") available as ``explainer(name, ...)``."""
    REGISTRY[name] = factory


def explainer(name: str, model: Any, causal: Any = None, **options: Any) -> Explainer:
    """A new, unfitted explainer of the method ``name`` for ``model``."""
    try:
        module, attribute = REGISTRY[name].split(":")
    except KeyError:
        raise UnknownNameError(f"no explainer named {name!r}; the registry has {sorted(REGISTRY)}") from None
    factory = getattr(importlib.import_module(module), attribute)
    return factory(model, causal, **options)
