"""MC3G's ``extract_logic``: decision rules that imitate a black box (Dasgupta et al., NeSy 2025).

FOLD-SE learns rules of the model's own predictions, so the search can reason about the model
symbolically; how far to trust them is their *fidelity*, the share of rows they did not see on
which they agree with the model.  Rows the model judged during a search (:mod:`.refine`) can join
the training rows: the same held-out rows measure the fidelity.
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
    (``None`` when nothing was held out).  After refinement (:func:`~mc3g.explain.refine.refine`),
    ``near`` is the agreement on rows around refused people the refinement did not learn from,
    ``first_fidelity`` and ``first_near`` are both figures of the rules first learned, and
    ``counterexamples`` counts the rows the model judged that joined the training rows."""

    rules: RuleSet
    fidelity: float | None
    n_fit: int
    n_held_out: int
    near: float | None = None
    first_fidelity: float | None = None
    first_near: float | None = None
    rounds: int = 0
    counterexamples: int = 0


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
    extra: tuple[pd.DataFrame, np.ndarray] | None = None,
) -> Surrogate:
    """FOLD-SE rules of ``labels`` (the model's predictions on ``X``, as text), fitted on all
    rows but a random ``holdout`` share, which measures the fidelity, and on the ``extra`` rows
    and labels (the model's verdicts on rows it judged during a search).

    FOLD-SE's tail cut can stop at a first rule too small to keep, leaving no rules at all; then
    finer tails are tried (``tail/5``, then none)."""
    held, used = split(labels, holdout, random_state)
    n_out = len(held)
    rows, y = X.iloc[used], labels[used]
    if extra is not None:
        rows, y = pd.concat([rows, extra[0]], ignore_index=True), np.concatenate([y, extra[1]])
    target = pd.Series(y, name=label)
    for cut in sorted({tail, tail / 5, 0.0}, reverse=True):
        learner = FoldSE(ratio=ratio, tail=cut, target=unfavourable, numeric=numeric).fit(rows, target)
        if learner.rules_.n_rules:
            break
    fidelity = float(np.mean(learner.predict(X.iloc[held]).astype(str) == labels[held])) if n_out else None
    return Surrogate(learner.rules_, fidelity, len(used), n_out)


def split(labels: np.ndarray, holdout: float, random_state: int) -> tuple[np.ndarray, np.ndarray]:
    """The positions of the training rows (their ``labels``) held out (a random ``holdout``
    share) and used; a label the share would hold out whole has its first row held out used
    instead (rules learned of one label cannot tell the two apart: a model that accepts two
    rows of 260 had both drawn out)."""
    order = np.random.default_rng(random_state).permutation(len(labels))
    n_out = int(round(len(labels) * holdout)) if 0 < holdout < 1 else 0
    held, used = order[:n_out], order[n_out:]
    back = [int(held[labels[held] == label][0]) for label in np.unique(labels[held]) if not (labels[used] == label).any()]
    return held[~np.isin(held, back)], np.concatenate([used, np.array(back, dtype=used.dtype)])
