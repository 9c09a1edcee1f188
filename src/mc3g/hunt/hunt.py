"""One person's search with a black box: what its phases are given.

MC3G (Dasgupta et al., NeSy 2025) searches FOLD-SE rules of the model's predictions and checks
every state with the model.  Where the rules imitate the model well near the person, the first
states read are the answer.  Where they do not, the search does more, in named phases
(:mod:`.phases`: the first question, global rules, local rules, to the budget, the last draw,
sharpen, merge, each bounded by the search settings' :class:`~mc3g.engine.HuntSettings`).

Each phase takes the search's :class:`~.progress.Progress` and returns a new one; :class:`Hunt` holds
what they are all given (the person, the settings, the model's verdicts) and does what a phase
asks of it without keeping anything of a phase's (what it keeps are the answers of functions of
the person, found once).  The model is never
asked twice about the same values, and every row it is asked about is the state the person's
changes reach, with what the causal rules force (:class:`Verdicts`).  What is exact: the answer is
the K least-cost states the model accepts among those the last rules let through in the last
candidate space, read in exact cost order, and the rows the model was seen to accept (distinct
action sets under ``distinct``; docs/semantics.md says which are priced).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from copy import deepcopy
from dataclasses import dataclass, replace
from functools import cached_property
from itertools import combinations
from typing import Any

import numpy as np

from ..engine import Engine, HuntSettings
from ..search import Assessment, Problem, StateStream, change_size, numeric_bounds
from .accepted import Accepted
from .boundary import Segment, grid_step, together
from .lines import judged, narrowed_on_lines, point_keys
from .local import Drawn, Moves, changes_of, drawn_rounds, moves, neighbours, rng_for
from .progress import Option, Progress, Start
from .verdicts import Asking, Row, Verdicts
from .verified import EPSILON, EXHAUSTED, FOUND, Outcome, verified


@dataclass(frozen=True, eq=False)
class Hunt:
    """What the search for one person (``row``, refused or not; ``instance`` its values for the
    rules, which refuse it when ``firing``) with ``engine``'s black box is given: the model's
    verdicts on the person's rows (``verdicts``) and the rows it accepted, priced
    (``accepted``).  ``steps(problem, state)`` gives the states on the way to an option."""

    engine: Engine
    row: Row
    k: int
    verdicts: Verdicts
    instance: Mapping[str, Any]
    firing: bool
    steps: Callable[[Problem, Assessment], list[Row]] | None = None

    @property
    def tuning(self) -> HuntSettings:
        return self.engine.settings.hunt

    @property
    def budget(self) -> int:
        return self.engine.settings.max_states

    @property
    def distinct(self) -> bool:
        return self.engine.settings.distinct

    @property
    def local(self) -> bool:
        return self.engine.settings.local

    @property
    def sharp(self) -> bool:
        """Whether numbers between training values may be asked (the ``exact`` candidates, plausibility off)."""
        settings = self.engine.settings
        return settings.scheme == "exact" and not settings.plausible

    @cached_property
    def accepted(self) -> Accepted:
        return Accepted(self.engine, self.row, self.k, self.verdicts, {**self.row, **self.instance})

    @cached_property
    def _steps_of(self) -> dict[tuple, list[Row]]:
        """The options' steps, by their changes, found once each (:meth:`unjudged_steps`)."""
        return {}

    def initial(self) -> Progress:
        """The search's progress before the first question."""
        return Progress(self.k, self.tuning.kept)

    def search(
        self, progress: Progress, engine: Engine, instance: Mapping[str, Any], escape: list, patience: int | None, rules: str, start: Start | None = None
    ) -> Asking:
        """The search with one engine's rules (``start``: its first problem, stream and states
        already read), widened 8× while the candidates run out and the model refused a state
        that moves a number; with ``patience``, it stops (``stalled``) once the model has
        rejected that many more states.  Its :class:`Outcome`."""
        per_atom, limit = self.k, None if patience is None else self.verdicts.rejected + patience
        problem, stream, first = start or self._begun(engine, instance, per_atom, escape)
        found, stopped, doubted = yield from self.verified(progress, problem, stream, first, limit)
        while stopped == EXHAUSTED and doubted and per_atom < self.tuning.widest:
            wider = engine.problem(instance, per_atom * 8, escape)
            if wider.space.n_candidates == problem.space.n_candidates:
                break  # every value of every atom is in already: nothing new to try
            more, stopped, doubted = yield from self.verified(progress, wider, self.stream(wider), [], limit)
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

    def verified(self, progress: Progress, problem: Problem, stream: StateStream, first: list[Assessment], limit: int | None) -> Asking:
        """:func:`~.verified.verified` for the person, bounded by the K-th option known so far."""
        along = self._along(progress)
        return (yield from verified(problem, stream, self.k, self.distinct, self.verdicts, self.budget, first, limit, progress.kth, self.tuning, along))

    def begin(self, progress: Progress, start: Start | None, scans: Sequence[Segment]) -> Progress:
        """The progress once the model refused the person at the first question: the global rules'
        search as it began (``start``), the single numeric changes to section (``scans``) and the
        K options known; from then on every call carries the rows that ride along (:class:`Ride`)."""
        return self.with_known_options(replace(progress, start=start, scans=tuple(scans), riding=True))

    def enter(self, phase: str) -> None:
        """The part of the search running from now on: the run record counts each one's rounds and time."""
        self.verdicts.phase = phase

    def ask(self, progress: Progress, keys: Sequence[tuple], free: Sequence[tuple] = (), ahead: Sequence[tuple] = ()) -> Asking:
        """The model's verdicts on rows by their keys (:meth:`Verdicts.ask`), the rows that ride
        along from ``progress`` (:class:`Ride`) in any call it takes once the search has begun."""
        return (yield from self.verdicts.ask(keys, free, ahead, along=self._along(progress)))

    def _along(self, progress: Progress) -> Ride | None:
        return Ride(self, progress) if progress.riding else None

    def ask_wider(self, progress: Progress, rows: Drawn | Sequence[tuple], spare: Sequence[tuple]) -> Asking:
        """The rows of a draw made again, wider, ``spare`` ones held back; the progress with it counted (``wider_draws``)."""
        if isinstance(rows, Drawn):
            yield from self.verdicts.ask_drawn(rows, spare, along=self._along(progress))
        else:
            yield from self.verdicts.ask([], rows, spare, spare=True, along=self._along(progress))
        return replace(progress, wider_draws=progress.wider_draws + 1)

    def with_known_options(self, progress: Progress) -> Progress:
        """The progress with the K options among the rows the model accepted outside the search so
        far (``chosen``): no state dearer than the K-th can be in the answer (``bound``).  Found
        after the first question, after the rows drawn for local rules and before each round of
        the single changes' last sectioning; what is judged later only lowers it, so it stays a
        bound."""
        return replace(progress, chosen=tuple(self.accepted.options(kept=progress.kept).chosen))

    def options(self, progress: Progress, outcome: Outcome) -> list[Option]:
        """The options the search's states and the rows accepted so far give together, none
        unlike every past applicant where the profile leaves those out."""
        return self.accepted.options(outcome.problem, outcome.found, typical=True, kept=progress.kept).chosen

    def seen_ahead(self, progress: Progress, outcome: Outcome) -> Progress:
        """Every row asked ahead that no phase reached, seen once the search proper has ended.
        Where the options are still fewer than K, the last draw's rows are among them and are
        priced as after a last draw (``tuning.last_kept``), which would be drawn next."""
        if self.verdicts.release() and len(self.options(progress, outcome)) < self.k:
            return replace(progress, kept=self.tuning.last_kept)
        return progress

    def samples(self, progress: Progress) -> list[tuple]:
        """Rows around the person for local rules (their keys), as many as the budget leaves
        (``tuning.samples`` at most): the start of the last draw (:meth:`last_draw`) when it is
        drawn already (``drawn``), as it is when the first question asked it ahead."""
        n = min(self.tuning.samples, self.budget - self.verdicts.judged)
        if n <= 0:
            return []
        if progress.drawn and n <= self.tuning.last_draw:
            return self.last_draw()[0][:n]
        drawn = neighbours(self.engine, self.row, n, rng_for(self.row, self.engine.settings.random_state), choices=self.choices, always=self.must)
        return [self.verdicts.made_key(c) for c in drawn]

    def last_draw(self) -> tuple[list[tuple], np.random.Generator]:
        """The last draw's rows (their keys; :meth:`drawn`, ``tuning.last_draw`` of each kind),
        drawn once for the person whichever phase wants them first, and a generator where that
        draw leaves it, for a wider draw to go on with."""
        rows, rng = self._last_draw
        return rows, deepcopy(rng)  # a copy: the one kept stays where the draw left it

    @cached_property
    def _last_draw(self) -> tuple[list[tuple], np.random.Generator]:
        rng = rng_for(self.row, self.engine.settings.random_state)
        return self.drawn([self.tuning.last_draw], rng), rng

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
    def together(self, sectioned: Sequence[Sequence[Segment]]) -> list[tuple]:
        """The rows (their keys) of each option being sectioned (``sectioned``, one list an
        option) with all its numbers at the best their segments have found so far
        (:func:`~.boundary.together`), once they have: where one number's boundary was found with
        the others held, the model may accept less of each."""
        return [self.verdicts.key(row) for option in sectioned if (row := together(list(option))) is not None]

    def claim(self, progress: Progress, options: Sequence[Option]) -> tuple[list[Option], Progress]:
        """Those of ``options`` (a problem and a state each) not claimed yet, and the progress with
        them claimed: each option is sectioned, pared and has its numbers moved back once."""
        fresh, claimed = [], set(progress.claimed)
        for problem, a in options:
            if (key := self.verdicts.state_key(problem, a.state)) not in claimed:
                claimed.add(key)
                fresh.append((problem, a))
        return fresh, (replace(progress, claimed=frozenset(claimed)) if fresh else progress)

    def unjudged_steps(self, options: Sequence[Option]) -> list[Row]:
        """The states on the way to each option (its steps) the model has not judged."""
        rows: list[Row] = []
        if self.steps is not None:
            memo = self._steps_of
            for problem, a in options:
                key = self.verdicts.state_key(problem, a.state)
                if key not in memo:
                    memo[key] = self.steps(problem, a)
                rows += [r for r in memo[key] if self.verdicts.known(r) is None]
        return rows

    def scanned(self, scans: Sequence[Segment], bound: float, on_lines: bool = False) -> tuple[tuple[Segment, ...], list[tuple]]:
        """The person's single numeric changes ``scans`` taken as far as the verdicts go, and the
        keys of their next points still to judge; a change whose nearest point left costs more
        than ``bound`` (the K-th option known) is not sectioned further (it cannot be one).  With
        ``on_lines``, the changes that would ask are first narrowed by the verdicts on their lines
        (:func:`~.lines.narrowed_on_lines`): where the options' sectioning judged their points already,
        they need no call of their own."""
        asking: list[Segment] = []
        taken: list[Segment] = []
        for s in scans:
            while s.points() and not self.beyond(s, bound):
                if (known := judged(self.verdicts, s)) is None:
                    asking.append(s)
                    break
                s = s.narrowed(known)
            taken.append(s)
        if on_lines and asking:
            narrowed = dict(zip(map(id, asking), narrowed_on_lines(self.verdicts, asking)))
            return self.scanned([narrowed.get(id(s), s) for s in taken], bound)
        return tuple(taken), [key for s in asking for key in point_keys(self.verdicts, s)]

    def beyond(self, s: Segment, bound: float) -> bool:
        """Whether every point of ``s`` left to judge costs more than ``bound`` (the K-th option
        known, :attr:`Progress.bound`), so none can be an option.  A point's price is at least the terms of
        its changes that nothing may cause: a change of a feature no causal rule has as its
        effect is always a direct action, and so is a single change (nothing else changed to
        cause it); the segment's own change grows with its size, so its nearest point is the
        cheapest."""
        if bound == math.inf:
            return False
        e, distance, point = self.engine, self.engine.settings.distance, s.row(s.nearest())
        sizes = {n: change_size(e.schema.feature(n), self.row[n], v, e.spreads.get(n, 1.0)) for n, v in point.items()}
        made = [n for n, size in sizes.items() if size]
        free = self._causable if len(made) > 1 else frozenset()
        terms = sum(distance.term(sizes[n], e.schema.feature(n).weight) for n in made if n not in free)
        return distance.total(terms) > bound + EPSILON

    @cached_property
    def _causable(self) -> frozenset[str]:
        """The features a causal rule may set: a change of one may cost nothing."""
        return frozenset(rule.effect.feature for rule in self.engine.causal.rules)

    def segments(self, engine: Engine, problem: Problem, a: Assessment) -> list[Segment]:
        """A segment for each numeric direct action of ``a``, the changes the rules force left
        to be forced again at each point (:class:`Verdicts`)."""
        changes = problem.chosen(a)
        numeric = [n for n in a.direct if problem.space[n].feature.is_numeric]
        return [Segment(changes, n, self.row[n], changes[n], grid_step(engine, n), True, self.tuning) for n in numeric]

    def pared(self, problem: Problem, a: Assessment) -> list[Row]:
        """The option ``a`` without each subset of its direct actions (of more than
        ``tuning.pared_all``, without each one), what the rest force found again: the rules may
        demand an action the model does not need, and a row drawn around the person makes
        changes no option needs.  Then each of those rows with one number it keeps moved back
        (:meth:`moved_back`): without an action, a number may need less, and no round may follow
        to section it."""
        names = list(a.direct)
        if len(names) > self.tuning.pared_all:
            dropped: list[tuple[str, ...]] = [(name,) for name in names]
        else:
            dropped = [subset for size in range(1, len(names)) for subset in combinations(names, size)]
        changes = problem.chosen(a)
        rows = [{n: v for n, v in changes.items() if n not in subset} for subset in dropped]
        return rows + self.moved_back(problem, a, rows)

    def moved_back(self, problem: Problem, a: Assessment, rows: Sequence[Row] | None = None) -> list[Row]:
        """Each of ``rows`` (some of the option ``a``'s changes; by default all of them) with
        one number of the option's it keeps moved back, at its segment's first points from the
        person's value inside the feature's bounds: evenly spaced over the whole way, as a greedy
        search tries them, where the model need not be monotone."""
        rows = [problem.chosen(a)] if rows is None else rows
        numeric = [n for n in a.direct if problem.space[n].feature.is_numeric]
        steps = {n: grid_step(self.engine, n) for n in numeric}
        bounds = {n: numeric_bounds(problem.space[n].feature, self.row[n]) for n in numeric}
        return [
            {**r, n: p}
            for r in rows for n in numeric if n in r
            for p in Segment(r, n, self.row[n], r[n], steps[n], True, self.tuning).points() if bounds[n][0] <= p <= bounds[n][1]
        ]  # fmt: skip

    def merged(self, progress: Progress, outcome: Outcome, searched: Sequence[Assessment]) -> Outcome:
        """The states ``searched`` in the outcome's problem together with every other row the
        model accepted (single changes, rows drawn around the person, points sectioned, steps),
        priced under the causal knowledge as it stands: the K least-cost of them (distinct action
        sets under ``distinct``, none unlike every past applicant where the profile leaves those
        out: ``unlike`` counts those passed over)."""
        chosen, outside, unlike = self.accepted.options(outcome.problem, searched, typical=True, kept=progress.kept)
        stopped = FOUND if len(chosen) == self.k else outcome.stopped
        return Outcome(
            outcome.engine, outcome.problem, outcome.per_atom, tuple(a for _, a in chosen), stopped, outcome.rules, outcome.local_rounds,
            tuple(p for p, _ in chosen), outside, tuple(searched), unlike,
        )  # fmt: skip


class Ride:
    """The rows (their keys) asked along with the model's calls made from one ``progress``: the
    steps of the K options known (often the answer's: its steps then need no call of their
    own), the single changes' next points (:meth:`Hunt.scanned`) and the options' numbers
    sectioned together (:meth:`Hunt.together`).  What it gives depends on the progress and the
    verdicts alone; the single changes as far as the verdicts took them last are kept, so the
    next call of a search starts from there (the verdicts only grow)."""

    def __init__(self, hunt: Hunt, progress: Progress) -> None:
        self._hunt, self._progress, self._scans = hunt, progress, progress.scans

    def __call__(self) -> list[tuple]:
        hunt, progress = self._hunt, self._progress
        self._scans, points = hunt.scanned(self._scans, progress.bound)
        return [hunt.verdicts.key(r) for r in hunt.unjudged_steps(progress.chosen)] + points + hunt.together(progress.sectioned)
