"""An option as steps the person takes one after another.

Each step is one direct action, with the changes it causes, in an order where every state on
the way keeps the causal knowledge (no forbidden combination, no causal constraint broken): a
person can stop after any step without being in a state the knowledge rules out.  A caused
change happens at the first step after which its rule's cause holds.  Where no order of single
actions keeps every state consistent, the actions that must go together form one step; the
order chosen bundles as few actions as possible, then takes as few steps as possible, and
otherwise keeps the option's own order of actions.

States are candidate indices of the search problem, so every check is a table look-up.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..search import Assessment, Problem, State

MOST_ACTIONS = 8  # more direct actions than this are one step: the orders would be too many


@dataclass(frozen=True)
class Draft:
    """A step before the decision is known: the actions taken together, the features they cause
    to change, and the state after it (candidate indices, and the values of the features in play)."""

    actions: tuple[str, ...]
    caused: tuple[str, ...]
    state: State
    values: dict[str, Any]


def order(problem: Problem, found: Assessment, direct: Sequence[str]) -> list[Draft]:
    """The steps from the person to the state ``found`` by the ``direct`` actions (in the
    option's order), the caused changes following their rules."""
    walk = _Walk(problem, found, direct)
    everything = frozenset(range(len(direct)))
    if not direct:  # the authors' modes can explain every change by rules already true: one step, nothing to do
        return [walk.draft(frozenset(), everything)]
    if len(direct) > MOST_ACTIONS:
        return [walk.draft(frozenset(), everything)]
    # Dijkstra over the sets of actions taken: a step costs its bundled actions first, then 1.
    frontier: list[tuple[tuple[int, int], tuple[tuple[int, ...], ...], frozenset[int]]] = [((0, 0), (), frozenset())]
    settled: set[frozenset[int]] = set()
    while frontier:
        cost, path, taken = heapq.heappop(frontier)
        if taken == everything:
            drafts, done = [], frozenset[int]()
            for step in path:
                drafts.append(walk.draft(done, done | frozenset(step)))
                done |= frozenset(step)
            return drafts
        if taken in settled:
            continue
        settled.add(taken)
        left = sorted(everything - taken)
        for size in range(1, len(left) + 1):
            for step in itertools.combinations(left, size):
                after = taken | frozenset(step)
                if after not in settled and (after == everything or walk.consistent(after)):
                    heapq.heappush(frontier, ((cost[0] + size - 1, cost[1] + 1), (*path, step), after))
    return [walk.draft(frozenset(), everything)]  # the final state is always consistent


class _Walk:
    """The states between the person and the option, by the set of actions taken."""

    def __init__(self, problem: Problem, found: Assessment, direct: Sequence[str]) -> None:
        self.problem, self.found, self.direct = problem, found, list(direct)
        self.combos = [combo for combo in problem.causal.forbidden if problem.in_play(combo)]
        self._states: dict[frozenset[int], State] = {}

    def state(self, taken: frozenset[int]) -> State:
        """The taken actions done, and every caused change whose cause now holds (to a fixpoint:
        a caused change can be the cause of another).  Before the first action nothing happens."""
        if taken in self._states:
            return self._states[taken]
        if len(taken) == len(self.direct) and (taken or not self.direct):
            return self.found.state  # every action taken: the option itself
        p, target = self.problem, self.found.state
        state = list(p.original_state())
        for i in taken:
            position = p.position[self.direct[i]]
            state[position] = target[position]
        pending = dict(self.found.caused) if taken else {}
        while pending:
            ready = [name for name, rule in pending.items() if all(p.holds(lit, tuple(state)) for lit in rule.cause)]
            if not ready:
                break
            for name in ready:
                state[p.position[name]] = target[p.position[name]]
                del pending[name]
        self._states[taken] = tuple(state)
        return self._states[taken]

    def consistent(self, taken: frozenset[int]) -> bool:
        state = self.state(taken)
        return not any(all(self.problem.holds(lit, state) for lit in combo) for combo in self.combos)

    def draft(self, before: frozenset[int], after: frozenset[int]) -> Draft:
        was, now = self.state(before), self.state(after)
        caused = tuple(n for n in self.found.caused if was[self.problem.position[n]] != now[self.problem.position[n]])
        return Draft(tuple(self.direct[i] for i in sorted(after - before)), caused, now, self.problem.describe(now))
