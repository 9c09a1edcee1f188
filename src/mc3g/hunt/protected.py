"""The rows that ask whether a protected characteristic alone turns a refusal
(:mod:`mc3g.explain.turning`): the person's row with one of them set to a value the protections
bar.  Made here, below the explainer, so that a search left with no option at its widest draw
asks them in that call, held back from the search itself (:class:`~.phases.LastDraw`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..engine import Engine
from ..search import allows

PROTECTED = "protected"  # the phase that asks them where no option was found, in the run record's rounds
SPREAD = 9  # values of a protected number asked: spread evenly over the distinct values seen in training


def protected_changes(engine: Engine, person: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """Each change of one protected characteristic of the ``person``'s row (in play or not)
    alone to a value the protections bar them from: every other category of its domain seen in
    training (never an unknown one), and numbers spread over those seen in training."""
    out = []
    for feature in engine.schema.features:
        if not feature.protected or feature.name not in person:
            continue
        own = person[feature.name]
        if feature.is_numeric:
            seen = engine.observed.numbers.get(feature.name, np.zeros(0))
            values = [seen[i].item() for i in np.unique(np.linspace(0, len(seen) - 1, SPREAD).round().astype(int))] if len(seen) else []
        else:  # the categories seen in training only, as the search's own: a model may know no other
            seen = engine.observed.tokens.get(feature.name, [])
            values = [v for v in seen if v not in feature.unknown and (feature.domain is None or v in feature.domain)]
        out += [(feature.name, value) for value in values if value != own and not allows(feature, own, value)]
    return out
