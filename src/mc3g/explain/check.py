"""An independent check of a returned counterfactual against everything a user asked for.

It reads only the counterfactual's values and the user's rules, knowledge and metadata — not the
search's internals — so a bug in the search cannot hide behind the same bug here.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..causal import CausalModel
from ..rules import Rule, Table, token
from ..schema import Schema
from .result import Counterfactual


def _covers(rule: Rule, values: dict[str, Any]) -> bool:
    return bool(rule.covers(Table.from_frame(pd.DataFrame([values])))[0])


def forbidden_in(values: dict[str, Any], causal: CausalModel) -> list[tuple]:
    """The forbidden combinations (constraints, and broken causal constraints) that ``values``
    holds every literal of; a combination on a feature ``values`` lacks is not judged."""
    return [combo for combo in causal.forbidden if all(lit.feature in values for lit in combo) and all(lit.holds(values[lit.feature]) for lit in combo)]


def violations(cf: Counterfactual, person: dict[str, Any], decision: list[Rule], causal: CausalModel, schema: Schema) -> list[str]:
    """Every way ``cf`` breaks the decision, the causal knowledge or the metadata; [] if none."""
    problems: list[str] = []
    values = cf.values
    for i, rule in enumerate(decision, 1):
        if _covers(rule, values):
            problems.append(f"decision rule {i} still fires")
    problems += ["violates: " + ", ".join(str(lit) for lit in combo) for combo in forbidden_in(values, causal)]
    caused = {c.feature for c in cf.caused_changes}
    for f in schema.features:
        if f.name not in values or f.name not in person:
            continue
        before, after = person[f.name], values[f.name]
        same = (float(before) == float(after)) if f.is_numeric else token(before) == token(after)
        if f.must_change and same:
            problems.append(f"{f.name} must change but does not")
        if same:
            continue
        if f.immutable:
            problems.append(f"{f.name} is immutable but changes")
        if f.consequence_only and f.name not in caused:
            problems.append(f"{f.name} changes only as a consequence, but is a direct action")
        if f.is_numeric:
            if f.range is not None and not f.range[0] <= float(after) <= f.range[1]:
                problems.append(f"{f.name} = {after} is outside {f.range}")
            if f.valid is not None and not f.valid[0] <= float(after) <= f.valid[1]:
                problems.append(f"{f.name} = {after} is {f.outside_valid}")
            if f.direction == "increase" and float(after) < float(before):
                problems.append(f"{f.name} may only increase")
            if f.direction == "decrease" and float(after) > float(before):
                problems.append(f"{f.name} may only decrease")
            moved = abs(float(after) - float(before))
            if f.max_change is not None and moved > f.max_change:
                problems.append(f"{f.name} moves by {moved:g}, more than its max-change of {f.max_change:g}")
        elif f.targets is not None and token(after) not in f.targets:
            problems.append(f"{f.name} = {after} is not one of the allowed targets")
    for change in cf.caused_changes:
        rules = [r for r in causal.rules_for(change.feature) if str(r) == change.rule]
        if not rules or not all(lit.holds(values[lit.feature]) for lit in rules[0].cause + (rules[0].effect,)):
            problems.append(f"{change.feature} is reported as caused by a rule whose cause and effect do not hold")
    return problems
