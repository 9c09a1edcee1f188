"""One person's search, driven from outside.

A :class:`Session` asks questions — rows for the black box to judge — and is told which of them
the model refuses, until it has the person's :class:`Recourse`.  Keeping the model outside the
search lets many sessions share one ``predict`` call (a batch, a service, a cluster worker: a
model call costs about the same for one row as for thousands).  Plain rules need no model, so
such a session is done as soon as it is made.

The search is MC3G's (Dasgupta et al., NeSy 2025): the least-cost states that satisfy the causal
knowledge and escape the decision rules, in exact cost order; for a black box every state is
checked with the model before it is returned, and where the model's boundary lies past the
candidate values tried, more values per atom are taken.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..exceptions import BlackBoxError, InputError
from ..rules import rule_to_english
from ..search import ActionSets, Assessment, Problem, StateStream
from .engine import Engine
from .reasons import why_none
from .result import NO_COUNTERFACTUAL, NOT_REFUSED, REFUSED, CausedChange, Counterfactual, DirectAction, Recourse, Step
from .steps import Draft, order

WIDEST = 512  # candidate values per atom at most, when widening the search for a black box
BATCH = 1024  # states the model is asked about at once, at most, for one person

Row = dict[str, Any]
Steps = Generator[list[Row], list[bool], Recourse]


class Session:
    """The search for one person (``row``: the person's values, named ``where`` in an error)
    with ``k`` counterfactuals.

    While :attr:`questions` holds rows, the driver has the model judge them and passes back, in
    the same order, whether it refuses each one (:meth:`answer`); when :attr:`done`,
    :attr:`result` is the answer.  :meth:`run` does all of that with one judge."""

    def __init__(self, engine: Engine, row: Mapping[str, Any], k: int, where: str = "the row") -> None:
        self.row = dict(row)
        self.k = k
        self.questions: list[Row] | None = None
        self.result: Recourse | None = None
        self._record = engine.record(k)
        self._steps = _search(engine, self.row, k, where)
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

    def run(self, judge: Callable[[list[Row]], Sequence[bool]]) -> Recourse:
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

    def away(self, rows: list[Row]) -> Generator[list[Row], list[bool], list[bool]]:
        self._spent += time.perf_counter() - self._since
        refusals = yield rows
        self._since = time.perf_counter()
        return refusals

    def seconds(self) -> float:
        return self._spent + time.perf_counter() - self._since


def _search(engine: Engine, row: Row, k: int, where: str) -> Steps:
    clock = _Clock()
    record = engine.record(k)
    box = engine.black_box
    if box is not None:
        box.check_columns(row)
    instance = engine.instance(row, where)
    firing = engine.firing(instance)
    refused = (yield from clock.away([row]))[0] if box is not None else bool(firing)
    if not refused:
        reason = f"the decision for this person is not {engine.unfavourable!r}, so it is already favourable."
        return Recourse(row, NOT_REFUSED, reasons=(reason,), run=record)
    decision = tuple(rule_to_english(r) for r in firing)
    # Where the model refuses but its surrogate rules do not, the rules cannot say what to
    # escape; the states are then searched in cost order and the model alone decides.
    escape = engine.decision if firing or box is None else []
    verdicts: dict[tuple, bool] = {}
    per_atom = k
    problem = engine.problem(instance, per_atom, escape)
    found, rejected, exhausted, doubted = yield from _verified(engine, problem, row, k, verdicts, clock)
    max_states = engine.settings.max_states
    while box is not None and len(found) < k and exhausted and doubted and per_atom < WIDEST and len(verdicts) < max_states:
        # The model's boundary lies past the values tried: take more values per atom (the
        # states the model has judged count against max_states across the rounds).  Only a
        # refused state that moves a number, and could still be an answer, makes this worth it:
        # k values per atom already hold the k cheapest states (and options) the rules allow,
        # and more values per atom add numbers only.  A wider round holds the narrower one's
        # states, so its answer replaces the narrower one's, unless it ran out of budget first.
        per_atom *= 8
        wider = engine.problem(instance, per_atom, escape)
        more_found, more, exhausted, doubted = yield from _verified(engine, wider, row, k, verdicts, clock)
        rejected += more
        if len(more_found) < len(found):
            break
        problem, found = wider, more_found
    record = replace(record, n_regions=problem.space.n_regions, n_candidates=problem.space.n_candidates)
    if box is not None:
        record = replace(record, fidelity=engine.fidelity, rejected_by_model=rejected, judged_by_model=len(verdicts))
    record = replace(record, search_seconds=clock.seconds())
    if not found:
        reasons = (
            why_none(problem)
            if not rejected
            else [
                f"the model still refused all {rejected} least-cost candidate states"
                + ("" if firing else " (its surrogate rules do not refuse this person, so the model alone decided)")
                + f"; the search asks the model about at most {max_states} states per person."
            ]
        )
        return Recourse(row, NO_COUNTERFACTUAL, reasons=tuple(reasons), decision=decision, run=record)
    options = [changes_of(engine, row, problem, a) for a in found]
    drafts = [order(problem, a, [d.feature for d in cf.direct_actions]) for a, cf in zip(found, options)]
    if box is not None:
        refusals = iter((yield from clock.away([{**row, **draft.values} for steps in drafts for draft in steps])))
    else:
        refusals = iter([any(problem.covers(r, draft.state) for r in engine.decision) for steps in drafts for draft in steps])
    counterfactuals = tuple(replace(cf, steps=tuple(_step(cf, draft, next(refusals)) for draft in steps)) for cf, steps in zip(options, drafts))
    record = replace(record, search_seconds=clock.seconds())
    return Recourse(row, REFUSED, counterfactuals, decision=decision, run=record)


def _step(option: Counterfactual, draft: Draft, refused: bool) -> Step:
    direct = {a.feature: a for a in option.direct_actions}
    caused = {c.feature: c for c in option.caused_changes}
    return Step(tuple(direct[n] for n in draft.actions), tuple(caused[n] for n in draft.caused), draft.values, refused)


def _verified(
    engine: Engine, problem: Problem, row: Row, k: int, verdicts: dict[tuple, bool], clock: _Clock
) -> Generator[list[Row], list[bool], tuple[list[Assessment], int, bool, bool]]:
    """The k least-cost states that the black box accepts (all, for plain rules) and, with
    ``distinct``, whose action sets truly differ; how many the model newly rejected; whether the
    candidate space ran out; and whether the model refused a state read here that moves a
    numeric feature and could still be an answer (more values per atom might then help).  The
    model is asked in batches and never twice about the same values (``verdicts`` remembers)."""
    candidates = StateStream(problem, max(engine.settings.max_states - len(verdicts), 1))
    box = engine.black_box
    options = ActionSets() if engine.settings.distinct else None
    kept: list[Assessment] = []
    rejected = 0
    refused: list[Assessment] = []
    numeric = [i for i, f in enumerate(problem.space.features) if f.feature.is_numeric]
    size = k if box is None else 4 * k
    while len(kept) < k:
        batch = candidates.take(size)
        size = min(2 * size, BATCH)  # the model disagrees here, or the options repeat: read more at once
        if not batch:
            doubted = any(any(a.state[i] for i in numeric) and (options is None or options.open(a)) for a in refused)
            return kept, rejected, True, doubted
        accepted = [True] * len(batch)
        if box is not None:
            if options is not None:  # a state that adds actions to an option cannot be one: the model need not see it
                batch = [state for state in batch if options.open(state)]
            keys = [problem.values_of(a.state) for a in batch]
            unknown = [i for i, key in enumerate(keys) if key not in verdicts]
            if unknown:
                refusals = yield from clock.away([{**row, **dict(zip(problem.names, keys[i]))} for i in unknown])
                for i, refuses in zip(unknown, refusals):
                    verdicts[keys[i]] = not refuses
                    rejected += refuses
            accepted = [verdicts[key] for key in keys]
            refused += [state for state, ok in zip(batch, accepted) if not ok]
        for state, ok in zip(batch, accepted):
            if len(kept) < k and ok and (options is None or options.admit(state)):
                kept.append(state)
                if options is not None:
                    candidates.exclude(frozenset(state.direct))
    return kept, rejected, False, True


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
            rule = found.caused[name]
            caused.append(CausedChange(name, before, after, str(rule), cost, forced=rule.constraint))
        else:
            direct.append(DirectAction(name, before, after, cost))
    # Actions that set off a consequence read first: "clear your debt; your score follows".
    triggers = {f for rule in found.caused.values() for f in rule.cause_features}
    direct.sort(key=lambda a: a.feature not in triggers)
    return Counterfactual(values, tuple(direct), tuple(caused), found.cost, engine.settings.distance.label, engine.settings.mode)
