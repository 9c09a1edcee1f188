"""The model's verdicts on one person's rows, remembered by the changes each row makes: the
model is never asked twice about the same values, whichever rules or candidates led to them, and
never about a change without what the causal rules force once it is made."""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping, Sequence
from typing import Any

Row = dict[str, Any]
Asking = Generator[list[Row], list[bool], Any]


class Verdicts:
    """The model's verdicts on one person's rows, remembered by the changes each makes, so no
    rows are judged twice whichever rules or candidates led to them.  ``away(rows)`` hands rows to
    the model and returns its refusals (the driver's round trip); ``along()``, when set, gives
    rows to ask for free with whatever the model is next asked (a search waiting on its own
    verdicts need not cost a call of its own).  ``consequences`` adds to a row's changes what the
    causal rules force (:meth:`Engine.consequences`): a row is asked and remembered as the state
    the person reaches, so a change scanned, sectioned or drawn is judged where it leads, and a
    state of the search, which keeps the knowledge already, as it is."""

    def __init__(self, row: Row, away: Callable[[list[Row]], Asking], consequences: Callable[[Row], Row] | None = None) -> None:
        self.row = row
        self.away = away
        self.consequences = consequences
        self.along: Callable[[], list[Row]] | None = None
        self.judged = 0  # rows judged by the model, the person and the rows asked for free aside
        self.rejected = 0
        self.free = 0  # rows asked for free: single changes, points sectioned, steps
        self.rounds = 0  # calls of ``away``: rounds of questions to the model
        self.asked = 0  # rows those held
        self._accepted: dict[tuple, bool] = {}
        self._along: set[tuple] = set()  # rows asked only because ``along`` gave them
        self._made: dict[tuple, dict[str, Any]] = {}  # rows with forced changes: the fewest changes asked that reach them

    def key(self, changes: Mapping[str, Any]) -> tuple:
        """The row's changes from the person, with what they force, as one hashable key."""
        row = self.row
        made = {n: v for n, v in changes.items() if v != row[n]}
        reached = self.consequences(made) if made and self.consequences is not None else made
        items = list(reached.items())
        if len(items) > 1:  # most rows asked change one feature: no sort (keys are read often)
            items.sort()
        key = tuple(items)
        if len(reached) > len(made) and len(made) < len(self._made.get(key, reached)):
            self._made[key] = made
        return key

    def made(self, key: tuple) -> dict[str, Any]:
        """The fewest changes asked that reach the row ``key``: the others the causal rules force."""
        return self._made.get(key) or dict(key)

    def known(self, changes: Mapping[str, Any]) -> bool | None:
        return self._accepted.get(self.key(changes))

    def ask(self, changes: Sequence[Mapping[str, Any]], free: Sequence[Mapping[str, Any]] = ()) -> Asking:
        """Whether the model accepts each row (``row`` with ``changes``, then with ``free``),
        asking it only about those it has not judged, all in one call (with the rows ``along``
        gives); rows of ``free`` (single changes scanned, points sectioned) do not count as judged."""
        keys = [self.key(c) for c in changes]
        extra = [self.key(c) for c in free]
        unknown = list(dict.fromkeys(k for k in keys + extra if k not in self._accepted))
        counted = set(keys)
        if unknown and self.along is not None:
            asked = set(unknown)
            along = [k for k in dict.fromkeys(map(self.key, self.along())) if k not in self._accepted and k not in asked]
            self._along.update(along)
            unknown += along
        if unknown:
            self.rounds, self.asked = self.rounds + 1, self.asked + len(unknown)
            refusals = yield from self.away([{**self.row, **dict(k)} for k in unknown])
            for key, refused in zip(unknown, refusals):
                self._accepted[key] = not refused
                if key and key in counted:
                    self.judged += 1
                    self.rejected += refused
                else:
                    self.free += bool(key)
        return [self._accepted[k] for k in keys + extra]

    def accepted(self) -> list[tuple]:
        """The rows the model accepted, as their changes (keys), the person's own row aside."""
        return [key for key, ok in self._accepted.items() if ok and key]

    def labelled(self) -> tuple[list[dict[str, Any]], list[bool]]:
        """Every row judged (as its changes) and whether the model refused it, but those asked
        along: the points of one feature's sections would weigh rules learned from them."""
        rows = [(k, v) for k, v in self._accepted.items() if k not in self._along]
        return [dict(k) for k, _ in rows], [not v for _, v in rows]
