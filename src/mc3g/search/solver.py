"""Exact top-K search with clingo, re-priced exactly in floating point.

The first solve finds the least integer cost; then every state up to a cost bound is enumerated
at once (clingo's ``enum`` mode with a bound, projected onto the chosen values) and blocked, and
the bound moves up window by window.  Enumerating is about 25 times cheaper per state than
proving one optimum after another, which matters when a black box rejects hundreds of states.
A state is handed out once every unseen state is known to cost more than it by more than the
rounding of the integer costs can explain, so states come out in exact cost order (candidate
indices break ties; when far more states tie than are wanted, the ties come in chunks, each in
index order).
"""

from __future__ import annotations

import clingo

from ..exceptions import SearchError
from .encoding import ENCODING, Program, band
from .problem import Assessment, Problem


class _Enumeration:
    """One grounded program, solved for its optimum or enumerated up to a bound."""

    def __init__(self, problem: Problem) -> None:
        self.problem = problem
        self.program = Program(problem)
        # The model heuristic steers choices by the objective (about 20 % faster optima);
        # projection reports a state once, however many ways its changes can be justified.  Only
        # the changed values are shown (index 0 is the person's own value): less to decode.
        self.ctl = clingo.Control(["--warn=none", "--opt-heuristic=model", "--project=show"])
        self.ctl.add("base", [], ENCODING)  # its #program lines file the rules under their parts
        self.ctl.add("base", [], self.program.facts())
        self.ctl.ground([(part, []) for part in self.program.parts()])
        position = {name: i for i, name in enumerate(problem.names)}
        self.decode: dict[clingo.Symbol, tuple[int, int]] = {}
        self.atoms: dict[tuple[int, int], int] = {}
        for atom in self.ctl.symbolic_atoms.by_signature("val", 2):
            name, index = atom.symbol.arguments
            key = (position[name.string], index.number)
            self.decode[atom.symbol], self.atoms[key] = key, atom.literal

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
        for: all of them (True), or ``limit + 1`` of them when there are more (False)."""
        self.ctl.configuration.solve.opt_mode = f"enum,{bound}"
        self.ctl.configuration.solve.models = str(limit + 1)  # stops by itself: cancelling is slow
        found = []
        with self.ctl.solve(yield_=True) as handle:
            for model in handle:
                found.append((self._state(model), int(model.cost[0]) if model.cost else 0))
        return found, len(found) <= limit

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

    def block(self, states: list[tuple[int, ...]]) -> None:
        with self.ctl.backend() as backend:  # straight into the ground program
            for state in states:
                backend.add_rule([], [self.atoms[(position, j)] for position, j in enumerate(state)])


def _order(a: Assessment) -> tuple[float, tuple[int, ...]]:
    return (round(a.cost, 9), a.state)


class StateStream:
    """The counterfactual states of ``problem`` in exact cost order (ties by candidate index),
    at most ``max_states`` of them, handed out ``take(n)`` at a time: each request reads from
    the solver about as many states as it asks for, which matters when a black box judges them
    in hundreds."""

    def __init__(self, problem: Problem, max_states: int = 2000) -> None:
        self.problem = problem
        self.max_states = max_states
        self._search = _Enumeration(problem)
        self._slack = band(len(problem.names))
        self._pending: list[tuple[int, Assessment]] = []  # read, not yet known to be next
        self._ready: list[Assessment] = []  # known to be next, in order
        self._given = 0
        self._low = self._search.optimum()  # no unread state has a lower integer cost
        self._width = max((self._low or 0) // 4, 2 * self._slack + 1)  # of the next window

    def take(self, n: int) -> list[Assessment]:
        """The next ``n`` states (fewer when the states or the budget run out)."""
        n = min(n, self.max_states - self._given)
        while len(self._ready) < n and (self._low is not None or self._pending):
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

    def exclude(self, actions: frozenset[str]) -> None:
        """Read no more states whose direct actions include ``actions`` (a distinct option's set:
        no such state can be another option).  States already read are not withdrawn."""
        self._search.exclude(actions)

    def _window(self, need: int) -> None:
        """Read every unread state up to the next cost bound, page by page: each page is priced,
        kept and blocked, so no state is read twice.  A window holding far more states than
        needed is narrowed; the states already read past the new bound wait for their turn."""
        read = 0
        while True:
            page, complete = self._search.upto(self._low + self._width, 2 * need)
            self._keep(page)
            read += len(page)
            if complete:
                break
            if self._width == 0:
                # More states tie with the optimum (within the rounding of the integer costs)
                # than are needed: they are handed out chunk by chunk, and the dearer states
                # read earlier in this window wait.
                self._release(self._low + 2 * self._slack + 1)
                return
            # The window holds more than twice the states needed: narrow it to a quarter, or to
            # the cost of the need-th cheapest state read so far if that is less.
            nearer = sorted(cost for cost, _ in self._pending)[need - 1] - self._low
            self._width = max(min(nearer, self._width // 4), 0)
        if read:
            self._low += self._width + 1
        else:  # nothing in the window: jump to the cheapest state left, if any
            self._low = self._search.optimum()
        self._release(self._low)
        if read < need:
            self._width = max(self._width, 1) * min(8, max(2, need // max(read, 1)))

    def _keep(self, page: list[tuple[tuple[int, ...], int]]) -> None:
        problem, scale = self.problem, self._search.program.scale
        for (state, cost), priced in zip(page, problem.assess_many([state for state, _ in page])):
            if priced is None:
                raise SearchError(f"the solver returned {problem.describe(state)}, which the reference semantics rejects")
            exact = priced_integer(priced, scale)
            if exact > cost + self._slack:
                raise SearchError(f"the solver priced {problem.describe(state)} at {cost / scale:.6f}, the reference semantics at {priced.cost:.6f}")
            self._pending.append((exact, priced))
        self._search.block([state for state, _ in page])

    def _release(self, lowest_unread: int | None) -> None:
        """Move the pending states that no unread state (integer cost >= lowest_unread) can
        precede to the ready ones, in exact order; None: every pending state."""
        cut = None if lowest_unread is None else lowest_unread - self._slack
        final = [a for c, a in self._pending if cut is None or c < cut]
        self._pending = [(c, a) for c, a in self._pending if cut is not None and c >= cut]
        self._ready += sorted(final, key=_order)


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


def priced_integer(assessment: Assessment, scale: float) -> int:
    """The assessment's sum of terms on the solver's integer scale (before any root)."""
    return int(round(sum(assessment.terms.values()) * scale))
