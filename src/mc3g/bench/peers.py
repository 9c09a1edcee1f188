"""CFNOW's greedy search beside MC3G in ``mc3g bench blackbox`` (issue 51: never slower than it).

CFNOW (:class:`~mc3g.baselines.cfnow.CfnowExplainer`) explains the first rows of each black box,
interleaved with MC3G and DiCE random on the same rows, asking the model through a counter of
its own.  Its search runs in two parts on its own clock: the greedy search for counterfactuals,
then their tuning, which goes on until its time bound (``limit_seconds``) runs out or nothing
improves.  The greedy part is what a local search costs to find an answer, so MC3G's seconds a
query are set against it; the whole query is reported beside it.  Its answers are judged as
DiCE's are: by the model again and by the checker against the knowledge and the metadata.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..explain import Recourse
from ..methods import explainer

CFNOW_ROWS = 10  # the rows of each box CFNOW explains, the first ones
CFNOW_TUNING = 2  # the seconds its tuning may take (CFNOW's default is 120; its examples use 10): its greedy part is what is compared
CFNOW_TIMEOUT = 60  # seconds a query may take in all, as DiCE's

Judged = list[tuple[float, bool, bool]]  # each option of an answer: its L1 cost, the model accepts it, it breaks no knowledge or metadata


@dataclass(frozen=True)
class Cfnow:
    """How CFNOW runs in the benchmark: on the first ``rows`` rows of each box (0: not at all),
    its tuning bounded at ``tuning_seconds``."""

    rows: int = CFNOW_ROWS
    tuning_seconds: int = CFNOW_TUNING


@dataclass(frozen=True)
class CfnowRun:
    """CFNOW on a box's first ``rows`` rows: rows it answered, the share of its options the model
    accepts and the knowledge allows, the mean cheapest L1 of MC3G's and its good answers on the
    rows where both have one (``both``), MC3G's seconds a query on those rows, CFNOW's greedy
    search's and its whole query's (its own clock, and ours), ``ratio`` its greedy seconds over
    MC3G's (1 or more where MC3G is no slower), and its model calls a query."""

    rows: int
    answered: int
    validity: float | None
    consistency: float | None
    both: int
    mc3g_l1: float | None
    l1: float | None
    mc3g_seconds: float
    greedy_seconds: float
    seconds: float
    ratio: float
    calls: float


class CfnowAsked:
    """CFNOW fitted on one box (``model`` counted by ``box``), asked row by row."""

    def __init__(self, settings: Cfnow, model: Any, box: Any, k: int, vary: Sequence[str], numeric: Sequence[str], X_train: pd.DataFrame) -> None:
        self.settings, self.box = settings, box
        options = {"k": k, "features_to_vary": list(vary), "continuous": list(numeric), "tuning_seconds": settings.tuning_seconds, "timeout": CFNOW_TIMEOUT}
        self.explainer = explainer("cfnow", model, None, **options).fit(X_train)
        self.answers: list[Recourse] = []
        self.seconds: list[float] = []
        box.calls = 0

    def ask(self, index: int, row: pd.Series) -> None:
        """CFNOW's answer for the box's row number ``index``, if it is one of its first rows."""
        if index < self.settings.rows:
            start = time.perf_counter()
            self.answers.append(self.explainer.explain(row))  # type: ignore[arg-type]
            self.seconds.append(time.perf_counter() - start)

    def run(self, ours: Sequence[Judged], theirs: Sequence[Judged], t_ours: Sequence[float]) -> CfnowRun:
        """The figures, from MC3G's answers and CFNOW's judged (``ours``, ``theirs``) and MC3G's seconds a query."""
        n = len(self.answers)
        ours, t_ours = list(ours)[:n], list(t_ours)[:n]
        best = [min((c for c, valid, consistent in r if valid and consistent), default=None) for r in theirs]
        mine = [min((c for c, _, _ in r), default=None) for r in ours]
        both = [(m, t) for m, t in zip(mine, best) if m is not None and t is not None]
        greedy = [next(iter((a.run.seconds_by_phase or {}).values()), a.run.search_seconds or 0.0) for a in self.answers]
        options = [o for r in theirs for o in r]
        mc3g_seconds = float(np.mean(t_ours)) if n else float("nan")
        return CfnowRun(
            n, sum(bool(a.counterfactuals) for a in self.answers),
            100 * float(np.mean([o[1] for o in options])) if options else None, 100 * float(np.mean([o[2] for o in options])) if options else None,
            len(both), float(np.mean([m for m, _ in both])) if both else None, float(np.mean([t for _, t in both])) if both else None,
            mc3g_seconds, float(np.mean(greedy)) if n else float("nan"), float(np.mean(self.seconds)) if n else float("nan"),
            float(np.mean(greedy)) / mc3g_seconds if n else float("nan"), self.box.calls / n if n else float("nan"),
        )  # fmt: skip
