"""Exact top-K search with clingo's optimisation, re-priced exactly in floating point.

Each solve returns a least-cost state under the integer costs; blocking it and solving again
gives the next.  A state is handed out once a later solve's integer cost exceeds its own by more
than the rounding of the integer costs can explain, so every state whose exact cost ties or
beats it has been seen: states come out in exact cost order (candidate indices break ties),
whichever optimum clingo happened to return first.
"""

from __future__ import annotations

import itertools
from typing import Iterator

import clingo

from .encoding import Program, band
from .problem import Assessment, Problem


class SearchError(RuntimeError):
    """The solver and the reference semantics disagree: a bug, reported rather than hidden."""


def _solve_once(ctl: clingo.Control, decode: dict[clingo.Symbol, tuple[int, int]], n: int) -> tuple[tuple[int, ...], int] | None:
    """The optimum under the current blocks: its candidate indices and integer cost.  Only the
    optimal model is decoded, through a table of the ``val`` atoms."""
    best: tuple[tuple[int, ...], int] | None = None
    with ctl.solve(yield_=True) as handle:
        for model in handle:
            if not model.optimality_proven:
                continue
            state = [0] * n
            for symbol in model.symbols(shown=True):
                position, index = decode[symbol]
                state[position] = index
            best = (tuple(state), int(model.cost[0]) if model.cost else 0)
    return best


def _order(a: Assessment) -> tuple[float, tuple[int, ...]]:
    return (round(a.cost, 9), a.state)


def states(problem: Problem, max_states: int = 2000) -> Iterator[Assessment]:
    """Every counterfactual state of ``problem`` in exact cost order (ties by candidate index),
    at most ``max_states`` of them; lazily, so a caller can stop at any point."""
    program = Program(problem)
    # optN with one model: clingo proves the optimum, then reports one optimal model as such;
    # the model heuristic steers choices by the objective (about 20 % faster, same optimum).
    ctl = clingo.Control(["--opt-mode=optN", "--models=1", "--warn=none", "--opt-heuristic=model"])
    ctl.add("base", [], program.text())
    ctl.ground([("base", [])])
    slack = band(len(problem.names))
    decode = {
        clingo.Function("val", [clingo.String(name), clingo.Number(j)]): (position, j)
        for position, name in enumerate(problem.names)
        for j in range(len(problem.space[name].values))
    }
    atoms = {position_index: ctl.symbolic_atoms[symbol].literal for symbol, position_index in decode.items() if ctl.symbolic_atoms[symbol] is not None}
    pending: list[tuple[int, Assessment]] = []  # found, not yet known to be next in exact order
    for solves in range(1, max_states + 1):
        found = _solve_once(ctl, decode, len(problem.names))
        if found is None:
            break
        state, cost = found
        # Later states cost at least `cost` on the integer scale, so anything priced clearly
        # below it is final: hand those out in exact order.
        ready = sorted((a for c, a in pending if c < cost - slack), key=_order)
        pending = [(c, a) for c, a in pending if c >= cost - slack]
        yield from ready
        priced = problem.assess(state)
        if priced is None:
            raise SearchError(f"the solver returned {problem.describe(state)}, which the reference semantics rejects")
        exact = priced_integer(priced, program.scale)
        if abs(exact - cost) > slack:
            raise SearchError(
                f"the solver priced {problem.describe(state)} at {cost / program.scale:.6f}, "
                f"the reference semantics at {priced.cost:.6f}"
            )
        pending.append((exact, priced))
        with ctl.backend() as backend:  # rule the state out, straight into the ground program
            backend.add_rule([], [atoms[(position, j)] for position, j in enumerate(state)])
    yield from sorted((a for _, a in pending), key=_order)


def search(problem: Problem, k: int = 1, max_states: int = 2000) -> list[Assessment]:
    """The ``k`` least-cost counterfactual states of ``problem`` (fewer if fewer exist)."""
    return list(itertools.islice(states(problem, max_states), k))


def priced_integer(assessment: Assessment, scale: float) -> int:
    """The assessment's sum of terms on the solver's integer scale (before any root)."""
    return int(round(sum(assessment.terms.values()) * scale))
