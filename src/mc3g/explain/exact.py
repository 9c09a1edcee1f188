"""One person's search against a model whose decision is read exactly (:mod:`mc3g.glassbox`).

The model's trees are part of the one exact program (:mod:`mc3g.search`), so the states come
out in exact cost order already accepted by the model as read: the options are the K
least-cost (distinct) states the model itself accepts, and no state at all is a proof that it
accepts none within the knowledge.  Where a state's margin is within rounding of the decision
(a tie, most often), only the model can tell: such states are asked, a batch at a time, as the
reading meets them.  Then the model is asked once, for the person and every step of every option
together, to confirm the answer: where the reading was sure, a different verdict is a
:class:`~mc3g.exceptions.ReadingError` naming the row, never an answer.
"""

from __future__ import annotations

import collections
import functools
import heapq
import itertools
import math
import weakref
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..engine import Engine, lifted
from ..exceptions import ReadingError, SearchError
from ..hunt import FOUND, READ_ALL, Outcome
from ..models import ChangedRows
from ..search import MOST_CONFLICTS, ActionSets, Assessment, Completion, Lift, Problem, SharedLifts, StateStream, openings
from .steps import Draft

Row = dict[str, Any]
READ = "model"  # an Outcome's rules: the model's own decision, read exactly
EXHAUSTED = "exhausted"
BATCH = 16  # states read at a time, beside K
CHECKED = 256  # at most, states read at a time where options must also hold (each batch costs a call of every retrained model)
BOXES = 64  # a linear score's boxes read at a time: each is cheap to bound, the solver's reads are not
LIFTED_WORDS = {
    "immutable": "{feature} could change",
    "consequence_only": "{feature} could be changed directly",
    "direction": "{feature} could move the other way",
    "max_change": "{feature} could move by more than {held.max_change:g}",
    "targets": "{feature} could take values it may not now",
    "moves": "{feature} could make moves it may not now",
}


@dataclass(frozen=True)
class Confirmed:
    """What the model was asked: its calls and the rows they held; and how many states it accepts
    were passed over as not sure to hold (:class:`~mc3g.models.Robustness`)."""

    calls: int
    rows: int
    passed_over: int = 0


Drafted = tuple[Any, list[Draft]]  # an option in words, and its steps
Judged = list[tuple[Any, list[tuple[Draft, bool]]]]  # each option with its steps and whether the model refuses each
Asking = Generator[Sequence[Row], list[bool], Any]


class _Asked:
    """The model's calls of one person, counted, and the states it accepts that do not hold
    (``holds``: the black box's robustness checks, asked in this process)."""

    def __init__(self, holds: Callable[[list[Row]], list[bool]] | None = None) -> None:
        self.calls = self.rows = self.passed_over = 0
        self.holds = holds

    def unsure(self, rows: list[Row]) -> list[bool]:
        """Whether each row the model accepts fails to hold, counted."""
        assert self.holds is not None
        if not rows:
            return []
        failing = [not held for held in self.holds(rows)]
        self.passed_over += sum(failing)
        return failing

    def confirmed(self) -> Confirmed:
        return Confirmed(self.calls, self.rows, self.passed_over)

    def ask(self, rows: Sequence[Row]) -> Asking:
        if not rows:
            return []
        self.calls, self.rows = self.calls + 1, self.rows + len(rows)
        return (yield rows)


def searched(engine: Engine, row: Row, k: int, instance: Mapping[str, Any], drafts_of: Callable[[Problem, Assessment], Drafted]) -> Asking:
    """The person's options against the model read exactly, each with its steps and the model's
    verdict on each (``drafts_of(problem, state)``: the option in words and its steps): the
    outcome (None when the model does not refuse the person), the options judged, and what the
    model was asked (:class:`Confirmed`)."""
    robust = engine.black_box.robust if engine.black_box is not None else None
    asked = _Asked(engine.black_box.holding if robust is not None else None)  # type: ignore[union-attr]
    person = int(_decided(engine, [row])[0])  # the decision itself, whatever an option must clear
    if person >= 0:  # the reading accepts the person, or only the model can tell: ask it alone
        (refused,) = yield from asked.ask(_around(row, [{}]))
        if person > 0 and refused:
            raise ReadingError(f"the model refuses {_named(row)}, and its decision read exactly accepts it")
        if not refused:
            return None, [], asked.confirmed()
    problem = engine.read_problem(instance, k)  # only for a person refused: a portfolio's accepted cost nothing more
    assert problem.score is not None
    chosen = _Chosen(engine, row, {**row, **instance}, k, asked)
    if problem.score.refuses_every_state() or problem.score.refuses_at_each_value():  # no state reaches the decision: proved without a solve
        stopped = EXHAUSTED
    else:
        stopped = yield from (_completed if problem.score.spanned else _options)(engine, problem, chosen)
    options = chosen.kept
    drafted = [drafts_of(held, a) for a, held in options]
    steps = [draft for _, drafts in drafted for draft in drafts]
    lead = [] if asked.calls else [{}]  # the person, unless asked already
    refusals = yield from asked.ask(_around(row, lead + [draft.values for draft in steps]))
    if lead and not refusals[0]:
        raise ReadingError(f"the model accepts {_named(row)}, and its decision read exactly refuses it")
    said = refusals[len(lead) :]
    _check(engine, [{**row, **draft.values} for draft in steps], said)
    ends = list(itertools.accumulate(len(drafts) for _, drafts in drafted))
    judged = [(option, list(zip(drafts, said[end - len(drafts) : end]))) for (option, drafts), end in zip(drafted, ends)]
    found, priced_in = tuple(a for a, _ in options), tuple(held for _, held in options)
    outcome = Outcome(engine, problem, k, found, stopped, READ, priced_in=priced_in, unlike=chosen.unlike)
    return outcome, judged, asked.confirmed()


Option = tuple[Assessment, Problem]  # a state found, and the problem it is priced in


class _Chosen:
    """The options kept, in exact cost order, up to K: the states the model accepts and that
    hold, with distinct action sets under ``distinct``, and none unlike every past applicant
    where the profile leaves those out (:class:`~mc3g.search.PastApplicants`).  Those are passed
    over as the reading meets them, counted once an action set (:attr:`unlike`), and take no
    place: chosen first and left out after, cheaper implausible states crowded out the K
    plausible ones behind them, as they did a black box's."""

    def __init__(self, engine: Engine, row: Row, person: Mapping[str, Any], k: int, asked: _Asked) -> None:
        self.row, self.person, self.k, self.asked = row, person, k, asked
        distinct = engine.settings.distinct
        self.options, self._far = (ActionSets(), ActionSets()) if distinct else (None, None)
        self._past = engine.observed.past if engine.settings.profile.typical else None
        self.kept: list[Option] = []
        self.unlike = 0  # options passed over as unlike every past applicant

    @property
    def full(self) -> bool:
        return len(self.kept) >= self.k

    def open(self, state: Assessment) -> bool:
        """Whether ``state`` may still become an option (:meth:`ActionSets.open`)."""
        return self.options is None or self.options.open(state)

    def take(self, stream: StateStream, batch: list[Option]) -> Asking:
        """Keep the states of ``batch`` (in cost order) the model accepts and that hold, up to K
        options: those the reading is not sure of asked of the model together."""
        sure = [int(p.score.verdicts(np.array([a.state], dtype=np.intp))[0]) for a, p in batch]  # type: ignore[union-attr]
        doubted = [(a, p) for (a, p), v in zip(batch, sure) if v == 0]
        said = yield from self.asked.ask(_around(self.row, [p.describe(a.state) for a, p in doubted]))
        refused = {id(a) for (a, _), no in zip(doubted, said) if no} | {id(a) for (a, _), v in zip(batch, sure) if v < 0}
        far: dict[int, bool] = {}
        for i, (a, p) in enumerate(batch):
            if self.full or id(a) in refused or not self.open(a):
                continue
            if id(a) not in far:
                self._judge([(b, q) for b, q in batch[i:] if id(b) not in refused and self.open(b)], refused, far)
            if id(a) in refused:
                continue
            if far[id(a)]:
                self.unlike += self._far is None or self._far.admit(a)
            elif self.options is None or self.options.admit(a):
                self.kept.append((a, p))
                if self.options is not None:
                    stream.exclude(frozenset(a.direct))

    def _judge(self, accepted: list[Option], refused: set[int], far: dict[int, bool]) -> None:
        """Whether the next states the model accepts (``accepted``, in cost order) are unlike
        every past applicant (``far``): as many as options are still wanted (the next ones when
        one is passed over), or, where options must hold, all of them, with those like past
        applicants that fail to hold ``refused`` (the retrained models asked once a batch)."""
        chunk = accepted if self.asked.holds is not None else accepted[: self.k - len(self.kept)]
        described = [p.describe(a.state) for a, p in chunk]
        states = [{**self.row, **values} for values in described]
        unlike = self._past.unlike(self.person, states, base=self.row).tolist() if self._past is not None else [False] * len(chunk)
        far.update(zip((id(a) for a, _ in chunk), unlike))
        if self.asked.holds is not None:
            held = [(a, values) for (a, _), values, passed in zip(chunk, described, unlike) if not passed]
            failing = self.asked.unsure(list(_around(self.row, [values for _, values in held])))
            refused.update(id(a) for (a, _), no in zip(held, failing) if no)


def _options(engine: Engine, problem: Problem, chosen: _Chosen) -> Generator[Sequence[Row], list[bool], str]:
    """The K options (:class:`_Chosen`) among the states in exact cost order, and why the
    reading stopped; a state whose margin is within rounding of the decision is asked of the
    model, with the others of its batch."""
    stream = StateStream(problem, engine.settings.max_states)
    ahead = BATCH
    while not chosen.full:
        batch = stream.take(chosen.k + ahead)
        if not batch:
            return READ_ALL if stream.at_limit else EXHAUSTED
        yield from chosen.take(stream, [(a, problem) for a in batch if chosen.open(a)])
        ahead = ahead if chosen.asked.holds is None else min(2 * ahead, CHECKED)  # options that must hold: fewer, larger batches
    return FOUND


def _completed(engine: Engine, problem: Problem, chosen: _Chosen) -> Generator[Sequence[Row], list[bool], str]:
    """:func:`_options` for a linear score, whose states the stream reads as boxes, in the order
    of the least each holds.  Each box read is given a floor (what its states that may be
    accepted cost at least), completed (its least-cost states, :class:`Completion`)
    only when no state found costs less than that floor, and a state found is kept once no box,
    read or not, may hold a cheaper one."""
    k, distinct = chosen.k, engine.settings.distinct
    stream = StateStream(problem, engine.settings.max_states)
    completion = Completion(problem, engine.spreads)
    unread: collections.deque[Assessment] = collections.deque()
    boxes: list[tuple[float, int, Assessment]] = []  # read, by floor
    held: list[tuple[Any, int, Assessment, Problem]] = []  # found, by cost
    order = itertools.count()
    while not chosen.full:
        if not unread:
            unread.extend(stream.take(k + BOXES))
        least = min(unread[0].exact if unread else math.inf, boxes[0][0] if boxes else math.inf)
        if held and held[0][0] <= least:  # no box may hold a cheaper state than these
            ready = []
            while held and held[0][0] <= least:
                _, _, a, p = heapq.heappop(held)
                ready += [(a, p)] if chosen.open(a) else []
            yield from chosen.take(stream, ready)
        elif unread and unread[0].exact <= least:
            box = unread.popleft()
            if chosen.open(box):
                heapq.heappush(boxes, (completion.floor(box), next(order), box))
        elif boxes and boxes[0][0] < math.inf:
            _, _, box = heapq.heappop(boxes)
            if chosen.open(box):
                for a, p in completion.completed(box, 1 if distinct else k):
                    heapq.heappush(held, (a.exact, next(order), a, p))
        else:
            return READ_ALL if stream.at_limit else EXHAUSTED
    return FOUND


def blocking(
    engine: Engine, row: Row, instance: Mapping[str, Any], conflicts: int = MOST_CONFLICTS
) -> Generator[Sequence[Row], list[bool], tuple[tuple[tuple[Lift, ...], ...] | None, Confirmed]]:
    """For a person the model read exactly accepts in no state within the protections: the
    smallest sets of protections whose lifting would let it accept one (``()``: none would;
    None: the solver's ``conflicts`` ran out first), and what the model was asked: a state whose
    margin is within rounding of the decision (a tie) opens a way out only if the model says so."""
    asked = _Asked()

    def opens(held: Problem, state: Assessment, read: int | None) -> Generator[Sequence[Row], list[bool], bool]:
        score = held.score if read is None else None  # a program shared reads the model on its cells: no score of the person's made
        spanned = score is not None and score.spanned  # a box of a linear score: its states
        states = Completion(held, engine.spreads).completed(state) if spanned else [(state, held)]
        for a, p in states:
            verdict = read if read is not None else int(p.score.verdicts(np.array([a.state], dtype=np.intp))[0])  # type: ignore[union-attr]
            if verdict == 0:
                (refused,) = yield from asked.ask(_around(row, [p.describe(a.state)]))
                verdict = -1 if refused else 1
            if verdict > 0:
                return True
        return False

    shared = functools.partial(_shared, engine)
    found = yield from openings(lambda lifting: lifted(engine, instance, lifting), engine.protections_in_play(), opens, conflicts, shared)
    if found is not None and () in found:  # a state within every protection the model accepts: the proof of no way out and this search disagree
        raise SearchError(f"no way out was proved for {_named(row)}, yet a state within every protection opens one: the two searches disagree")
    return None if found is None else tuple(found), Confirmed(asked.calls, asked.rows)


def what_opens(engine: Engine, opened: tuple[tuple[Lift, ...], ...] | None) -> str:
    """What would open a way out, in words the applicant reads: each smallest set of protections
    lifted, but never one that names a protected characteristic (the lender reads every set in
    :attr:`~mc3g.explain.Recourse.blocking`)."""
    if opened is None:
        return f"What would open a way out was not worked out: the solver's bound on that work ({MOST_CONFLICTS:,} conflicts) was reached first."
    if not opened:
        return "No way out even with every protection lifted: the model refuses every state of the features it reads."
    said = [unit for unit in opened if not any(engine.schema.feature(lift.feature).protected for lift in unit)]
    if not said:
        return "No way out within what advice may change."

    def words(lift: Lift) -> str:
        return LIFTED_WORDS[lift.name].format(feature=engine.words.feature(lift.feature), held=lift.held)

    return "No way out unless " + ", or unless ".join(" and ".join(words(lift) for lift in unit) for unit in said) + "."


_SHARED: weakref.WeakKeyDictionary[Engine, SharedLifts | None] = weakref.WeakKeyDictionary()  # each engine's, once built (never saved with it)


def _shared(engine: Engine, problem: Problem, lifts: Sequence[Lift]) -> SharedLifts | None:
    """The program of what would open a way out, grounded once for the engine's model."""
    if engine not in _SHARED:
        _SHARED[engine] = SharedLifts.of(problem, lifts, engine.observed, engine.spreads)
    return _SHARED[engine]


def _check(engine: Engine, rows: list[Row], refusals: Sequence[bool]) -> None:
    """Every step the reading was sure of must have the model's verdict."""
    for values, sure, refused in zip(rows, _decided(engine, rows), refusals):
        if sure and (sure > 0) == refused:
            side = "refuses" if refused else "accepts"
            raise ReadingError(f"the model {side} {_named(values)}, and its decision read exactly says otherwise")


def _decided(engine: Engine, rows: list[Row]) -> np.ndarray:
    """The decision read exactly on each row: +1 accepted, -1 refused, 0 only the model can tell."""
    glass = engine.glass
    assert glass is not None
    return glass.verdicts(glass.margins({f: [r[f] for r in rows] for f in glass.features}))


def _around(row: Row, changed: Sequence[Mapping[str, Any]]) -> ChangedRows:
    """The person's row with each of ``changed``'s values laid over it, as the black box builds
    its input without a frame (:class:`~mc3g.glassbox.Encoded`), alone or pooled with others'."""
    return ChangedRows.around(row, [tuple(values.items()) for values in changed])


def _named(row: Row) -> str:
    return "the row " + ", ".join(f"{name} = {value!r}" for name, value in row.items())
