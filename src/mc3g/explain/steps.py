"""An option as steps the person takes one after another.

Each step is one direct action, with the changes it causes, in an order where every state on
the way keeps the causal knowledge (no forbidden combination, no causal constraint broken): a
person can stop after any step without being in a state the knowledge rules out.  A caused
change happens at the first step after which its rule's cause holds.  Where no order of single
actions keeps every state consistent, the actions that must go together form one step; the
order chosen bundles as few actions as possible, then takes as few steps as possible, and
otherwise keeps the option's own order of actions.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..causal import CausalModel, CausalRule

MOST_ACTIONS = 8  # more direct actions than this are one step: the orders would be too many


@dataclass(frozen=True)
class Draft:
    """A step before the decision is known: the actions taken together, the features they cause
    to change, and the state after it (the features in play)."""

    actions: tuple[str, ...]
    caused: tuple[str, ...]
    values: dict[str, Any]


def order(person: Mapping[str, Any], target: Mapping[str, Any], direct: Sequence[str], caused: Mapping[str, CausalRule], causal: CausalModel) -> list[Draft]:
    """The steps from ``person`` to ``target`` (values of the features in play) by the ``direct``
    actions, the ``caused`` changes following their rules."""
    everything = frozenset(range(len(direct)))
    if not direct:  # the authors' modes can explain every change by rules already true: one step, nothing to do
        return [Draft((), tuple(caused), dict(target))]
    if len(direct) > MOST_ACTIONS:
        return [_draft(person, target, direct, caused, frozenset(), everything)]
    # Dijkstra over the sets of actions taken: a step costs its bundled actions first, then 1.
    frontier: list[tuple[tuple[int, int], tuple[tuple[int, ...], ...], frozenset[int]]] = [((0, 0), (), frozenset())]
    settled: set[frozenset[int]] = set()
    while frontier:
        cost, path, taken = heapq.heappop(frontier)
        if taken == everything:
            drafts, done = [], frozenset[int]()
            for step in path:
                drafts.append(_draft(person, target, direct, caused, done, done | frozenset(step)))
                done |= frozenset(step)
            return drafts
        if taken in settled:
            continue
        settled.add(taken)
        left = sorted(everything - taken)
        for size in range(1, len(left) + 1):
            for step in itertools.combinations(left, size):
                after = taken | frozenset(step)
                if after not in settled and (after == everything or _consistent(_state(person, target, direct, caused, after), causal)):
                    heapq.heappush(frontier, ((cost[0] + size - 1, cost[1] + 1), (*path, step), after))
    return [_draft(person, target, direct, caused, frozenset(), everything)]  # the final state is always consistent


def _state(
    person: Mapping[str, Any], target: Mapping[str, Any], direct: Sequence[str], caused: Mapping[str, CausalRule], taken: frozenset[int]
) -> dict[str, Any]:
    """The person's values with the taken actions done and every caused change whose cause now
    holds (to a fixpoint: a caused change can be the cause of another).  Before the first action
    nothing has happened yet."""
    values = dict(person)
    if not taken:
        return values
    for i in taken:
        values[direct[i]] = target[direct[i]]
    pending = dict(caused)
    while pending:
        ready = [name for name, rule in pending.items() if all(lit.holds(values[lit.feature]) for lit in rule.cause)]
        if not ready:
            break
        for name in ready:
            values[name] = target[name]
            del pending[name]
    return values


def _consistent(values: Mapping[str, Any], causal: CausalModel) -> bool:
    return not any(all(lit.holds(values[lit.feature]) for lit in combo) for combo in causal.forbidden if all(lit.feature in values for lit in combo))


def _draft(
    person: Mapping[str, Any], target: Mapping[str, Any], direct: Sequence[str], caused: Mapping[str, CausalRule], before: frozenset[int], after: frozenset[int]
) -> Draft:
    was, now = _state(person, target, direct, caused, before), _state(person, target, direct, caused, after)
    return Draft(tuple(direct[i] for i in sorted(after - before)), tuple(n for n in caused if was[n] != now[n]), now)
