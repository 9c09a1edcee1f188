"""A surrogate that learns from its mistakes: counterexample-guided refinement at ``fit``.

MC3G's surrogate (Dasgupta et al., NeSy 2025, ``extract_logic``) is learned once from the model's
predictions on the training rows.  Where it is wrong near the people the model refuses, the
search pays: each state the rules let through and the model rejects is judged in vain, and a state
the rules wrongly refuse is never tried.  Refinement looks where the search will look: it draws
rows around the refused training rows (:func:`~mc3g.hunt.local.neighbours`), has the model
judge them in one call, and the rows the rules judge otherwise are counterexamples.  FOLD-SE
learns again from the training rows and every row drawn so far, labelled by the model; a round is
kept only when the new rules agree better with the model around refused people no round learned
from (held-out rows: ``near``), and refinement stops when a round finds no counterexample.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from ..engine import Engine
from ..hunt import neighbours
from ..models import typed_frame
from .surrogate import Surrogate, split

PROBES = 400  # refused training rows drawn around per round
CHECKS = 100  # refused held-out rows around which agreement is measured
NEIGHBOURS = 10  # rows drawn around each of them

Learn = Callable[[tuple[pd.DataFrame, np.ndarray] | None], Surrogate]


def refine(engine: Engine, X: pd.DataFrame, labels: np.ndarray, surrogate: Surrogate, learn: Learn, rounds: int, holdout: float) -> tuple[Engine, Surrogate]:
    """The engine and surrogate after at most ``rounds`` rounds; ``labels`` are the model's on
    ``X`` and ``learn(extra)`` fits the surrogate again with the extra rows and labels (the
    held-out rows stay out)."""
    box = engine.black_box
    assert box is not None and box.labels is not None
    rng = np.random.default_rng(engine.settings.random_state)
    held, used = split(labels, holdout, engine.settings.random_state)
    refused = labels == engine.unfavourable
    pool = used[refused[used]]
    checks = _pick(held[refused[held]] if len(held) else pool, CHECKS, rng)
    records = X.to_dict("records")
    check_rows = _around(engine, records, checks, rng)
    check = typed_frame(check_rows, box.dtypes)
    check_refused = box.labels_of(check) == engine.unfavourable
    other = next(label for label in box.labels if label != engine.unfavourable)

    def near(candidate: Engine) -> float:
        return float(np.mean(candidate.refuses(check) == check_refused)) if len(check) else 1.0

    first, first_near = surrogate, near(engine)
    best_near = first_near
    drawn: list[dict[str, Any]] = []
    verdicts: list[bool] = []
    done = wrong = 0
    for _ in range(rounds):
        rows = _around(engine, records, _pick(pool, PROBES, rng), rng)
        frame = typed_frame(rows, box.dtypes)  # built once: the model and the rules both read it
        refusals = box.labels_of(frame) == engine.unfavourable
        mistakes = int(np.sum(engine.refuses(frame) != refusals))
        if not mistakes:
            break
        drawn += rows
        verdicts += refusals.tolist()
        candidate = learn((typed_frame(drawn, box.dtypes), np.array([engine.unfavourable if v else other for v in verdicts], dtype=object)))
        refined = engine.with_rules(candidate.rules, candidate.fidelity)
        agreement = near(refined)
        if agreement <= best_near:
            break
        engine, surrogate, best_near, done, wrong = refined, candidate, agreement, done + 1, wrong + mistakes
    return engine, replace(surrogate, near=best_near, first_fidelity=first.fidelity, first_near=first_near, rounds=done, counterexamples=wrong)


def _pick(positions: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    return rng.choice(positions, size=min(n, len(positions)), replace=False) if len(positions) else positions


def _around(engine: Engine, records: list[dict[str, Any]], people: np.ndarray, rng: np.random.Generator) -> list[dict[str, Any]]:
    """``NEIGHBOURS`` rows drawn around each of ``people`` (positions in ``records``)."""
    return [{**records[i], **dict(change)} for i in people for change in neighbours(engine, records[i], NEIGHBOURS, rng)]
