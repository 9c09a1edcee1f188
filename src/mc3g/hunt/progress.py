"""What one person's black-box search knows between its phases, as a value: each phase takes a
:class:`Progress` and returns a new one (:mod:`.phases`), and what rides along with a call is one
object built from it (:class:`~.hunt.Ride`).

What the model said is not here: it is the person's :class:`~.verdicts.Verdicts`, which only
ever grow (every phase reads the same verdicts, and a row is never asked twice); nor what the
person and the settings are (:class:`~.hunt.Hunt`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..search import Assessment, Problem, StateStream
from .boundary import Segment
from .verified import Outcome

Start = tuple[Problem, StateStream, list[Assessment]]  # a search's problem, stream and the states read already
Option = tuple[Problem, Assessment]


@dataclass(frozen=True)
class Progress:
    """Where one person's search stands for ``k`` options: the last search's ``outcome`` (None
    before any); ``start``, the global rules' search as the first question began it; whether
    each call carries the rows that ride along (``riding``: from the first question's refusal
    on, :meth:`Hunt.begin`); ``chosen``, the K options known among the rows accepted when
    last found (:meth:`Hunt.with_known_options`), whose K-th bounds the search; ``scans``, the
    person's single numeric changes being sectioned; ``sectioned``, the options' segments
    being sectioned, one tuple an option; ``claimed``, the options (their keys) sectioned,
    pared and moved back already; ``kept``, the rows accepted priced at a time
    (``tuning.kept``, ``last_kept`` after a last draw); ``drawn``, whether the last draw's rows
    were made (asked ahead by the first question, or drawn); ``last_drawn``, whether the last
    draw ran; ``wider_draws``, the draws made again, wider, because the person had too few
    options."""

    k: int
    kept: int
    outcome: Outcome | None = None
    start: Start | None = None
    riding: bool = False
    chosen: tuple[Option, ...] = ()
    scans: tuple[Segment, ...] = ()
    sectioned: tuple[tuple[Segment, ...], ...] = ()
    claimed: frozenset[tuple] = frozenset()
    drawn: bool = False
    last_drawn: bool = False
    wider_draws: int = 0

    @property
    def kth(self) -> Assessment | None:
        """The K-th option known among the rows accepted (None while fewer are known): it bounds a
        search, whose stream reads no state dearer."""
        return self.chosen[-1][1] if len(self.chosen) == self.k else None

    @property
    def bound(self) -> float:
        """The K-th option's cost (infinite while fewer are known)."""
        return math.inf if (kth := self.kth) is None else kth.cost
