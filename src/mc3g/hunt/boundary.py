"""Where the model's own decision changes: numeric changes sectioned on a feature's grid, and
every single change of a person scanned.

The surrogate's thresholds are the rules', not the model's.  A numeric action the model accepts
may go further than the model needs, and a single change the rules refuse may be one the model
accepts.  Both are settled by asking the model about points of a segment of one feature, the
other values held: ``first_points`` evenly spaced points (asked along with the first question),
then, between the last point refused and the first accepted, every point once ``section_points``
or fewer are left, else the fewest evenly spaced points that need no more rounds than those would
(about the square root of the points left where two rounds do), until the two are one grid step
apart.  A segment whose first round takes a call of its own (an option found after the first
question) starts as a later round does (:meth:`Segment.late`).  The model need not be monotone
along a segment: the nearest accepted point judged is taken all the same, as every answer is
judged by the model.  Each row is judged with what the causal rules force once its changes are
made (:class:`~mc3g.hunt.verdicts.Verdicts`): clearing a debt is asked with the credit score
it lifts, not beside the old score, a state the knowledge rules out.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any, NamedTuple

from ..engine import DEFAULT, HuntSettings
from ..search import Assessment, Problem, change_size, decimal, grid_value, infer_step, numeric_bounds, units


class Segment:
    """One numeric feature moved from the person's value (``origin``) towards ``end`` on its grid,
    the other values as in ``changes`` (what the person sets; the rest is forced); ``best`` is the
    accepted value nearest the origin known (``end`` when ``accepted``; None while no point is
    known accepted); ``tuning`` says how many points a round takes.  A value: what the model
    says of its points gives a new segment (:meth:`narrowed`), so a phase holding one can pass
    it on and no other phase's copy changes."""

    def __init__(
        self, changes: Mapping[str, Any], name: str, origin: Any, end: Any, step: float, accepted: bool = True, tuning: HuntSettings = DEFAULT
    ) -> None:
        self.changes, self.name, self.end, self.tuning = dict(changes), name, end, tuning
        self.best: Any = end if accepted else None
        self.step, self.origin = decimal(step), decimal(origin)
        whole = self.step.denominator == 1 and self.origin.denominator == 1
        self._ints = (int(self.origin), int(self.step)) if whole else None  # whole numbers: no fractions needed at any point
        self.sign = 1 if end > origin else -1
        self.low = 0  # grid steps from the origin to the last point known refused (or the origin)
        self.high = int(abs(decimal(end) - self.origin) / self.step)  # steps to the nearest point known accepted, or to the end
        self._open_end = not accepted  # the end itself is still to be judged
        self._rounds = 0
        self._late = False  # the first round was not asked with the first question (:meth:`late`)
        self._plan: tuple[list[int], list[int | float]] | None = None  # the next points' steps and values, found once

    def _with(self, **fields: Any) -> Segment:
        """A copy with ``fields`` set, its next points to be found again."""
        copy = object.__new__(Segment)
        copy.__dict__.update(self.__dict__, **fields, _plan=None)
        return copy

    def _steps_to(self, value: Any) -> int | None:
        """Grid steps from the origin to ``value`` (None off the grid)."""
        if self._ints is not None and isinstance(value, int):
            origin, step = self._ints
            whole, rest = divmod((value - origin) * self.sign, step)
            return None if rest else whole
        n = (decimal(value) - self.origin) * self.sign / self.step
        return int(n) if n.denominator == 1 else None

    def _value(self, steps: int) -> int | float:
        if self._ints is not None:
            origin, step = self._ints
            return origin + self.sign * steps * step
        v = self.origin + self.sign * steps * self.step
        return int(v) if v.denominator == 1 else float(v)

    def points(self) -> list[int | float]:
        """The points to judge next (none: the boundary is found, or nothing was accepted)."""
        return self._planned()[1]

    def _planned(self) -> tuple[list[int], list[int | float]]:
        """The next points as grid steps from the origin and as values, found once a segment."""
        if self._plan is not None:
            return self._plan
        if self._rounds and self.best is None:
            self._plan = [], []
            return self._plan
        top = self.high + 1 if self._open_end else self.high  # exclusive
        inside = top - self.low - 1
        n = fewest(inside, self.tuning.section_points) if self._rounds or self._late else self.tuning.first_points
        if inside <= n:
            steps = list(range(self.low + 1, top))
        else:
            steps = sorted({self.low + 1 + (i * (inside - 1)) // (n - 1) for i in range(n)})
        self._plan = steps, [self._value(s) for s in steps]
        return self._plan

    def late(self) -> Segment:
        """The segment with its first round asked in a call of its own: as few points as a later round takes."""
        return self._with(_late=True)

    def narrowed_by_known(self, verdicts: list[tuple[Any, bool]]) -> Segment:
        """The segment narrowed by the model's verdicts on its points judged already (value,
        accepted), however they were asked: another option's segment may lie on the same line."""
        top = self.high + 1 if self._open_end else self.high
        return self._with(**self._learnt([(n, ok) for v, ok in verdicts if (n := self._steps_to(v)) is not None and 0 < n < top]))

    def _learnt(self, judged: list[tuple[int, bool]]) -> dict[str, Any]:
        """What verdicts on points (grid steps from the origin, inside the segment) teach: the
        nearest accepted is the best known, the farthest refused short of it the last refused."""
        learnt: dict[str, Any] = {}
        high = self.high
        if yes := [n for n, ok in judged if ok]:
            high = min(yes)
            learnt.update(high=high, _open_end=False, best=self._value(high))
        learnt["low"] = max((n for n, ok in judged if not ok and self.low < n < high), default=self.low)
        return learnt

    def nearest(self) -> int | float:
        """The point nearest the origin that may still be the boundary: one step past the last refused."""
        return self._value(self.low + 1)

    def narrowed(self, accepted: list[bool]) -> Segment:
        """The segment once the model's verdicts on its :meth:`points` are taken: a round more."""
        return self._with(**self._learnt(list(zip(self._planned()[0], accepted))), _rounds=self._rounds + 1)

    def row(self, value: Any) -> dict[str, Any]:
        return {**self.changes, self.name: value}


def together(segments: list[Segment]) -> dict[str, Any] | None:
    """One option's row with each of its numbers at the best its segment has found (None where
    fewer than two have found one nearer the person): each segment moves one number, the others
    held at the option's values, so each finds its own boundary there; the model may accept
    them all together, as a greedy search moving one number after another would find."""
    nearer = {s.name: s.best for s in segments if s.best is not None and s.best != s.end}
    return {**segments[0].changes, **nearer} if len(nearer) > 1 else None


def rounds(inside: int, n: int) -> int:
    """Rounds of ``n`` evenly spaced points that find a boundary among ``inside`` grid points at
    worst (the last round takes every point left)."""
    count = 1
    while inside > n:
        inside, count = -(-(inside - 1) // (n - 1)) - 1, count + 1  # the widest gap left between two points
    return count


def fewest(inside: int, section: int) -> int:
    """Points for a later round among ``inside``: the fewest that find the boundary in as many
    rounds as ``section`` points do, at worst.  Rows cost the model and the search's
    book-keeping; rounds cost a call each, when no other call carries them."""
    if inside <= section:
        return inside  # every point: one round
    goal, low, high = rounds(inside, section), 2, section
    while low < high:
        middle = (low + high) // 2
        low, high = (low, middle) if rounds(inside, middle) <= goal else (middle + 1, high)
    return low


def grid_step(engine: Any, name: str) -> float:
    """A numeric feature's grid step: declared, or read off the training values."""
    return engine.schema.feature(name).step or infer_step(engine.observed.numbers[name])


def exchanges(engine: Any, row: Mapping[str, Any], problem: Problem, state: Assessment) -> list[dict[str, Any]]:
    """The option ``state`` with one number it moves moved back and another number moved on, one,
    two or three of that one's grid steps either way, the first back by just more of its own
    steps than those cost: where the model's boundary runs across two numbers, a step of one may
    cost less than a step of the other, a near tie no rule, draw or sectioning reaches (issue
    51's brute force: score 4 → 7 alone, where income 8 → 9 with score 4 → 6 costs less)."""
    changes, distance = problem.chosen(state), engine.settings.distance
    numbers = _numbers(engine)
    steps = {f.name: grid_step(engine, f.name) for f in numbers}
    price = {f.name: distance.term(change_size(f, 0, steps[f.name], engine.spreads.get(f.name, 1.0)), f.weight) for f in numbers}
    rows = []
    for a in [n for n in state.direct if price.get(n)]:
        at, back = units(changes[a], steps[a]), units(row[a], steps[a])
        toward = 1 if back > at else -1
        for f in numbers:
            low, high = numeric_bounds(f, row[f.name])
            other = math.floor(units(changes.get(f.name, row[f.name]), steps[f.name]))
            for t in (1, 2, 3) if f.name != a else ():
                moved = math.floor(t * price[f.name] / price[a]) + 1  # a's steps back: just more than t of f's cost
                if moved > abs(back - at):
                    break
                for way in (1, -1):
                    if low <= (value := grid_value(other + way * t, steps[f.name])) <= high:
                        rows.append({**changes, a: grid_value(math.floor(at) + toward * moved, steps[a]), f.name: value})
    return rows


def given_up(engine: Any, row: Mapping[str, Any], problem: Problem, state: Assessment) -> list[dict[str, Any]]:
    """The option ``state`` with one of its actions given up and a number moved on instead, from
    where the option leaves it towards the end of its bounds (either end, where the option does
    not move it), one to :data:`ON` grid steps: where a category's change costs more than a few
    steps of a number the model also weighs (issue 51's brute force: self-employed to full-time
    with income 9 and score 7, where savings 5 → 7 costs less)."""
    changes = problem.chosen(state)
    rows = []
    for given in state.direct if len(state.direct) > 1 else ():  # one given up leaves a single change: the first question's scans judge those
        kept = {n: v for n, v in changes.items() if n != given}
        for f in _numbers(engine):
            if f.name == given:
                continue
            origin, at, step = row[f.name], kept.get(f.name, row[f.name]), grid_step(engine, f.name)
            low, high = numeric_bounds(f, origin)
            for way in (1, -1):
                if (at - origin) * way >= 0:  # on, away from the person's value (either way from it)
                    on = math.floor(units(at, step)) if way > 0 else math.ceil(units(at, step))
                    rows += [{**kept, f.name: v} for t in range(1, ON + 1) if low <= (v := grid_value(on + way * t, step)) <= high]
    return rows


ON = 8
"""Grid steps a number is moved on for an action given up (:func:`given_up`), at most."""


def under(
    engine: Any, row: Mapping[str, Any], rows: list[dict[str, Any]], bound: Callable[[Mapping[str, Any]], float], rough: Callable[[Mapping[str, Any]], float]
) -> list[dict[str, Any]]:
    """Each of ``rows`` where it costs less than its ``bound`` by ``rough`` (a row's L1 of its
    changes, never below its price), else with one of its numbers moved back towards the person's value by the fewest
    grid steps that bring it under: an action given up for a number moved on may cost a little
    more than the option, and a step back of a third number less (issue 51's near ties of
    three numbers: income 7 → 8 with score 11, where savings 4 → 5 with score 10 costs less);
    and, where it moves two numbers or more, each moved back by its share of what must be saved
    (issue 51's brute force: full-time taken with income 10 → 8 and savings 5 → 3, where either
    alone moved back far enough is refused)."""
    out = []
    for r in rows:
        cost, most = rough(r), bound(r)
        if cost < most:
            out.append(r)
            continue
        backs = {name: back for name in r if (back := _back(engine, row, r, name, cost, rough)) is not None}
        for name, back in backs.items():
            if (moved := back.saving(cost - most)) is not None:
                out.append({**r, name: moved})
        if len(backs) > 1:  # every number moved back by its share: a trade may need a little less of each
            shared = {name: back.saving((cost - most) / len(backs)) for name, back in backs.items()}
            together = {**r, **shared}
            out += [together] if None not in shared.values() and rough(together) < most else []
    return out


class _Back(NamedTuple):
    """A number a row moves from the person's value, to be moved back: the grid's next point
    towards the person (``first``, in units), which way that is (``toward``), what a step back
    saves (``saves``), the grid's ``step`` and the person's value in units (``origin``)."""

    first: int
    toward: int
    saves: float
    step: float
    origin: Fraction

    def saving(self, amount: float) -> float | int | None:
        """The value moved back by the fewest steps that save ``amount`` (at least one step);
        None where that reaches the person's value."""
        moved = self.first + self.toward * math.floor(amount / self.saves)
        return grid_value(moved, self.step) if (moved - self.origin) * self.toward < 0 else None


def _back(engine: Any, row: Mapping[str, Any], r: Mapping[str, Any], name: str, cost: float, rough: Callable[[Mapping[str, Any]], float]) -> _Back | None:
    """How ``r``'s number ``name`` moves back towards the person (costing ``cost`` by ``rough``);
    None for a category, a value not moved, or a step back that saves nothing."""
    value, origin = r[name], row[name]
    if not engine.schema.feature(name).is_numeric or value == origin:
        return None
    step = grid_step(engine, name)
    at, toward = units(value, step), 1 if origin > value else -1
    first = math.floor(at) + 1 if toward > 0 else math.ceil(at) - 1  # the grid's next point towards the person
    saves = cost - rough({**r, name: grid_value(first, step)}) if first != at else 0.0
    return _Back(first, toward, saves, step, units(origin, step)) if saves > 0 else None


def taken(engine: Any, row: Mapping[str, Any], problem: Problem, state: Assessment) -> list[dict[str, Any]]:
    """The option ``state`` with a category's change it does not make made too, also in place
    of each other action of it: with a number then moved back (:func:`under`), a category may
    cost less than steps of numbers (issue 51's brute force: income 1 → 7 where income 3 and
    full-time cost less; income 11 → 12 with score 11, where full-time with score 8 costs less)."""
    changes = problem.chosen(state)
    bases = {None: changes} | {given: {n: v for n, v in changes.items() if n != given} for given in (state.direct if len(state.direct) > 1 else ())}
    rows = []
    for name in engine.varied:
        feature, original = engine.schema.feature(name), str(row[name])
        if not feature.is_numeric:
            made = [v for v in engine.observed.tokens[name] if v not in (original, changes.get(name)) and feature.may_move(original, v)]
            rows += [{**base, name: v} for given, base in bases.items() if given != name for v in made]
    return rows


def corners(engine: Any, row: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every two of the person's numbers moved together, each to an end of its bounds: a model
    may accept where two numbers are both high and neither alone (issue 51's box: income and
    savings both at their top), and where a score rises with each number, the least-cost way
    often moves one to its end and another part of the way (:meth:`~.hunt.Hunt.moved_back`
    finds that part from here)."""
    ends = {f.name: [end for end in numeric_bounds(f, row[f.name]) if end != row[f.name]] for f in _numbers(engine)}
    return [{a: x, b: y} for a, b in itertools.combinations(ends, 2) for x in ends[a] for y in ends[b]]


def _numbers(engine: Any) -> list[Any]:
    """The numeric features a person may change."""
    return [f for f in map(engine.schema.feature, engine.varied) if f.is_numeric]


def scan(engine: Any, row: Mapping[str, Any]) -> tuple[list[dict[str, Any]], list[Segment]]:
    """Every single change of ``row`` the person may make: each allowed category of a feature
    (rows), and each numeric feature from the person's value to each end of its bounds
    (segments, to section)."""
    rows, segments = [], []
    for name in engine.varied:
        feature, original = engine.schema.feature(name), row[name]
        if feature.is_numeric:
            lo, hi = numeric_bounds(feature, original)
            step = grid_step(engine, name)
            segments += [Segment({}, name, original, end, step, False, engine.settings.hunt) for end in (lo, hi) if end != original]
        else:
            rows += [{name: v} for v in engine.observed.tokens[name] if v != str(original) and feature.may_move(str(original), v)]
    return rows, segments
