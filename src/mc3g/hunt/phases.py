"""The phases of a black box's search for one person, in the order they run (:data:`PHASES`,
run by :func:`hunted` after the first question).

The first question, then: global rules (the surrogate's states in exact cost order), local
rules (learned near the person, where those fail), to the budget, the last draw (rows drawn
around a person with fewer than K options), sharpen (the options' numbers sectioned back to the
boundary, each pared), merge (every row accepted counts; numbers polished, actions traded), and
where the merge leaves fewer than K with no last draw made, those three again (``Redrawn``).

Each phase has one job over the person's :class:`~.hunt.Hunt` (its verdicts, the rows accepted,
the bound they set): it takes the last :class:`~.verified.Outcome` (None before any search) and
returns a new one, or the same one when it has nothing to do.  A test can run one alone.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Protocol

from ..engine import Engine
from ..search import Assessment, Problem
from .boundary import Segment, corners, exchanges, given_up, scan, taken, under
from .hunt import Hunt
from .local import local_rules
from .protected import PROTECTED, protected_changes
from .verdicts import Asking, Row
from .verified import STALLED, Outcome


class Phase(Protocol):
    name: str

    def run(self, hunt: Hunt, outcome: Outcome | None) -> Asking: ...


def _fuller(new: Outcome | None, old: Outcome | None) -> Outcome | None:
    """``new`` unless ``old`` found more states."""
    return new if old is None or (new is not None and len(new.found) >= len(old.found)) else old


class FirstQuestion:
    """Whether the model refuses the person, asked with what the search will want next if it
    does: where the rules refuse the person, their first ``tuning.first_states`` × K states (and
    the first points of the numeric actions of the first 4K, whose boundary is then sought
    without another call); where they do not, the rows around the person that local rules learn
    from; and the person's single changes, with every two numbers at ends of their bounds
    ahead (:func:`~.boundary.corners`).  Where the rules refuse the person, with local rules
    on (and ``tuning.draw_ahead``), the rows local rules would learn from and those of the last
    draw go too, ahead: their verdicts are seen when those phases run, which then need no call,
    or at the merge.  Not where the rules accept the person: most such people the model accepts
    too (a portfolio's), and their first call would carry 2,000 rows for nothing."""

    name = "first question"

    def run(self, hunt: Hunt) -> Asking:
        e, k, key = hunt.engine, hunt.k, hunt.verdicts.state_key
        problem = e.problem(hunt.instance, k) if hunt.firing else None
        stream = hunt.stream(problem) if problem is not None else None
        first = stream.take(hunt.tuning.first_states * k) if stream is not None else []
        counted = [key(problem, a.state) for a in first[: 4 * k]] if problem is not None else hunt.samples() if hunt.local else []
        ahead = [key(problem, a.state) for a in first[4 * k :]] if problem is not None else []
        singles, scans = scan(e, hunt.row) if hunt.sharp else ([], [])
        points = [hunt.verdicts.key(c) for c in singles] + [p for s in scans for p in hunt.keys(s)]
        ahead += [hunt.verdicts.key(c) for c in corners(e, hunt.row)] if hunt.sharp else []
        if hunt.sharp and problem is not None:
            points += [p for a in first[: 4 * k] for s in hunt.segments(e, problem, a) for p in hunt.keys(s)]
        if hunt.local and hunt.tuning.draw_ahead and problem is not None:  # refused by the rules: likely by the model too
            ahead += hunt.last_draw()[0]  # the rows local rules learn from are its start
        accepted = yield from hunt.ask([(), *counted[: hunt.budget]], points, ahead)
        if accepted[0]:
            return False
        hunt.begin((problem, stream, first) if problem is not None and stream is not None else None, scans)
        return True


class GlobalRules:
    """The surrogate's states, where it refuses the person; with local rules on, it stops
    (``stalled``) once the model has rejected ``tuning.patience`` of them more than it kept."""

    name = "global rules"

    def run(self, hunt: Hunt, outcome: Outcome | None) -> Asking:
        if hunt.start is None:
            return outcome
        e = hunt.engine
        return (yield from hunt.search(e, hunt.instance, e.decision, hunt.tuning.patience if hunt.local else None, "global", hunt.start))


class LocalRules:
    """Where the surrogate does not refuse the person, or the model keeps rejecting what it lets
    through: rules learned near the person from the model's verdicts, learned again with each
    search's counterexamples (the global answer is kept when it has more)."""

    name = "local rules"

    def run(self, hunt: Hunt, outcome: Outcome | None) -> Asking:
        if not hunt.local or (outcome is not None and outcome.stopped != STALLED):
            return outcome
        near = yield from self._learned(hunt)
        return _fuller(near, outcome)

    @staticmethod
    def _learned(hunt: Hunt) -> Asking:
        """The last local search's outcome; None when the model accepts no row judged (nothing to learn)."""
        yield from hunt.ask(hunt.samples())
        hunt.update_chosen()
        outcome, last = None, hunt.tuning.local_rounds
        for round_ in range(1, last + 1):
            changes, refusals = hunt.verdicts.labelled()
            if all(refusals):
                return None
            local = hunt.engine.with_rules(local_rules(hunt.engine, hunt.row, changes, refusals))
            instance = local.instance(hunt.row)
            firing = bool(local.firing(instance))
            patience = hunt.tuning.patience if round_ < last else None
            found = yield from hunt.search(local, instance, local.decision if firing else [], patience, "local" if firing else "none")
            outcome = replace(found, local_rounds=round_)
            if outcome.stopped != STALLED:
                break
        return outcome


class ToTheBudget:
    """Where no search found enough before stalling, or the model accepts no row near the person:
    the global rules (or none, the model alone, where they do not refuse the person) go on to
    the budget, the states judged already read again without asking the model."""

    name = "to the budget"

    def run(self, hunt: Hunt, outcome: Outcome | None) -> Asking:
        if outcome is not None and outcome.stopped != STALLED:
            return outcome
        e = hunt.engine
        rest = yield from hunt.search(e, hunt.instance, e.decision if hunt.firing else [], None, "global" if hunt.firing else "none")
        return _fuller(rest, outcome)


class LastDraw:
    """Once the search proper has ended, the rows asked ahead that no phase reached are seen
    first (:meth:`Hunt.seen_ahead`); then, with fewer than K options, the search's and the rows
    accepted together, one last, wider draw around the person, as DiCE random draws (the rows
    it accepts join the merge when the knowledge allows them), and as many again changing up
    to every feature, as DiCE random's rows may: a model can want three changes or more
    together, which rows of one to three rarely hold.  Where the person still has fewer than K
    options (none at all, or another way out needs many numbers moved together), the draw goes
    on, four times as wide and four times again up to ``tuning.widest_draw`` rows of each kind,
    all in one call (rows cost far less than calls), its rows kept apart from the options known
    (:meth:`Hunt.drawn`); the run record counts that round (``wider_draws``).  With no option
    then, the rows asking whether a protected characteristic alone turns the refusal go in that
    call, held back from the search (:mod:`.protected`; the answer asks them).  It runs before
    the sharpening, which then takes the options it found too: a row drawn makes changes no
    option needs, and its numbers go further than the model needs."""

    name = "last draw"

    def run(self, hunt: Hunt, outcome: Outcome) -> Asking:
        hunt.seen_ahead(outcome)
        if not hunt.local or len(hunt.options(outcome)) >= hunt.k:
            return outcome
        rows, rng = hunt.draw_last()
        yield from hunt.ask([], rows)
        known = hunt.options(outcome)
        if len(known) >= hunt.k:
            return outcome
        apart = [frozenset(a.direct) for _, a in known] if hunt.engine.settings.distinct else []
        sizes, n = [], hunt.tuning.last_draw * 4
        while n <= hunt.tuning.widest_draw:  # each four times as wide, drawn on: one call holds them all
            sizes.append(n)
            n *= 4
        rows = hunt.wide(sizes, rng, apart) if sizes else []
        if len(rows):  # with no option yet, whether a protected characteristic alone turns the refusal goes along, held back
            turning = [] if known else [hunt.verdicts.key({name: value}) for name, value in protected_changes(hunt.engine, {**hunt.row, **hunt.instance})]
            yield from hunt.ask_wider(rows, turning)
        return outcome


class Sharpen:
    """The numeric actions of the found states and of the K options known among the rows
    accepted sectioned back to the model's boundary (and the person's single numeric changes
    to theirs, along); each of those options of several actions is also judged without each
    subset of them (:meth:`Hunt.pared`), and the options found while rounds follow join them.
    An option's own numbers moved back over the whole way from the person's value
    (:meth:`Hunt.moved_back`, as a greedy search tries them: the model need not be monotone)
    ride along with a round that calls the model anyway, never in one of their own here (the
    merge asks those of the answer's options that no call carried).
    With ``tuning.search_boundaries``, the boundaries join the candidates and the search runs
    again: its answer is kept when it finds as many states, each then no dearer than before.
    Needs the ``exact`` candidates.  A segment's first round judged already (its state was among
    the first question's) is taken without a call, so the options judged without an action go
    with the next round; one judged in no call yet starts from the verdicts on its line
    (:meth:`Hunt.narrow_on_lines`) as a later round does (every point, where one round takes them all).
    A segment none of whose points left can be an option (:meth:`Hunt.beyond`) is sectioned no
    further, and the single changes take the verdicts on their lines before a call of their own.
    The rows asked ahead that no phase reached are seen first (:meth:`Hunt.seen_ahead`, as the
    last draw saw them, where it ran): the search proper has ended, so the options they hold
    bound the sectioning and their steps ride along with it, instead of a call of their own at
    the merge."""

    name = "sharpen"

    def run(self, hunt: Hunt, outcome: Outcome) -> Asking:
        hunt.seen_ahead(outcome)
        if not hunt.sharp:
            return outcome
        problem, engine = outcome.problem, outcome.engine
        hunt.update_chosen()  # the K options among the rows accepted, sectioned too: a point accepted is seldom the boundary
        segments, pared, along = self._claimed(hunt, engine, [(problem, state) for state in outcome.found] + hunt.chosen)
        yield from self._sectioned(hunt, engine, segments, pared, along)
        if not hunt.tuning.search_boundaries:
            return outcome  # the points sectioned join the merge, the cheapest of each option's set there
        extra: dict[str, list[Any]] = {}
        for s in segments:
            if s.best != s.changes[s.name]:
                extra.setdefault(s.name, []).append(s.best)
        if not extra:
            return outcome
        sharper = engine.problem(engine.instance(hunt.row), outcome.per_atom, list(problem.decision), extra)
        found, _, _ = yield from hunt.verified(sharper, hunt.stream(sharper), [], None)
        if len(found) < len(outcome.found):
            return outcome
        return Outcome(engine, sharper, outcome.per_atom, tuple(found), outcome.stopped, outcome.rules, outcome.local_rounds)

    @staticmethod
    def _claimed(hunt: Hunt, engine: Engine, options: list[tuple[Problem, Assessment]]) -> tuple[list[Segment], list[Row], list[Row]]:
        """The segments of the numeric actions of ``options`` not claimed yet (each begun from
        what is judged on its line already), and each of those options without each subset of
        its actions (:meth:`Hunt.pared`), and each with its own numbers moved back
        (:meth:`Hunt.moved_back`); they are claimed now, and their segments ride along as one
        option's numbers together (:meth:`Hunt.together`)."""
        fresh = hunt.claim(options)
        each = [hunt.segments(engine, problem, state) for problem, state in fresh]
        segments = [s for option in each for s in option]
        late = []
        for s in segments:  # a first round judged already (with the first question) is taken without a call
            if (known := hunt.judged(s)) is not None:
                s.narrow(known)
            else:
                late.append(s)
                s.late()
        hunt.narrow_on_lines(late)
        hunt.add_sectioned(each)
        pared = [row for problem, state in fresh for row in hunt.pared(problem, state)]
        return segments, pared, [row for problem, state in fresh for row in hunt.moved_back(problem, state)]

    @classmethod
    def _sectioned(cls, hunt: Hunt, engine: Engine, segments: list[Segment], pared: list[Row], along: list[Row]) -> Asking:
        """Section ``segments`` to their ends, ``pared`` asked with the first points (and
        ``along`` where those take a call), then the single changes; the bound (and the options
        whose steps ride along) found again after each round (:meth:`run` found it before the
        first).  While another round follows, the K options known that no segment has claimed yet
        (a point sectioned, an option without some actions) join it: a greedy search would go
        on from them."""
        while (asking := [s for s in segments if not hunt.beyond(s) and s.points()]) or pared:
            asked = [s for s in asking for _ in s.points()]
            keys = [key for s in asking for key in hunt.keys(s)] + [hunt.verdicts.key(row) for row in pared]
            if hunt.verdicts.calls(keys):  # the option's own numbers moved back ride along, never call alone
                keys += [hunt.verdicts.key(row) for row in along]
            accepted = yield from hunt.ask([], keys)
            for s in segments:
                s.narrow([ok for t, ok in zip(asked, accepted) if t is s])
            hunt.update_chosen()
            pared = along = []
            if any(not hunt.beyond(s) and s.points() for s in segments):
                more, pared, along = cls._claimed(hunt, engine, hunt.chosen)
                segments += more
        while keys := hunt.scanned(on_lines=True):
            yield from hunt.ask([], keys)
            hunt.update_chosen()


class Merge:
    """The search's states merged with the rows the model accepted (:meth:`Hunt.merged`; those
    asked ahead that no phase reached count too), merged again while the steps of the options
    chosen, once judged, add rows it accepts: a state part of the way to an option may be
    accepted already, and cheaper.  Where no step is left to judge, an option's numbers
    sectioned together (:meth:`Hunt.together`) that no call carried are asked, if they would
    cost less than the K-th option: no later call would carry them.  Each call also carries the
    options no sectioning round took (the last one found them), pared and with their numbers
    moved back, as a greedy search would go on from them; never a call of their own.  Last, with
    sharpening on, the options' own numbers moved back (:meth:`Hunt.moved_back`) and exchanged
    (:func:`~.boundary.exchanges`: one back, another on) that no call carried are asked before
    they are the answer, again while that finds a cheaper option, in ``tuning.polish`` calls at
    most: a number an option reached by steps or paring may need less (issue 51: a capital gain
    of 7,297 kept where 7,074 was accepted), and a step of one number may cost less than a step
    of another (issue 51's near ties).  Once that ends, with K options, their actions traded
    (:meth:`_traded`) that could beat the K-th are asked in one call more, and the options then
    polished again (as many calls at most, each only where something is left to ask).  After
    the polishing, so it takes nothing from it: the answer is the one before or a cheaper one."""

    name = "merge"

    def run(self, hunt: Hunt, outcome: Outcome) -> Asking:
        hunt.verdicts.release()
        merged, polished, traded = outcome, 0, False
        while True:
            merged = hunt.merged(merged, outcome.found)
            near = _with_unlike(hunt, outcome, merged)  # the answer's options first
            rows = [hunt.verdicts.key(row) for row in hunt.unjudged_steps(near[: len(merged.found)])]
            rows = rows or hunt.accepted.cheaper([key for key in hunt.together() if hunt.verdicts.verdict(key) is None], merged.found)
            if hunt.sharp and not rows and polished < hunt.tuning.polish:  # the options' own numbers moved back and exchanged: a call of their own
                rows = [key for p, a in near for key in map(hunt.verdicts.key, hunt.moved_back(p, a)) if hunt.verdicts.verdict(key) is None]
                rows += self._exchanged(hunt, near, merged.found)
                polished += 1
            if hunt.sharp and not rows and not traded:  # then their actions traded, and what that finds polished again
                rows, traded, polished = self._traded(hunt, near, merged.found), True, 0
            if not rows:
                return merged
            if hunt.sharp:  # the options no sectioning round took ride along, pared and their numbers moved back
                rows += [hunt.verdicts.key(row) for p, a in hunt.claim(near) for row in hunt.pared(p, a) + hunt.moved_back(p, a)]
            yield from hunt.ask([], rows)

    @staticmethod
    def _exchanged(hunt: Hunt, options: list[tuple[Problem, Assessment]], found: Sequence[Assessment]) -> list[tuple]:
        """The options' numbers exchanged (:func:`~.boundary.exchanges`) not judged yet that could
        beat the K-th option."""
        return _unjudged_cheaper(hunt, [row for p, a in options for row in exchanges(hunt.engine, hunt.row, p, a)], found)

    @staticmethod
    def _traded(hunt: Hunt, options: list[tuple[Problem, Assessment]], found: Sequence[Assessment]) -> list[tuple]:
        """The options' actions traded (:func:`~.boundary.given_up`, :func:`~.boundary.taken`),
        each brought under the cost it must beat (:func:`~.boundary.under`): the K-th option's
        (none while fewer are known), or where it makes every action of a cheaper option and
        more, that option's (as it is, it can be no option, and ranked among the rows accepted
        it would crowd out those that can: a German applicant's third option was lost so);
        those not judged yet that could beat it (issue 51: with two options of three, savings
        10 in place of income 4 with score 12 was not asked; full-time with income moved back
        from 7 to 3, costing more than the third option and less than the first, neither)."""
        if not found:
            return []
        e, person, rough = hunt.engine, hunt.row, hunt.accepted.rough
        kth = found[-1].cost if len(found) == hunt.k else math.inf
        rows = [row for p, a in options for row in given_up(e, person, p, a) + taken(e, person, p, a)]
        traded = under(e, person, rows, lambda row: min(kth, _held(row, person, found)), rough)
        return _unjudged_cheaper(hunt, [row for row in traded if rough(row) < _held(row, person, found)], found)


def _with_unlike(hunt: Hunt, outcome: Outcome, merged: Outcome) -> list[tuple[Problem, Assessment]]:
    """The options ``merged`` holds (the answer's) and, where it passed over some unlike every
    past applicant, the K least-cost of ``outcome``'s states and the rows accepted whatever
    their remoteness: the merge polishes and trades from both, as the search sections them all
    (an option unlike them all, its numbers moved back, may be like them)."""
    options = list(zip(merged.priced_in, merged.found))
    if not merged.unlike:
        return options
    mine = {id(a) for _, a in options}
    return options + [(p, a) for p, a in hunt.accepted.options(outcome.problem, outcome.found)[0] if id(a) not in mine]


def _unjudged_cheaper(hunt: Hunt, rows: list[Row], found: Sequence[Assessment]) -> list[tuple]:
    """The keys of ``rows`` not judged yet that could beat the K-th of ``found``."""
    keys = dict.fromkeys(hunt.verdicts.key(row) for row in rows)
    return hunt.accepted.cheaper([key for key in keys if hunt.verdicts.verdict(key) is None], found)


def _held(row: Row, person: Row, options: Sequence[Assessment]) -> float:
    """The least cost of ``options`` whose every action ``row`` makes (infinite for none): the
    row can be an option only below it."""
    made = {name for name, value in row.items() if value != person[name]}
    return min((a.cost for a in options if a.direct and made.issuperset(a.direct)), default=math.inf)


class Redrawn:
    """Where the merge leaves fewer than K options and the last draw was not made (it knew K
    then, and the sharpening made one of them cheaper than another that makes all its actions
    and more: under ``distinct`` the dearer is no option), the last draw made now, and what it
    finds sharpened and merged as before, each counted under its own phase (issue 51: a person
    left with fewer than K options while another existed)."""

    name = LastDraw.name

    def run(self, hunt: Hunt, outcome: Outcome) -> Asking:
        if len(outcome.found) >= hunt.k or hunt.last_drawn or not hunt.local:
            return outcome
        again = replace(outcome, found=outcome.searched, priced_in=(), outside=(), searched=(), unlike=0)
        for phase in (LastDraw(), Sharpen(), Merge()):
            hunt.enter(phase.name)
            again = yield from phase.run(hunt, again)
        return again


PHASES: tuple[Phase, ...] = (GlobalRules(), LocalRules(), ToTheBudget(), LastDraw(), Sharpen(), Merge(), Redrawn())
STEPS = "steps"  # the options' steps, judged once the hunt has ended (:mod:`mc3g.explain.session`)
ASKING = tuple(dict.fromkeys((FirstQuestion.name, *(phase.name for phase in PHASES), STEPS, PROTECTED)))
"""The parts of a black box's search that ask the model, in the order they run: the names a
run record's ``rounds_by_phase`` counts rounds under."""


def hunted(hunt: Hunt, phases: Sequence[Phase] = PHASES) -> Asking:
    """The person's :class:`Outcome` after the first question and ``phases``, in order; None
    when the model does not refuse the person."""
    hunt.enter(FirstQuestion.name)
    if not (yield from FirstQuestion().run(hunt)):
        return None
    outcome = None
    for phase in phases:
        hunt.enter(phase.name)
        outcome = yield from phase.run(hunt, outcome)
    return outcome
