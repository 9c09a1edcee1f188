"""Notices of adverse action on the shipped data sets (``mc3g bench notice``): for how many
refused people a notice can be written from the model's own reasons, how many have no way out
and need the lender's, and what a notice costs beyond the answer it is made from."""

from __future__ import annotations

import statistics
import time
from dataclasses import asdict, dataclass

from ..exceptions import NoticeError
from ..notice import Notice
from ..reference import fitted_explainer

CASES = (("adult", None), ("german", "uci"), ("taiwan", None))
"""Each data set with the split its product explainer is fitted on (German's every column: UCI)."""


@dataclass(frozen=True)
class NoticeTally:
    dataset: str
    refused: int  # refused test rows explained
    written: int  # notices written from the model's own reasons
    lender_reasons: int  # no way out: the model names no reason to act on, the lender's are needed
    refused_otherwise: int  # another NoticeError (a vague label, a protected plan): should be 0
    reasons_mean: float  # principal reasons per notice written
    waits: int  # notices whose plan waits, with when to apply again
    ms_median: float  # Notice.of's own time, the answer given

    def to_dict(self) -> dict:
        return asdict(self)


def notice_benchmark(rows: int = 100) -> list[NoticeTally]:
    """The first ``rows`` refused test rows of each of :data:`CASES`, product profile, K = 1."""
    tallies = []
    for name, split in CASES:
        ds, explainer = fitted_explainer(name, split)
        X = ds.test.drop(columns=[ds.schema.label])
        refused = X[explainer.refuses(X)].iloc[:rows]
        written, needing, other, reasons, waits, times = 0, 0, 0, [], 0, []
        for answer in explainer.explain(refused):
            start = time.perf_counter()
            try:
                made = Notice.of(explainer, answer)
            except NoticeError as exc:
                needing, other = (needing + 1, other) if "no principal reason" in str(exc) else (needing, other + 1)
                continue
            times.append(1000 * (time.perf_counter() - start))
            written, reasons = written + 1, [*reasons, len(made.reasons)]
            waits += made.plan is not None and made.apply_again.startswith("Apply again in")
        tallies.append(
            NoticeTally(
                name, len(refused), written, needing, other, statistics.fmean(reasons) if reasons else 0.0, waits, statistics.median(times) if times else 0.0
            )
        )
    return tallies
