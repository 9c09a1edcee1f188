"""A lender's checklist (docs/checklist.md): what an option sent to an applicant must not do.

Each data set has its checklist (``resources/checklists/NAME.toml``): its protected and household
features, the features only time changes, windfalls, career jumps, employer types that are no
advice, ordered categories and numbers with a better direction.  An option is judged on what it
changes and on how it reads, never on the knowledge the search was given: so the knowledge itself
is measured by it (``mc3g bench advice``).  A state is plausible when it lies no farther from the
nearest past applicant than nearly all past applicants lie from theirs (:func:`plausibility`).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import pandas as pd

from ..explain import Counterfactual
from ..rules import token
from ..schema import Feature
from ..search import PastApplicants, spread

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


def plausibility(past: pd.DataFrame, numeric: list[str]) -> PastApplicants:
    """The past applicants an option's state is judged against (:class:`~mc3g.search.PastApplicants`,
    what ``product`` keeps advice within): a sample of ``past``, numbers in standard deviations,
    a differing category 1.  The checklist builds its own from the training rows, the columns
    that describe the record left out, and judges the final states, not the search."""
    features = [Feature(c, "numeric" if c in numeric else "categorical") for c in past.columns]
    reference = PastApplicants.of(past, features, {c: spread(past[c]) for c in past.columns if c in numeric})
    assert reference is not None, "no past applicants to judge against"
    return reference
