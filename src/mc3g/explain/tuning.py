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

    ``first_states``: the global rules' first states asked with the first question, as a
    multiple of K: the first 4K as the reading's first batch (their numeric actions' first
    points too), the rest ahead, their verdicts held back until the reading reaches them
    (32: the reading's first four batches, 4K, 4K, 8K and 16K, in one call); every later
    search's first call (local rules', a wider one's) holds as many of its own states, and a
    later call of a reading holds the next batch ahead too.
    ``batch``: states the model judges in one batch at most (the reading starts at 4K and doubles).
    ``read``: states the solver hands out per search, as a multiple of ``max_states`` (most past
    the budget add actions to an option and are never shown to the model).
    ``patience``: states the model may reject (more for each option found) before the rules are
    learned again near the person.  ``local_rounds``: local rule sets learned at most, each with
    the last one's counterexamples.  ``samples``: rows drawn around the person for local rules.
    ``most_changed``: features one of those rows changes at most, as DiCE random's rows.
    ``widest``: candidate values per atom at most, when the candidates widen (8× a time).
    ``first_points``: points of a numeric segment judged in its first round; ``section_points``:
    points a later round takes at most (fewer where as many rounds suffice).
    ``search_boundaries``: the search run again once the options are sectioned, the boundaries
    found among the candidate values, for states that join a boundary to other actions: a call
    of its own for the states it reaches that no call held (off: the points sectioned are priced
    at the merge with every row accepted, so each option's own boundary counts either way).
    ``last_draw``: rows drawn around a person left with fewer than K options (as many again that
    may change every feature), judged in one last call.  ``widest_draw``: where the model
    accepted none of those the knowledge allows (the person has no option at all), the draw is
    drawn on, four times as wide and four times again up to this many rows (each with as many
    again changing every feature), all in one call: a model can want many changes together,
    which few rows hold.
    ``draw_ahead``: with local rules on, where the rules refuse the person, the first question
    also holds the rows local rules learn from and the last draw's, their verdicts held back until those phases ask (or the merge, where
    every row judged counts): a call saved for each of those phases that runs, and every such
    person's answer chosen among those rows too.  The 2,000 rows cost more own work than the call
    they save (on German boosting, about 40 % of the person's; docs/benchmarks.md): they are kept
    for the answers (without them, 6 of 30 people there get other options: 6 dearer, none
    cheaper).  ``kept``: rows the model accepted outside the search priced for the answer
    (``last_kept`` after a last draw, whose rows of many changes would crowd out others), at most ``per_set``
    of one set of direct actions (K if more, where options need not be distinct)."""

    batch: int = 1024
    first_states: int = 32
    read: int = 10
    patience: int = 48
    local_rounds: int = 3
    samples: int = 200
    most_changed: int = 3
    widest: int = 512
    first_points: int = 32
    section_points: int = 1024
    search_boundaries: bool = False
    last_draw: int = 1000
    widest_draw: int = 16000
    draw_ahead: bool = True
    kept: int = 64
    last_kept: int = 256
    per_set: int = 4


DEFAULT = HuntSettings()  # the settings every search takes unless told otherwise
