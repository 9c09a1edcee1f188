"""A lender's checklist (docs/checklist.md): what an option sent to an applicant must not do.

Each data set has its checklist (``resources/checklists/NAME.toml``): its protected and household
features, the features only time changes, windfalls, career jumps, employer types that are no
advice, ordered categories and numbers with a better direction.  An option is judged on what it
changes and on how it reads, never on the knowledge the search was given: so the knowledge itself
is measured by it (``mc3g bench advice``).  A state is plausible when it lies no farther from the
nearest past applicant than nearly all past applicants lie from theirs (:class:`Plausibility`).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import numpy as np
import pandas as pd

from ..explain import Counterfactual
from ..rules import token
from ..search import spread

LINES = ("protected", "household", "older", "jump", "new employer", "windfall", "worse", "implausible", "knowledge")
"""The checklist's lines, in the order docs/checklist.md gives them."""


@dataclass(frozen=True)
class Checklist:
    """One data set's checklist: see the module's docstring and docs/checklist.md."""

    protected: frozenset[str] = frozenset()
    household: frozenset[str] = frozenset()
    time: frozenset[str] = frozenset()
    windfall: frozenset[str] = frozenset()
    record: frozenset[str] = frozenset()  # describe the record, not the person: left out of plausibility
    jumps: tuple[tuple[str, frozenset[str], frozenset[str]], ...] = ()  # (feature, from, to)
    new: Mapping[str, frozenset[str]] = field(default_factory=dict)  # feature -> values no advice moves to
    order: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # category -> its values, worst first
    better: Mapping[str, str] = field(default_factory=dict)  # number -> "increase" or "decrease"

    @classmethod
    def shipped(cls, dataset: str) -> Checklist:
        """The checklist shipped for ``dataset`` (adult, german, taiwan)."""
        text = resources.files("mc3g.resources").joinpath("checklists", f"{dataset}.toml").read_text(encoding="utf-8")
        data = tomllib.loads(text)
        sets = {name: frozenset(data.get(name, ())) for name in ("protected", "household", "time", "windfall", "record")}
        jumps = tuple((j["feature"], frozenset(j["from"]), frozenset(j["to"])) for j in data.get("jump", ()))
        new = {name: frozenset(values) for name, values in data.get("new", {}).items()}
        order = {name: tuple(values) for name, values in data.get("order", {}).items()}
        return cls(**sets, jumps=jumps, new=new, order=order, better=dict(data.get("better", {})))

    def failed(self, option: Counterfactual, person: Mapping[str, Any], immutable: frozenset[str] = frozenset()) -> set[str]:
        """The lines ``option`` fails for ``person`` (plausibility and the knowledge aside: the
        caller's); ``immutable`` adds the features the data's own metadata protect."""
        moved = {c.feature: (c.before, c.after) for c in (*option.direct_actions, *option.caused_changes)}
        acted = [a.feature for a in option.direct_actions]
        lines = set()
        if set(moved) & (self.protected | immutable):
            lines.add("protected")
        if set(moved) & self.household:
            lines.add("household")
        if any(a.feature in self.time and not a.is_wait for a in option.direct_actions):
            lines.add("older")
        if any(f in moved and token(moved[f][0]) in start and token(moved[f][1]) in end for f, start, end in self.jumps):
            lines.add("jump")
        if any(f in moved and token(moved[f][1]) in values for f, values in self.new.items()):
            lines.add("new employer")
        if acted and set(acted) <= self.windfall:
            lines.add("windfall")
        if any(self._worse(f, before, after) for f, (before, after) in moved.items()):
            lines.add("worse")
        return lines

    def _worse(self, feature: str, before: Any, after: Any) -> bool:
        order = self.order.get(feature)
        if order is not None:
            rank = {v: i for i, v in enumerate(order)}
            return token(before) in rank and token(after) in rank and rank[token(after)] < rank[token(before)]
        way = self.better.get(feature)
        return way is not None and (float(after) < float(before) if way == "increase" else float(after) > float(before))


class Plausibility:
    """How far a state lies from the nearest past applicant (numbers in units of their spread,
    a differing category 1, summed), against how far past applicants lie from theirs: a state is
    plausible when it is no farther than the ``quantile`` of a sample of past applicants' own
    nearest distances (each to the nearest other past applicant)."""

    def __init__(self, past: pd.DataFrame, numeric: list[str], *, quantile: float = 0.99, sample: int = 2000, seed: int = 0) -> None:
        self.columns = list(past.columns)
        self.numeric = [c in numeric for c in self.columns]
        self.codes = {c: {v: i for i, v in enumerate(pd.unique(past[c].astype(str)))} for c, n in zip(self.columns, self.numeric) if not n}
        self.spreads = np.array([spread(past[c]) if n else 1.0 for c, n in zip(self.columns, self.numeric)])
        self.past = self._encoded(past)
        rows = np.random.default_rng(seed).choice(len(past), size=min(sample, len(past)), replace=False)
        self.threshold = float(np.quantile(self._nearest(self.past[rows], exclude=rows), quantile))

    def _encoded(self, frame: pd.DataFrame) -> np.ndarray:
        out = np.empty((len(frame), len(self.columns)))
        for i, (c, n) in enumerate(zip(self.columns, self.numeric)):
            out[:, i] = frame[c].astype(float) / self.spreads[i] if n else frame[c].astype(str).map(self.codes[c]).fillna(-1)
        return out

    def _nearest(self, points: np.ndarray, exclude: np.ndarray | None = None, chunk: int = 32) -> np.ndarray:
        """Each point's distance to the nearest past applicant (``exclude``: the point's own row)."""
        numeric = np.array(self.numeric)
        numbers, categories = self.past[:, numeric], self.past[:, ~numeric]
        out = np.empty(len(points))
        for start in range(0, len(points), chunk):
            block = points[start : start + chunk]
            distance = np.abs(block[:, None, numeric] - numbers[None]).sum(axis=2) + (block[:, None, ~numeric] != categories[None]).sum(axis=2)
            if exclude is not None:
                distance[np.arange(len(block)), exclude[start : start + chunk]] = np.inf
            out[start : start + chunk] = distance.min(axis=1)
        return out

    def distances(self, states: pd.DataFrame) -> np.ndarray:
        """Each state's distance to the nearest past applicant."""
        return self._nearest(self._encoded(states[self.columns]))

    def plausible(self, states: pd.DataFrame) -> np.ndarray:
        return self.distances(states) <= self.threshold
