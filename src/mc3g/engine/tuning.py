"""The black-box search's tuned numbers, in one place (:class:`HuntSettings`).

Each number bounds one part of a person's search with a black box (:mod:`mc3g.hunt`); none changes
what is exact about the answer (docs/semantics.md says what is), only how much of the model's
behaviour the search looks at, and in how many calls.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from typing import Any, ClassVar

from ..exceptions import InputError, listed
from ..params import Constraints, Flag, Whole, validate


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
    section_points: int = 3072  # points a later sectioning round takes at most (fewer where as many rounds suffice)
    pared_all: int = 6  # an option of at most this many direct actions is judged without every subset of them (of more: without each one)
    polish: int = 2  # the merge's own calls for the options' numbers moved back and exchanged, at most (again after the one for their actions traded)
    search_boundaries: bool = False  # the search run again with the options' boundaries among the candidates (off: they are priced at the merge)
    last_draw: int = 1000  # rows drawn around a person left with fewer than K options (as many again changing every feature), in one call
    widest_draw: int = 16000  # a person with no option at all: the draw goes on, 4× as wide and again, up to this many rows, in one call
    draw_ahead: bool = True  # the rows local rules learn from and the last draw's asked ahead with the first question (kept for the answers)
    kept: int = 64  # rows the model accepted outside the search priced for the answer
    last_kept: int = 256  # the same after a last draw (its rows of many changes would crowd out others)
    per_set: int = 4  # of those, at most this many of one set of direct actions (K if more, where options need not be distinct)

    _parameter_constraints: ClassVar[Constraints] = {"patience": [Whole(0)], "local_rounds": [Whole(0)], "search_boundaries": [Flag()], "draw_ahead": [Flag()]}
    """What a field accepts where it is not a count of at least one."""

    @classmethod
    def of(cls, given: Mapping[str, Any]) -> HuntSettings:
        """The defaults with ``given`` fields laid over them (``MC3G(hunt={...})``), each checked."""
        names = [f.name for f in fields(cls)]
        if unknown := [str(n) for n in given if n not in names]:
            raise InputError(f"hunt has no setting [{listed(unknown)}]; its settings are [{listed(names)}] (docs/semantics.md, 'Black-box search settings')")
        validate(given, {n: cls._parameter_constraints.get(n, [Whole(1)]) for n in names}, where="hunt: ")
        return replace(DEFAULT, **given)

    def priced(self, call_seconds: float, row_seconds: float) -> HuntSettings:
        """These settings for a model whose rows are dear: while ``ROUND_ROWS`` rows would cost more
        than ``ROUND_CALLS`` calls of one row, halve (to 1/128) the rows that only split a search in
        more rounds and the widest draw; the draws that find options are kept (docs/semantics.md)."""
        share = 1.0
        while share > 1 / 128 and share * ROUND_ROWS * row_seconds > ROUND_CALLS * call_seconds:
            share /= 2
        if share == 1.0:
            return self
        floors = {"section_points": 16, "batch": 64, "widest_draw": self.last_draw}
        return replace(self, **{name: max(floor, int(getattr(self, name) * share)) for name, floor in floors.items()})

    def changed(self) -> dict[str, Any]:
        """The fields that differ from the defaults, as a run record names them."""
        return {n: v for n, v in asdict(self).items() if v != getattr(DEFAULT, n)}


DEFAULT = HuntSettings()  # the settings every search takes unless told otherwise

ROUND_ROWS = 2048  # about the rows of a first question under the defaults (scan, states, draws asked ahead)
ROUND_CALLS = 8  # a round's rows may cost this many calls of one row: under ~20 µs a row, a few times the search's own work on it

MEASURED = "measured"  # ``MC3G(hunt=...)``: the defaults priced by the model's cost, measured at fit
