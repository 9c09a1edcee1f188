"""A problem's states read in exact cost order, each judged by the model when there is one.

MC3G (Dasgupta et al., NeSy 2025) searches FOLD-SE rules of the model's predictions and checks
every state with the model.  :func:`verified` is that reading: plain rules take the states as
they come, a black box's search (:mod:`.hunt`) has the model judge them in batches.  What a
search ends with is an :class:`Outcome`, which each of the black-box search's phases
(:mod:`.phases`) takes and returns anew.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..engine import DEFAULT, Engine, HuntSettings
from ..search import ActionSets, Assessment, Problem, StateStream
from .verdicts import Asking, Verdicts

FOUND, EXHAUSTED, BUDGET, READ_ALL, STALLED = "found", "exhausted", "budget", "read", "stalled"
EPSILON = 1e-9  # costs are floats here: a state this much dearer than the bound is as dear


@dataclass(frozen=True)
class Outcome:
    """Where a search ended: the engine and problem of the last search (with ``per_atom``
    values per atom), the states found, why it stopped, which rules it searched (``global``,
    ``local``, ``given`` for plain rules, or ``none``: the model alone) and how many local rule
    sets it learned; after the merge, the problem each state found is priced in
    (``priced_in``), ``outside``, the problems that priced the rows the model accepted
    outside the search, ``searched``, the states the search itself found in ``problem``, and
    ``unlike``, the options passed over as unlike every past applicant."""

    engine: Engine
    problem: Problem
    per_atom: int
    found: tuple[Assessment, ...]
    stopped: str
    rules: str
    local_rounds: int = 0
    priced_in: tuple[Problem, ...] = ()
    outside: tuple[Problem, ...] = ()
    searched: tuple[Assessment, ...] = ()
    unlike: int = 0


class _Reading:
    """One reading's states kept and refused, with distinct action sets under ``distinct``,
    none dearer than ``bound``."""

    def __init__(self, problem: Problem, k: int, distinct: bool, bound: float) -> None:
        self.k, self.bound = k, bound
        self.options = ActionSets() if distinct else None
        self.kept: list[Assessment] = []
        self.refused: list[Assessment] = []
        self.numeric = [i for i, f in enumerate(problem.space.features) if f.feature.is_numeric]

    def shown(self, batch: list[Assessment]) -> list[Assessment]:
        """The states of ``batch`` that can still be options: no dearer than the bound and, under
        ``distinct``, adding no action to an option (the model need not see the others)."""
        batch = [state for state in batch if state.cost <= self.bound + EPSILON]
        return batch if self.options is None else [state for state in batch if self.options.open(state)]

    def take(self, batch: list[Assessment], accepted: list[bool], stream: StateStream) -> None:
        self.refused += [state for state, ok in zip(batch, accepted) if not ok]
        for state, ok in zip(batch, accepted):
            if len(self.kept) < self.k and ok and (self.options is None or self.options.admit(state)):
                self.kept.append(state)
                if self.options is not None:
                    stream.exclude(frozenset(state.direct))

    def doubted(self) -> bool:
        """Whether widening could help: the model refused a state that moves a number and could
        still be an answer (more values per atom add numbers only)."""
        return any(any(a.state[i] for i in self.numeric) and (self.options is None or self.options.open(a)) for a in self.refused)


def verified(
    problem: Problem,
    stream: StateStream,
    k: int,
    distinct: bool,
    verdicts: Verdicts | None,
    budget: int,
    first: Sequence[Assessment] = (),
    limit: int | None = None,
    bound: Assessment | None = None,
    tuning: HuntSettings = DEFAULT,
    along: Callable[[], list[tuple]] | None = None,
) -> Asking:
    """The k least-cost states of ``problem`` the model accepts (all, for plain rules: ``verdicts`` None; each call carrying what ``along()``
    gives: :meth:`Verdicts.ask`), distinct action sets under ``distinct``, read from ``first`` then ``stream`` (none read: :func:`_begun`), none
    dearer than ``bound``, the K-th option known (nor read); and why it stopped: ``budget`` bounds the rows judged, ``limit`` the states
    rejected (``tuning.patience`` more per state kept: then ``stalled``).  Third, whether widening could help."""
    stream.cap(None if bound is None else bound.exact)  # :meth:`StateStream.cap`
    reading = _Reading(problem, k, distinct, math.inf if bound is None else bound.cost)
    size = k if verdicts is None else 4 * k
    read, ahead = _begun(first, stream, k, verdicts is not None, tuning)  # handed out in the batches the stream would have made
    batch, read, size = read[:size], read[size:], min(2 * size, tuning.batch) if ahead else size
    while len(reading.kept) < k:
        if verdicts is not None and verdicts.judged >= budget:
            return reading.kept, BUDGET, False
        if verdicts is not None and limit is not None and verdicts.rejected >= limit + tuning.patience * len(reading.kept):
            return reading.kept, STALLED, False
        if not batch:
            batch = _taken(read, stream, size if verdicts is None else min(size, budget - verdicts.judged))
            size = min(2 * size, tuning.batch)  # the model disagrees here, or the options repeat: read more at once
            if not batch:  # capped: what is left costs more than k options known, as below
                return (reading.kept, FOUND, False) if stream.capped else (reading.kept, READ_ALL if stream.at_limit else EXHAUSTED, reading.doubted())
        if batch[0].cost > reading.bound + EPSILON:
            return reading.kept, FOUND, False  # what is left costs more than k options known: it cannot be one
        batch = reading.shown(batch)
        accepted = yield from _judged(problem, reading, batch, verdicts, read, stream, ahead, size, along)
        ahead = False
        reading.take(batch, accepted, stream)
        batch = []
    return reading.kept, FOUND, False


def _judged(
    problem: Problem,
    reading: _Reading,
    batch: list[Assessment],
    verdicts: Verdicts | None,
    read: list[Assessment],
    stream: StateStream,
    ahead: bool,
    size: int,
    along: Callable[[], list[tuple]] | None,
) -> Asking:
    """The model's verdicts on ``batch`` (plain rules accept every state).  The call holds the
    states ``read`` ahead of the reading when it begins (``ahead``); a later batch that takes a
    call holds the next batch ahead too (``size`` states, read into ``read``).  Either way they
    are a search's states read ahead (``spare``)."""
    if verdicts is None:
        return [True] * len(batch)
    asked = [verdicts.state_key(problem, a.state) for a in batch]
    if not ahead and verdicts.calls(asked):
        read += stream.take(size - len(read))
        ahead = True
    later = [verdicts.state_key(problem, a.state) for a in reading.shown(read)] if ahead else []
    return (yield from verdicts.ask(asked, (), later, spare=True, along=along))


def _begun(first: Sequence[Assessment], stream: StateStream, k: int, judged: bool, tuning: HuntSettings) -> tuple[list[Assessment], bool]:
    """The states read before the reading starts: ``first``; or, where the model judges them
    and none were read, the first ``tuning.first_states`` × K, which the first call asks (all but
    its batch ahead, True)."""
    if first or not judged:
        return list(first), False
    return stream.take(tuning.first_states * k), True


def _taken(read: list[Assessment], stream: StateStream, n: int) -> list[Assessment]:
    """The next ``n`` states: those read already (asked ahead), then the stream's."""
    out = read[:n]
    del read[:n]
    return out + stream.take(n - len(out)) if len(out) < n else out
