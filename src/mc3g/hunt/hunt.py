"""One person's search with a black box: the state its phases share.

MC3G (Dasgupta et al., NeSy 2025) searches FOLD-SE rules of the model's predictions and checks
every state with the model.  Where the rules imitate the model well near the person, the first
states read are the answer.  Where they do not, the search does more, in named phases
(:mod:`.phases`: the first question, global rules, local rules, to the budget, the last draw,
sharpen, merge, each bounded by the search settings' :class:`~mc3g.engine.HuntSettings`).

Each phase takes the last :class:`~.verified.Outcome` and returns a new one.  The model is never
asked twice about the same values, and every row it is asked about is the state the person's
changes reach, with what the causal rules force (:class:`Verdicts`).  What is exact: the answer is
the K least-cost states the model accepts among those the last rules let through in the last
candidate space, read in exact cost order, and the rows the model was seen to accept (distinct
action sets under ``distinct``; docs/semantics.md says which are priced).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from functools import cached_property
from itertools import combinations
from typing import Any

import numpy as np

from ..engine import Engine
from ..search import Assessment, Problem, StateStream, change_size, numeric_bounds
from .accepted import Accepted
from .boundary import Segment, grid_step, together
from .local import Drawn, Moves, changes_of, drawn_rounds, moves, neighbours, rng_for
from .verdicts import Asking, Row, Verdicts
from .verified import EPSILON, EXHAUSTED, FOUND, Outcome, verified

Start = tuple[Problem, StateStream, list[Assessment]]  # a search's problem, stream and the states read already


class Hunt:
    """The search for one person (``row``, refused or not; ``instance`` its values for the rules,
    which refuse it when ``firing``) with ``engine``'s black box: the state its phases share.
    ``steps(problem, state)`` gives the states on the way to an option."""

    def __init__(
        self,
        engine: Engine,
        row: Row,
        k: int,
        verdicts: Verdicts,
        instance: Mapping[str, Any],
        firing: bool,
        steps: Callable[[Problem, Assessment], list[Row]] | None = None,
    ) -> None:
        self.engine, self.row, self.k, self.verdicts, self.instance, self.firing, self.steps = engine, row, k, verdicts, instance, firing, steps
        settings = engine.settings
        self.tuning, self.budget, self.distinct, self.local = settings.hunt, settings.max_states, settings.distinct, settings.local
        self.sharp = settings.scheme == "exact" and not settings.plausible  # numbers between training values may be asked
        self.start: Start | None = None  # the global rules' search as the first question began it (:meth:`begin`)
        self.chosen: list[tuple[Problem, Assessment]] = []  # those K options, when last chosen (:meth:`update_chosen`)
        self.scans: list[Segment] = []  # the person's single numeric changes, sectioned along with every call
        self._riding = False  # whether each call carries the rows :meth:`ride` gives: from :meth:`begin` on
        self._claimed: set[tuple] = set()  # the options sectioned or pared already (their keys): :meth:`claim`
        self.sectioned: list[list[Segment]] = []  # the options' segments being sectioned, by option (:meth:`together`)
        self.accepted = Accepted(engine, row, k, verdicts, {**row, **instance})
        self._steps: dict[tuple, list[Row]] = {}  # the options' steps, by their changes
        self.wider_draws = 0  # draws made again, wider, because the person had no option at all
        self.last_drawn = False  # whether the last draw was made (:meth:`draw_last`)
        self._draw: tuple[list[tuple], np.random.Generator] | None = None  # :meth:`last_draw`

    def search(self, engine: Engine, instance: Mapping[str, Any], escape: list, patience: int | None, rules: str, start: Start | None = None) -> Asking:
        """The search with one engine's rules (``start``: its first problem, stream and states
        already read), widened 8× while the candidates run out and the model refused a state
        that moves a number; with ``patience``, it stops (``stalled``) once the model has
        rejected that many more states."""
        per_atom, limit = self.k, None if patience is None else self.verdicts.rejected + patience
        problem, stream, first = start or self._begun(engine, instance, per_atom, escape)
        found, stopped, doubted = yield from self.verified(problem, stream, first, limit)
        while stopped == EXHAUSTED and doubted and per_atom < self.tuning.widest:
            wider = engine.problem(instance, per_atom * 8, escape)
            if wider.space.n_candidates == problem.space.n_candidates:
                break  # every value of every atom is in already: nothing new to try
            more, stopped, doubted = yield from self.verified(wider, self.stream(wider), [], limit)
            if len(more) < len(found):
                break  # the wider round ran out of budget before the narrower one's answer
            problem, found, per_atom = wider, more, per_atom * 8
        return Outcome(engine, problem, per_atom, tuple(found), FOUND if len(found) == self.k else stopped, rules)

    def _begun(self, engine: Engine, instance: Mapping[str, Any], per_atom: int, escape: list) -> Start:
        problem = engine.problem(instance, per_atom, escape)
        return problem, self.stream(problem), []

    def stream(self, problem: Problem) -> StateStream:
        """The problem's states in exact cost order, ``tuning.read`` × the budget at most."""
        return StateStream(problem, self.tuning.read * self.budget)

    def verified(self, problem: Problem, stream: StateStream, first: list[Assessment], limit: int | None) -> Asking:
        return (yield from verified(problem, stream, self.k, self.distinct, self.verdicts, self.budget, first, limit, self.kth, self.tuning, self._along()))

    def begin(self, start: Start | None, scans: list[Segment]) -> None:
        """The model refused the person at the first question: the global rules' search as it
        began (``start``), the single numeric changes to section (``scans``) and the K options
        known; from now on every call carries the rows that ride along (:meth:`ride`)."""
        self.start, self.scans, self._riding = start, scans, True
        self.update_chosen()

    def enter(self, phase: str) -> None:
        """The part of the search running from now on: the run record counts each one's rounds and time."""
        self.verdicts.phase = phase

    def ask(self, keys: Sequence[tuple], free: Sequence[tuple] = (), ahead: Sequence[tuple] = ()) -> Asking:
        """The model's verdicts on rows by their keys (:meth:`Verdicts.ask`), the rows that ride
        along (:meth:`ride`) in any call it takes once the search has begun."""
        return (yield from self.verdicts.ask(keys, free, ahead, along=self._along()))

    def _along(self) -> Callable[[], list[tuple]] | None:
        return self.ride if self._riding else None

    def ask_wider(self, rows: Drawn | Sequence[tuple], spare: Sequence[tuple]) -> Asking:
        """The rows of a draw made again, wider (counted: ``wider_draws``), ``spare`` ones held back."""
        self.wider_draws += 1
        if isinstance(rows, Drawn):
            return (yield from self.verdicts.ask_drawn(rows, spare, along=self._along()))
        return (yield from self.verdicts.ask([], rows, spare, spare=True, along=self._along()))

    def draw_last(self) -> tuple[list[tuple], np.random.Generator]:
        """The last draw's rows (:meth:`last_draw`), now made (``last_drawn``): the rows accepted
        priced as after it (:meth:`price_as_last_draw`)."""
        self.last_drawn = True
        self.price_as_last_draw()
        return self.last_draw()

    def price_as_last_draw(self) -> None:
        """The rows accepted priced as after a last draw (``tuning.last_kept``, :class:`Accepted`)."""
        self.accepted.kept = self.tuning.last_kept

    def add_sectioned(self, options: Sequence[list[Segment]]) -> None:
        """Options' segments now being sectioned, one list an option (:meth:`together`)."""
        self.sectioned += options

    def update_chosen(self) -> None:
        """The K options among the rows the model accepted outside the search so far (:attr:`chosen`):
        no state dearer than the K-th can be in the answer (:attr:`bound`).  Found after the first
        question, after the rows drawn for local rules and before each round of the single
        changes' last sectioning; what is judged later only lowers it, so it stays a bound."""
        self.chosen = self.accepted.options()[0]

    @property
    def kth(self) -> Assessment | None:
        """The K-th option known among the rows accepted (None while fewer are known): it bounds a
        search, whose stream reads no state dearer."""
        return self.chosen[-1][1] if len(self.chosen) == self.k else None

    @property
    def bound(self) -> float:
        """The K-th option's cost (infinite while fewer are known)."""
        return math.inf if (kth := self.kth) is None else kth.cost

    def options(self, outcome: Outcome) -> list[tuple[Problem, Assessment]]:
        """The options the search's states and the rows accepted so far give together, none
        unlike every past applicant where the profile leaves those out."""
        return self.accepted.options(outcome.problem, outcome.found, typical=True)[0]

    def seen_ahead(self, outcome: Outcome) -> None:
        """Every row asked ahead that no phase reached, seen once the search proper has ended.
        Where the options are still fewer than K, the last draw's rows are among them and are
        priced as after a last draw (``tuning.last_kept``), which would be drawn next."""
        if self.verdicts.release() and len(self.options(outcome)) < self.k:
            self.price_as_last_draw()

    def samples(self) -> list[tuple]:
        """Rows around the person for local rules (their keys), as many as the budget leaves
        (``tuning.samples`` at most): the start of the last draw (:meth:`last_draw`) when it is
        drawn already, as it is when the first question asked it ahead."""
        n = min(self.tuning.samples, self.budget - self.verdicts.judged)
        if n <= 0:
            return []
        if self._draw is not None and n <= self.tuning.last_draw:
            return self._draw[0][:n]
        drawn = neighbours(self.engine, self.row, n, rng_for(self.row, self.engine.settings.random_state), choices=self.choices, always=self.must)
        return [self.verdicts.made_key(c) for c in drawn]

    def last_draw(self) -> tuple[list[tuple], np.random.Generator]:
        """The last draw's rows (their keys; :meth:`drawn`, ``tuning.last_draw`` of each kind),
        drawn once for the person whichever phase wants them first, and the generator a wider
        draw goes on with."""
        if self._draw is None:
            rng = rng_for(self.row, self.engine.settings.random_state)
            self._draw = self.drawn([self.tuning.last_draw], rng), rng
        return self._draw

    @cached_property
    def must(self) -> list[str]:
        """The features the person's answer must change: every row drawn around them changes them."""
        return [n for n in self.choices.names if self.engine.schema.feature(n).must_change]

    @cached_property
    def choices(self) -> Moves:
        """What the person's rows are drawn from (:func:`~.local.moves`), found once for all draws."""
        return Moves(moves(self.engine, self.row))

    def drawn(self, sizes: Sequence[int], rng: np.random.Generator) -> list[tuple]:
        """For each of ``sizes`` in turn, as many rows drawn around the person as DiCE random draws
        them, and as many again that may change every feature, as DiCE random's rows may
        (:func:`~.local.neighbours`): their keys."""
        rows = changes_of(drawn_rounds(self.engine, sizes, rng, self.choices, self.must), self.choices)
        if not self.verdicts.may_force(self.choices.names):
            return rows  # nothing a row changes forces more: its changes are its key
        return [self.verdicts.made_key(c) for c in rows]

    def wide(self, sizes: Sequence[int], rng: np.random.Generator, apart: Sequence[frozenset[str]]) -> Drawn | list[tuple]:
        """The rows :meth:`drawn` draws, each once, where first drawn (found on the codes: the
        rows asked are the same), kept as codes (:class:`~.local.Drawn`, asked by
        :meth:`Verdicts.ask_drawn`: a wide draw's rows are tens of thousands) where nothing a
        row changes forces more, else their keys.  A row whose changes hold one of the action
        sets ``apart`` (the options known, under ``distinct``) leaves that set's changes out:
        as drawn it could only add actions to an option, left out it may be another."""
        drawn = Drawn(drawn_rounds(self.engine, sizes, rng, self.choices, self.must), self.choices).once()
        drawn = drawn.apart(apart, self.must) if apart else drawn
        if not self.verdicts.may_force(self.choices.names):
            return drawn
        return [self.verdicts.made_key(c) for c in drawn]

    # -- rows asked along with other calls ----------------------------------------------------------
    def ride(self) -> list[tuple]:
        """The rows (their keys) asked along with the model's next call: the steps of the K
        options known (often the answer's: its steps then need no call of their own), the
        single changes' next points (:meth:`scanned`) and the options' numbers sectioned
        together (:meth:`together`)."""
        return [self.verdicts.key(r) for r in self.unjudged_steps(self.chosen)] + self.scanned() + self.together()

    def together(self) -> list[tuple]:
        """The rows (their keys) of each option being sectioned with all its numbers at the best
        their segments have found so far (:func:`~.boundary.together`), once they have: where
        one number's boundary was found with the others held, the model may accept less of each."""
        return [self.verdicts.key(row) for option in self.sectioned if (row := together(option)) is not None]

    def claim(self, options: Sequence[tuple[Problem, Assessment]]) -> list[tuple[Problem, Assessment]]:
        """Those of ``options`` (a problem and a state each) not claimed yet, claimed now: each
        option is sectioned, pared and has its numbers moved back once."""
        fresh = []
        for problem, state in options:
            if (key := self.verdicts.state_key(problem, state.state)) not in self._claimed:
                self._claimed.add(key)
                fresh.append((problem, state))
        return fresh

    def unjudged_steps(self, options: Sequence[tuple[Problem, Assessment]]) -> list[Row]:
        """The states on the way to each option (its steps) the model has not judged."""
        rows: list[Row] = []
        if self.steps is not None:
            for problem, a in options:
                key = self.verdicts.state_key(problem, a.state)
                if key not in self._steps:
                    self._steps[key] = self.steps(problem, a)
                rows += [r for r in self._steps[key] if self.verdicts.known(r) is None]
        return rows

    def scanned(self, on_lines: bool = False) -> list[tuple]:
        """The next points (their keys) of the person's single numeric changes, once the last
        ones are judged; a change whose nearest point left costs more than the K-th option known
        (:meth:`update_chosen`) is not sectioned further (it cannot be one).  With ``on_lines``, the
        changes that would ask are first narrowed by the verdicts on their lines (:meth:`narrow_on_lines`):
        where the options' sectioning judged their points already, they need no call of their own."""
        asking: list[Segment] = []
        for s in self.scans:
            while s.points() and not self.beyond(s):
                if (known := self.judged(s)) is None:
                    asking.append(s)
                    break
                s.narrow(known)
        if on_lines and asking:
            self.narrow_on_lines(asking)
            return self.scanned()
        return [key for s in asking for key in self.keys(s)]

    def keys(self, s: Segment) -> list[tuple]:
        """The keys of the segment's next points (:meth:`Verdicts.line`)."""
        line = self.verdicts.line(s.changes, s.name)
        return [line(p) for p in s.points()]

    def judged(self, s: Segment) -> list[bool] | None:
        """Whether the model accepts each of the segment's next points, if it has judged them all."""
        points, verdict = s.points(), self.verdicts.verdict
        if not points:
            return None
        line = self.verdicts.line(s.changes, s.name)
        if verdict(line(points[-1])) is None:
            return None  # a segment's points are asked together: its last one unjudged, they all are
        known = [verdict(line(p)) for p in points]
        return None if None in known else known  # type: ignore[return-value]

    def beyond(self, s: Segment) -> bool:
        """Whether every point of ``s`` left to judge costs more than the K-th option known
        (:meth:`update_chosen`), so none can be an option.  A point's price is at least the terms of
        its changes that nothing may cause: a change of a feature no causal rule has as its
        effect is always a direct action, and so is a single change (nothing else changed to
        cause it); the segment's own change grows with its size, so its nearest point is the
        cheapest."""
        if self.bound == math.inf:
            return False
        e, distance, point = self.engine, self.engine.settings.distance, s.row(s.nearest())
        sizes = {n: change_size(e.schema.feature(n), self.row[n], v, e.spreads.get(n, 1.0)) for n, v in point.items()}
        made = [n for n, size in sizes.items() if size]
        free = self._causable if len(made) > 1 else frozenset()
        terms = sum(distance.term(sizes[n], e.schema.feature(n).weight) for n in made if n not in free)
        return distance.total(terms) > self.bound + EPSILON

    @cached_property
    def _causable(self) -> frozenset[str]:
        """The features a causal rule may set: a change of one may cost nothing."""
        return frozenset(rule.effect.feature for rule in self.engine.causal.rules)

    def segments(self, engine: Engine, problem: Problem, state: Assessment) -> list[Segment]:
        """A segment for each numeric direct action of ``state``, the changes the rules force left
        to be forced again at each point (:class:`Verdicts`)."""
        changes = problem.chosen(state)
        numeric = [n for n in state.direct if problem.space[n].feature.is_numeric]
        return [Segment(changes, n, self.row[n], changes[n], grid_step(engine, n), True, self.tuning) for n in numeric]

    def pared(self, problem: Problem, state: Assessment) -> list[Row]:
        """The option ``state`` without each subset of its direct actions (of more than
        ``tuning.pared_all``, without each one), what the rest force found again: the rules may
        demand an action the model does not need, and a row drawn around the person makes
        changes no option needs.  Then each of those rows with one number it keeps moved back
        (:meth:`moved_back`): without an action, a number may need less, and no round may follow
        to section it."""
        names = list(state.direct)
        if len(names) > self.tuning.pared_all:
            dropped: list[tuple[str, ...]] = [(name,) for name in names]
        else:
            dropped = [subset for size in range(1, len(names)) for subset in combinations(names, size)]
        changes = problem.chosen(state)
        rows = [{n: v for n, v in changes.items() if n not in subset} for subset in dropped]
        return rows + self.moved_back(problem, state, rows)

    def moved_back(self, problem: Problem, state: Assessment, rows: Sequence[Row] | None = None) -> list[Row]:
        """Each of ``rows`` (some of the option ``state``'s changes; by default all of them) with
        one number of the option's it keeps moved back, at its segment's first points from the
        person's value inside the feature's bounds: evenly spaced over the whole way, as a greedy
        search tries them, where the model need not be monotone."""
        rows = [problem.chosen(state)] if rows is None else rows
        numeric = [n for n in state.direct if problem.space[n].feature.is_numeric]
        steps = {n: grid_step(self.engine, n) for n in numeric}
        bounds = {n: numeric_bounds(problem.space[n].feature, self.row[n]) for n in numeric}
        return [
            {**r, n: p}
            for r in rows for n in numeric if n in r
            for p in Segment(r, n, self.row[n], r[n], steps[n], True, self.tuning).points() if bounds[n][0] <= p <= bounds[n][1]
        ]  # fmt: skip

    def narrow_on_lines(self, segments: Sequence[Segment]) -> None:
        """Each of ``segments`` narrowed by the model's verdicts on its points judged already
        (:meth:`Segment.narrow_by_known`): rows that differ from its end in its feature only, each checked
        to be its row there."""
        if not segments:
            return
        lines: dict[tuple[str, tuple], list[Segment]] = {}  # by the feature moved and the rest of the row
        forcing: dict[int, Callable[[Any], tuple]] = {}
        for s in segments:
            line = self.verdicts.line(s.changes, s.name)
            end = line(s.end)
            lines.setdefault((s.name, tuple(item for item in end if item[0] != s.name)), []).append(s)
            if self.verdicts.may_force(s.row(s.end)):
                # What a point forces may differ from what the end does; where the changes force
                # nothing, a row on the line is the segment's row there (its key is its changes).
                forcing[id(s)] = line
        said: dict[int, list[tuple[Any, bool]]] = {id(s): [] for s in segments}
        moved: dict[int, set[str]] = {}  # by the changes a row makes: the features its lines move (a row is on a line only with as many changes)
        for name, rest in lines:
            moved.setdefault(len(rest) + 1, set()).add(name)
        for key, ok in self.verdicts.judged_rows(moved):  # a row changing more features than any line (as many drawn do) lies on none
            names = moved[len(key)]
            for at, (name, value) in enumerate(key):
                if name in names:
                    for s in lines.get((name, key[:at] + key[at + 1 :]), ()):
                        if id(s) not in forcing or forcing[id(s)](value) == key:
                            said[id(s)].append((value, ok))
        for s in segments:
            s.narrow_by_known(said[id(s)])

    def merged(self, outcome: Outcome, searched: Sequence[Assessment]) -> Outcome:
        """The states ``searched`` in the outcome's problem together with every other row the
        model accepted (single changes, rows drawn around the person, points sectioned, steps),
        priced under the causal knowledge as it stands: the K least-cost of them (distinct action
        sets under ``distinct``, none unlike every past applicant where the profile leaves those
        out: ``unlike`` counts those passed over)."""
        chosen, outside = self.accepted.options(outcome.problem, searched, typical=True)
        stopped = FOUND if len(chosen) == self.k else outcome.stopped
        return Outcome(
            outcome.engine, outcome.problem, outcome.per_atom, tuple(a for _, a in chosen), stopped, outcome.rules, outcome.local_rounds,
            tuple(p for p, _ in chosen), outside, tuple(searched), self.accepted.unlike,
        )  # fmt: skip
