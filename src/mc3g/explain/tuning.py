"""The black-box search's tuned numbers, in one place (:class:`HuntSettings`).

Each number bounds one part of a person's search with a black box (:mod:`.hunt`); none changes
what is exact about the answer (docs/semantics.md says what is), only how much of the model's
behaviour the search looks at, and in how many calls.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class HuntSettings:
    """How far a black box's search goes for one person, and how many rows it asks at once.
    What each field bounds, and why its default, is said in one place: docs/semantics.md,
    "Black-box search settings"; each line below says it in short."""

    batch: int = 1024  # states the model judges in one batch at most (the reading starts at 4K and doubles)
    first_states: int = 32  # × K: the global rules' first states in the first question (4K judged, the rest ahead); each later search's first call too
    read: int = 10  # × ``max_states``: states the solver hands out per search (most past the budget add actions to an option, never shown)
    patience: int = 48  # states the model may reject (more for each option found) before rules are learned again near the person
    local_rounds: int = 3  # local rule sets learned at most, each with the last one's counterexamples
    samples: int = 200  # rows drawn around the person for local rules
    most_changed: int = 3  # features one of those rows changes at most, as DiCE random's rows
    widest: int = 512  # candidate values per atom at most, when the candidates widen (8× a time)
    first_points: int = 32  # points of a numeric segment judged in its first round, when it goes with the first question
    section_points: int = 1024  # points a later sectioning round takes at most (fewer where as many rounds suffice)
    search_boundaries: bool = False  # the search run again with the options' boundaries among the candidates (off: they are priced at the merge)
    last_draw: int = 1000  # rows drawn around a person left with fewer than K options (as many again changing every feature), in one call
    widest_draw: int = 16000  # a person with no option at all: the draw goes on, 4× as wide and again, up to this many rows, in one call
    draw_ahead: bool = True  # the rows local rules learn from and the last draw's asked ahead with the first question (kept for the answers)
    kept: int = 64  # rows the model accepted outside the search priced for the answer
    last_kept: int = 256  # the same after a last draw (its rows of many changes would crowd out others)
    per_set: int = 4  # of those, at most this many of one set of direct actions (K if more, where options need not be distinct)


DEFAULT = HuntSettings()  # the settings every search takes unless told otherwise
