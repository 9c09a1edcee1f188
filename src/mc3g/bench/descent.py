"""A greedy descent from an answer's options, as CFNOW's local search goes (``mc3g bench
blackbox``'s "greedy cheaper" columns): one feature at a time, each direct action dropped or a
number moved back towards the person, the model asked at each step.  A state it reaches that is
cheaper than an option, the model accepting it and the knowledge allowing it, is an answer a
local search would have improved."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..exceptions import InputError
from ..explain import MC3G, Counterfactual, Recourse, WhatIf

GREEDY_POINTS = 16  # the points a greedy step tries for a numeric action, evenly spaced from the person's value to the action's


def greedy_descent(mc3g: MC3G, row: pd.Series, option: Counterfactual | WhatIf, others: Sequence[Counterfactual] = ()) -> float:
    """The cost a greedy search reaches from ``option`` (an answer's, or a what-if's), one
    feature at a time, as cfnow's local search goes: each step tries each direct action dropped
    or, for a number, moved back to one of ``GREEDY_POINTS`` evenly spaced points towards the
    person's value (on the feature's step), what follows found again (:meth:`MC3G.whatif`), and
    takes the cheapest the knowledge allows and the model accepts, until no move is cheaper.
    A move onto one of ``others`` (the answer's other options) is none: from a later option, a
    search that reaches an earlier one has found nothing the answer lacks.  Every step is one
    call of the model."""
    schema, person = mc3g.engine_.schema, dict(row.items())
    must = {f.name for f in schema.features if f.must_change}
    known = [other.values for other in others]
    actions, cost = {a.feature: a.after for a in option.direct_actions}, option.cost
    while True:
        moves = [moved for name, value in actions.items() for moved in _moves(schema.feature(name), person[name], value, actions)]
        tried = [changes for changes in moves if must <= changes.keys()]
        reached = [w for w in (_what_if(mc3g, person, changes) for changes in tried) if w is not None and w.cost < cost - 1e-9 and w.values not in known]
        accepted = [w for w, refused in zip(reached, mc3g.refuses_rows([w.values for w in reached]) if reached else []) if not refused]
        if not accepted:
            return cost
        best = min(accepted, key=lambda w: w.cost)
        actions, cost = {a.feature: a.after for a in best.direct_actions}, best.cost


def greedy_cheaper(mc3g: MC3G, refused: pd.DataFrame, answers: list[Recourse]) -> tuple[int, int, int]:
    """The rows where a greedy descent from the answer's cheapest option reaches a cheaper one,
    the other options from which one reaches a cheaper state that is none of the answer's (a
    better K-th option: under ``distinct``, dropping an option's actions keeps it distinct from
    those before it), and how many other options there are."""
    first = later = 0
    for (_, row), answer in zip(refused.iterrows(), answers):
        options = answer.counterfactuals
        for i, option in enumerate(options):
            if greedy_descent(mc3g, row, option, [o for o in options if o is not option]) < option.cost - 1e-9:
                first, later = first + (i == 0), later + (i > 0)
    return first, later, sum(max(len(a.counterfactuals) - 1, 0) for a in answers)


def _moves(feature: Any, before: Any, after: Any, actions: dict[str, Any]) -> list[dict[str, Any]]:
    """``actions`` with the action on ``feature`` dropped, or moved back towards ``before``."""
    dropped = {n: v for n, v in actions.items() if n != feature.name}
    points: list[Any] = []
    if feature.is_numeric:
        step = feature.step or 0
        spaced = np.linspace(float(before), float(after), GREEDY_POINTS + 1)[1:-1]
        on_grid = [float(before) + step * round((p - float(before)) / step) for p in spaced] if step else list(spaced)
        points = [int(p) if float(p).is_integer() else p for p in dict.fromkeys(on_grid) if p not in (before, after)]
    return ([dropped] if dropped else []) + [{**actions, feature.name: p} for p in points]


def _what_if(mc3g: MC3G, person: dict[str, Any], changes: dict[str, Any]) -> WhatIf | None:
    """The what-if of ``changes``, or None where the knowledge forbids it."""
    try:
        w = mc3g.whatif(person, changes)
    except InputError:
        return None
    return None if w.broken or w.cost is None else w
