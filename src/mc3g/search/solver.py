"""Exact top-K search with clingo's optimisation, re-priced exactly in floating point.

Each solve returns a least-cost state under the integer costs; blocking it and solving again
gives the next.  States keep coming until K are found and the next one is dearer than the K-th by
more than the rounding of the integer costs can explain, so every state whose exact cost ties
or beats the K-th is seen; they are then ordered by exact cost (and by their candidate indices
on ties) — the answer does not depend on which optimum clingo happened to return first.
"""

from __future__ import annotations

from dataclasses import dataclass

import clingo

from .encoding import Program, band, block
from .problem import Assessment, Problem


class SearchError(RuntimeError):
    """The solver and the reference semantics disagree: a bug, reported rather than hidden."""


@dataclass(frozen=True)
class SearchResult:
    found: list[Assessment]
    solves: int


def _solve_once(ctl: clingo.Control, problem: Problem) -> tuple[tuple[int, ...], int] | None:
    best: tuple[tuple[int, ...], int] | None = None
    with ctl.solve(yield_=True) as handle:
        for model in handle:
            chosen = {str(s.arguments[0].string): s.arguments[1].number for s in model.symbols(shown=True)}
            state = tuple(chosen[n] for n in problem.names)
            best = (state, int(model.cost[0]) if model.cost else 0)
    return best


def search(problem: Problem, k: int = 1, max_states: int = 2000) -> SearchResult:
    """The ``k`` least-cost counterfactual states of ``problem`` (fewer if fewer exist)."""
    program = Program(problem)
    ctl = clingo.Control(["--opt-mode=opt", "--models=0", "--warn=none"])
    ctl.add("base", [], program.text())
    ctl.ground([("base", [])])
    slack = band(len(problem.names))
    seen: list[Assessment] = []
    kth_cost: int | None = None
    solves = 0
    while len(seen) < max_states:
        found = _solve_once(ctl, problem)
        solves += 1
        if found is None:
            break
        state, cost = found
        if kth_cost is not None and cost > kth_cost + slack:
            break
        priced = problem.assess(state)
        if priced is None:
            raise SearchError(f"the solver returned {problem.describe(state)}, which the reference semantics rejects")
        if abs(priced_integer(priced, program.scale) - cost) > slack:
            raise SearchError(
                f"the solver priced {problem.describe(state)} at {cost / program.scale:.6f}, "
                f"the reference semantics at {priced.cost:.6f}"
            )
        seen.append(priced)
        if len(seen) == k:
            kth_cost = cost
        name = f"block{solves}"
        ctl.add(name, [], block(problem, state))
        ctl.ground([(name, [])])
    ordered = sorted(seen, key=lambda a: (round(a.cost, 9), a.state))
    return SearchResult(ordered[:k], solves)


def priced_integer(assessment: Assessment, scale: float) -> int:
    """The assessment's sum of terms on the solver's integer scale (before any root)."""
    return int(round(sum(assessment.terms.values()) * scale))
