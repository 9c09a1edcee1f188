"""One person's search with a black box: least-cost states of rules, each judged by the model.

MC3G (Dasgupta et al., NeSy 2025) searches FOLD-SE rules of the model's predictions and checks
every state with the model.  Where the rules imitate the model well near the person, the first
states read are the answer.  Where they do not, this search does more, each part bounded:

- **Single changes.**  Every change of one feature is scanned, whatever the rules say
  (:mod:`.boundary`), in the first question to the model.
- **Local rules.**  When the global rules do not refuse the person, or the model rejects
  ``PATIENCE`` of the states they let through before K pass, rows around the person are drawn,
  judged by the model in one batch, and FOLD-SE learns rules of the model there
  (:mod:`.local`).  Every state the model then judges differently from those rules is a labelled
  counterexample: the rules are learned again with it and the search goes on (up to
  ``LOCAL_ROUNDS`` times).
- **Widening.**  When the candidate values run out before K states pass, and the model refused
  a state that moves a number and could still be an answer, each atom takes 8× as many values
  (up to ``WIDEST``).
- **Boundaries on the model.**  A numeric action the model accepts is sectioned back to the
  model's own boundary (:mod:`.boundary`), and the values found join the candidates of a last
  exact search.
- **A last draw.**  A person left with fewer than K options gets ``LAST_DRAW`` rows drawn around
  them, as DiCE random draws, and as many changing up to every feature, judged in one last call.
- **Pared options.**  Each found state of several actions is also judged without each one of
  them, with the first points sectioned: the rules may demand an action the model does not need.
- **Every accepted row counts.**  The rows the model accepted outside the search are priced
  under the knowledge and merged into the answer; a state dearer than the K-th of them is not
  read at all.  The options' steps are judged too, and merged again while they add a row.
- **Budget.**  The model judges at most ``max_states`` states per person (the person, the
  single changes, the points sectioned, the last draw and the steps aside); when it stops, the answer says why.

The model is never asked twice about the same values, and every row it is asked about is the
state the person's changes reach, with what the causal rules force (:class:`Verdicts`).  What is
exact: the answer is the K least-cost states the model accepts among those the last rules let
through in the last candidate space, read in exact cost order, and the rows the model was seen to
accept (distinct action sets under ``distinct``; docs/semantics.md says which are priced).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..search import ActionSets, Assessment, Problem, StateStream
from .accepted import LAST_KEPT, Accepted
from .boundary import Segment, grid_step, scan
from .engine import Engine
from .local import local_rules, neighbours, rng_for
from .verdicts import Asking, Row, Verdicts

WIDEST = 512  # candidate values per atom at most, when widening
BATCH = 1024  # states the model is asked about at once, at most, for one person
PATIENCE = 48  # states the model may reject before the rules are learned again near the person
LOCAL_ROUNDS = 3  # local rules learned at most, each with the counterexamples of the last
SAMPLES = 200  # rows drawn around the person for the local rules
LAST_DRAW = 1000  # rows drawn around a person left with fewer than K options, judged in one last call
READ = 10  # states the solver hands out per search, at most, in max_states: the rest are not shown to the model

FOUND, EXHAUSTED, BUDGET, READ_ALL, STALLED = "found", "exhausted", "budget", "read", "stalled"


@dataclass
class Outcome:
    """Where the search ended: the engine and problem of the last search (with ``per_atom``
    values per atom), the states found, why it stopped, which rules it searched (``global``,
    ``local``, or ``none``: the model alone) and how many local rule sets it learned; after the
    merge, the problem each state found is priced in (``priced_in``), and ``outside``, the
    problems that priced the rows the model accepted outside the search."""

    engine: Engine
    problem: Problem
    per_atom: int
    found: list[Assessment]
    stopped: str
    rules: str
    local_rounds: int = 0
    priced_in: list[Problem] = field(default_factory=list)
    outside: tuple[Problem, ...] = ()


def verified(
    problem: Problem,
    stream: StateStream,
    k: int,
    distinct: bool,
    verdicts: Verdicts | None,
    budget: int,
    first: Sequence[Assessment] = (),
    limit: int | None = None,
    bound: float = math.inf,
) -> Asking:
    """The k least-cost states of ``problem`` the model accepts (every state, for plain rules:
    ``verdicts`` None), with distinct action sets under ``distinct``, reading ``first`` and then
    ``stream``, none dearer than ``bound`` (k options are known at that cost already); and why
    the reading stopped.  ``budget`` bounds the rows the model judges, and
    ``limit`` the states it rejects, ``PATIENCE`` more for each state kept (then the reading
    stops ``stalled``).  Third, whether widening could help: the model refused a state read here
    that moves a number and could still be an answer (more values per atom add numbers only)."""
    options = ActionSets() if distinct else None
    kept: list[Assessment] = []
    refused: list[Assessment] = []
    numeric = [i for i, f in enumerate(problem.space.features) if f.feature.is_numeric]
    size = k if verdicts is None else 4 * k
    batch = list(first)
    while len(kept) < k:
        if verdicts is not None and verdicts.judged >= budget:
            return kept, BUDGET, False
        if verdicts is not None and limit is not None and verdicts.rejected >= limit + PATIENCE * len(kept):
            return kept, STALLED, False  # each option found shows the rules work here: it buys more patience
        if not batch:
            batch = stream.take(size if verdicts is None else min(size, budget - verdicts.judged))
            size = min(2 * size, BATCH)  # the model disagrees here, or the options repeat: read more at once
            if not batch:
                doubted = any(any(a.state[i] for i in numeric) and (options is None or options.open(a)) for a in refused)
                return kept, READ_ALL if stream.at_limit else EXHAUSTED, doubted
        if batch[0].cost > bound + 1e-9:
            return kept, FOUND, False  # what is left costs more than k options known: it cannot be one
        batch = [state for state in batch if state.cost <= bound + 1e-9]
        if options is not None:  # a state that adds actions to an option cannot be one: the model need not see it
            batch = [state for state in batch if options.open(state)]
        accepted = [True] * len(batch) if verdicts is None else (yield from verdicts.ask([problem.describe(a.state) for a in batch]))
        refused += [state for state, ok in zip(batch, accepted) if not ok]
        for state, ok in zip(batch, accepted):
            if len(kept) < k and ok and (options is None or options.admit(state)):
                kept.append(state)
                if options is not None:
                    stream.exclude(frozenset(state.direct))
        batch = []
    return kept, FOUND, False


class Hunt:
    """The search for one person (``row``, refused or not) with ``engine``'s black box."""

    def __init__(self, engine: Engine, row: Row, k: int, verdicts: Verdicts, steps: Callable[[Problem, Assessment], list[Row]] | None = None) -> None:
        self.engine, self.row, self.k, self.verdicts, self.steps = engine, row, k, verdicts, steps
        self.budget = engine.settings.max_states
        self.distinct = engine.settings.distinct
        self.sharp = engine.settings.scheme == "exact" and not engine.settings.plausible
        self._bound = math.inf
        self.accepted = Accepted(engine, row, k, verdicts)
        self._scans: list[Segment] = []  # the person's single numeric changes, sectioned along with every call
        self._chosen: list[tuple[Problem, Assessment]] = []  # the K options among the rows accepted, when last bounded
        self._steps: dict[tuple, list[Row]] = {}  # their steps, by their changes

    def run(self, instance: Mapping[str, Any], firing: bool) -> Asking:
        """The :class:`Outcome`, or None when the model does not refuse the person.  The first
        question to the model holds what the search will want next if it does: where the rules
        refuse the person, the first states (and the first points of each one's numeric
        actions, whose boundary is then sought without another call); where they do not, the
        rows around the person that local rules learn from; and the person's single changes."""
        e, k = self.engine, self.k
        local = e.settings.local
        problem = e.problem(instance, k) if firing else None
        stream = StateStream(problem, READ * self.budget) if problem is not None else None
        first = stream.take(4 * k) if stream is not None else []
        counted = [problem.describe(a.state) for a in first] if problem is not None else self._samples() if local else []  # type: ignore[union-attr]
        singles, scans = scan(e, self.row) if self.sharp else ([], [])
        free = singles + [s.row(p) for s in scans for p in s.points()]
        free += [s.row(p) for a in first for s in self._segments(e, problem, a) for p in s.points()] if self.sharp else []  # type: ignore[arg-type]
        accepted = yield from self.verdicts.ask([{}] + counted[: self.budget], free)
        if accepted[0]:
            return None
        self._bounded()
        self._scans = scans
        self.verdicts.along = self._ride
        outcome = None
        if problem is not None:
            outcome = yield from self._phase(e, instance, e.decision, PATIENCE if local else None, "global", (problem, stream, first))
        if local and (outcome is None or outcome.stopped == STALLED):
            # The global rules do not refuse the person, or the model keeps rejecting what they
            # let through: learn rules near the person (and keep the global answer if it has more).
            near = yield from self._local()
            outcome = near if outcome is None or (near is not None and len(near.found) >= len(outcome.found)) else outcome
        if outcome is None or outcome.stopped == STALLED:
            # The model accepts no row near the person (nothing to learn from), or the local rules
            # did no better: the global rules (or none) go on to the budget, the states judged
            # already read again without asking the model.
            rest = yield from self._phase(e, instance, e.decision if firing else [], None, "global" if firing else "none")
            outcome = rest if outcome is None or len(rest.found) >= len(outcome.found) else outcome
        if self.sharp:
            outcome = yield from self._sharpen(outcome)
        if local and len(outcome.found) < k and len(self.accepted.choose(self.accepted.pool(outcome.problem, outcome.found)[0])) < k:
            # Fewer than K options: one last, wider draw around the person, as DiCE random draws
            # (the rows it accepts join the merge below when the knowledge allows them).
            # As many again change up to every feature, as DiCE random's rows may: a model can
            # want three changes or more together, which rows of one to three rarely hold.
            rng = rng_for(self.row, e.settings.random_state)
            yield from self.verdicts.ask([], neighbours(e, self.row, LAST_DRAW, rng) + neighbours(e, self.row, LAST_DRAW, rng, most=len(e.varied)))
            self.accepted.kept = LAST_KEPT
        return (yield from self._settled(outcome))

    # -- one set of rules ------------------------------------------------------------------------
    def _phase(self, engine: Engine, instance: Mapping[str, Any], escape: list, patience: int | None, rules: str, start: tuple | None = None) -> Asking:
        """The search with one engine's rules (``start``: its first problem, stream and states
        already read), widened while the candidates run out; with ``patience``, it stops
        (``stalled``) once the model has rejected that many more states."""
        per_atom, limit = self.k, None if patience is None else self.verdicts.rejected + patience
        if start is None:
            problem = engine.problem(instance, per_atom, escape)
            start = (problem, StateStream(problem, READ * self.budget), [])
        problem, stream, first = start
        found, stopped, doubted = yield from self._verified(problem, stream, first, limit)
        while stopped == EXHAUSTED and doubted and per_atom < WIDEST:
            wider = engine.problem(instance, per_atom * 8, escape)
            if wider.space.n_candidates == problem.space.n_candidates:
                break  # every value of every atom is in already: nothing new to try
            more, stopped, doubted = yield from self._verified(wider, StateStream(wider, READ * self.budget), [], limit)
            if len(more) < len(found):
                break  # the wider round ran out of budget before the narrower one's answer
            problem, found, per_atom = wider, more, per_atom * 8
        return Outcome(engine, problem, per_atom, found, FOUND if len(found) == self.k else stopped, rules)

    def _verified(self, problem: Problem, stream: StateStream, first: list[Assessment], limit: int | None) -> Asking:
        return (yield from verified(problem, stream, self.k, self.distinct, self.verdicts, self.budget, first, limit, self._bound))

    def _bounded(self) -> None:
        """The cost of the k-th option among the rows the model accepted outside the search so
        far (infinite when there are fewer): no state dearer than it can be in the answer.  Found
        after the first question, after the rows drawn for local rules and before each round of
        the single changes' last sectioning; what is judged later only lowers it, so it stays a
        bound."""
        self._chosen = chosen = self.accepted.choose(self.accepted.pool()[0])
        self._bound = chosen[-1][1].cost if len(chosen) == self.k else math.inf

    # -- local rules -------------------------------------------------------------------------------
    def _local(self) -> Asking:
        """The search with rules learned around the person from the model's verdicts, learned
        again with each round's counterexamples; None when the model accepts no row judged."""
        yield from self.verdicts.ask(self._samples())
        self._bounded()
        outcome = None
        for round_ in range(1, LOCAL_ROUNDS + 1):
            changes, refusals = self.verdicts.labelled()
            if all(refusals):
                return None
            local = self.engine.with_rules(local_rules(self.engine, self.row, changes, refusals))
            instance = local.instance(self.row)
            firing = bool(local.firing(instance))
            patience = PATIENCE if round_ < LOCAL_ROUNDS else None
            outcome = yield from self._phase(local, instance, local.decision if firing else [], patience, "local" if firing else "none")
            outcome.local_rounds = round_
            if outcome.stopped != STALLED:
                break
        return outcome

    def _samples(self) -> list[dict[str, Any]]:
        """Rows around the person for local rules, as many as the budget leaves (``SAMPLES`` at most)."""
        n = min(SAMPLES, self.budget - self.verdicts.judged)
        return neighbours(self.engine, self.row, n, rng_for(self.row, self.engine.settings.random_state)) if n > 0 else []

    # -- boundaries on the model -------------------------------------------------------------------
    def _ride(self) -> list[Row]:
        """Rows asked along with the model's next call: the steps of the K options known (often
        the answer's: its steps then need no call of their own), and the single changes' next
        points (:meth:`_scanned`)."""
        return self._unjudged_steps(self._chosen) + self._scanned()

    def _unjudged_steps(self, options: Sequence[tuple[Problem, Assessment]]) -> list[Row]:
        """The states on the way to each option (its steps) the model has not judged."""
        rows: list[Row] = []
        if self.steps is not None:
            for problem, a in options:
                key = self.verdicts.key(problem.describe(a.state))
                if key not in self._steps:
                    self._steps[key] = self.steps(problem, a)
                rows += [r for r in self._steps[key] if self.verdicts.known(r) is None]
        return rows

    def _scanned(self) -> list[Row]:
        """The next points of the person's single numeric changes, once the last ones are
        judged; a change whose nearest point left costs more than the K-th option known
        (:meth:`_bounded`) is not sectioned further (it cannot be one)."""
        rows: list[Row] = []
        for s in self._scans:
            while (points := s.points()) and not self._beyond(s):
                # A segment's points are asked together: its last one unjudged, they all are.
                known = [] if self.verdicts.known(s.row(points[-1])) is None else [self.verdicts.known(s.row(p)) for p in points]
                if not known or None in known:
                    rows += [s.row(p) for p in points]
                    break
                s.narrow(known)  # type: ignore[arg-type]
        return rows

    def _beyond(self, s: Segment) -> bool:
        """Whether the single change ``s`` costs more than the K-th option known wherever its
        boundary lies (the price of one feature's change grows with its size)."""
        e = self.engine
        delta = abs(float(s.nearest()) - float(s.origin)) / e.spreads.get(s.name, 1.0)
        distance = e.settings.distance
        return distance.total(distance.term(delta, e.schema.feature(s.name).weight)) > self._bound + 1e-9

    def _sharpen(self, outcome: Outcome) -> Asking:
        """The found states' numeric actions sectioned back to the model's boundary (and the
        person's single numeric changes to theirs, along); the found states' boundaries join the
        candidates and the search runs again (its answer is kept when it finds as many states,
        each then no dearer than before)."""
        problem, engine = outcome.problem, outcome.engine
        segments = [s for state in outcome.found for s in self._segments(engine, problem, state)]
        # Each found state of several actions without one of them (and what it forced), asked
        # with the first points: the rules may demand an action the model does not need.
        pared = [{n: v for n, v in problem.chosen(a).items() if n != d} for a in outcome.found if len(a.direct) > 1 for d in a.direct]
        self._bounded()  # before each round: the options known (whose steps ride along) and the bound
        while (asked := [(s, p) for s in segments for p in s.points()]) or pared:
            accepted = yield from self.verdicts.ask([], [s.row(p) for s, p in asked] + pared)
            pared = []
            for s in segments:
                s.narrow([ok for (t, _), ok in zip(asked, accepted) if t is s])
            self._bounded()
        while rows := self._scanned():
            yield from self.verdicts.ask([], rows)
            self._bounded()
        extra: dict[str, list[Any]] = {}
        for s in segments:
            if s.best != s.changes[s.name]:
                extra.setdefault(s.name, []).append(s.best)
        if not extra:
            return outcome
        sharper = engine.problem(engine.instance(self.row), outcome.per_atom, list(problem.decision), extra)
        found, _, _ = yield from self._verified(sharper, StateStream(sharper, READ * self.budget), [], None)
        if len(found) < len(outcome.found):
            return outcome
        return Outcome(engine, sharper, outcome.per_atom, found, outcome.stopped, outcome.rules, outcome.local_rounds)

    def _settled(self, outcome: Outcome) -> Asking:
        """The search's states merged with the rows the model accepted (:meth:`_merge`), merged
        again while the steps of the options chosen, once judged, add rows it accepts: a state
        part of the way to an option may be accepted already, and cheaper."""
        searched = list(outcome.found)
        while True:
            merged = self._merge(outcome, searched)
            rows = self._unjudged_steps(list(zip(merged.priced_in, merged.found)))
            if not rows:
                return merged
            yield from self.verdicts.ask([], rows)

    def _merge(self, outcome: Outcome, searched: list[Assessment]) -> Outcome:
        """The states ``searched`` in the outcome's problem together with every other row the
        model accepted (single changes, rows drawn around the person, points sectioned, steps),
        priced under the causal knowledge as it stands: the K least-cost of them (distinct action
        sets under ``distinct``)."""
        pool, outcome.outside = self.accepted.pool(outcome.problem, searched)
        chosen = self.accepted.choose(pool)
        outcome.priced_in = [p for p, _ in chosen]
        outcome.found = [a for _, a in chosen]
        if len(outcome.found) == self.k:
            outcome.stopped = FOUND
        return outcome

    def _segments(self, engine: Engine, problem: Problem, state: Assessment) -> list[Segment]:
        """A segment for each numeric direct action of ``state``, the changes the rules force left
        to be forced again at each point (:class:`Verdicts`)."""
        changes = problem.chosen(state)
        return [Segment(changes, n, self.row[n], changes[n], grid_step(engine, n)) for n in state.direct if problem.space[n].feature.is_numeric]
