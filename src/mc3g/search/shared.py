"""The program of what would open a way out (:mod:`.lifts`), grounded once for a model read
exactly and then solved person after person.

With every protection lifted, a person's candidates are one value per stretch of a number that
the model's and the knowledge's thresholds cut (a category: itself), so the program is nearly the
same for everyone: the model's trees, unpruned, dominate it, and writing, parsing and grounding
them anew for each person cost several times solving it (adult's histogram boosting: about
150 ms against 30).  Here each number's stretches and each category are the
*cells* of one program, grounded once, and what is the person's own is given by external atoms
(the encoding's part ``own``): the cell that holds their value, the cells their candidates stand
for, what each protection bars, what their causal rules held.  A person whose values do not fall
in the cells as their own problem reads them (a value between grid points, a category the cells
do not hold, a feature that must change) is searched in a program of their own, as before.

The sets found are those a person's own program finds: the fewest, the first in the protections'
order of all of them found (:mod:`.lifts`), whatever was solved before.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import clingo
import numpy as np

from ..causal import CausalModel
from ..glassbox import GlassBox
from ..rules import Column, Literal
from ..schema import Feature
from .encoding import Program, add_encoding, quote
from .grid import grid_value, infer_step, units
from .lifts import Lift
from .problem import Problem, State
from .space import CandidateSpace, FeatureValues, Observed, Region, _boundaries

Keys = Sequence[tuple[str, str, bool]]  # each protection: its key, its feature, whether it bars a person's own action


@dataclass(frozen=True)
class Cells:
    """One feature's cells: a value standing for each (``values``), and for a number the grid's
    ``step`` and the cuts between cells (in steps), with the literals whose truth a cell fixes."""

    values: list
    step: float | None
    cuts: tuple
    literals: tuple[Literal, ...]

    def of(self, values: Sequence) -> np.ndarray | None:
        """The cell of each value (None when one falls in none, or not as the cells read it)."""
        if self.step is None:
            where = {v: i for i, v in enumerate(self.values)}
            cells = [where.get(v, -1) for v in values]
            return None if -1 in cells else np.array(cells)
        cells = np.searchsorted(self._cuts, [float(units(v, self.step)) for v in values])
        return cells if np.array_equal(self._truth(values), self._truth_of_cells[:, cells]) else None

    @cached_property
    def _cuts(self) -> np.ndarray:
        return np.array([float(c) for c in self.cuts])

    @cached_property
    def _orders(self) -> tuple[np.ndarray, np.ndarray, tuple[Literal, ...]]:
        """The literals' thresholds where ``x <= t`` flips, where ``x < t`` flips (each sorted),
        and the other literals (equalities): most of a model's tests are thresholds."""
        at_most = sorted(float(lit.value) for lit in self.literals if lit.op in ("<=", ">"))  # type: ignore[arg-type]
        below = sorted(float(lit.value) for lit in self.literals if lit.op in ("<", ">="))  # type: ignore[arg-type]
        return np.array(at_most), np.array(below), tuple(lit for lit in self.literals if lit.op not in ("<=", ">", "<", ">="))

    def _truth(self, values: Sequence) -> np.ndarray:
        """What fixes every literal's truth on each value: how many thresholds of each kind lie
        below it, and each other literal's truth."""
        at_most, below, others = self._orders
        numbers = np.array(values, dtype=np.float64)
        truth = [np.searchsorted(at_most, numbers, side="left"), np.searchsorted(below, numbers, side="right")]
        if others:
            column = Column(np.array(values, dtype=object), numbers=numbers)
            truth += [lit.mask(column) for lit in others]
        return np.array(truth).reshape(len(truth), len(values))

    @cached_property
    def _truth_of_cells(self) -> np.ndarray:
        return self._truth(self.values)


def cells_of(feature: Feature, literals: Sequence[Literal], observed: Observed) -> Cells | None:
    """The cells of a feature with its protections lifted (None: it has none to share)."""
    if not feature.is_numeric:
        domain = feature.domain if feature.domain is not None else observed.tokens.get(feature.name)
        return None if domain is None else Cells(sorted(domain), None, (), ())
    seen = observed.numbers.get(feature.name)
    if feature.step is None and (seen is None or not len(seen)):
        return None
    step = feature.step or infer_step(seen)
    cuts = _boundaries(tuple(literals), step)
    firsts = [int(np.floor(cuts[0])) if cuts else 0] + [int(np.ceil(c)) for c in cuts]
    return Cells([grid_value(k, step) for k in firsts], step, cuts, tuple(lit for lit in literals if lit.is_numeric))


def model_literals(glass: GlassBox | None, causal: CausalModel) -> dict[str, list[Literal]]:
    """The knowledge's literals and a model's own tests of each number (and those of the models
    retrained to judge its options), by feature: where a number's range is cut into atoms when
    the model read exactly is searched."""
    if glass is None:
        return {}
    out: dict[str, list[Literal]] = {}
    for lit in causal.literals():
        out.setdefault(lit.feature, []).append(lit)
    for name, split in zip(glass.features, glass.splits):
        if split.numeric:
            cuts = np.unique(split.points[np.isfinite(split.points)])
            out.setdefault(name, []).extend(Literal(name, "<=", float(c)) for c in cuts)
    for name, cuts in glass.other_cuts.items():
        out.setdefault(name, []).extend(Literal(name, "<=", float(c)) for c in np.unique(cuts[np.isfinite(cuts)]))
    return out


FRESH_FOR = 200
"""People one grounding serves: the rules added for each stay in the program after their solves
(withdrawn, not removed), and the solves slow as they pile up (a person's twice as long after
1,300 adults of a portfolio); grounding again costs about a person's search."""

PERSONAL = (("own", 2), ("avail", 2), ("cause_before", 1), ("effect_before", 1), ("nearest", 2), ("gate", 3), ("val", 2), ("lift", 1))
"""The atoms a person's search sets or reads, by name and arity."""


BY_CELL = ("own", "avail", "nearest", "gate")
"""The atoms of :data:`PERSONAL` whose last argument is a cell."""

_NONE = np.zeros(0, dtype=np.int64)


def _laid_out(at: Mapping[int, int]) -> np.ndarray:
    """Atoms by cell in an array, 0 where a cell has none."""
    out = np.zeros(max(at) + 1, dtype=np.int64)
    out[list(at)] = list(at.values())
    return out


class SharedLifts:
    """The lifted program over a model's cells, grounded once; :meth:`person` sets one
    person's atoms (None: their values do not fit the cells, or another person's search holds
    the program: a service answers people side by side)."""

    @classmethod
    def of(cls, problem: Problem, lifts: Sequence[Lift], observed: Observed, spreads: dict[str, float]) -> SharedLifts | None:
        """From one person's lifted ``problem`` and its ``lifts``: None for a model whose score is
        linear in a number (its candidates stand for intervals the person's value cuts)."""
        glass = problem.model
        if glass is None or glass.slopes:
            return None
        literals = model_literals(glass, problem.causal)
        features = [fv.feature for fv in problem.space.features]
        cells = {f.name: cells_of(f, literals.get(f.name, []), observed) for f in features}
        if any(c is None for c in cells.values()):
            return None
        fvs = [FeatureValues.of(f, list(cells[f.name].values), spreads) for f in features]  # type: ignore[union-attr]
        region = Region((), {f.name: list(range(len(f.values))) for f in fvs})
        try:
            over = Problem(CandidateSpace(fvs, [region], "exact", 1, 0), [], problem.causal, problem.mode, problem.distance, model=glass)
            if over.score is None:  # read now (it is made when first read): it raises for a category the model was not read for
                return None
        except ValueError:  # a category the model was not read for: its cells cannot be shared
            return None
        return cls(over, cells, [(lift.key, lift.feature, lift.alone) for lift in lifts])  # type: ignore[arg-type]

    def __init__(self, problem: Problem, cells: Mapping[str, Cells], keys: Keys) -> None:
        self.problem, self.cells, self.features = problem, cells, {key: feature for key, feature, _ in keys}
        program = Program(problem, shared=True)
        lines = [program.facts()]
        for key, feature, alone in keys:
            lines += [f"unit({quote(key)}).", f"on({quote(key)},{quote(feature)})."]
            lines += [f"alone({quote(key)},{quote(feature)})."] if alone else []
        self._text = "\n".join([*lines, "#show lift/1.", "#show val/2."]) + "\n"
        extra = "lifts_derived" if problem.mode == "derived" else "lifts_explained"
        self._parts = [(part, []) for part in program.parts()] + [("lifts", []), ("lifts_own", []), (extra, [])]
        self.names = problem.names
        self._lock = threading.Lock()
        self._ground()

    def _ground(self) -> None:
        """The program grounded afresh, no person's atoms set and no rule added for anyone."""
        # Each solve forgets what the last learnt (another person's search steered this one's, at
        # times for ten times as long: the adult ExtraTrees).
        forget = "--forget-on-step=varScores,signs,lemmaScores,lemmas"
        # A conflict's clause is minimised against its own literals' reasons only, not
        # recursively: the model's sum over the trees explains a conflict by hundreds of leaves,
        # and the recursive walk cost more than it saved (the solves of which single protection
        # would open a way out: a fifth less time on adult's held-out boosters, as many conflicts).
        strengthen = "--strengthen=local"
        self.ctl = clingo.Control(["--warn=none", "--opt-mode=opt", "--opt-strategy=usc", forget, strengthen, "--heuristic=Domain"])
        add_encoding(self.ctl)
        self.ctl.add("base", [], self._text)
        self.ctl.ground(self._parts)
        self._true: set[int] = set()
        self._served = 0  # people since it was grounded (:data:`FRESH_FOR`)
        self._atoms: dict[tuple[object, ...], int] = {}  # looked up by their arguments: a symbol each time costs more than the solve
        for name, arity in PERSONAL:
            for atom in self.ctl.symbolic_atoms.by_signature(name, arity):
                key = tuple(a.string if a.type == clingo.SymbolType.String else a.number for a in atom.symbol.arguments)
                self._atoms[(name, *key)] = atom.literal
        cells: dict[tuple[object, ...], dict[int, int]] = {}
        for (name, *key), literal in self._atoms.items():
            if name in BY_CELL:
                cells.setdefault((name, *key[:-1]), {})[key[-1]] = literal  # type: ignore[index]
        self._by_cell = {group: _laid_out(at) for group, at in cells.items()}
        self._steer()

    def _steer(self) -> None:
        """The solver decides the switches first, each held until it must be thrown, and a
        feature's value first tried at the person's own: what would open a way out is a proof
        that most switches open nothing, and those decided first let it fail early (adult's
        histogram boosting: about 15 % fewer conflicts)."""
        with self.ctl.backend() as backend:
            for (name, *key), literal in self._atoms.items():
                if name == "lift":
                    backend.add_heuristic(literal, clingo.HeuristicType.Level, 1, 0, [])
                    backend.add_heuristic(literal, clingo.HeuristicType.Sign, -1, 0, [])
                elif name == "val" and (own := self._atoms.get(("own", *key))) is not None:
                    backend.add_heuristic(literal, clingo.HeuristicType.Sign, 1, 0, [own])

    @cached_property
    def refuses_every_state(self) -> bool:
        """Whether the model refuses every state of the cells, each tree at its best leaf: then
        it refuses every person's with every protection lifted (their candidates lie in the
        cells, and the cells' cuts are the model's)."""
        assert self.problem.score is not None
        return self.problem.score.refuses_every_state()

    def literal(self, name: str, *arguments: object) -> int | None:
        """The program's atom ``name(arguments)`` (of :data:`PERSONAL`), None where none was grounded."""
        return self._atoms.get((name, *arguments))

    def by_cell(self, name: str, *arguments: object) -> np.ndarray:
        """The atoms ``name(arguments, C)`` (of :data:`BY_CELL`) of each cell ``C``, 0 where none
        was grounded: a person's are picked by their cells at once."""
        return self._by_cell.get((name, *arguments), _NONE)

    def person(self, problem: Problem, barred: Mapping[str, tuple[int, ...]]) -> Person | None:
        """One person's atoms (their lifted ``problem``, each protection's candidates barred by
        key), or None when their values do not fit the cells."""
        if problem.names != self.names or any(f.feature.must_change for f in problem.space.features):
            return None
        where = []
        for fv in problem.space.features:
            cells = self.cells[fv.name].of(fv.values)
            moved = None if cells is None else cells[1:][cells[1:] != cells[0]]
            if moved is None or len(set(moved.tolist())) < len(moved):  # two candidates in one cell: their protections may differ
                return None
            where.append(cells)
        if not self._lock.acquire(blocking=False):
            return None
        try:
            if self._served == FRESH_FOR:
                self._ground()
            self._served += 1
            return Person(self, problem, where, barred)
        except BaseException:
            self._lock.release()
            raise

    def assign(self, true: set[int]) -> None:
        """Make exactly the external atoms ``true`` true."""
        for literal in self._true - true:
            self.ctl.assign_external(literal, False)
        for literal in true - self._true:
            self.ctl.assign_external(literal, True)
        self._true = true


class Person:
    """One person's atoms in a :class:`SharedLifts` (their candidate ``where`` each falls, per
    feature): set for their solves, the rules added for them guarded by an atom of their own."""

    def __init__(self, shared: SharedLifts, problem: Problem, where: list[np.ndarray], barred: Mapping[str, tuple[int, ...]]) -> None:
        self.shared, self.problem, self.where = shared, problem, where
        names = problem.names
        true = [shared.by_cell("own", names[p])[cells[:1]] for p, cells in enumerate(where)]
        true += [shared.by_cell("avail", names[p])[cells[1:][cells[1:] != cells[0]]] for p, cells in enumerate(where)]
        held = []
        for k, rule in enumerate(problem.rules):
            held += [shared.literal("cause_before", k)] if problem.cause_before[k] else []
            held += [shared.literal("effect_before", k)] if problem.truth(rule.effect)[0] else []
            true.append(shared.by_cell("nearest", k)[where[problem.position[rule.effect.feature]][np.flatnonzero(problem.nearest[k])]])
        for key, js in barred.items():
            feature = shared.features[key]
            cells = where[problem.position[feature]]
            chosen = cells[list(js)]
            true.append(shared.by_cell("gate", key, feature)[chosen[chosen != cells[0]]])  # never the person's own
        shared.assign(set(np.concatenate(true).tolist()) - {0} | {x for x in held if x is not None})
        self.cell_index = [{int(c): j for j, c in reversed(list(enumerate(cells))) if j == 0 or c != cells[0]} for cells in where]
        self._guard: int | None = None

    @property
    def ctl(self) -> clingo.Control:
        return self.shared.ctl

    @property
    def guard(self) -> list[int]:
        """An atom of this person's, made when a rule is first added for them (most people's
        solves add none), released with them."""
        if self._guard is None:
            with self.shared.ctl.backend() as backend:
                self._guard = backend.add_atom()
                backend.add_external(self._guard, clingo.TruthValue.True_)
        return [self._guard]

    def lift(self, key: str) -> int:
        literal = self.shared.literal("lift", key)
        assert literal is not None, key
        return literal

    def state(self, shown: Mapping[str, int]) -> State:
        """The person's state from the cells the solver shows changed (a feature: its cell)."""
        return tuple(self.cell_index[p].get(shown[name], 0) if name in shown else 0 for p, name in enumerate(self.problem.names))

    def values(self, state: State) -> list[int]:
        """The atoms that say the solver chose ``state`` (the person's candidate indices)."""
        names = self.problem.names
        return [self.shared.literal("val", names[p], int(self.where[p][j])) for p, j in enumerate(state)]  # type: ignore[misc]

    def verdict(self, state: State) -> int | None:
        """The model's verdict read exactly on the person's ``state``, read on the cells it falls
        in (the same leaves: every test of the model cuts between cells), as the program's
        score walks them: cheaper than reading the person's own candidates."""
        score = self.shared.problem.score
        assert score is not None
        cells = np.array([[self.where[p][j] for p, j in enumerate(state)]], dtype=np.intp)
        return int(score.verdicts(cells)[0])

    def close(self) -> None:
        """The rules added for this person hold no more, and the program is free for another."""
        try:
            if self._guard is not None:
                self.shared.ctl.release_external(self._guard)
        finally:
            self.shared._lock.release()
