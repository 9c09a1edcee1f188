"""Options that hold beyond today's model, in one person's search.

The black box's :class:`~mc3g.models.Robustness` (a margin on its probability, models retrained
on resampled data) judges every row the model accepts, the person's own aside: a row that does
not hold counts as refused, so the search goes on to the next least-cost state, and the options
are the least-cost states that the model accepts *and* that hold.  Each option then carries the
share of retrained models that accept it.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import replace
from typing import Any

import pandas as pd

from ..engine import Engine
from ..exceptions import InputError
from ..models import Robustness, retrained_models
from .readable import with_retrained
from .result import Counterfactual

Row = dict[str, Any]
Asking = Generator[Sequence[Row], list[bool], list[bool]]


def robust_engine(engine: Engine, params: Mapping[str, Any], X: pd.DataFrame, y: Any) -> Engine:
    """The engine whose black box judges options with MC3G's ``margin``, ``retrain``,
    ``retrains`` and ``survive`` (``params``), the models retrained on ``X`` and ``y``; a model
    read exactly is given the retrained models' tests of each number as candidates too."""
    margin, recipe, survive, box = params["margin"], params["retrain"], params["survive"], engine.black_box
    if not margin and recipe is None:
        if survive is not None:
            raise InputError("survive is the share of retrained models an option must satisfy: give retrain too")
        return engine
    if box is None:
        raise InputError("margin and retrain judge a model's options, and the model is decision rules: leave them out")
    labels = box.labels or ()
    favourable = next(label for label in labels if label != box.unfavourable)
    retrained = () if recipe is None else retrained_models(recipe, X, y, params["retrains"], params["random_state"], labels)
    share = (survive if survive is not None else engine.settings.profile.survive) if retrained else 0.0
    box.robust = Robustness.of(params["model"], favourable, margin=margin, retrained=retrained, survive=share)
    if engine.glass is None:
        return engine
    glass, box.robust = with_retrained(engine, box.robust, X, params["random_state"])
    return engine.with_glass(glass, engine.opaque)


class Holding:
    """The robustness checks between a black box's search and the model's verdicts: ``wrap``
    turns a way of asking the model into one whose accepted rows that do not hold come back
    refused; ``passed_over`` counts them."""

    def __init__(self, engine: Engine, person: Row) -> None:
        self.box = engine.black_box if engine.black_box is not None and engine.black_box.robust is not None else None
        self.person = person
        self.passed_over = 0

    def wrap(self, away: Callable[[list[Row]], Asking]) -> Callable[[list[Row]], Asking]:
        if self.box is None:
            return away

        def asked(rows: list[Row]) -> Asking:
            refusals = yield from away(rows)
            return self.judged(rows, refusals)

        return asked

    def judged(self, rows: Sequence[Row], refusals: list[bool]) -> list[bool]:
        """``refusals`` with every accepted row but the person's that does not hold refused."""
        assert self.box is not None
        accepted = [i for i, refused in enumerate(refusals) if not refused]
        picked = [(i, row) for i in accepted if (row := rows[i]) != self.person]
        if not picked:
            return refusals
        out = list(refusals)
        for (i, _), held in zip(picked, self.box.holding([row for _, row in picked])):
            if not held:
                out[i] = True
                self.passed_over += 1
        return out


def with_survival(engine: Engine, options: tuple[Counterfactual, ...]) -> tuple[Counterfactual, ...]:
    """Each option with the share of the retrained models that accept it (as it was when none)."""
    box = engine.black_box
    if box is None or box.robust is None or not box.robust.retrained or not options:
        return options
    return tuple(replace(cf, survival=share) for cf, share in zip(options, box.survival([cf.values for cf in options])))


def passed_over(engine: Engine, count: int) -> str:
    """What the states the model accepts but that do not hold needed, in words."""
    states = "state" if count == 1 else "states"
    return f"{count:,} {states} the model accepts {'was' if count == 1 else 'were'} passed over as not sure to hold: an option needs {needed(engine)}."


def needed(engine: Engine) -> str:
    """What an option needs beyond the model's decision, in words ('' where nothing)."""
    robust = engine.black_box.robust if engine.black_box is not None else None
    if robust is None:
        return ""
    needs = []
    if robust.margin:
        needs.append(f"a probability of approval at least {robust.point + robust.margin:.2f} ({robust.margin:g} past where the decision turns)")
    if robust.retrained and robust.survive:
        share = "every one" if robust.survive >= 1 else f"{robust.survive:.0%}"
        needs.append(f"approval by {share} of {len(robust.retrained)} models retrained on resampled data")
    return " and ".join(needs)
