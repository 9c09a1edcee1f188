"""What would open a way out: the fewest protections whose lifting lets a model read exactly
accept a state, for a person it refuses everywhere within them.

The person's problem has every protection of the features in play lifted (their values all
candidates), and each becomes a switch: while it holds, the values it forbids are barred
(:class:`Lift`: a feature's immutability, its direction, how far it may move, the values it may
take or move to, and a feature that may change only as a consequence, which may not be a
person's own action), and the solver finds the fewest switches to throw, in one grounding (for
a tree model, one grounding for everyone: :mod:`.shared`): every single switch that opens a
state, enumerated at once, and only where none does, the fewest by core-guided optimisation and
then the other sets of as many.  Costs play no part; each state the solver opens is checked
with the model read exactly.  No protection is weighed against another: a lender
reads which of them keeps the person out.

The work is bounded by the solver's conflicts (:data:`MOST_CONFLICTS`, all solves of one person
together), not by the clock, so a person's answer is the same on any machine: when the bound
stops the search before the fewest is proved, what would open a way out is not determined."""

from __future__ import annotations

import math
from collections.abc import Callable, Generator, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import clingo
import numpy as np
from clingo._internal import _c_call, _lib

from ..schema import Feature
from .encoding import Program, add_encoding, quote
from .problem import Assessment, Problem, State

MOST_SETS = 4  # sets of as many protections reported, at most
MOST_FOUND = 16  # sets of as many found, at most: the first MOST_SETS of them reported
MOST_TRIES = 64  # solves at most: the fewest, the other sets of as many, and one more each time the model refuses a state one was found with
MOST_CONFLICTS = 8000  # the solver's conflicts, a person's solves together (the adult ExtraTrees' precluded need about 3,000 at most)
SINGLE = clingo.Function("single")  # the encoding's external: while it holds, at most one switch is thrown


@dataclass(frozen=True)
class Lift:
    """A protection in force: ``feature``'s setting ``name`` as it held (``held``: the feature with
    only that protection), the candidate values it bars in the lifted problem (``barred``), and
    whether it bars the feature from being a person's own action (``alone``)."""

    feature: str
    name: str
    held: Feature
    barred: tuple[int, ...]
    alone: bool = False

    @property
    def key(self) -> str:
        return f"{self.feature}:{self.name}"


Lifted = Callable[[Sequence[tuple[str, str]]], tuple[Problem, list[Lift]]]  # the problem with these protections lifted, and them
Asking = Generator[Any, Any, bool]  # whether the model accepts a state: the rows it must be asked go out, its verdicts come back
Opens = Callable[[Problem, Assessment, "int | None"], Asking]  # with the verdict read exactly where the program could tell it (None: the problem's to read)


class Solving(Protocol):
    """A program of what would open a way out, as one person's solves see it."""

    @property
    def ctl(self) -> clingo.Control: ...

    @property
    def guard(self) -> list[int]: ...

    def lift(self, key: str) -> int: ...

    def state(self, shown: dict[str, int]) -> State: ...

    def values(self, state: State) -> list[int]: ...

    def verdict(self, state: State) -> int | None: ...


class Person(Solving, Protocol):
    """One person's solves in a program shared (:class:`~.shared.Person`), closed after them."""

    def close(self) -> None: ...


class Grounded(Protocol):
    """A program grounded once for a model (:class:`~.shared.SharedLifts`)."""

    @property
    def refuses_every_state(self) -> bool: ...

    def person(self, problem: Problem, barred: dict[str, tuple[int, ...]]) -> Person | None: ...


Shared = Callable[[Problem, Sequence["Lift"]], Grounded | None]  # the program grounded once for a model, from a person's lifted problem


def openings(
    lifted: Lifted, protections: Sequence[tuple[str, str]], opens: Opens, conflicts: int = MOST_CONFLICTS, shared: Shared | None = None
) -> Generator[Any, Any, list[tuple[Lift, ...]] | None]:
    """The smallest sets of ``protections`` (feature, setting) whose lifting lets the model
    accept a state, the first :data:`MOST_SETS` of them by their protections' keys;
    ``lifted(some)`` is the problem with ``some`` lifted, and ``opens(problem, state, verdict)`` says
    whether the model accepts a state the solver found (its bound on the model is rounded up; a
    state only the model can tell is asked of it, through this generator).  [] when no lifting
    opens any; None when the solver's ``conflicts`` ran out before the fewest was proved (once it
    is, the first of the sets found so far).  ``shared(problem, lifts)``: the program grounded
    once for the model (:mod:`.shared`), solved for this person when their values fit it."""
    problem, lifts = lifted(protections)
    if not lifts:
        return []  # nothing to lift
    program = None if shared is None else shared(problem, lifts)
    if program.refuses_every_state if program is not None else problem.score is not None and problem.score.refuses_every_state():
        return []  # the model refuses every state of the features it reads (the person's problem read only where no program is shared)
    person = None if program is None else program.person(problem, {lift.key: lift.barred for lift in lifts})
    found, settled = None, False
    if person is not None:
        try:
            found, settled = yield from _solved(person, problem, lifts, opens, conflicts)
        finally:
            person.close()
    if not (settled or found) and program is None:  # a linear score: each switch settled apart, where it can be
        found = yield from _apart(problem, lifts, opens)
    if not found and not settled:  # the fewest unproved in the program shared, or not settled apart: the person's own program, as it always was
        found, _ = yield from _solved(_Own(problem, lifts), problem, lifts, opens, conflicts)
    return None if found is None else sorted(found, key=lambda unit: [lift.key for lift in unit])[:MOST_SETS]


TIED_MOST = 4096  # the joint values of features a constraint ties together, enumerated at most


def _apart(problem: Problem, lifts: Sequence[Lift], opens: Opens) -> Generator[Any, Any, Sets | None]:
    """For a linear score, every set of one of ``lifts`` that opens a state, found without a
    solver, as :func:`_singles` finds them: a switch opens nothing where the best the score can
    reach with it thrown alone falls short (each feature at its best value the held protections
    allow, features a constraint ties together at their best joint values it allows: a bound
    the causal rules only lower), and opens a way out where the model accepts the state its best
    values make (the features the person may set, the held protections obeyed) and the
    knowledge allows it.  None where one switch is neither (a caused change may be what opens
    it), or where none opens (the fewest is then the solver's): adult's logistic regression
    settles each of its 66 people with no way out among the first 100 refused (counted by hand)."""
    score = problem.score
    if score is None or (score.trees is not None and len(score.trees.roots)) or len(problem.space.regions) > 1:  # a scorecard's steps are terms
        return None
    sizes = [len(fv.values) for fv in problem.space.features]
    barring = {p: np.zeros((len(lifts), n), dtype=bool) for p, n in enumerate(sizes)}  # what each switch bars while it holds
    alone = np.zeros((len(lifts), len(sizes)), dtype=bool)  # features each switch keeps from being a person's own action
    for i, lift in enumerate(lifts):
        barring[problem.position[lift.feature]][i, list(lift.barred)] = True
        alone[i, problem.position[lift.feature]] = lift.alone
    held = ~np.eye(len(lifts) + 1, len(lifts), dtype=bool)  # row i: every switch but the i-th holds; the last, all of them
    rows = len(held)
    holding = held.astype(np.int64)
    allowed = {p: (holding @ bars) == 0 for p, bars in barring.items()}
    fixed = (holding @ alone > 0) | ~np.isin(problem.names, list(problem.actionable))  # at the person's own value in the state tried
    ceiling = np.full(rows, score.bias)
    state = np.zeros((rows, len(sizes)), dtype=np.intp)
    kept = np.ones(rows, dtype=bool)  # whether the state each row's tried values make is one it lets through
    for group in problem.tied:
        grid = _joint(sizes, group)
        if grid is None:
            return None
        free = ~problem.forbids(grid, group)[None, :] & np.logical_and.reduce([allowed[p][:, grid[:, p]] for p in group])
        best, tried = np.zeros(len(grid)), np.zeros(len(grid))
        for p in group:
            if p in score.optimistic:
                best += score.optimistic[p][grid[:, p]]
                tried += score.terms[p][grid[:, p]]
        ceiling += np.where(free, best, -np.inf).max(axis=1)
        mine = free & np.logical_and.reduce([~fixed[:, [p]] | (grid[:, p] == 0) for p in group])
        chosen = np.where(mine, tried, -np.inf).argmax(axis=1)  # the first best: the person's own where nothing gains
        kept &= mine[np.arange(rows), chosen]
        state[:, group] = grid[chosen][:, group]
    found: Sets = []
    for i in [rows - 1, *range(len(lifts))]:  # none thrown first: a state within every protection the model accepts is the fewest, as the solver's
        if ceiling[i] < -score.tolerance:
            continue
        priced = problem.assess_many([tuple(state[i].tolist())], model_checked=True)[0] if kept[i] else None
        if priced is None or not (yield from opens(problem, priced, None)):
            return None
        if i == rows - 1:
            return [()]
        found.append((lifts[i],))
    return found or None


def _joint(sizes: Sequence[int], group: Sequence[int]) -> np.ndarray | None:
    """Every joint value of the features at ``group`` (a row each, the others at 0), None past :data:`TIED_MOST`."""
    joint = math.prod(sizes[p] for p in group)
    if joint > TIED_MOST:
        return None
    grid = np.zeros((joint, len(sizes)), dtype=np.intp)
    grid[:, group] = np.stack(np.meshgrid(*(np.arange(sizes[p]) for p in group), indexing="ij"), axis=-1).reshape(-1, len(group))
    return grid


class _Own:
    """A person's own program of what would open a way out: every protection's switch and the
    values it bars, as facts."""

    def __init__(self, problem: Problem, lifts: Sequence[Lift]) -> None:
        program = Program(problem, priced=False)
        self.ctl = clingo.Control(["--warn=none", "--opt-mode=opt", "--opt-strategy=usc"])
        add_encoding(self.ctl)
        self.ctl.add("base", [], _facts(program, lifts))
        extra = "lifts_derived" if problem.mode == "derived" else "lifts_explained"
        self.ctl.ground([(part, []) for part in program.parts()] + [("lifts", []), (extra, [])])
        self.names = problem.names

    @property
    def guard(self) -> list[int]:
        """No guard: the rules added hold for this person, whose program it is."""
        return []

    def lift(self, key: str) -> int:
        return _literal(self.ctl, "lift", key)

    def state(self, shown: dict[str, int]) -> State:
        return tuple(shown.get(name, 0) for name in self.names)

    def values(self, state: State) -> list[int]:
        return [_literal(self.ctl, "val", name, j) for name, j in zip(self.names, state)]

    def verdict(self, state: State) -> int | None:
        """None: the person's problem reads the model on its own candidates."""
        return None


Sets = list[tuple[Lift, ...]]
Barred = list[tuple[list[int], bool]]  # a rule's body for each set found or state refused, and whether the model refused it


def _solved(solving: Solving, problem: Problem, lifts: Sequence[Lift], opens: Opens, conflicts: int) -> Generator[Any, Any, tuple[Sets | None, bool]]:
    """The sets of ``lifts`` of the least size that open a state the model accepts, each lift a
    switch of :mod:`.encoding`'s part ``lifts``: first every set of one, enumerated in one solve
    (:func:`_singles`: a person the model refuses everywhere within the protections needs one at
    least, and one mostly suffices); where none opens, the fewest found by core-guided
    optimisation (few switches thrown is what it proves fastest), then the other sets of as many
    enumerated in one solve (projected onto the switches: a state each), up to
    :data:`MOST_FOUND`, and again where the model refused a state one was found with, while
    ``conflicts`` last (None: they ran out before the fewest was proved; once it is, the sets
    found so far); and whether the search ended by itself.  All of them found, the first
    :data:`MOST_SETS` in the protections' order do not hang on the solver's path (what it solved
    before, in a program shared)."""
    ctl = solving.ctl
    by_key = {lift.key: lift for lift in lifts}
    found, settled, conflicts = yield from _singles(solving, problem, by_key, opens, conflicts)
    if found or not settled:  # sets of one (of none, for a person who was not refused everywhere), or the conflicts ran out
        least = min(map(len, found), default=0)
        return [unit for unit in found if len(unit) == least] or None, settled
    _configure(ctl, "opt", "-1", "no")
    for _ in range(MOST_TRIES):
        if conflicts <= 0:
            return found or None, False
        ctl.configuration.solve.solve_limit = str(conflicts)  # type: ignore[union-attr]
        opened, settled = _fewest(ctl, solving, by_key)
        conflicts -= _conflicts(ctl)
        if not opened:  # no set (of as many, once the fewest is known) left
            return (found or None, False) if not settled else (found, True)
        enumerated = bool(found)
        barred = yield from _take(solving, problem, opened, found, opens)
        _bar(solving, barred)
        refused = any(was for _, was in barred)
        if found and not enumerated:  # the fewest is known: a set of as many is any state with no more switches thrown
            _at_most(solving, lifts, len(found[0]))
        if not settled:
            return found or None, False
        if len(found) == MOST_FOUND or (enumerated and not refused):  # every set of as many found, or as many as are kept
            break
        if found:  # every other set of as many in one solve, each once
            _configure(ctl, "ignore", str(MOST_FOUND - len(found)), "project")
    return found, True


def _singles(solving: Solving, problem: Problem, lifts: dict[str, Lift], opens: Opens, conflicts: int) -> Generator[Any, Any, tuple[Sets, bool, int]]:
    """Every set of at most one of ``lifts`` that opens a state the model accepts, in one
    enumeration (again where the model refused a state one was found with), up to
    :data:`MOST_FOUND`; whether the search ended by itself, and the conflicts left.  Once a
    person is proved to have no way out, that is one solve where the fewest and then the others
    of as many took two (adult's histogram boosting: a quarter less time, and a set of one for
    each of its 67 people with none among the first 100 refused)."""
    ctl = solving.ctl
    ctl.assign_external(SINGLE, True)
    found: Sets = []
    settled = False
    _configure(ctl, "ignore", str(MOST_FOUND), "project")  # a program shared was left optimising or enumerating by the last person's search
    try:
        for _ in range(MOST_TRIES):
            if conflicts <= 0:
                return found, False, conflicts
            ctl.configuration.solve.solve_limit = str(conflicts)  # type: ignore[union-attr]
            opened, settled = _fewest(ctl, solving, lifts)
            conflicts -= _conflicts(ctl)
            barred = yield from _take(solving, problem, opened, found, opens)
            again = settled and any(refused for _, refused in barred) and len(found) < MOST_FOUND
            if again or (settled and not found):  # another solve follows (here, or the fewest by optimisation)
                _bar(solving, barred)
            if not again:
                break
            _configure(ctl, "ignore", str(MOST_FOUND - len(found)), "project")
    finally:
        ctl.assign_external(SINGLE, False)
    return found, settled, conflicts


def _take(solving: Solving, problem: Problem, opened: list[tuple[tuple[Lift, ...], State]], found: Sets, opens: Opens) -> Generator[Any, Any, Barred]:
    """Each set ``opened`` whose state the model accepts added to ``found``; what the solves
    after must bar (:func:`_bar`): each set found (the other sets of its size next), and each
    state the model refused (let through by the rounding, or refused where only the model could
    tell), marked refused."""
    barred: Barred = []
    for chosen, state in opened[: MOST_FOUND - len(found)]:
        priced = problem.assess_many([state], model_checked=True)[0]  # the model's verdict is ``opens``'s
        if priced is not None and (yield from opens(problem, priced, solving.verdict(state))):
            found.append(chosen)
            barred.append(([solving.lift(lift.key) for lift in chosen], False))
        else:
            barred.append((solving.values(state), True))
    return barred


def _bar(solving: Solving, barred: Barred) -> None:
    """The rules :func:`_take` asks for, added together (opening clingo's backend costs more than
    the rules), each while the person's guard holds, only where another solve follows: each
    opening costs about as much as the solve's own work on a person with one switch to throw."""
    if barred:
        guard = solving.guard
        with solving.ctl.backend() as backend:
            for body, _ in barred:
                backend.add_rule([], body + guard)


def _at_most(solving: Solving, lifts: Iterable[Lift], n: int) -> None:
    """No more than ``n`` switches thrown while the person's guard holds."""
    guard = solving.guard
    with solving.ctl.backend() as backend:
        more = backend.add_atom()
        backend.add_weight_rule([more], n + 1, [(solving.lift(lift.key), 1) for lift in lifts])
        backend.add_rule([], [more, *guard])


def _configure(ctl: clingo.Control, opt_mode: str, models: str, project: str) -> None:
    solve = ctl.configuration.solve
    solve.opt_mode, solve.models, solve.project = opt_mode, models, project  # type: ignore[union-attr]


def _facts(program: Program, lifts: Sequence[Lift]) -> str:
    lines = [program.facts()]
    for lift in lifts:
        key, name = quote(lift.key), quote(lift.feature)
        lines.append(f"unit({key}).")
        lines.extend(f"gate({key},{name},{j})." for j in lift.barred)
        if lift.alone:
            lines.append(f"alone({key},{name}).")
    return "\n".join([*lines, "#show lift/1.", "#show val/2."]) + "\n"


def _fewest(ctl: clingo.Control, solving: Solving, lifts: dict[str, Lift]) -> tuple[list[tuple[tuple[Lift, ...], State]], bool]:
    """While optimising, the fewest lifts the solver's bound lets through and a state they open;
    once the fewest is known, each set of no more the solve enumerates, with a state it opens
    (costs play no part); and whether the solve ended by itself (False: the conflicts ran out
    first)."""
    opened = []
    with ctl.solve(yield_=True) as handle:
        for model in handle:  # optimising, each better than the last: the last is the fewest
            shown, chosen = {}, []
            for symbol in model.symbols(shown=True):
                if symbol.name == "val":
                    shown[symbol.arguments[0].string] = symbol.arguments[1].number
                else:
                    chosen.append(lifts[symbol.arguments[0].string])
            opened.append((tuple(sorted(chosen, key=lambda lift: lift.key)), solving.state(shown)))
        result = handle.get()
    solve = ctl.configuration.solve
    if solve.opt_mode != "ignore":  # type: ignore[union-attr]
        return opened[-1:], bool(result.exhausted)
    return opened, bool(result.exhausted or len(opened) == int(solve.models))  # type: ignore[union-attr]


def _conflicts(ctl: clingo.Control) -> int:
    """The conflicts of the last solve, read alone through clingo's C interface: ``ctl.statistics``
    copies the whole tree into Python (about 1 ms a solve, more than many solves take)."""
    stats = _c_call("clingo_statistics_t*", _lib.clingo_control_statistics, ctl._rep)
    key = _c_call("uint64_t", _lib.clingo_statistics_root, stats)
    for name in ("solving", "solvers", "conflicts"):
        key = _c_call("uint64_t", _lib.clingo_statistics_map_at, stats, key, name.encode())
    return int(_c_call("double", _lib.clingo_statistics_value_get, stats, key))


def _literal(ctl: clingo.Control, name: str, *arguments: object) -> int:
    symbol = clingo.Function(name, [clingo.String(a) if isinstance(a, str) else clingo.Number(int(a)) for a in arguments])  # type: ignore[arg-type]
    atom = ctl.symbolic_atoms[symbol]
    assert atom is not None, symbol
    return atom.literal


def barred(values: Sequence[object], allowed: Callable[[object], bool]) -> tuple[int, ...]:
    """The candidates (by index) a protection does not allow."""
    return tuple(int(j) for j in np.flatnonzero([not allowed(v) for v in values]))
