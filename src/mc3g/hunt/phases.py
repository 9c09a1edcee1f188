"""The phases of a black box's search for one person, in the order they run (:data:`PHASES`,
run by :func:`hunted` after the first question).

The first question, then: global rules (the surrogate's states in exact cost order), local
rules (learned near the person, where those fail), to the budget, the last draw (rows drawn
around a person with fewer than K options), sharpen (the options' numbers sectioned back to the
boundary, each pared), merge (every row accepted counts; numbers polished, actions traded), and
where the merge leaves fewer than K with no last draw made, those three again (``Redrawn``).

Each phase has one job: it takes the search's :class:`~.progress.Progress` (its ``outcome``, the last
:class:`~.verified.Outcome`, None before any search; the options known and the bound they set)
and returns a new one, or the same one when it has nothing to do, asking the model through the
person's :class:`~.hunt.Hunt` (what every phase is given: the person, the settings, the
verdicts).  No phase writes into another's progress: a maintainer can read one phase alone, and a
test can run one alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

from .boundary import corners, scan
from .hunt import Hunt
from .lines import point_keys
from .local import local_rules
from .merge import Merge
from .progress import Progress
from .protected import PROTECTED, protected_changes
from .sharpen import Sharpen
from .verdicts import Asking
from .verified import STALLED, Outcome


class Phase(Protocol):
    name: str

    def run(self, hunt: Hunt, progress: Progress) -> Asking: ...


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

    def run(self, hunt: Hunt, progress: Progress) -> Asking:
        """The progress once the model refused the person (:meth:`Hunt.begin`); None where it accepts them."""
        e, k, key = hunt.engine, hunt.k, hunt.verdicts.state_key
        problem = e.problem(hunt.instance, k) if hunt.firing else None
        stream = hunt.stream(problem) if problem is not None else None
        first = stream.take(hunt.tuning.first_states * k) if stream is not None else []
        counted = [key(problem, a.state) for a in first[: 4 * k]] if problem is not None else hunt.samples(progress) if hunt.local else []
        ahead = [key(problem, a.state) for a in first[4 * k :]] if problem is not None else []
        singles, scans = scan(e, hunt.row) if hunt.sharp else ([], [])
        points = [hunt.verdicts.key(c) for c in singles] + [p for s in scans for p in point_keys(hunt.verdicts, s)]
        ahead += [hunt.verdicts.key(c) for c in corners(e, hunt.row)] if hunt.sharp else []
        if hunt.sharp and problem is not None:
            points += [p for a in first[: 4 * k] for s in hunt.segments(e, problem, a) for p in point_keys(hunt.verdicts, s)]
        if hunt.local and hunt.tuning.draw_ahead and problem is not None:  # refused by the rules: likely by the model too
            ahead += hunt.last_draw()[0]  # the rows local rules learn from are its start
            progress = replace(progress, drawn=True)
        accepted = yield from hunt.ask(progress, [(), *counted[: hunt.budget]], points, ahead)
        if accepted[0]:
            return None
        return hunt.begin(progress, (problem, stream, first) if problem is not None and stream is not None else None, scans)


class GlobalRules:
    """The surrogate's states, where it refuses the person; with local rules on, it stops
    (``stalled``) once the model has rejected ``tuning.patience`` of them more than it kept."""

    name = "global rules"

    def run(self, hunt: Hunt, progress: Progress) -> Asking:
        if progress.start is None:
            return progress
        e = hunt.engine
        outcome = yield from hunt.search(progress, e, hunt.instance, e.decision, hunt.tuning.patience if hunt.local else None, "global", progress.start)
        return replace(progress, outcome=outcome)


class LocalRules:
    """Where the surrogate does not refuse the person, or the model keeps rejecting what it lets
    through: rules learned near the person from the model's verdicts, learned again with each
    search's counterexamples (the global answer is kept when it has more)."""

    name = "local rules"

    def run(self, hunt: Hunt, progress: Progress) -> Asking:
        outcome = progress.outcome
        if not hunt.local or (outcome is not None and outcome.stopped != STALLED):
            return progress
        yield from hunt.ask(progress, hunt.samples(progress))
        progress = hunt.with_known_options(progress)
        near = yield from self._learned(hunt, progress)
        return replace(progress, outcome=_fuller(near, outcome))

    @staticmethod
    def _learned(hunt: Hunt, progress: Progress) -> Asking:
        """The last local search's outcome; None when the model accepts no row judged (nothing to learn)."""
        outcome, last = None, hunt.tuning.local_rounds
        for round_ in range(1, last + 1):
            changes, refusals = hunt.verdicts.labelled()
            if all(refusals):
                return None
            local = hunt.engine.with_rules(local_rules(hunt.engine, hunt.row, changes, refusals))
            instance = local.instance(hunt.row)
            firing = bool(local.firing(instance))
            patience = hunt.tuning.patience if round_ < last else None
            found = yield from hunt.search(progress, local, instance, local.decision if firing else [], patience, "local" if firing else "none")
            outcome = replace(found, local_rounds=round_)
            if outcome.stopped != STALLED:
                break
        return outcome


class ToTheBudget:
    """Where no search found enough before stalling, or the model accepts no row near the person:
    the global rules (or none, the model alone, where they do not refuse the person) go on to
    the budget, the states judged already read again without asking the model."""

    name = "to the budget"

    def run(self, hunt: Hunt, progress: Progress) -> Asking:
        outcome = progress.outcome
        if outcome is not None and outcome.stopped != STALLED:
            return progress
        e = hunt.engine
        rest = yield from hunt.search(progress, e, hunt.instance, e.decision if hunt.firing else [], None, "global" if hunt.firing else "none")
        return replace(progress, outcome=_fuller(rest, outcome))


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
    (:meth:`Hunt.wide`); the run record counts that round (``wider_draws``).  With no option
    then, the rows asking whether a protected characteristic alone turns the refusal go in that
    call, held back from the search (:mod:`.protected`; the answer asks them).  It runs before
    the sharpening, which then takes the options it found too: a row drawn makes changes no
    option needs, and its numbers go further than the model needs."""

    name = "last draw"

    def run(self, hunt: Hunt, progress: Progress) -> Asking:
        outcome = progress.outcome
        assert outcome is not None  # the search proper has run
        progress = hunt.seen_ahead(progress, outcome)
        if not hunt.local or len(hunt.options(progress, outcome)) >= hunt.k:
            return progress
        progress = replace(progress, drawn=True, last_drawn=True, kept=hunt.tuning.last_kept)  # the rows accepted priced as after a last draw
        rows, rng = hunt.last_draw()
        yield from hunt.ask(progress, [], rows)
        known = hunt.options(progress, outcome)
        if len(known) >= hunt.k:
            return progress
        apart = [frozenset(a.direct) for _, a in known] if hunt.engine.settings.distinct else []
        sizes, n = [], hunt.tuning.last_draw * 4
        while n <= hunt.tuning.widest_draw:  # each four times as wide, drawn on: one call holds them all
            sizes.append(n)
            n *= 4
        rows = hunt.wide(sizes, rng, apart) if sizes else []
        if len(rows):  # with no option yet, whether a protected characteristic alone turns the refusal goes along, held back
            turning = [] if known else [hunt.verdicts.key({name: value}) for name, value in protected_changes(hunt.engine, {**hunt.row, **hunt.instance})]
            progress = yield from hunt.ask_wider(progress, rows, turning)
        return progress


class Redrawn:
    """Where the merge leaves fewer than K options and the last draw was not made (it knew K
    then, and the sharpening made one of them cheaper than another that makes all its actions
    and more: under ``distinct`` the dearer is no option), the last draw made now, and what it
    finds sharpened and merged as before, each counted under its own phase (issue 51: a person
    left with fewer than K options while another existed)."""

    name = LastDraw.name

    def run(self, hunt: Hunt, progress: Progress) -> Asking:
        outcome = progress.outcome
        assert outcome is not None  # the search proper has run
        if len(outcome.found) >= hunt.k or progress.last_drawn or not hunt.local:
            return progress
        progress = replace(progress, outcome=replace(outcome, found=outcome.searched, priced_in=(), outside=(), searched=(), unlike=0))
        for phase in (LastDraw(), Sharpen(), Merge()):
            hunt.enter(phase.name)
            progress = yield from phase.run(hunt, progress)
        return progress


PHASES: tuple[Phase, ...] = (GlobalRules(), LocalRules(), ToTheBudget(), LastDraw(), Sharpen(), Merge(), Redrawn())
STEPS = "steps"  # the options' steps, judged once the hunt has ended (:mod:`mc3g.explain.session`)
ASKING = tuple(dict.fromkeys((FirstQuestion.name, *(phase.name for phase in PHASES), STEPS, PROTECTED)))
"""The parts of a black box's search that ask the model, in the order they run: the names a
run record's ``rounds_by_phase`` counts rounds under."""


def hunted(hunt: Hunt, phases: Sequence[Phase] = PHASES) -> Asking:
    """The person's :class:`Progress` after the first question and ``phases``, in order (its
    ``outcome``, the search's); None when the model does not refuse the person."""
    hunt.enter(FirstQuestion.name)
    progress = yield from FirstQuestion().run(hunt, hunt.initial())
    if progress is None:
        return None
    for phase in phases:
        hunt.enter(phase.name)
        progress = yield from phase.run(hunt, progress)
    return progress
