"""One person's search, driven from outside.

A :class:`Session` asks questions — rows for the black box to judge — and is told which of them
the model refuses, until it has the person's :class:`Recourse`.  Keeping the model outside the
search lets many sessions share one ``predict`` call (a batch, a service, a cluster worker: a
model call costs about the same for one row as for thousands).  Plain rules need no model, so
such a session is done as soon as it is made.

The search is MC3G's (Dasgupta et al., NeSy 2025): the least-cost states that satisfy the causal
knowledge and escape the decision rules, in exact cost order; for a black box every state is
checked with the model before it is returned (see :mod:`.hunt`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import replace
from typing import Any

import pandas as pd

from ..engine import Engine
from ..exceptions import BlackBoxError, InputError
from ..hunt import BUDGET, FOUND, READ_ALL, STEPS, Hunt, Outcome, Progress, Verdicts, hunted, verified
from ..search import Assessment, PastApplicants, Problem, StateStream, why_none
from .changes import CausedChange, DirectAction, Step
from .exact import READ, Confirmed, blocking, searched, what_opens
from .principal import SingleChange, principal_reasons, single_changes
from .result import NO_COUNTERFACTUAL, NOT_REFUSED, REFUSED, Counterfactual, Recourse, RunRecord
from .robust import Holding, needed, passed_over, with_survival
from .steps import Draft, order
from .turning import TURNED, turns

Row = dict[str, Any]
Steps = Generator[Sequence[Row], list[bool], Recourse]


class Session:
    """The search for one person (``row``: the person's values, named ``where`` in an error)
    with ``k`` counterfactuals.

    While :attr:`questions` holds rows, the driver has the model judge them and passes back, in
    the same order, whether it refuses each one (:meth:`answer`); when :attr:`done`,
    :attr:`result` is the answer.  :meth:`run` does all of that with one judge."""

    def __init__(self, engine: Engine, row: Mapping[str, Any], k: int, where: str = "the row") -> None:
        self.row = dict(row)
        self.k = k
        self.questions: Sequence[Row] | None = None
        self.result: Recourse | None = None
        self.problem: Problem | None = None  # the last problem searched: its rules and candidate values
        self.outside: tuple[Problem, ...] = ()  # a black box's: where the rows the model accepted outside the search are priced
        self._record = RunRecord.of(engine, k)
        self._steps = _search(engine, self.row, k, where, self)
        self._advance(None)

    @property
    def done(self) -> bool:
        return self.result is not None

    def answer(self, refusals: Sequence[bool]) -> None:
        """Whether the model refuses each row of :attr:`questions`, in order."""
        if self.questions is None:
            raise InputError("this session has no question open: it is done")
        if len(refusals) != len(self.questions):
            raise BlackBoxError(f"{len(refusals)} verdict(s) for {len(self.questions)} question(s); the model must judge every row")
        self._advance([bool(r) for r in refusals])

    def fail(self, error: Exception) -> None:
        """End the session with an ``error`` answer (the model could not judge its rows)."""
        self._steps.close()
        self.questions = None
        self.result = Recourse.failed(self.row, error, self._record)

    def run(self, judge: Callable[[Sequence[Row]], Sequence[bool]]) -> Recourse:
        """Answer every question with ``judge`` (rows -> refusals) and return the result."""
        while self.questions is not None:
            self.answer(judge(self.questions))
        assert self.result is not None
        return self.result

    def _advance(self, refusals: list[bool] | None) -> None:
        try:
            self.questions = self._steps.send(refusals)  # type: ignore[arg-type]
        except StopIteration as finished:
            self.questions, self.result = None, finished.value


class _Clock:
    """The time a search spends searching, without the time it waits for the model."""

    def __init__(self) -> None:
        self._spent = 0.0
        self._since = time.perf_counter()

    def away(self, rows: Sequence[Row]) -> Generator[Sequence[Row], list[bool], list[bool]]:
        self._spent += time.perf_counter() - self._since
        refusals = yield rows
        self._since = time.perf_counter()
        return refusals

    def waiting(self, steps: Generator[Sequence[Row], list[bool], Any]) -> Generator[Sequence[Row], list[bool], Any]:
        """``steps``, with the time each of its questions waits for the model left out."""
        try:
            rows = next(steps)
            while True:
                rows = steps.send((yield from self.away(rows)))
        except StopIteration as done:
            return done.value
        finally:
            steps.close()  # a session abandoned at a question closes the search it waited in

    def seconds(self) -> float:
        return self._spent + time.perf_counter() - self._since


def _search(engine: Engine, row: Row, k: int, where: str, session: Session) -> Steps:
    """The person's answer: the search by the rules alone or with the black box, then the
    options' steps, with one run record built at the end of whichever path it took."""
    clock = _Clock()
    box = engine.black_box
    if box is not None:
        box.check_columns(row)
    instance = engine.instance(row, where)
    firing = engine.firing(instance)
    verdicts, hunted_by, wider, read, holding = None, None, None, None, Holding(engine, row)
    if box is None:
        outcome = yield from _by_rules(engine, instance, k, bool(firing))
    elif engine.glass is not None:
        outcome, judged, read = yield from clock.waiting(searched(engine, row, k, instance, lambda p, a: drafts_of(engine, row, p, a)))
    else:
        verdicts = Verdicts(row, holding.wrap(clock.away), engine.consequences(instance), clock.seconds)
        hunt = Hunt(engine, row, k, verdicts, instance, bool(firing), lambda p, a: [d.values for d in drafts_of(engine, row, p, a)[1]])
        progress = yield from hunted(hunt)  # the hunt's phases (:mod:`mc3g.hunt.phases`)
        outcome, wider = (None, 0) if progress is None else (progress.outcome, progress.wider_draws)
        hunted_by = None if progress is None else (hunt, progress)
    if outcome is None:
        reason = f"the decision for this person is not {engine.unfavourable!r}, so it is already favourable."
        return Recourse(row, NOT_REFUSED, reasons=(reason,), run=_record(engine, k, None, verdicts, wider, clock, read))
    session.problem, session.outside = outcome.problem, outcome.outside
    decision, refusing = tuple(engine.words.rule(r) for r in firing), tuple(firing)
    passed = read.passed_over if read is not None else holding.passed_over
    if not outcome.found and not outcome.unlike:  # none found (the hunt's passed over as unlike every past applicant are said below)
        proved = outcome.rules == READ and outcome.stopped != READ_ALL and not passed
        opened = None
        if proved:
            opened, also = yield from clock.waiting(blocking(engine, row, instance))
            assert read is not None  # proved: the model read exactly was searched
            read = Confirmed(read.calls + also.calls, read.rows + also.rows)  # ties asked of the model count
        reasons = _no_option(engine, outcome, verdicts, wider) + ((what_opens(engine, opened),) if proved else ())
        reasons = ((passed_over(engine, passed),) + reasons[outcome.rules == READ :]) if passed else reasons
        turned = None if verdicts is None else (yield from turns(engine, {**row, **instance}, verdicts))  # asked once the reasons count what was searched
        reasons += (TURNED,) if turned else ()
        run = _record(engine, k, outcome, verdicts, wider, clock, read)
        blocked = None if opened is None else tuple(tuple((lift.feature, lift.name) for lift in unit) for unit in opened)
        return Recourse(row, NO_COUNTERFACTUAL, reasons=reasons, decision=decision, run=run, refusing=refusing, blocking=blocked, turns_on=turned)
    if read is not None:
        counterfactuals = tuple(replace(cf, steps=tuple(_step(cf, draft, refused) for draft, refused in steps)) for cf, steps in judged)
    else:
        counterfactuals = yield from _with_steps(engine, row, outcome, hunted_by)
    found = len(counterfactuals) + outcome.unlike  # the hunt passed over those unlike every past applicant
    counterfactuals, unlike = _typical(engine, {**row, **instance}, with_survival(engine, counterfactuals))
    unlike += outcome.unlike
    if not counterfactuals:  # every option found is unlike every past applicant
        run = _record(engine, k, outcome, verdicts, wider, clock, read)
        return Recourse(row, NO_COUNTERFACTUAL, reasons=(_unlike(unlike, found, k),), decision=decision, run=run, refusing=refusing, unlike=unlike)
    fewer = _fewer(engine, outcome, verdicts, wider, found, k)
    if fewer and passed:
        fewer += " " + passed_over(engine, passed)
    if unlike and len(counterfactuals) < k:  # with K, those passed over are only counted (``unlike``)
        fewer = (fewer.rstrip(".") + "; " if fewer else f"Only {len(counterfactuals)} of the {k} options asked for: ") + _unlike(unlike, found, k)
    principal = principal_reasons(engine, {**row, **instance}, _judged_alone(engine, instance, outcome.problem, verdicts), counterfactuals)
    run = _record(engine, k, outcome, verdicts, wider, clock, read)
    return Recourse(row, REFUSED, counterfactuals, decision=decision, run=run, refusing=refusing, fewer=fewer, principal=principal, unlike=unlike)


def _by_rules(engine: Engine, instance: Mapping[str, Any], k: int, firing: bool) -> Generator[list[Row], list[bool], Outcome | None]:
    """Plain decision rules: the K least-cost states that escape them, read in exact cost order
    to the budget (no question is asked); None when no rule refuses the person."""
    problem = engine.problem(instance, k)
    budget = engine.settings.max_states
    found, stopped, _ = yield from verified(problem, StateStream(problem, budget), k, engine.settings.distinct, None, budget)
    stopped = FOUND if len(found) == k else stopped
    return Outcome(engine, problem, k, tuple(found), stopped, "given", priced_in=(problem,) * len(found)) if firing else None


def _with_steps(
    engine: Engine, row: Row, outcome: Outcome, hunted: tuple[Hunt, Progress] | None
) -> Generator[list[Row], list[bool], tuple[Counterfactual, ...]]:
    """The options with their steps, each step judged: by the model for a black box (``hunted``:
    the hunt and where it ended; one call for all, what rides along with the hunt's calls too),
    by the decision rules otherwise."""
    drafted = [drafts_of(engine, row, p, a) for p, a in zip(outcome.priced_in, outcome.found)]
    options, drafts = [option for option, _ in drafted], [steps for _, steps in drafted]
    if hunted is not None:
        hunt, progress = hunted
        hunt.enter(STEPS)
        asked = yield from hunt.ask(progress, [], [hunt.verdicts.key(draft.values) for steps in drafts for draft in steps])
        refusals = iter([not ok for ok in asked])
    else:
        problem = outcome.problem
        refusals = iter([any(problem.covers(r, draft.state) for r in engine.decision) for steps in drafts for draft in steps])
    return tuple(replace(cf, steps=tuple(_step(cf, draft, next(refusals)) for draft in steps)) for cf, steps in zip(options, drafts))


def _typical(engine: Engine, person: Mapping[str, Any], options: tuple[Counterfactual, ...]) -> tuple[tuple[Counterfactual, ...], int]:
    """Each option with its remoteness from past applicants and, under a profile that keeps advice
    where people have been (``product``), those unlike every past applicant left out, and how many."""
    past = engine.observed.past
    if past is None or not options:
        return options, 0
    far = past.remoteness(person, [cf.values for cf in options])
    measured = tuple(replace(cf, remoteness=float(r)) for cf, r in zip(options, far))
    if not engine.settings.profile.typical:
        return measured, 0
    kept = tuple(cf for cf in measured if cf.remoteness is not None and cf.remoteness <= past.farthest)
    return kept, len(measured) - len(kept)


def _unlike(unlike: int, found: int, k: int) -> str:
    """Why options found were left out: unlike every past applicant."""
    which = "the one option found" if found == 1 else f"{unlike} of the {found} options found"
    share = f"{PastApplicants.quantile:.0%}"
    return f"{which} {'is' if unlike == 1 else 'are'} left out: farther from every past applicant than {share} of past applicants lie from theirs."


def _judged_alone(engine: Engine, instance: Mapping[str, Any], problem: Problem, verdicts: Verdicts | None) -> list[SingleChange]:
    """The person's single changes and the model's verdict on each: for a black box searched in
    rounds, those its search asked; else every one open to them in ``problem``, judged by the
    decision rules or the model read exactly (None where only the model could tell)."""
    if verdicts is not None:
        return verdicts.judged_alone()
    changes, rows = single_changes(problem, instance)
    if not rows:
        return []
    glass = engine.glass
    if glass is not None:
        said = glass.verdicts(glass.margins({f: [r[f] for r in rows] for f in glass.features}))
        accepted: list[bool | None] = [None if v == 0 else bool(v > 0) for v in said.tolist()]
    else:
        accepted = (~engine.refuses(pd.DataFrame(rows))).tolist()
    return [(name, value, ok) for (name, value), ok in zip(changes, accepted)]


def _no_option(engine: Engine, outcome: Outcome, verdicts: Verdicts | None, wider: int | None) -> tuple[str, ...]:
    """Why the person has no option: the rules that cannot be escaped within the knowledge, the
    model read exactly accepting no state (a proof), or what the model refused; for a black
    box, what else it was asked."""
    if outcome.rules == READ:
        needs = f" with {needs}" if (needs := needed(engine)) else ""
        return (f"{PROVED}{needs}: it was searched over every state the causal knowledge and the protections allow.",)
    if verdicts is None or not verdicts.rejected:
        reasons = tuple(why_none(outcome.problem, engine.words, imitated=verdicts is not None))
    else:
        reasons = (_unanswered(engine, outcome, verdicts),)
    return reasons + ((_undrawn(engine, verdicts, wider or 0),) if verdicts is not None and verdicts.free else ())


def _record(
    engine: Engine, k: int, outcome: Outcome | None, verdicts: Verdicts | None, wider: int | None, clock: _Clock, read: Confirmed | None = None
) -> RunRecord:
    """The answer's run record: the settings, the space searched and why it stopped, for a black
    box what the model was asked (``wider``: the draws made again; ``read``: the calls that
    confirmed an answer against the model read exactly), and the time searched."""
    record = RunRecord.of(engine, k)
    if outcome is not None:
        space = outcome.problem.space
        guarantee = "surrogate" if outcome.rules not in ("given", READ) else "bounded" if outcome.stopped == READ_ALL else "exact"
        record = replace(record, n_regions=space.n_regions, n_candidates=space.n_candidates, stopped=outcome.stopped, guarantee=guarantee)
        if verdicts is not None:
            record = replace(record, fidelity=engine.fidelity, rejected_by_model=verdicts.rejected, judged_by_model=verdicts.judged, rules=outcome.rules)
    if read is not None:
        rules = None if outcome is None else READ
        record = replace(
            record, fidelity=engine.fidelity, judged_by_model=read.rows, rejected_by_model=0, model_rounds=read.calls, rows_asked=read.rows, rules=rules
        )
        return replace(record, search_seconds=clock.seconds())
    if verdicts is not None:
        record = replace(record, wider_draws=wider)
    return _measured(record, clock, verdicts)


def _measured(record: RunRecord, clock: _Clock, verdicts: Verdicts | None) -> RunRecord:
    """The record with the time searched so far and, for a black box, the rounds of questions, the
    rows they held and the time each part of the search took."""
    rounds = {}
    if verdicts is not None:
        verdicts.phase = ""  # the last part's time ends here
        rounds = {
            "model_rounds": verdicts.rounds, "rows_asked": verdicts.asked,
            "rounds_by_phase": dict(verdicts.by_phase), "seconds_by_phase": dict(verdicts.seconds_by_phase),
        }  # fmt: skip
    return replace(record, search_seconds=clock.seconds(), **rounds)


SEARCHED = {
    "global": "the surrogate rules",
    "local": "rules learned near the person",
    "none": "no rules (the model alone)",
    READ: "the model's own decision, read exactly",
}
PROVED = "The model accepts no state within the causal knowledge, proved on its own decision read exactly"


def _stopped(engine: Engine, outcome: Outcome) -> str:
    """Where a search that stopped before its end stopped, in words; '' when it read every state."""
    most = engine.settings.max_states
    times = 1 if engine.black_box is None or engine.glass is not None else engine.settings.hunt.read
    read = f"{times * most} candidate states ({'' if times == 1 else f'{times} × '}max_states)"
    return {
        BUDGET: f"it stopped at the limit of {most} states judged per person (max_states)",
        READ_ALL: f"it stopped after reading {read}, most of them adding actions to an option",
    }.get(outcome.stopped, "")


def _unanswered(engine: Engine, outcome: Outcome, verdicts: Verdicts) -> str:
    """Why a black box's search found nothing the model accepts: how far it went, and why it stopped."""
    why = _stopped(engine, outcome) or "no candidate state was left"
    return f"the model refused all {verdicts.rejected} of the {verdicts.judged} states it judged, searched with {SEARCHED[outcome.rules]}; {why}."


def _undrawn(engine: Engine, verdicts: Verdicts, wider: int) -> str:
    """What else a black box was asked for a person left with no option."""
    asked = f"The model accepted none of the {verdicts.free} other rows it was asked about that keep the knowledge"
    return f"{asked}: {_beside(engine, wider)}."


def _beside(engine: Engine, wider: int) -> str:
    """The rows a black box is asked about beside the search's states: the single changes,
    points sectioned and, with local search on, rows drawn around the person (the draw made
    again, wider, ``wider`` times)."""
    widest = engine.settings.hunt.widest_draw
    again = f" (the draw made again, wider, up to {widest:,} rows and as many changing every feature)" if wider else ""
    drawn = f" and rows drawn around them{again}" if engine.settings.local else ""
    return f"the person's single changes, points sectioned{drawn}"


def _fewer(engine: Engine, outcome: Outcome, verdicts: Verdicts | None, wider: int | None, n: int, k: int) -> str:
    """Why an answer has ``n`` options where ``k`` were asked for ('' when it has them all): the
    search stopped at a bound, or every state within the knowledge was read, or (a black box)
    what the model refused and what else it was asked."""
    if n >= k:
        return ""
    found = f"Only {n} of the {k} options asked for"
    if stopped := _stopped(engine, outcome):
        return f"{found}: {stopped}, so more may exist."
    other = "distinct set of actions" if engine.settings.distinct else "state"
    if outcome.rules == READ:
        return f"{found}: the model accepts no other {other} within the causal knowledge (its decision read exactly, every state searched)."
    if verdicts is None:
        return f"{found}: no other {other} escapes the decision rules within the causal knowledge (the search read every state)."
    rules = SEARCHED[outcome.rules]
    searched = f"the model refused every other {other} that {rules} let through within the causal knowledge ({verdicts.judged} states judged)"
    if not verdicts.judged:
        searched = f"the search with {rules} left no other {other} to judge within the causal knowledge"
    beside = f" Nor did the {verdicts.free:,} other rows it was asked about give another: {_beside(engine, wider or 0)}." if verdicts.free else ""
    return f"{found}: {searched}; the model may accept states those rules do not describe.{beside}"


def _step(option: Counterfactual, draft: Draft, refused: bool) -> Step:
    direct = {a.feature: a for a in option.direct_actions}
    caused = {c.feature: c for c in option.caused_changes}
    return Step(tuple(direct[n] for n in draft.actions), tuple(caused[n] for n in draft.caused), draft.values, refused)


def drafts_of(engine: Engine, row: Row, problem: Problem, found: Assessment) -> tuple[Counterfactual, list[Draft]]:
    """A priced state as the person reads it, and its steps."""
    option = changes_of(engine, row, problem, found)
    return option, order(problem, found, [d.feature for d in option.direct_actions])


def changes_of(engine: Engine, row: Row, problem: Problem, found: Assessment) -> Counterfactual:
    """A priced state as the person reads it: what they do, and what follows by itself."""
    values = {**row, **problem.describe(found.state)}
    direct, caused = [], []
    for name in problem.names:
        before, after = problem.value(name, problem.original_state()), problem.value(name, found.state)
        if before == after:
            continue
        cost = found.terms.get(name, 0.0)
        if name in found.caused:
            caused.append(CausedChange.of(engine.words, name, before, after, found.caused[name], cost))
        else:
            direct.append(DirectAction.of(engine.words, name, before, after, cost))
    # Actions that set off a consequence read first: "clear your debt; your score follows".
    triggers = {f for rule in found.caused.values() for f in rule.cause_features}
    direct.sort(key=lambda a: a.feature not in triggers)
    return Counterfactual(values, tuple(direct), tuple(caused), found.cost, engine.settings.distance.label, engine.settings.mode)
