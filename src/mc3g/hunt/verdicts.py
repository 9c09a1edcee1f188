"""The model's verdicts on one person's rows, remembered by the changes each row makes: the
model is never asked twice about the same values, whichever rules or candidates led to them, and
never about a change without what the causal rules force once it is made."""

from __future__ import annotations

from collections.abc import Callable, Collection, Generator, Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from ..models import ChangedRows
from ..search import Consequences, Problem, State
from .local import Changes, Drawn

Row = dict[str, Any]
Asking = Generator[Sequence[Row], list[bool], Any]


class Verdicts:
    """The model's verdicts on one person's rows, remembered by the changes each makes, so no
    rows are judged twice whichever rules or candidates led to them.  ``away(rows)`` hands rows to
    the model and returns its refusals (the driver's round trip).  ``consequences`` adds to a row's changes
    what the causal rules force (:meth:`Engine.consequences`): a row is asked and remembered as
    the state the person reaches, so a change scanned, sectioned or drawn is judged where it
    leads, and a state of the search, which keeps the knowledge already, as it is."""

    def __init__(
        self, row: Row, away: Callable[[list[Row]], Asking], consequences: Consequences | None = None, clock: Callable[[], float] | None = None
    ) -> None:
        self.row = row
        self.away = away
        self.consequences = consequences
        self.judged = 0  # rows judged by the model, the person and the rows asked for free aside
        self.rejected = 0
        self.free = 0  # rows asked for free: single changes, points sectioned, steps
        self.by_phase: dict[str, int] = {}  # the calls of ``away`` (rounds of questions) each part of the search made
        self.seconds_by_phase: dict[str, float] = {}  # the search's own time in each part, by ``clock``
        self._clock = clock  # the search's own seconds so far (the model's calls left out)
        self._phase = ""
        self._since = clock() if clock is not None else 0.0
        self.asked = 0  # rows the rounds held
        self._accepted: dict[tuple, bool] = {}
        self._along: set[tuple] = set()  # rows asked only because an ``along`` of :meth:`ask` gave them
        self._ahead: dict[tuple, None] = {}  # rows asked ahead of the search, their verdicts held back until it asks (in the order asked)
        self._spare: set[tuple] = set()  # of those, a search's states read ahead: never released
        self._made: dict[tuple, dict[str, Any]] = {}  # rows with forced changes: the fewest changes asked that reach them, in name order
        self._fewer: list[tuple] = []  # the rows found reached by fewer changes, in turn (:meth:`reached_with_fewer`)
        self._keys: dict[tuple, tuple] = {}  # by the changes given, in their order: the row's key
        self._shown: list[tuple] = []  # the rows accepted, in the order the search saw them (:meth:`accepted`)
        self._drawn: list[Drawn] = []  # rows of a wide draw refused, of two changes or more, as codes till read (:meth:`ask_drawn`)

    @property
    def phase(self) -> str:
        """The part of the search running now (:mod:`.phases`), named in ``by_phase`` and
        ``seconds_by_phase``; setting it ends the last one's time ('' names no part)."""
        return self._phase

    @phase.setter
    def phase(self, name: str) -> None:
        if self._clock is not None:
            now = self._clock()
            if self._phase:
                self.seconds_by_phase[self._phase] = self.seconds_by_phase.get(self._phase, 0.0) + now - self._since
            self._since = now
        self._phase = name

    @property
    def rounds(self) -> int:
        """The rounds of questions to the model, every part of the search's together."""
        return sum(self.by_phase.values())

    def key(self, changes: Mapping[str, Any]) -> tuple:
        """The row's changes from the person, with what they force, as one hashable key: found
        once for each set of changes given (a row is often given again: the rows drawn ahead, a
        segment's points, the steps asked along)."""
        given = tuple(changes.items())
        known = self._keys.get(given)
        if known is None:
            known = self._keys[given] = self._key(given)
        return known

    def _key(self, given: tuple) -> tuple:
        row = self.row
        made = [item for item in given if item[1] != row[item[0]]]
        if len(made) > 1:  # most rows asked change one feature: no sort (keys are read often)
            made.sort()
        return self.made_key(tuple(made))

    def made_key(self, made: Changes) -> tuple:
        """The key of the row whose changes are ``made``, each from the person's value, in name
        order (as rows are drawn): themselves, or with what they force."""
        # :meth:`may_force`, written out: every row keyed passes here (calling it measured × 1.07 on adult)
        if made and self.consequences is not None and not self.consequences.forcing.isdisjoint(name for name, _ in made):
            return self._forced(dict(made))
        return made

    def state_key(self, problem: Problem, state: State) -> tuple:
        """The key of a search's state (its values that are not the person's)."""
        return self.key(problem.changes(state))

    def _forced(self, made: dict[str, Any]) -> tuple:
        """The key of a row whose changes force more, the fewest changes seen to reach it kept."""
        reached = self.consequences.force(made)  # type: ignore[union-attr]
        key = tuple(sorted(reached.items()))
        if len(reached) > len(made) and len(made) < len(self._made.get(key, reached)):
            self._made[key] = made
            self._fewer.append(key)
        return key

    def line(self, changes: Mapping[str, Any], name: str) -> Callable[[Any], tuple]:
        """The key of the row ``changes`` with ``name`` set to a value, for the many values of a
        segment's line (:class:`~.boundary.Segment`): where no change of the line may force
        more, the key is its other changes made, sorted, with ``name``'s put in its place, and
        no row is built for a point (a line's points are most rows of a round)."""
        row = self.row
        made = sorted((n, v) for n, v in changes.items() if n != name and v != row[n])
        if self.may_force([n for n, _ in made] + [name]):
            return lambda value: self.key({**changes, name: value})
        at = next((i for i, (n, _) in enumerate(made) if n > name), len(made))
        before, after, origin = tuple(made[:at]), tuple(made[at:]), row[name]
        return lambda value: before + after if value == origin else (*before, (name, value), *after)

    def may_force(self, names: Iterable[str]) -> bool:
        """Whether the causal rules may force more where a row changes ``names``: if not, its key
        is its changes made, sorted."""
        return self.consequences is not None and not self.consequences.forcing.isdisjoint(names)

    def fewest(self, keys: Sequence[tuple]) -> Sequence[tuple]:
        """The fewest changes asked that reach each row of ``keys`` (the others the causal rules
        force), as its key holds them: its pairs of a feature and a value, in name order."""
        made = self._made
        if not made:
            return keys
        return [key if (few := made.get(key)) is None else tuple(few.items()) for key in keys]

    def reached_with_fewer(self, start: int = 0) -> list[tuple]:
        """The rows (keys) whose fewest changes (:meth:`fewest`) were found again, fewer, in the
        order found (from the ``start``-th on): what ranks them by those changes must rank them
        again."""
        return self._fewer[start:]

    def known(self, changes: Mapping[str, Any]) -> bool | None:
        return self.verdict(self.key(changes))

    def verdict(self, key: tuple) -> bool | None:
        """Whether the model accepts the row ``key`` (None: not judged, or held back, asked ahead)."""
        if self._drawn and len(key) > 1 and key not in self._accepted:
            self._settle()
        return None if key in self._ahead else self._accepted.get(key)

    def calls(self, keys: Sequence[tuple]) -> bool:
        """Whether asking about the rows ``keys`` takes a call: the model has not judged one of them."""
        self._settle_for(keys)
        return any(key not in self._accepted for key in keys)

    def ask(
        self,
        keys: Sequence[tuple],
        free: Sequence[tuple] = (),
        ahead: Sequence[tuple] = (),
        spare: bool = False,
        along: Callable[[], list[tuple]] | None = None,
    ) -> Asking:
        """Whether the model accepts each row (by its key: ``keys``, then ``free``), asking it only
        about those it has not judged, all in one call; where there is a call, ``along()`` gives
        rows (their keys) to ask for free with it (a search waiting on its own verdicts need not
        cost a call of its own: :class:`~.hunt.Ride`).  Rows of
        ``free`` (single changes scanned, points sectioned, rows drawn) do not count as judged.
        Rows of ``ahead`` go in the same call, their verdicts held back: the search sees one only
        once it asks about that row (then it counts as asked), so a row asked ahead saves a later
        call and changes nothing else.  With ``spare``, those rows are a search's states read
        ahead of its reading: never released (:meth:`release`), they count only where a search
        reaches them, so reading ahead changes no answer."""
        keys, extra = list(keys), list(free)
        self._settle_for([*keys, *extra, *ahead])
        accepted, held_back = self._accepted, self._ahead
        now = dict.fromkeys(keys)
        now.update(dict.fromkeys(extra))
        new = [k for k in now if k not in accepted]
        shown = [k for k in now if k in held_back]
        later = [k for k in dict.fromkeys(ahead) if k not in now and k not in accepted]  # asked ahead now, held back
        rows = new + later  # those the model has not judged, in the order given
        if rows and along is not None:
            asked, offered = set(rows), list(dict.fromkeys(along()))
            self._settle_for(offered)
            riding = [k for k in offered if k not in asked and (k not in accepted or k in held_back)]
            self._along.update(riding)
            showing = set(shown)
            shown += [k for k in riding if k in held_back and k not in showing]
            riding = [k for k in riding if k not in accepted]
            new, rows = new + riding, rows + riding
        if rows:
            self.asked += len(rows)
            self.by_phase[self.phase] = self.by_phase.get(self.phase, 0) + 1
            refusals = yield from self.away(ChangedRows.around(self.row, rows))
            accepted.update(zip(rows, (not refused for refused in refusals)))
            held_back.update(dict.fromkeys(later))
            if spare:
                self._spare.update(later)
        self._seen(keys, new + shown)
        return [accepted[k] for k in keys + extra]

    def ask_drawn(self, drawn: Drawn, spare: Sequence[tuple], along: Callable[[], list[tuple]] | None = None) -> Asking:
        """:meth:`ask` for the rows of a wide draw, asked for free, and ``spare`` rows asked ahead
        and never released, with the same call and the same verdicts, the draw's rows kept as
        codes: the model reads them whole (:class:`~mc3g.models.ChangedRows` holds them as
        drawn), those it accepts and those of one change become keys, and the rest stay codes
        until a search reads a row of two changes or more (:meth:`_settle`).  A person left with
        no option draws tens of thousands of rows, nearly all refused, that nothing reads again:
        as keys they cost more than the model's call (issue 51)."""
        self._settle()  # an earlier draw's rows: one draw is kept as codes at a time
        drawn = drawn.once()
        accepted, held_back = self._accepted, self._ahead
        judged = list(accepted)
        at = drawn.index_of(judged)
        fresh = np.ones(len(drawn), dtype=bool)
        fresh[at[at >= 0]] = False
        block = drawn.where(fresh)  # the rows the model has not judged, in the order drawn
        shown = [judged[i] for i in np.argsort(at, kind="stable").tolist() if at[i] >= 0 and judged[i] in held_back]
        offered = list(dict.fromkeys(spare))
        later = [k for k, i in zip(offered, drawn.index_of(offered).tolist()) if i < 0 and k not in accepted]
        riding: list[tuple] = []
        if (len(block) or later) and along is not None:
            asked, offered = set(later), list(dict.fromkeys(along()))
            offered = [k for k, i in zip(offered, drawn.index_of(offered).tolist()) if (i < 0 or not fresh[i]) and k not in asked]  # none of the block
            riding = [k for k in offered if k not in accepted or k in held_back]
            self._along.update(riding)
            showing = set(shown)
            shown += [k for k in riding if k in held_back and k not in showing]
            riding = [k for k in riding if k not in accepted]
        if not len(block) and not later + riding:
            self._seen([], shown)
            return
        rest = later + riding
        self.asked += len(block) + len(rest)
        self.by_phase[self.phase] = self.by_phase.get(self.phase, 0) + 1
        refusals = yield from self.away(ChangedRows([(self.row, block), (self.row, rest)]))
        oks = ~np.asarray(refusals[: len(block)], dtype=bool)
        keep = oks | (block.counts() == 1)
        read = block.where(keep).changes()
        accepted.update(zip(read, oks[keep].tolist()))
        if not keep.all():
            self._drawn.append(block.where(~keep))
        accepted.update(zip(rest, (not refused for refused in refusals[len(block) :])))
        held_back.update(dict.fromkeys(later))
        self._spare.update(later)
        self.free += int(np.count_nonzero(block.counts()))  # as :meth:`_seen` counts them: the person's own row is none
        self._shown += [k for k, ok in zip(read, oks[keep].tolist()) if ok and k]
        self._seen([], riding + shown)

    def _settle_for(self, keys: Iterable[tuple]) -> None:
        """Every row kept as codes made a key, where one of ``keys`` may be one of them."""
        if self._drawn and any(len(k) > 1 and k not in self._accepted for k in keys):
            self._settle()

    def _settle(self) -> None:
        """Every row kept as codes (:meth:`ask_drawn`) made a key, refused, with the others."""
        for drawn in self._drawn:
            self._accepted.update(dict.fromkeys(drawn.changes(), False))
        self._drawn = []

    def _seen(self, keys: list[tuple], seen: list[tuple]) -> None:
        """Count the rows the search now sees: judged when asked as ``keys``, else free.  A row
        asked ahead takes its place among the others only now, as if asked now."""
        counted, accepted, held_back = set(keys), self._accepted, self._ahead
        for key in [k for k in seen if k in held_back] if held_back else ():
            del held_back[key]
            accepted[key] = accepted.pop(key)
        seen = [k for k in seen if k]  # the person's own row is no option and counts as neither
        oks = [accepted[k] for k in seen]
        self._shown += [k for k, ok in zip(seen, oks) if ok]
        judged = [ok for k, ok in zip(seen, oks) if k in counted] if counted else []
        self.judged += len(judged)
        self.rejected += judged.count(False)
        self.free += len(seen) - len(judged)

    def release(self) -> int:
        """Let the search see every row asked ahead that it has not reached, as rows asked for
        free: once it has ended, every row the model judged counts, but a search's states read
        ahead that no search reached (``spare``).  Returns how many."""
        held = [k for k in self._ahead if k not in self._spare]
        self._seen([], held)
        return len(held)

    def judged_rows(self, sizes: Collection[int]) -> Iterator[tuple[tuple, bool]]:
        """Every row judged that the search has seen (as its changes) making as many changes as
        one of ``sizes``, and whether the model accepted it."""
        if any(size > 1 for size in sizes):
            self._settle()
        return ((key, ok) for key, ok in self._accepted.items() if len(key) in sizes and key not in self._ahead)

    def judged_alone(self) -> list[tuple[str, Any, bool]]:
        """Every row judged that the search has seen whose fewest changes (:meth:`fewest`) are one:
        that change, and whether the model accepted the row (in the order :meth:`judged_rows`
        gives them; a row is read once, no mapping built for it: the rows judged are thousands)."""
        out, fewest, ahead = [], self._made, self._ahead
        for key, ok in self._accepted.items():
            if not key or key in ahead:
                continue
            made = fewest.get(key)
            if made is None and len(key) == 1:
                out.append((*key[0], ok))
            elif made is not None and len(made) == 1:
                out.append((*next(iter(made.items())), ok))
        return out

    def accepted(self, start: int = 0) -> list[tuple]:
        """The rows the model accepted, as their changes (keys), in the order the search saw them
        (from the ``start``-th on), the person's own row and the rows asked ahead that the search
        has not reached aside.  Rows are only ever added, at the end: a row asked ahead takes
        its place once the search sees it."""
        return self._shown[start:]

    def labelled(self) -> tuple[list[tuple], list[bool]]:
        """Every row judged (as its changes, a key) and whether the model refused it, but those
        asked along: the points of one feature's sections would weigh rules learned from them."""
        self._settle()
        rows = [(k, v) for k, v in self._accepted.items() if k not in self._along and k not in self._ahead]
        return [k for k, _ in rows], [not v for _, v in rows]
