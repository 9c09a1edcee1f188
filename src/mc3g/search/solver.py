"""Exact top-K search with clingo, re-priced exactly in floating point.

The first solve finds the least integer cost; then every state up to a cost bound is enumerated
at once (clingo's ``enum`` mode with a bound, projected onto the chosen values) and blocked, and
the bound moves up window by window.  Enumerating is about a hundred times cheaper per state than
proving one optimum after another, which matters when a black box rejects hundreds of states.
A state is handed out once every unseen state is known to cost more than it by more than the
rounding of the integer costs can explain, so states come out in exact cost order (candidate
indices break ties; when far more states tie than are wanted, the ties come in chunks, each in
index order).
"""

from __future__ import annotations

import itertools
from typing import Iterator

import clingo

from .encoding import Program, band
from .problem import Assessment, Problem


class SearchError(RuntimeError):
    """The solver and the reference semantics disagree: a bug, reported rather than hidden."""


class _Enumeration:
    """One grounded program, solved for its optimum or enumerated up to a bound."""

    def __init__(self, problem: Problem) -> None:
        self.problem = problem
        self.program = Program(problem)
        # The model heuristic steers choices by the objective (about 20 % faster optima);
        # projection reports a state once, however many ways its changes can be justified.
        self.ctl = clingo.Control(["--warn=none", "--opt-heuristic=model", "--project=show"])
        self.ctl.add("base", [], self.program.text())
        self.ctl.ground([("base", [])])
        self.decode = {
            clingo.Function("val", [clingo.String(name), clingo.Number(j)]): (position, j)
            for position, name in enumerate(problem.names)
            for j in range(len(problem.space[name].values))
        }
        self.atoms = {key: self.ctl.symbolic_atoms[symbol].literal for symbol, key in self.decode.items() if self.ctl.symbolic_atoms[symbol] is not None}

    def _state(self, model: clingo.Model) -> tuple[int, ...]:
        state = [0] * len(self.problem.names)
        for symbol in model.symbols(shown=True):
            position, index = self.decode[symbol]
            state[position] = index
        return tuple(state)

    def optimum(self) -> int | None:
        """The least integer cost of the states not yet blocked (None: there are none)."""
        self.ctl.configuration.solve.opt_mode = "optN"
        self.ctl.configuration.solve.models = "1"
        best = None
        with self.ctl.solve(yield_=True) as handle:
            for model in handle:
                if model.optimality_proven:
                    best = int(model.cost[0]) if model.cost else 0
        return best

    def upto(self, bound: int, limit: int) -> tuple[list[tuple[tuple[int, ...], int]], bool]:
        """Unblocked states with integer cost at most ``bound``, each with a cost it can be had
        for: all of them (True), or the first ``limit`` found when there are more (False)."""
        self.ctl.configuration.solve.opt_mode = f"enum,{bound}"
        self.ctl.configuration.solve.models = "0"
        found = []
        with self.ctl.solve(yield_=True) as handle:
            for model in handle:
                if len(found) == limit:
                    handle.cancel()
                    return found, False
                found.append((self._state(model), int(model.cost[0]) if model.cost else 0))
        return found, True

    def block(self, states: list[tuple[int, ...]]) -> None:
        with self.ctl.backend() as backend:  # straight into the ground program
            for state in states:
                backend.add_rule([], [self.atoms[(position, j)] for position, j in enumerate(state)])


def _order(a: Assessment) -> tuple[float, tuple[int, ...]]:
    return (round(a.cost, 9), a.state)


def states(problem: Problem, max_states: int = 2000) -> Iterator[Assessment]:
    """Every counterfactual state of ``problem`` in exact cost order (ties by candidate index),
    at most ``max_states`` of them; lazily, so a caller can stop at any point."""
    search = _Enumeration(problem)
    slack = band(len(problem.names))
    pending: list[tuple[int, Assessment]] = []  # found, not yet known to be next in exact order
    given = 0
    want, width = 8, None  # states wanted from the next window, and its width in integer cost

    def ready(lowest_unseen: int | None) -> list[Assessment]:
        """Pending states that no unseen state (integer cost >= lowest_unseen) can precede."""
        nonlocal pending
        final = [(c, a) for c, a in pending if lowest_unseen is None or c < lowest_unseen - slack]
        pending = [(c, a) for c, a in pending if lowest_unseen is not None and c >= lowest_unseen - slack]
        return sorted((a for _, a in final), key=_order)

    while given < max_states:
        low = search.optimum()
        if low is None:
            break
        for a in ready(low):
            yield a
            given += 1
        width = width if width is not None else max(low // 4, 2 * slack + 1)
        limit = 4 * want + len(pending)
        window, complete = search.upto(low + width, limit)
        while not complete and width > 0:
            width //= 4  # far more states than wanted yet: a narrower window
            window, complete = search.upto(low + width, limit)
        # An incomplete window holds more states tied with the optimum (within the rounding of
        # the integer costs) than are wanted: they are handed out chunk by chunk.
        release = low + width + 1 if complete else None
        for state, cost in window:
            priced = problem.assess(state)
            if priced is None:
                raise SearchError(f"the solver returned {problem.describe(state)}, which the reference semantics rejects")
            exact = priced_integer(priced, search.program.scale)
            if exact > cost + slack:
                raise SearchError(
                    f"the solver priced {problem.describe(state)} at {cost / search.program.scale:.6f}, "
                    f"the reference semantics at {priced.cost:.6f}"
                )
            pending.append((exact, priced))
        search.block([state for state, _ in window])
        for a in ready(release):
            if given >= max_states:
                return
            yield a
            given += 1
        # Aim the next window at about twice as many states as handed out so far.
        width = max(width, 1) * min(8, max(1, want // max(len(window), 1))) if len(window) < want else width
        want = min(2 * want, max_states)
    for a in sorted((a for _, a in pending), key=_order)[: max(max_states - given, 0)]:
        yield a


def search(problem: Problem, k: int = 1, max_states: int = 2000) -> list[Assessment]:
    """The ``k`` least-cost counterfactual states of ``problem`` (fewer if fewer exist)."""
    return list(itertools.islice(states(problem, max_states), k))


def priced_integer(assessment: Assessment, scale: float) -> int:
    """The assessment's sum of terms on the solver's integer scale (before any root)."""
    return int(round(sum(assessment.terms.values()) * scale))
