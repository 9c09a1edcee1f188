"""An independent check of a returned counterfactual against everything a user asked for.

It reads only the counterfactual's values and the user's rules, knowledge and metadata — not the
search's internals — so a bug in the search cannot hide behind the same bug here.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..causal import CausalModel
from ..rules import PLAIN, Rule, Table, Words, token
from ..schema import Feature, Schema
from ..values import show
from .result import Counterfactual


def _covers(rule: Rule, values: dict[str, Any]) -> bool:
    return bool(rule.covers(Table.from_frame(pd.DataFrame([values])))[0])


def forbidden_in(values: dict[str, Any], causal: CausalModel) -> list[tuple]:
    """The forbidden combinations (constraints, and broken causal constraints) that ``values``
    holds every literal of; a combination on a feature ``values`` lacks is not judged."""
    return [combo for combo in causal.forbidden if all(lit.feature in values for lit in combo) and all(lit.holds(values[lit.feature]) for lit in combo)]


def violations(cf: Counterfactual, person: dict[str, Any], decision: list[Rule], causal: CausalModel, schema: Schema, words: Words = PLAIN) -> list[str]:
    """Every way ``cf`` breaks the decision, the causal knowledge or the metadata, with features
    and values in ``words``; [] if none."""
    problems: list[str] = []
    values = cf.values
    for i, rule in enumerate(decision, 1):
        if _covers(rule, values):
            problems.append(f"decision rule {i} still fires")
    problems += ["forbidden together: " + " and ".join(words.literal(lit) for lit in combo) for combo in forbidden_in(values, causal)]
    caused = {c.feature for c in cf.caused_changes}
    for f in schema.features:
        if f.name in values and f.name in person:
            problems += _feature_problems(f, person[f.name], values[f.name], f.name in caused, words)
    for change in cf.caused_changes:
        rule = causal.rule(change.rule_id)
        if rule is None or rule.effect.feature != change.feature or not all(lit.holds(values[lit.feature]) for lit in rule.cause + (rule.effect,)):
            problems.append(f"{words.feature(change.feature)} is reported as caused by a rule whose cause and effect do not hold")
    return problems


def _feature_problems(f: Feature, before: Any, after: Any, caused: bool, words: Words) -> list[str]:
    """How moving feature ``f`` from ``before`` to ``after`` breaks its metadata."""
    name, now = words.feature(f.name), words.value(f.name, after)
    same = (float(before) == float(after)) if f.is_numeric else token(before) == token(after)
    if same:
        return [f"{name} must change but does not"] if f.must_change else []
    problems = []
    if f.immutable:
        problems.append(f"{name} is immutable but changes")
    if f.consequence_only and not caused:
        problems.append(f"{name} changes only as a consequence, but is a direct action")
    if not f.is_numeric:
        return problems + _category_problems(f, token(before), token(after), words)
    if f.range is not None and not f.range[0] <= float(after) <= f.range[1]:
        problems.append(f"{name} = {now} is outside the range from {show(f.range[0])} to {show(f.range[1])}")
    if f.valid is not None and not f.valid[0] <= float(after) <= f.valid[1]:
        problems.append(f"{name} = {now} is not a value a person may have ({name} is {f.valid_words})")
    if f.direction == "increase" and float(after) < float(before):
        problems.append(f"{name} may only increase")
    if f.direction == "decrease" and float(after) > float(before):
        problems.append(f"{name} may only decrease")
    moved = abs(float(after) - float(before))
    if f.max_change is not None and moved > f.max_change:
        problems.append(f"{name} moves by {moved:g}, more than its max-change of {f.max_change:g}")
    return problems


def _category_problems(f: Feature, before: str, after: str, words: Words) -> list[str]:
    """How moving the category ``f`` from ``before`` to ``after`` breaks its targets, moves or
    unknown values."""
    name, was, now = words.feature(f.name), words.value(f.name, before), words.value(f.name, after)
    problems = []
    if f.targets is not None and after not in f.targets:
        problems.append(f"{name} = {now} is not one of the allowed targets")
    if after in f.unknown:
        problems.append(f"{name} = {now} means unknown, which is never advice")
    if f.moves is not None and (before, after) not in f.moves:
        problems.append(f"{name} moves from {was} to {now}, a move the knowledge does not allow")
    return problems
