"""The weakest subgroups beside FACTS (Kavouras et al., NeurIPS 2023; ``aif360[FACTS]``), on the
same people and model (``mc3g bench portfolio --facts``).

FACTS searches frequent subgroups for actions and ranks them by how unequal the recourse of a
protected attribute's groups is within each; it reads numbers only as interval bins, so here
the people's numbers are cut at their quartiles and the model reads a bin as its middle.  For
FACTS's most unequal subgroup, mc3g's own answers give each group's share of refused people
who can reverse the decision within the budget, exactly: whether the two agree on where
recourse is unequal."""

from __future__ import annotations

import time
import warnings
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class FactsRun:
    case: str
    people: int  # people FACTS read (accepted and refused)
    subgroup: str  # FACTS's most unequal subgroup, its if-clause
    facts: str  # FACTS's effectiveness of its actions in it, by group
    mc3g: str  # mc3g's share within the budget of the subgroup's refused people, by group
    seconds: float  # FACTS's fit and scan

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class _Middles:
    """The model, reading each number's bin as the bin's middle (FACTS moves people between bins)."""

    def __init__(self, model: Any, favourable: str, numbers: list[str]) -> None:
        self.model, self.favourable, self.numbers = model, favourable, numbers

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        rows = X.copy()
        for name in self.numbers:
            rows[name] = [v.mid if isinstance(v, pd.Interval) else v for v in rows[name]]
            rows[name] = rows[name].astype(float)
        return (np.asarray(self.model.predict(rows)).astype(str) == self.favourable).astype(int)


def facts_run(case: str, model: Any, favourable: str, people: pd.DataFrame, frame: pd.DataFrame, protected: str, fixed: list[str], budget: float) -> FactsRun:
    """FACTS on ``people`` (everyone, by ``model``), its most unequal subgroup by ``protected``
    (``fixed``: the columns actions may not change), and mc3g's ``frame`` (the refused people's
    answers, with their columns) measured on it within ``budget``."""
    from aif360.sklearn.detectors.facts import FACTS

    numbers = [c for c in people.columns if pd.api.types.is_numeric_dtype(people[c]) and people[c].nunique() > 4]
    binned = people.copy()
    for name in numbers:
        edges = np.unique(np.quantile(people[name].to_numpy(dtype=float), np.linspace(0, 1, 5)))
        binned[name] = pd.cut(people[name], [edges[0] - 1, *edges[1:-1], edges[-1] + 1])
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        detector = FACTS(_Middles(model, favourable, numbers), protected, list(binned.columns), 0.1, feats_not_allowed_to_change=fixed)
        detector.fit(binned, verbose=False).bias_scan("equal-effectiveness", "macro", top_count=5)
    seconds = time.perf_counter() - start
    if not detector.top_rules:
        return FactsRun(case, len(people), "-", "-", "-", seconds)
    top = next(iter(detector.top_rules))
    shares = detector.subgroup_costs[top]
    inside = np.ones(len(frame), dtype=bool)
    for name, value in zip(top.features, top.values):
        column = frame[name]
        inside &= np.asarray([v in value for v in column] if isinstance(value, pd.Interval) else column == value)
    able = (frame["cost"].where(frame["status"] == "refused") <= budget) & inside
    counted = frame[inside].groupby(protected).size()
    ours = ", ".join(f"{g} {able[frame[protected] == g].sum() / n:.0%} of {n}" for g, n in counted.items())
    return FactsRun(case, len(people), str(top), ", ".join(f"{g} {s:.0%}" for g, s in shares.items()), ours or "-", seconds)
