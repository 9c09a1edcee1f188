"""The paper's Table 2 recomputed: nearest, furthest and average cost of the 20 least-cost
counterfactuals of each reference person, per data set, cost mode and norm, with the authors'
``data`` candidates."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..profiles import Profile
from ..reference import reference

DATASETS = ("adult", "german", "cars")
MODES = ("none", "explained", "derived")
NORMS = ("l1", "l2", "l0")


def table2(
    datasets: tuple[str, ...] = DATASETS, k: int = 20, on_cell: Callable[[str, str, str], None] | None = None
) -> tuple[dict[str, Any], dict[str, dict[str, int]]]:
    """``{dataset: {mode: {norm: {"nearest", "furthest", "average", "n"}}}}``, and per data set
    the size of the authors' candidate space (symbolic regions, candidate states)."""
    out: dict[str, Any] = {}
    spaces: dict[str, dict[str, int]] = {}
    for name in datasets:
        ref = reference(name)
        ds = ref.data()
        person = ref.person_row(ds)
        cells: dict[str, Any] = {}
        for mode in MODES:
            for norm in NORMS:
                result = ref.explainer(ds, profile=Profile.PAPER, mode=mode, norm=norm, k=k, candidates="data").explain(person)
                costs = [cf.cost for cf in result.counterfactuals]
                cells.setdefault(mode, {})[norm] = {
                    "nearest": costs[0] if costs else None,
                    "furthest": costs[-1] if costs else None,
                    "average": float(np.mean(costs)) if costs else None,
                    "n": len(costs),
                }
                spaces[name] = {"regions": result.run.n_regions, "candidates": result.run.n_candidates}
                if on_cell is not None:
                    on_cell(name, mode, norm)
        out[name] = cells
    return out, spaces


def agrees(ours: float | None, paper: float) -> bool:
    """The paper prints three decimals, some rounded and some cut off; either counts."""
    if ours is None:
        return False
    return paper in (round(ours, 3), math.floor(ours * 1000 + 1e-9) / 1000)
