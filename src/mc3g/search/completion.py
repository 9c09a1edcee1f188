"""A linear score's states: each box the search reads, completed to its least-cost states.

Where a model's score is linear in a number, a candidate value stands for an interval of it
(:meth:`~.grid.Domain.spans`): a state the solver reads is a box of states, priced at its least
and let through when the best of each interval could reach the decision (:meth:`Score.possible`).
:func:`completed` finds, in one box, the least-cost states that reach it: the numbers the score
gains by moving move within their intervals, a small integer program over a few numbers solved
exactly by branch and bound (each interval's points, the gain and the cost of each), and each
state found is priced exactly in a problem that holds its values.  A box's states cost no less
than the box, so the boxes read in cost order and their completions held until no unread box
costs less give the states in exact cost order (:mod:`mc3g.explain.exact`).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .distance import POWERS
from .grid import grid_value, units
from .problem import Assessment, Problem
from .space import CandidateSpace

MOST_POINTS = 1 << 16  # an interval's points listed at most (past it, its first ones): a number moved by a person stays far below


@dataclass(frozen=True)
class _Move:
    """A number free to move in its interval: what each of its points, from the box's value on,
    adds to the score and to the state's cost over the box's, and the points themselves."""

    position: int
    gains: np.ndarray
    costs: np.ndarray
    point: Callable[[int], Any]

    @property
    def rate(self) -> float:
        """The least cost of a unit of score gained by moving (0 where moving is free)."""
        rates = (self.costs[1:] - self.costs[0]) / (self.gains[1:] - self.gains[0])
        return float(rates.min()) if len(rates) else math.inf


def completed(problem: Problem, box: Assessment, spreads: Mapping[str, float], k: int = 1) -> list[tuple[Assessment, Problem]]:
    """The ``k`` least-cost states of ``box`` the score may accept (its margin at least minus the
    tolerance), each with the problem it is priced in; the box itself where it needs no move."""
    score = problem.score
    assert score is not None
    grid = np.array([box.state], dtype=np.intp)
    deficit = -score.tolerance - float(score.margins(grid)[0])
    moves = [m for p in score.optimistic if (m := _move(problem, box, p, spreads)) is not None]
    moves.sort(key=lambda m: m.rate)
    out = []
    for steps in _cheapest(moves, deficit, k):
        if not any(steps):
            out.append((box, problem))
            continue
        priced = _priced(problem, box, {problem.names[m.position]: m.point(t) for m, t in zip(moves, steps)}, spreads)
        if priced is not None:
            out.append(priced)
    return out


def _move(problem: Problem, box: Assessment, position: int, spreads: Mapping[str, float]) -> _Move | None:
    """The number at ``position`` as a move in its interval, or None where it gains nothing."""
    fv = problem.space.features[position]
    score = problem.score
    assert score is not None
    j = box.state[position]
    if fv.spans is None or fv.domain is None or fv.spans[j] == fv.values[j]:
        return None
    start, far = fv.values[j], fv.spans[j]
    slope = score.box.slopes[fv.name]
    if slope * (far - start) <= 0:
        return None  # moving on only lowers the score
    numbers, point = _points(fv.domain, start, far)
    sizes = np.abs(numbers - float(fv.original)) / spreads.get(fv.name, 1.0)
    terms = fv.feature.weight * (sizes > 0 if problem.distance.norm == "l0" else sizes ** POWERS[problem.distance.norm])
    if fv.name not in box.terms and problem.mode == "explained":
        costs = np.zeros(len(numbers))  # explained, free anywhere in its interval
    elif fv.name not in box.terms:
        costs = np.concatenate([[0.0], terms[1:]])  # caused where it stands: moved on, it is a person's own action
    else:
        costs = terms - terms[0]
    return _Move(position, slope * (numbers - numbers[0]), costs, point)


def _points(domain: Any, start: Any, far: Any) -> tuple[np.ndarray, Callable[[int], Any]]:
    """The interval's points from ``start`` to ``far`` as floats (for the bound), and the exact
    value of the t-th (0: ``start``)."""
    if domain.seen is None:
        first, last = units(start, domain.step), units(far, domain.step)
        if first.denominator != 1 or last.denominator != 1:
            return np.array([float(start)]), lambda t: start
        sign, count = (1 if last > first else -1), min(abs(int(last - first)), MOST_POINTS)
        numbers = (int(first) + sign * np.arange(count + 1)) * float(domain.step)
        return numbers, lambda t: start if t == 0 else grid_value(int(first) + sign * t, domain.step)
    points = [start, *domain.following(start, far, MOST_POINTS)]
    return np.asarray(points, dtype=np.float64), points.__getitem__


def _cheapest(moves: list[_Move], deficit: float, k: int) -> list[tuple[int, ...]]:
    """The ``k`` least-cost choices of a point per move (0: stay) whose gains add up to
    ``deficit`` at least, cheapest first, by branch and bound: the moves in order of their least
    rate, each one's points tried from the fewest that reach the deficit alone down to none, a
    branch cut where what it costs and the least the rest would cost pass the k-th best."""
    best: list[tuple[float, tuple[int, ...]]] = []  # a max-heap by negated cost
    rest = [min((m.rate for m in moves[i:]), default=math.inf) for i in range(len(moves) + 1)]

    def bar() -> float:
        return -best[0][0] if len(best) == k else math.inf

    def keep(cost: float, chosen: tuple[int, ...]) -> None:
        item = (-cost, chosen)
        if len(best) < k:
            heapq.heappush(best, item)
        elif cost < bar():
            heapq.heapreplace(best, item)

    def branch(i: int, need: float, spent: float, chosen: tuple[int, ...]) -> None:
        if need <= 0:
            keep(spent, chosen + (0,) * (len(moves) - i))
            return
        if i == len(moves) or spent + _least(need, rest[i]) >= bar():
            return
        move = moves[i]
        top = min(int(np.searchsorted(move.gains, need, side="left")), len(move.gains) - 1)  # the fewest points that reach it alone
        previous = math.inf
        for t in range(top, 0, -1):
            bound = spent + move.costs[t] + _least(need - move.gains[t], rest[i + 1])
            if bound >= bar() and bound >= previous:
                break  # convex in the points (costs convex, the rest's bound linear): from here down to 1 it only grows
            previous = bound
            if bound < bar():
                branch(i + 1, need - move.gains[t], spent + float(move.costs[t]), chosen + (t,))
        if spent + move.costs[0] + _least(need, rest[i + 1]) < bar():  # staying, always: a number free where it stands costs once moved
            branch(i + 1, need, spent + float(move.costs[0]), chosen + (0,))

    branch(0, deficit, 0.0, ())
    return [chosen for _, chosen in sorted(best, key=lambda item: -item[0])]


def _least(need: float, rate: float) -> float:
    """The least the moves left cost to gain ``need`` at ``rate`` a unit (none needed: nothing)."""
    return need * rate if need > 0 else 0.0


def _priced(problem: Problem, box: Assessment, wanted: dict[str, Any], spreads: Mapping[str, float]) -> tuple[Assessment, Problem] | None:
    """The box's state with the ``wanted`` values, priced exactly in a problem that holds them."""
    values = {**problem.describe(box.state), **wanted}
    wide = problem.space.with_values(values, dict(spreads))
    space = CandidateSpace([replace(f, domain=None, spans=None) for f in wide.features], wide.regions, wide.scheme, wide.n_regions, wide.n_candidates)
    held = Problem(space, problem.decision, problem.causal, problem.mode, problem.distance, model=problem.model)
    state = tuple(space[name].index(values[name]) for name in held.names)
    priced = held.assess(state)
    return None if priced is None else (priced, held)
