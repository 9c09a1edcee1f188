"""The sharpening phase of a black box's search (:mod:`.phases`): the options' numbers sectioned
back to the model's boundary, each option pared."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ..engine import Engine
from .boundary import Segment
from .hunt import Hunt
from .lines import judged, narrowed_on_lines, point_keys
from .progress import Option, Progress
from .verdicts import Asking, Row
from .verified import Outcome


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
    (:func:`~.lines.narrowed_on_lines`) as a later round does (every point, where one round takes them all).
    A segment none of whose points left can be an option (:meth:`Hunt.beyond`) is sectioned no
    further, and the single changes take the verdicts on their lines before a call of their own.
    The rows asked ahead that no phase reached are seen first (:meth:`Hunt.seen_ahead`, as the
    last draw saw them, where it ran): the search proper has ended, so the options they hold
    bound the sectioning and their steps ride along with it, instead of a call of their own at
    the merge."""

    name = "sharpen"

    def run(self, hunt: Hunt, progress: Progress) -> Asking:
        outcome = progress.outcome
        assert outcome is not None  # the search proper has run
        progress = hunt.seen_ahead(progress, outcome)
        if not hunt.sharp:
            return progress
        problem, engine = outcome.problem, outcome.engine
        progress = hunt.with_known_options(progress)  # the K options among the rows accepted, sectioned too: a point accepted is seldom the boundary
        start = len(progress.sectioned)  # this phase's options are those sectioned from here on
        progress, pared, along = self._claimed(hunt, progress, engine, [(problem, a) for a in outcome.found] + list(progress.chosen))
        progress = yield from self._sectioned(hunt, progress, engine, start, pared, along)
        if not hunt.tuning.search_boundaries:
            return progress  # the points sectioned join the merge, the cheapest of each option's set there
        extra: dict[str, list[Any]] = {}
        for s in _flat(progress.sectioned[start:]):
            if s.best != s.changes[s.name]:
                extra.setdefault(s.name, []).append(s.best)
        if not extra:
            return progress
        sharper = engine.problem(engine.instance(hunt.row), outcome.per_atom, list(problem.decision), extra)
        found, _, _ = yield from hunt.verified(progress, sharper, hunt.stream(sharper), [], None)
        if len(found) < len(outcome.found):
            return progress
        return replace(progress, outcome=Outcome(engine, sharper, outcome.per_atom, tuple(found), outcome.stopped, outcome.rules, outcome.local_rounds))

    @staticmethod
    def _claimed(hunt: Hunt, progress: Progress, engine: Engine, options: list[Option]) -> tuple[Progress, list[Row], list[Row]]:
        """The progress with the segments of the numeric actions of ``options`` not claimed yet
        (each begun from what is judged on its line already) being sectioned, one tuple an
        option (their numbers ride along together, :meth:`Hunt.together`), and those options
        claimed; each of them without each subset of its actions (:meth:`Hunt.pared`), and each
        with its own numbers moved back (:meth:`Hunt.moved_back`)."""
        fresh, progress = hunt.claim(progress, options)
        each = [hunt.segments(engine, problem, a) for problem, a in fresh]
        begun: dict[int, Segment] = {}
        late: list[Segment] = []
        for s in _flat(each):  # a first round judged already (with the first question) is taken without a call
            if (known := judged(hunt.verdicts, s)) is not None:
                begun[id(s)] = s.narrowed(known)
            else:
                late.append(s)
        begun.update((id(s), narrowed) for s, narrowed in zip(late, narrowed_on_lines(hunt.verdicts, [s.late() for s in late])))
        progress = replace(progress, sectioned=progress.sectioned + tuple(tuple(begun[id(s)] for s in option) for option in each))
        pared = [row for problem, a in fresh for row in hunt.pared(problem, a)]
        return progress, pared, [row for problem, a in fresh for row in hunt.moved_back(problem, a)]

    @classmethod
    def _sectioned(cls, hunt: Hunt, progress: Progress, engine: Engine, start: int, pared: list[Row], along: list[Row]) -> Asking:
        """The progress once the options sectioned from ``start`` on are sectioned to their ends,
        ``pared`` asked with the first points (and ``along`` where those take a call), then the
        single changes; the bound (and the options whose steps ride along) found again after
        each round (:meth:`run` found it before the first).  While another round follows, the K
        options known that no segment has claimed yet (a point sectioned, an option without some
        actions) join it: a greedy search would go on from them."""
        while (asking := [s for s in _flat(progress.sectioned[start:]) if not hunt.beyond(s, progress.bound) and s.points()]) or pared:
            asked = [s for s in asking for _ in s.points()]
            keys = [key for s in asking for key in point_keys(hunt.verdicts, s)] + [hunt.verdicts.key(row) for row in pared]
            if hunt.verdicts.calls(keys):  # the option's own numbers moved back ride along, never call alone
                keys += [hunt.verdicts.key(row) for row in along]
            accepted = yield from hunt.ask(progress, [], keys)
            said: dict[int, list[bool]] = {}
            for t, ok in zip(asked, accepted):
                said.setdefault(id(t), []).append(ok)
            mine = tuple(tuple(s.narrowed(said.get(id(s), [])) for s in option) for option in progress.sectioned[start:])  # a round more for each
            progress = hunt.with_known_options(replace(progress, sectioned=progress.sectioned[:start] + mine))
            pared = along = []
            if any(not hunt.beyond(s, progress.bound) and s.points() for s in _flat(mine)):
                progress, pared, along = cls._claimed(hunt, progress, engine, list(progress.chosen))
        while True:
            scans, keys = hunt.scanned(progress.scans, progress.bound, on_lines=True)
            progress = replace(progress, scans=scans)
            if not keys:
                return progress
            yield from hunt.ask(progress, [], keys)
            progress = hunt.with_known_options(progress)


def _flat(options: Sequence[Sequence[Segment]]) -> list[Segment]:
    """The segments of ``options`` (one sequence an option), in order."""
    return [s for option in options for s in option]
