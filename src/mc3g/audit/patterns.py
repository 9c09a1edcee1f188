"""A portfolio at a glance, from a batch's per-person plans: a recourse summary of a few
segment → action rules, and the subgroups whose recourse is worst, both found by frequent
patterns of the people's own columns, not only the groups a lender names.

A **segment** is the people who meet one or two conditions on their columns (a category's value,
or a number's quartile band), held by at least ``fewest`` refused people.  An **action** is the
moves of one option, in the person's words ("raise amount paid in September", "change repayment
status in September to paid duly"): which features it acts on and, for a category, the value it
moves to (a number's amount is the person's own).  A rule *segment → action* covers a refused
person of the segment one of whose options is that action, and its cost is the mean, over the
people it covers, of their least-cost option that is: both recomputed exactly from the plans
(AReS, Rawal and Lakkaraju 2020, and GLOBE-CE, Ley et al. 2023, summarise a model's recourse
with such rules, but searched, not read off each person's exact plans).  The summary is picked
greedily, the rule that covers most people not yet covered first (set cover's greedy choice).

The **weakest subgroups** are the segments where the fewest refused people can reverse the
decision within a cost ``budget`` (by default the median cost of everyone's least-cost option),
then with the highest mean cost among those who can: FACTS (Kavouras et al., NeurIPS 2023)
compares subgroups' recourse the same way.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..batch import audited_columns
from ..explain import NO_COUNTERFACTUAL, REFUSED, Recourse

MOST_RULES = 10  # rules a summary holds at most
MOST_VALUES = 24  # a category with more values than this is not a segment's condition (a name, an identifier)
BANDS = 4  # a number's segments: its quartiles among the refused
MOST_SINGLES = 48  # single conditions paired, the most frequent: 1,177 segments at most, whatever the columns

Condition = tuple[str, str, Any]  # a column, "==" or "in" (a number's band: its [low, high) edges), the value
Action = frozenset[tuple[str, str]]  # each move: the feature in words, and "raise", "lower", "wait" or "to VALUE"


@dataclass(frozen=True)
class SummaryRule:
    """One rule of a recourse summary: its segment, its action, the people it covers (their
    ``positions``) and the mean cost of their least-cost option that is the action."""

    segment: tuple[Condition, ...]
    action: Action
    positions: tuple[int, ...]
    cost: float

    @property
    def covered(self) -> int:
        return len(self.positions)

    def sentence(self) -> str:
        """ "people with pay_0 = 2 and bill_amt1 in [0, 6,000): raise amount paid in September" """
        return f"{segment_words(self.segment)}: {action_words(self.action)}"

    def to_dict(self) -> dict[str, Any]:
        return {"rule": self.sentence(), "covered": self.covered, "mean_cost": self.cost, "segment": [list(c) for c in self.segment]}


@dataclass(frozen=True)
class Summary:
    """A recourse summary: its rules, the refused people with an option it was drawn from, and
    how many of them its rules cover together."""

    rules: tuple[SummaryRule, ...]
    people: int
    covered: int

    @property
    def coverage(self) -> float:
        return self.covered / self.people if self.people else 0.0


def recourse_summary(frame: pd.DataFrame, columns: Sequence[str], most: int = MOST_RULES, fewest: int = 5) -> Summary:
    """At most ``most`` segment → action rules over ``columns`` covering the most refused people
    with an option of ``frame`` (a batch's results: ``status``, ``cost``, ``options``)."""
    answered = frame[frame["status"] == REFUSED].reset_index(drop=True)
    if answered.empty:
        return Summary((), 0, 0)
    least = _least(answered["options"])
    kinds = sorted({a for person in least for a in person}, key=lambda a: sorted(a))
    if not kinds:  # results written before the options were kept
        return Summary((), len(answered), 0)
    has = np.array([[a in person for a in kinds] for person in least], dtype=np.float32).reshape(len(answered), len(kinds))
    found = segments(answered, columns, fewest)
    masks = np.array([mask for _, mask in found], dtype=np.float32).reshape(len(found), len(answered))
    uncovered = np.ones(len(answered), dtype=bool)
    rules: list[SummaryRule] = []
    while len(rules) < most and uncovered.any():
        gained = masks[:, uncovered] @ has[uncovered]  # segment × action: people not yet covered it would cover
        s, a = np.unravel_index(int(np.argmax(gained)), gained.shape)
        if gained[s, a] < 1:
            break
        covers = masks[s].astype(bool) & has[:, a].astype(bool)
        costs = [least[i][kinds[a]] for i in np.flatnonzero(covers)]
        positions = tuple(int(p) for p in answered["position"].to_numpy()[covers]) if "position" in answered else tuple(np.flatnonzero(covers).tolist())
        rules.append(SummaryRule(found[s][0], kinds[a], positions, float(np.mean(costs))))
        uncovered &= ~covers
    return Summary(tuple(rules), len(answered), int((~uncovered).sum()))


def weakest_subgroups(frame: pd.DataFrame, columns: Sequence[str], budget: float | None = None, fewest: int = 20, most: int = 10) -> pd.DataFrame:
    """The ``most`` segments of ``columns`` (each of ``fewest`` refused people or more) whose
    refused people can least often reverse the decision within ``budget``, worst first: the share
    who can, the share with any option, the mean cost of those who can, and their size."""
    refused = frame[frame["status"].isin([REFUSED, NO_COUNTERFACTUAL])].reset_index(drop=True)
    if refused.empty:
        return pd.DataFrame(columns=["subgroup", "segment", "refused", "within_budget", "with_option", "mean_cost", "budget"])
    cost = refused["cost"].where(refused["status"] == REFUSED)
    budget = (float(cost.median()) if cost.notna().any() else 0.0) if budget is None else float(budget)  # nobody with an option: nothing is within reach
    within = (cost <= budget).to_numpy()
    rows = []
    for segment, mask in segments(refused, columns, fewest):
        inside = within[mask]
        rows.append(
            {
                "subgroup": segment_words(segment),
                "segment": segment,
                "refused": int(mask.sum()),
                "within_budget": float(inside.mean()),
                "with_option": float(cost[mask].notna().mean()),
                "mean_cost": float(cost[mask & within].mean()) if inside.any() else math.nan,
                "conditions": len(segment),
            }
        )
    table = pd.DataFrame(rows)
    if table.empty:
        return table
    table = table.sort_values(["within_budget", "with_option", "conditions", "refused"], ascending=[True, True, True, False], kind="stable")
    kept: list[tuple[set[Condition], float]] = []
    listed = []
    for segment, share in zip(table["segment"], table["within_budget"]):  # a narrower segment no worse than a wider one listed says nothing more
        listed.append(not any(wider < set(segment) and low <= share for wider, low in kept))
        kept += [(set(segment), share)] if listed[-1] else []
    shown = table[listed]
    return shown.drop(columns="conditions").head(most).assign(budget=budget).reset_index(drop=True)


def segments(people: pd.DataFrame, columns: Sequence[str], fewest: int) -> list[tuple[tuple[Condition, ...], np.ndarray]]:
    """Everyone, each single condition held by ``fewest`` people or more (the
    :data:`MOST_SINGLES` held by most), and each pair of them on two columns that is too (the
    frequent patterns of length one and two)."""
    held = [(c, m) for column in columns for c, m in _conditions(people[column], column) if m.sum() >= fewest]
    singles = sorted(held, key=lambda single: -int(single[1].sum()))[:MOST_SINGLES]
    found: list[tuple[tuple[Condition, ...], np.ndarray]] = [((), np.ones(len(people), dtype=bool))]
    found += [((c,), m) for c, m in singles]
    for i, (c1, m1) in enumerate(singles):
        for c2, m2 in singles[i + 1 :]:
            if c1[0] != c2[0] and (both := m1 & m2).sum() >= fewest:
                found.append(((c1, c2), both))
    return found


def in_segment(people: pd.DataFrame, segment: Sequence[Condition]) -> np.ndarray:
    """Whether each person meets every condition of ``segment``."""
    inside = np.ones(len(people), dtype=bool)
    for column, op, value in segment:
        values = people[column]
        if op == "in":
            numbers = values.to_numpy(dtype=float)
            inside &= (numbers >= value[0]) & (numbers < value[1])
        else:
            inside &= (values == value).to_numpy()
    return inside


def _conditions(values: pd.Series, column: str) -> list[tuple[Condition, np.ndarray]]:
    """A column's conditions: each value of a category (of at most :data:`MOST_VALUES`), or the
    quartile bands of a number."""
    if pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values) and values.nunique() > BANDS:
        edges = sorted(set(np.nanquantile(values.to_numpy(dtype=float), np.linspace(0, 1, BANDS + 1)[1:-1]).tolist()))
        cuts = [-math.inf, *edges, math.inf]
        numbers = values.to_numpy(dtype=float)
        return [((column, "in", (low, high)), (numbers >= low) & (numbers < high)) for low, high in zip(cuts, cuts[1:])]
    if values.nunique() > MOST_VALUES:
        return []
    return [((column, "==", value), (values == value).to_numpy()) for value in values.dropna().unique()]


def _least(options: pd.Series) -> list[dict[Action, float]]:
    """Each person's options as actions, each with its least cost among them."""
    least = []
    for text in options:
        cheapest: dict[Action, float] = {}
        for option in json.loads(text) if isinstance(text, str) else text or []:
            action = action_of(option)
            cheapest[action] = min(float(option["cost"]), cheapest.get(action, math.inf))
        least.append(cheapest)
    return least


def action_of(option: dict[str, Any]) -> Action:
    """An option's action (its JSON, as a batch's results hold it): its moves in words."""
    moves = set()
    for change in option["direct"]:
        shown = change.get("shown") or {}
        before, after = change["from"], change["to"]
        label = shown.get("feature", change["feature"])
        if shown.get("waits") is not None:
            moves.add((label, "wait"))
        elif isinstance(after, (int, float)) and not isinstance(after, bool) and isinstance(before, (int, float)):
            moves.add((label, "raise" if after > before else "lower"))
        else:
            moves.add((label, f"to {shown.get('to', after)}"))
    return frozenset(moves)


def action_words(action: Action) -> str:
    """An action in words: "raise amount paid in September, change repayment status to paid duly"."""
    said = []
    for label, move in sorted(action):
        if move == "wait":
            said.append(f"wait for {label} to grow")
        elif move.startswith("to "):
            said.append(f"change {label} {move}")
        else:
            said.append(f"{move} {label}")
    return ", ".join(said)


def segment_words(segment: Sequence[Condition]) -> str:
    """A segment in words: "everyone", or "people with sex = Female and age in [25, 37)"."""
    if not segment:
        return "everyone"
    shown = []
    for column, op, value in segment:
        if op == "in":
            low, high = value
            shown.append(f"{column} < {high:,g}" if low == -math.inf else f"{column} >= {low:,g}" if high == math.inf else f"{column} in [{low:,g}, {high:,g})")
        else:
            shown.append(f"{column} = {value}")
    return "people with " + " and ".join(shown)


def portfolio(
    people: pd.DataFrame, answers: Sequence[Recourse], patterns: Sequence[str] | None = None, budget: float | None = None, fewest: int = 20
) -> tuple[Summary, pd.DataFrame]:
    """The recourse summary and the weakest subgroups (of ``fewest`` refused people or more) of
    ``people`` answered here, not read from a batch's folder (the service's portfolio), over
    their columns ``patterns`` (None: all of them)."""
    frame = pd.concat([people.reset_index(drop=True), pd.DataFrame(audited_columns(list(answers)))], axis=1)
    columns = list(people.columns) if patterns is None else list(patterns)
    return recourse_summary(frame, columns), weakest_subgroups(frame, columns, budget, fewest)
