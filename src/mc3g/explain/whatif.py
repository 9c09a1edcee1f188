"""What if the person makes changes of their own: the state they reach, what follows from it,
whether it keeps the causal knowledge and the metadata, the decision there, and its cost.

The person's changes are direct actions.  Every causal rule that is a constraint and whose cause
they make true (false before, true after) then forces its effect: the feature lands on the
effect's point nearest to where it was, as in the search (the first such point in candidate
order when two are equally near), and may force further effects in turn.  A ``cause`` rule
only allows its effect, so nothing is applied for it.  The cost is the search's own pricing of
that state under the explainer's mode and norm.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..engine import Engine
from ..exceptions import InputError, UnknownNameError
from ..rules import Rule
from ..schema import Feature
from ..search import Problem
from ..serialization import header
from ..values import plain
from .changes import CausedChange, DirectAction
from .check import violations
from .result import Counterfactual
from .session import changes_of

JSON_FORMAT = "mc3g.whatif"
JSON_VERSION = 1
JSON_MINOR = 1  # 1.1: the refusing rules as literals, changes in words, caused changes' rule ids


@dataclass(frozen=True)
class WhatIf:
    """The person's state after their ``changes`` and what those force.

    ``cost`` is None when a change is not the person's to make (an immutable feature, one that
    changes only as a consequence); ``broken`` lists the constraints and metadata the state
    breaks; ``refusing`` the decision rules that still refuse it (for a black box, rules that
    imitate the model) and ``firing`` the same in words; ``refused`` is the decision there, the
    model's for a black box (``judged_by`` says whose)."""

    instance: dict[str, Any]
    values: dict[str, Any]
    direct_actions: tuple[DirectAction, ...]
    caused_changes: tuple[CausedChange, ...]
    cost: float | None
    norm: str
    mode: str
    broken: tuple[str, ...]
    firing: tuple[str, ...]
    refused: bool
    judged_by: str
    refusing: tuple[Rule, ...] = ()

    @property
    def plan(self) -> str:
        return Counterfactual(self.values, self.direct_actions, self.caused_changes, self.cost or 0.0, self.norm, self.mode).plan

    def __str__(self) -> str:
        decision = "still refused" if self.refused else "no longer refused"
        lines = [f"{self.plan}", f"Decision ({self.judged_by}): {decision}."]
        imitating = " (rules that imitate the model)" if self.judged_by == "the model" else ""
        lines += [f"  still refuses{imitating}: {rule}" for rule in self.firing]
        lines.append(f"Cost: {self.cost:.4f} ({self.norm})." if self.cost is not None else "Cost: none; a change here is not yours to make.")
        lines += [f"  breaks: {problem}" for problem in self.broken]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            **header(JSON_FORMAT, JSON_VERSION, JSON_MINOR),
            "instance": {k: plain(v) for k, v in self.instance.items()},
            "values": {k: plain(v) for k, v in self.values.items()},
            "direct": [a.to_dict() for a in self.direct_actions],
            "caused": [c.to_dict() for c in self.caused_changes],
            "plan": self.plan,
            "cost": self.cost,
            "norm": self.norm,
            "mode": self.mode,
            "broken": list(self.broken),
            "firing": list(self.firing),
            "refusing": [r.to_dict() for r in self.refusing],
            "refused": self.refused,
            "judged_by": self.judged_by,
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent)


def what_if(engine: Engine, row: Mapping[str, Any], changes: Mapping[str, Any], where: str = "the row") -> WhatIf:
    """The person ``row`` (named ``where`` in an error) makes ``changes`` (feature -> new value)
    of the features in play."""
    row = dict(row)
    unknown = [name for name in changes if name not in engine.schema]
    if unknown:
        raise UnknownNameError(f"there is no feature {unknown}; the features are {engine.schema.feature_names}")
    fixed = [fixed_here(engine.schema.feature(name), engine.triable) for name in changes if name not in engine.triable]
    if fixed:
        raise InputError("; ".join(fixed))
    if any(name not in engine.features for name in changes):  # a black box's feature the rules do not read: the model judges
        engine = engine.open()
    instance = engine.instance(row, where)
    wanted = {f: v for f, v in engine.instance({**row, **changes}, f"{where} with the changes").items() if f in changes}
    if all(value == instance[name] for name, value in wanted.items()):
        already = ", ".join(f"{engine.words.feature(name)} is already {engine.words.value(name, value)}" for name, value in wanted.items())
        raise InputError(f"nothing changes for {where}: {already}; a what-if takes a change to another value")
    base = engine.problem(instance, 1, [])
    problem = Problem(base.space.with_values(wanted, engine.spreads), engine.decision, engine.causal, base.mode, base.distance)
    reached = {**instance, **wanted}
    forced = problem.force(reached, wanted)
    state = [problem.space[n].index(reached[n]) if n in wanted or n in forced else 0 for n in problem.names]
    priced = problem.price(tuple(state))
    if priced is not None:
        option = changes_of(engine, row, problem, priced)
        direct, caused = option.direct_actions, option.caused_changes
    else:  # a change that is not the person's to make: nothing to price
        values = {**row, **problem.describe(tuple(state))}
        words = engine.words
        direct = tuple(DirectAction.of(words, n, instance[n], values[n], 0.0) for n in problem.names if n in wanted and wanted[n] != instance[n])
        caused = tuple(CausedChange.of(words, n, instance[n], values[n], rule) for n, rule in forced.items())
    values = {**row, **problem.describe(tuple(state))}
    refusing = tuple(r for r in engine.decision if problem.covers(r, tuple(state)))
    broken = violations(Counterfactual(values, direct, caused, 0.0, "", ""), row, [], engine.causal, engine.schema, engine.words)
    box = engine.black_box
    refused = box.refuses([values])[0] if box is not None else bool(refusing)
    return WhatIf(
        row, values, direct, caused, priced.cost if priced else None, engine.settings.distance.label, engine.settings.mode,
        tuple(broken), tuple(engine.words.rule(r) for r in refusing), refused, "the model" if box is not None else "the decision rules", refusing,
    )  # fmt: skip


def fixed_here(feature: Feature, in_play: Sequence[str]) -> str:
    """Why a what-if may not change ``feature``, one outside the features ``in_play``."""
    if feature.immutable:
        return f"{feature.name} may not be changed: it is immutable"
    if feature.consequence_only:
        return f"{feature.name} may not be changed directly: it changes only as a consequence of other changes"
    return f"{feature.name} may not be changed here: neither the decision rules nor the causal knowledge read it (they read {list(in_play)})"
