"""Exact top-K search with clingo, ordered by exact costs.

clingo optimises integers, so the solver counts each cost at a scale, rounded down (and capped,
so that all features' weights together fit clingo's 32 bits): a state's integer cost never
exceeds its exact cost times the scale.  So once every state up to an integer bound has been
read, every state still unread costs at least (bound + 1) / scale, exactly.  A first solve
finds a lower bound of the least cost; then every state up to a bound is enumerated at once
(clingo's ``enum`` mode with a bound, projected onto the chosen values) and blocked, and the
bound moves up window by window.  Enumerating is about 25 times cheaper per state than proving
one optimum after another, which matters when a black box rejects hundreds of states.  Each
state read is priced exactly (rational costs, see :class:`~mc3g.search.problem.Problem`) and
handed out once no unread state can cost less, so states come out in exact cost order, ties by
candidate index, at any scale of costs: each window is counted at the finest scale at which its
bound is below the cap (so a state with a capped weight lies beyond it), and a window holding
far more states than wanted is narrowed on the exact costs read, down to the finest scale.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from fractions import Fraction
from typing import NamedTuple

import clingo

from ..exceptions import SearchError
from .encoding import WEIGHT_MAX, Program, add_encoding
from .problem import Assessment, Problem, State


class Page(NamedTuple):
    """States read up to a bound: each with the integer cost it can be had for at ``scale``;
    when ``complete``, every state left unread costs at least ``reach``."""

    states: list[tuple[State, int]]
    complete: bool
    reach: Fraction
    scale: Fraction


class _Enumeration:
    """One grounded program, solved for its optimum or enumerated up to a bound."""

    def __init__(self, problem: Problem) -> None:
        self.problem = problem
        self.program = Program(problem)
        self.scales = self.program.scales
        # The model heuristic steers choices by the objective (about 20 % faster optima);
        # projection reports a state once, however many ways its changes can be justified.  Only
        # the changed values are shown (index 0 is the person's own value): less to decode.
        self.ctl = clingo.Control(["--warn=none", "--opt-heuristic=model", "--project=show"])
        add_encoding(self.ctl)  # its #program lines file the rules under their parts
        self.ctl.add("base", [], self.program.facts() + _counting(len(self.scales)))
        self.ctl.ground([(part, []) for part in self.program.parts()])
        self._level: int | None = None
        # Each candidate value's atom, looked up by its symbol (cheaper than reading the
        # symbols of every atom grounded).
        self.decode: dict[clingo.Symbol, tuple[int, int]] = {}
        self.atoms: dict[tuple[int, int], int] = {}
        atoms = self.ctl.symbolic_atoms
        for position, fv in enumerate(problem.space.features):
            name = clingo.String(fv.name)
            for index in range(len(fv.values)):
                symbol = clingo.Function("val", [name, clingo.Number(index)])
                atom = atoms[symbol]
                if atom is not None:
                    self.decode[symbol], self.atoms[(position, index)] = (position, index), atom.literal

    def _count_at(self, level: int) -> None:
        """Count costs at scale ``level`` only."""
        if level != self._level and len(self.scales) > 1:
            for other in range(len(self.scales)):
                self.ctl.assign_external(clingo.Function("scale", [clingo.Number(other)]), other == level)
            self._level = level

    def optimum(self) -> Fraction | None:
        """A lower bound of the exact cost of every state not yet blocked: their least integer
        cost at the coarsest scale, over the scale (None: there are none)."""
        self._count_at(0)
        self.ctl.configuration.solve.opt_mode = "optN"
        self.ctl.configuration.solve.models = "1"
        best = None
        with self.ctl.solve(yield_=True) as handle:
            for model in handle:
                weights = model.cost
                if model.optimality_proven or not weights:  # no weight: any model is optimal
                    best = weights[0] if weights else 0
        return None if best is None else best / self.scales[0]

    def _bound(self, cost: Fraction) -> tuple[int, int]:
        """The finest scale at which ``cost`` is below the weights' cap (so no state with a
        capped weight is within it; the coarsest caps none), and ``cost`` counted at it (no
        more than any state's weights can sum to)."""
        level = next((i for i in reversed(range(len(self.scales))) if cost * self.scales[i] < self.program.cap), 0)
        return level, min(math.floor(cost * self.scales[level]), WEIGHT_MAX)

    def reach(self, cost: Fraction) -> Fraction:
        """What every unread state costs at least once every state up to ``cost`` is read."""
        level, bound = self._bound(cost)
        return (bound + 1) / self.scales[level]

    def upto(self, cost: Fraction, limit: int) -> Page:
        """Unread states whose integer cost is at most ``cost`` counted at the finest scale that
        allows (so every unread state of exact cost up to ``cost`` among them): all of them, or
        ``limit + 1`` of them when there are more."""
        level, bound = self._bound(cost)
        self._count_at(level)
        self.ctl.configuration.solve.opt_mode = f"enum,{bound}"
        self.ctl.configuration.solve.models = str(limit + 1)  # stops by itself: cancelling is slow
        found: list[tuple[State, int]] = []
        # A callback: cheaper per model than iterating.  It holds nothing that holds the program:
        # clingo keeps it after the solve, and a cycle back would keep the ground program alive
        # until the cyclic collector ran (held off while a portfolio's chunk runs).
        self.ctl.solve(on_model=functools.partial(_read, self.decode, len(self.problem.names), found.append))
        return Page(found, len(found) <= limit, self.reach(cost), self.scales[level])

    def exclude(self, actions: frozenset[str]) -> None:
        """No more states whose direct actions include all of ``actions``: a constraint over the
        atoms that say a change is a direct action under the problem's cost mode.  A state whose
        cheapest justification does not include them keeps that justification, so no other
        state's least cost moves."""
        direct = {"derived": (("direct", True),), "explained": (("changed", True), ("explained", False))}.get(self.problem.mode, (("changed", True),))
        body = []
        for name in actions:
            for predicate, positive in direct:
                atom = self.ctl.symbolic_atoms[clingo.Function(predicate, [clingo.String(name)])]
                if atom is None and positive:
                    return  # it can never be a direct action here: nothing to exclude
                if atom is not None:
                    body.append(atom.literal if positive else -atom.literal)
        with self.ctl.backend() as backend:
            backend.add_rule([], body)

    def block(self, states: list[State]) -> None:
        with self.ctl.backend() as backend:  # straight into the ground program
            for state in states:
                backend.add_rule([], [self.atoms[(position, j)] for position, j in enumerate(state)])


def _read(decode: dict[clingo.Symbol, tuple[int, int]], width: int, keep: Callable[[tuple[State, int]], None], model: clingo.Model) -> None:
    """Keep a model's state (``decode``: each shown atom's position and index) and its integer cost."""
    state = [0] * width
    for symbol in model.symbols(shown=True):
        position, index = decode[symbol]
        state[position] = index
    weights = model.cost
    keep((tuple(state), weights[0] if weights else 0))


def _counting(scales: int) -> str:
    """The scales a solve may count at: one is a fact (the grounder then drops the condition),
    several are external atoms, one set true at a time."""
    return "scale(0).\n" if scales == 1 else f"#external scale(0..{scales - 1}).\n"


def _order(a: Assessment) -> tuple[int, State]:
    return (a.total, a.state)


class StateStream:
    """The counterfactual states of ``problem`` in exact cost order (ties by candidate index),
    at most ``max_states`` of them, handed out ``take(n)`` at a time: each request reads from
    the solver about as many states as it asks for, which matters when a black box judges them
    in hundreds."""

    def __init__(self, problem: Problem, max_states: int = 2000) -> None:
        self.problem = problem
        self.max_states = max_states
        self._search = _Enumeration(problem)
        self._pending: list[Assessment] = []  # read, not yet known to be next
        self._ready: list[Assessment] = []  # known to be next, in order
        self._given = 0
        self._low = self._search.optimum()  # every unread state costs at least this, exactly
        self._ceiling: Fraction | None = None  # no state dearer than this is read (:meth:`cap`)
        # The first window holds the optimum: at the coarsest scale it is rounded down by less
        # than one unit per feature.
        self._width = max((self._low or 0) / 4, len(problem.names) / self._search.scales[0])

    def take(self, n: int) -> list[Assessment]:
        """The next ``n`` states (fewer when the states or the budget run out; none for ``n`` <= 0)."""
        n = max(0, min(n, self.max_states - self._given))
        while len(self._ready) < n and (self._low is not None or self._pending) and not self.capped:
            if self._low is None:  # every state has been read: the rest are final
                self._release(None)
            else:
                self._window(n - len(self._ready))
        out, self._ready = self._ready[:n], self._ready[n:]
        self._given += len(out)
        return out

    @property
    def at_limit(self) -> bool:
        """Whether the stream has handed out ``max_states`` states (it hands out no more)."""
        return self._given >= self.max_states

    def cap(self, ceiling: Fraction | None) -> None:
        """Read no state whose exact cost is above ``ceiling`` (None: no cap; a cap is only ever
        lowered): a search that knows K options no dearer needs none of them, and the solver
        would read and price far more states past it than the search would show the model."""
        if ceiling is not None and (self._ceiling is None or ceiling < self._ceiling):
            self._ceiling = ceiling

    @property
    def capped(self) -> bool:
        """Whether every state left costs more than the cap (:meth:`cap`): the stream hands out
        no more (those cheaper were handed out or are ready)."""
        return self._ceiling is not None and self._low is not None and self._low > self._ceiling

    def exclude(self, actions: frozenset[str]) -> None:
        """Read no more states whose direct actions include ``actions`` (a distinct option's set:
        no such state can be another option).  States already read are not withdrawn."""
        self._search.exclude(actions)

    def _window(self, need: int) -> None:
        """Read every unread state up to the next cost bound, page by page: each page is priced,
        kept and blocked, so no state is read twice.  A window holding far more states than
        needed is narrowed; the states already read past the new bound wait for their turn."""
        assert self._low is not None
        start, read, limit = self._low, 0, 2 * need
        while True:
            top = self._low + self._width if self._ceiling is None else min(self._low + self._width, self._ceiling)
            page = self._search.upto(top, limit)
            self._keep(page)
            read += len(page.states)
            if page.complete:
                break
            # The window holds more than twice the states needed: narrow it to a quarter, or to
            # the cost of the need-th cheapest state read so far if that is less.  When no
            # scale tells those states apart any better (they tie), read them all, in pages
            # growing fourfold (so too where the model read exactly refused most of them).
            totals = sorted(a.total for a in self._pending)
            nearer = min(Fraction(totals[need - 1], self.problem.denominator) - self._low, self._width / 4) if len(totals) >= need else None
            if nearer is not None and self._search.reach(self._low + nearer) < page.reach:
                self._width = nearer
            else:
                limit *= 4
        # An empty window finds where the next starts, unless it ended at the cap: no more is read.
        self._low = page.reach if read or top == self._ceiling else _highest(page.reach, self._search.optimum())
        self._release(self._low)
        if read < need:
            self._width = (page.reach - start) * min(8, max(2, need // max(read, 1)))

    def _keep(self, page: Page) -> None:
        problem, slack = self.problem, len(self.problem.names)
        # A state's weights are each rounded down by less than one: its total times the scale
        # (on the totals' scale, so the check is on integers) is below its integer cost + slack.
        over, under = page.scale.numerator, page.scale.denominator * problem.denominator
        states = [state for state, _ in page.states]
        refused = problem.model_refuses(states)  # let through by the rounding of the model's bound
        for (state, cost), priced, dropped in zip(page.states, problem.assess_many(states, model_checked=True), refused):
            if dropped:
                continue
            if priced is None:
                raise SearchError(f"the solver returned {problem.describe(state)}, which the reference semantics rejects")
            if priced.total * over >= (cost + slack) * under:
                solver, reference = float(cost / page.scale), float(priced.exact)
                raise SearchError(f"the solver priced {problem.describe(state)} at {solver:.6g}, the reference semantics at {reference:.6g}")
            self._pending.append(priced)
        self._search.block([state for state, _ in page.states])

    def _release(self, lowest_unread: Fraction | None) -> None:
        """Move the pending states that no unread state (exact cost >= lowest_unread) can
        precede to the ready ones, in exact order; None: every pending state."""
        cut = None if lowest_unread is None else math.ceil(lowest_unread * self.problem.denominator)  # on the totals' scale
        final = [a for a in self._pending if cut is None or a.total < cut]
        self._pending = [a for a in self._pending if cut is not None and a.total >= cut]
        self._ready += sorted(final, key=_order)


def _highest(reach: Fraction, optimum: Fraction | None) -> Fraction | None:
    """Where the next window starts after an empty one: at the least cost left (None: no state)."""
    return None if optimum is None else max(reach, optimum)


class ActionSets:
    """Options that truly differ (MC3G's distinct counterfactuals): read in exact cost order, a
    state is a new option only when the set of features it changes directly contains the set of
    no option kept before it (an equal set included).  So each option is the least-cost state of
    its action set, and no option merely adds actions to a cheaper one."""

    def __init__(self) -> None:
        self.kept: list[frozenset[str]] = []

    def open(self, state: Assessment) -> bool:
        """Whether ``state`` may still become an option: its action set contains no kept one."""
        actions = frozenset(state.direct)
        return not any(actions >= earlier for earlier in self.kept)

    def admit(self, state: Assessment) -> bool:
        """Whether ``state`` is a new option; if so, its action set is kept."""
        if not self.open(state):
            return False
        self.kept.append(frozenset(state.direct))
        return True


def search(problem: Problem, k: int = 1, max_states: int = 2000) -> list[Assessment]:
    """The ``k`` least-cost counterfactual states of ``problem`` (fewer if fewer exist)."""
    return StateStream(problem, max_states).take(k)
