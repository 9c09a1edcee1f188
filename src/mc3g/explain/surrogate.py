"""MC3G's ``extract_logic``: decision rules that imitate a black box (Dasgupta et al., NeSy 2025).

FOLD-SE learns rules of the model's own predictions, so the search can reason about the model
symbolically; how far to trust them is their *fidelity*, the share of rows they did not see on
which they agree with the model.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..foldse import FoldSE
from ..rules import RuleSet


@dataclass(frozen=True)
class Surrogate:
    """Rules of the unfavourable class and their agreement with the model on held-out rows
    (``None`` when nothing was held out)."""

    rules: RuleSet
    fidelity: float | None
    n_fit: int
    n_held_out: int


def build_surrogate(
    X: pd.DataFrame,
    labels: np.ndarray,
    *,
    unfavourable: str,
    numeric: list[str],
    label: str = "decision",
    ratio: float = 0.5,
    tail: float = 0.005,
    holdout: float = 0.2,
    random_state: int = 0,
) -> Surrogate:
    """FOLD-SE rules of ``labels`` (the model's predictions on ``X``, as text), fitted on all
    rows but a random ``holdout`` share, which measures the fidelity.

    FOLD-SE's tail cut can stop at a first rule too small to keep, leaving no rules at all; then
    finer tails are tried (``tail/5``, then none)."""
    order = np.random.default_rng(random_state).permutation(len(X))
    n_out = int(round(len(X) * holdout)) if 0 < holdout < 1 else 0
    held, used = order[:n_out], order[n_out:]
    y = pd.Series(labels[used], name=label)
    for cut in sorted({tail, tail / 5, 0.0}, reverse=True):
        learner = FoldSE(ratio=ratio, tail=cut, target=unfavourable, numeric=numeric).fit(X.iloc[used], y)
        if learner.rules_.n_rules:
            break
    fidelity = float(np.mean(learner.predict(X.iloc[held]).astype(str) == labels[held])) if n_out else None
    return Surrogate(learner.rules_, fidelity, len(used), n_out)
