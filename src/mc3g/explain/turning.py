"""Whether a protected characteristic alone turns a refusal the search could not turn, asked of a
model that cannot be read.

A black box searched through rules that imitate it proves no "no option": the model refused
every row it was asked within the protections, and the rules that imitate it often cannot be
escaped but through a protected characteristic (a held-out adult MLP: marital status, for 50
of the 55 people it left with none).  Whether the model itself turns on that characteristic
can be asked: the person's row with one protected characteristic alone set to a value the
protections bar, every such row in one call (none where the search's widest draw, made while it
had no option, took them along).  A row it accepts is a fact about the model, not
about the rules that imitate it; the lender's record names it
(:attr:`~mc3g.explain.Recourse.turns_on`), the reasons only say there is one (:data:`TURNED`),
and the audit counts it by group.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from typing import Any

from ..engine import Engine
from ..hunt import PROTECTED, Verdicts, protected_changes

TURNED = (
    "Asked of the model, a protected characteristic alone changed turns this refusal (the lender's record names it: turns_on). "
    "No change within the protections was found, which is not proved: the model cannot be read."
)
"""The reason a person so turned is given: words that may reach the applicant name no characteristic."""

Turns = tuple[tuple[str, Any], ...]


def turns(engine: Engine, person: Mapping[str, Any], verdicts: Verdicts) -> Generator[Sequence[dict[str, Any]], list[bool], Turns]:
    """The protected characteristics (feature, value) that alone turn the model's refusal of the
    ``person`` (:func:`~mc3g.hunt.protected_changes`), asked in one call, or in none where the
    search asked them with its widest draw, held back (:class:`~mc3g.hunt.phases.LastDraw`)."""
    changes = protected_changes(engine, person)
    if not changes:
        return ()
    verdicts.phase = PROTECTED
    accepted = yield from verdicts.ask([], free=[verdicts.key({name: value}) for name, value in changes])
    return tuple(change for change, ok in zip(changes, accepted) if ok)
