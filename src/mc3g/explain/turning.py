"""Whether a protected characteristic alone turns a refusal the search could not turn, asked of a
model that cannot be read.

A black box searched through rules that imitate it proves no "no option": the model refused
every row it was asked within the protections, and the rules that imitate it often cannot be
escaped but through a protected characteristic (a held-out adult MLP: marital status, for 50
of the 55 people it left with none).  Whether the model itself turns on that characteristic
can be asked: the person's row with one protected characteristic alone set to a value the
protections bar, every such row in one call.  A row it accepts is a fact about the model, not
about the rules that imitate it; the lender's record names it
(:attr:`~mc3g.explain.Recourse.turns_on`), the reasons only say there is one (:data:`TURNED`),
and the audit counts it by group.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from typing import Any

import numpy as np

from ..engine import Engine
from ..hunt import PROTECTED, Verdicts
from ..search import allows

SPREAD = 9  # values of a protected number asked: spread evenly over the distinct values seen in training
TURNED = (
    "Asked of the model, a protected characteristic alone changed turns this refusal (the lender's record names it: turns_on). "
    "No change within the protections was found, which is not proved: the model cannot be read."
)
"""The reason a person so turned is given: words that may reach the applicant name no characteristic."""

Turns = tuple[tuple[str, Any], ...]


def protected_changes(engine: Engine, person: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """Each change of one protected characteristic of the ``person``'s row (in play or not)
    alone to a value the protections bar them from: every other category of its domain (never
    an unknown one), and numbers spread over those seen in training."""
    out = []
    for feature in engine.schema.features:
        if not feature.protected or feature.name not in person:
            continue
        own = person[feature.name]
        if feature.is_numeric:
            seen = engine.observed.numbers.get(feature.name, np.zeros(0))
            values = [seen[i].item() for i in np.unique(np.linspace(0, len(seen) - 1, SPREAD).round().astype(int))] if len(seen) else []
        else:
            domain = feature.domain if feature.domain is not None else engine.observed.tokens.get(feature.name, ())
            values = [v for v in domain if v not in feature.unknown]
        out += [(feature.name, value) for value in values if value != own and not allows(feature, own, value)]
    return out


def turns(engine: Engine, person: Mapping[str, Any], verdicts: Verdicts) -> Generator[Sequence[dict[str, Any]], list[bool], Turns]:
    """The protected characteristics (feature, value) that alone turn the model's refusal of the
    ``person``, asked in one call (rows the search asked already are not asked again)."""
    changes = protected_changes(engine, person)
    if not changes:
        return ()
    verdicts.phase = PROTECTED
    accepted = yield from verdicts.ask([], free=[verdicts.key({name: value}) for name, value in changes])
    return tuple(change for change, ok in zip(changes, accepted) if ok)
