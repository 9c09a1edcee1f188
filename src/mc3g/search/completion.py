"""A linear score's states: each box the search reads, completed to its least-cost states.

Where a model's score is linear in a number, a candidate value stands for an interval of it
(:meth:`~.grid.Domain.spans`): a state the solver reads is a box of states, priced at its least
and let through when the best of each interval could reach the decision (:meth:`Score.possible`).
:meth:`Completion.completed` finds, in one box, the least-cost states that reach it: the numbers the score
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

from ..exceptions import SearchError
from .distance import POWERS
from .grid import grid_value, units
from .problem import Assessment, Problem
from .space import CandidateSpace

SLACK = 1e-9  # a bound's float rounding, taken off it so that it never passes the exact cost it bounds
MOST_POINTS = 1 << 24  # an interval's points past which the grid is too fine to complete exactly (a step of the feature too small)


@dataclass(frozen=True)
class _Move:
    """A number free to move in its interval: the floats of its ``count`` points past the box's
    value (``numbers``; index 0 the box's), what moving to each adds to the score (``gains``) and
    to the state's cost over the box's (``costs``), the least cost of a unit of score gained
    (``rate``: a bound for moves not yet chosen), and the exact value of the t-th (``point``)."""

    position: int
    gains: np.ndarray
    costs: np.ndarray
    rate: float
    point: Callable[[int], Any]


class Completion:
    """The boxes of one problem's linear score completed (:meth:`completed`) and bounded
    (:meth:`floor`); the moves of a number's interval are worked out once, for all the boxes
    that share it."""

    def __init__(self, problem: Problem, spreads: Mapping[str, float]) -> None:
        assert problem.score is not None
        self.problem, self.score, self.spreads = problem, problem.score, spreads
        self._moves: dict[tuple[int, int, bool], _Move | None] = {}

    def completed(self, box: Assessment, k: int = 1) -> list[tuple[Assessment, Problem]]:
        """The ``k`` least-cost states of ``box`` the score may accept (its margin at least minus
        the tolerance), each with the problem it is priced in; the box itself where it needs no move."""
        moves = self._moves_of(box)
        out = []
        for steps in _cheapest(moves, self._deficit(box), k):
            if not any(steps):
                out.append((box, self.problem))
                continue
            priced = _priced(self.problem, box, {self.problem.names[m.position]: m.point(t) for m, t in zip(moves, steps)}, self.spreads)
            if priced is not None:
                out.append(priced)
        return out

    def floor(self, box: Assessment) -> float:
        """A lower bound of what any state of ``box`` the score may accept costs (inf: none
        may): the box's cost and the deficit gained at the least rate of each move, as far as
        each reaches, the cheapest rates first; what lets a box go uncompleted while a state
        found costs no more."""
        need, spent = self._deficit(box), float(box.exact)
        for move in self._moves_of(box):
            if need <= 0:
                break
            reach = min(need, float(move.gains[-1]))
            spent, need = spent + reach * move.rate, need - reach
        return spent * (1 - SLACK) if need <= 0 else math.inf

    def _deficit(self, box: Assessment) -> float:
        """What the box's score lacks to be accepted."""
        return -self.score.tolerance - float(self.score.margins(np.array([box.state], dtype=np.intp))[0])

    def _moves_of(self, box: Assessment) -> list[_Move]:
        """The box's moves, the least rate first."""
        moves = []
        for position in self.score.optimistic:
            key = (position, box.state[position], self.problem.names[position] in box.terms)
            if key not in self._moves:
                self._moves[key] = _move(self.problem, box, position, self.spreads)
            if (move := self._moves[key]) is not None:
                moves.append(move)
        return sorted(moves, key=lambda m: m.rate)


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
    numbers, point = _points(fv.domain, start, far, fv.name)
    sizes = np.abs(numbers - float(fv.original)) / spreads.get(fv.name, 1.0)
    terms = fv.feature.weight * (sizes > 0 if problem.distance.norm == "l0" else sizes ** POWERS[problem.distance.norm])
    gains = slope * (numbers - numbers[0])
    if fv.name not in box.terms and problem.mode == "explained":
        return _Move(position, gains, np.zeros(len(numbers)), 0.0, point)  # explained, free anywhere in its interval
    if fv.name not in box.terms:  # caused where it stands: moved on, it is a person's own action
        costs = np.concatenate([[0.0], terms[1:]])
        return _Move(position, gains, costs, float(np.min(costs[1:] / gains[1:])), point)
    costs = terms - terms[0]  # convex in the points: the first step is the dearest a unit
    return _Move(position, gains, costs, float(np.min(costs[1:] / gains[1:])), point)


def _points(domain: Any, start: Any, far: Any, name: str) -> tuple[np.ndarray, Callable[[int], Any]]:
    """The interval's points from ``start`` to ``far`` as floats (for the search), and the exact
    value of the t-th (0: ``start``)."""
    if domain.seen is None:
        first, last = units(start, domain.step), units(far, domain.step)
        if first.denominator != 1 or last.denominator != 1:
            return np.array([float(start)]), lambda t: start
        sign, count = (1 if last > first else -1), abs(int(last - first))
        if count > MOST_POINTS:
            raise SearchError(
                f"{name} moves on a grid of {count:,} points between {start} and {far}: too fine to complete a linear score exactly; give it a coarser step"
            )
        numbers = (int(first) + sign * np.arange(count + 1)) * float(domain.step)
        return numbers, lambda t: start if t == 0 else grid_value(int(first) + sign * t, domain.step)
    points = [start, *domain.following(start, far, len(domain.seen))]
    return np.asarray(points, dtype=np.float64), points.__getitem__


def _cheapest(moves: list[_Move], deficit: float, k: int) -> list[tuple[int, ...]]:
    """The ``k`` least-cost choices of a point per move (0: stay) whose gains add up to
    ``deficit`` at least, cheapest first, by branch and bound: the moves in order of their least
    rate, each one's points tried in order of what they cost with the least the rest would,
    until that passes the k-th best.  A move's points run up to the fewest that reach what is
    left alone and k - 1 past them (a point farther on costs more than k states that reach it
    too: its points cost more the farther they go); the last move starts at that fewest, as
    fewer cannot make up the rest.  A box its own score accepts is so the first of k states,
    each move's first k points its next."""
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
        if i == len(moves):
            if need <= 0:
                keep(spent, chosen)
            return
        if spent + _least(need, rest[i]) >= bar():
            return
        move = moves[i]
        reach = min(int(np.searchsorted(move.gains, need, side="left")), len(move.gains) - 1) if need > 0 else 0  # the fewest points that reach it alone
        points = np.arange(reach if i == len(moves) - 1 else 0, min(reach + k, len(move.gains)))
        left = need - move.gains[points]
        with np.errstate(invalid="ignore"):
            bounds = spent + move.costs[points] + np.where(left > 0, left * rest[i + 1], 0.0)
        for t in np.argsort(bounds, kind="stable"):  # the most promising first: a bound past the k-th best ends the branch
            if bounds[t] >= bar():
                break
            branch(i + 1, float(left[t]), spent + float(move.costs[points[t]]), chosen + (int(points[t]),))

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
