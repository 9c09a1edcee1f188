"""Options that hold beyond today's model (``mc3g bench robust``): how many of them a model
retrained on fresh resamples still accepts, and what holding costs.

For each data set and held-out model (fitted on the training split, product profile, K = 1),
the same refused test rows are explained three ways: as today (the model's decision alone), with
the model's own recipe retrained on 10 bootstrap resamples (``retrain``, every one required under
``product``), and with that and each margin on the probability.  Each answer's first option is then
judged by 10 *other* retrained models (fresh resamples, seeds no search saw): its survival is the
share of them that accept it.  Beside it: the people answered (and those left with none at the
search's bound, unproved), the mean cost of the option, the cost of holding (the mean cost over
today's, over the people answered both ways), and the time a person takes.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ..datasets import load
from ..explain import MC3G
from ..models import Robustness, retrained_models
from ..reference import encoded, knowledge
from .exact import held_out

CASES = (("german", "uci"), ("taiwan", "uci"))
KINDS = ("hgb",)
RETRAINS = 10
FRESH = 1000  # the first seed of the resamples that judge the options (the search's start at 0)


@dataclass(frozen=True)
class RobustRun:
    dataset: str
    model: str
    setting: str  # today, retrained, retrained + margin
    exact: bool  # the options proved the least-cost that hold
    refused: int
    answered: int
    bounded: int  # refused people left with no option at max_states: none found, none proved
    survival: float  # mean share of the fresh retrained models accepting the first option
    all_fresh: float  # share of first options every fresh retrained model accepts
    cost: float  # mean cost of the first option, over the people answered
    extra_cost: float  # the mean cost over today's, over the people answered both ways
    ms_person: float  # median
    fit_seconds: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def robust_benchmark(
    rows: int = 30,
    kinds: Sequence[str] = KINDS,
    cases: Sequence[tuple[str, str]] = CASES,
    margins: Sequence[float] = (0.1, 0.2),
    progress: Callable[[str], None] | None = None,
) -> list[RobustRun]:
    """A :class:`RobustRun` per data set, model and setting, each on the same refused rows."""
    from threadpoolctl import threadpool_limits

    runs = []
    with threadpool_limits(limits=1):
        for name, split in cases:
            for kind in kinds:
                runs += _case(name, split, kind, rows, margins, progress)
    return runs


def _case(name: str, split: str, kind: str, rows: int, margins: Sequence[float], progress: Callable[[str], None] | None) -> list[RobustRun]:
    ds = load(name, split=split)
    label = ds.schema.label
    X, y, X_test = ds.train.drop(columns=[label]), ds.train[label], ds.test.drop(columns=[label])
    estimator = held_out(kind)
    model = encoded(estimator, X, [c for c in X.columns if c in ds.schema.numeric]).fit(X, y)
    causal = knowledge(ds)
    settings = {"today": {}, "retrained": {"retrain": model}} | {f"retrained + margin {m:g}": {"retrain": model, "margin": m} for m in margins}
    runs, today, fresh = [], None, None
    for setting, params in settings.items():
        if progress:
            progress(f"{name} {kind}: {setting}")
        start = time.perf_counter()
        explainer = MC3G(model, causal, schema=ds.schema, retrains=RETRAINS, **params).fit(X, y)
        fit_seconds = time.perf_counter() - start
        if fresh is None:
            favourable = next(lab for lab in explainer.black_box_.labels if lab != explainer.unfavourable_)
            fresh = Robustness(favourable, retrained=retrained_models(model, X, y, RETRAINS, FRESH, explainer.black_box_.labels))
            people = X_test[explainer.refuses(X_test)].iloc[:rows]
        costs, times, shares, bounded = {}, [], [], 0
        for index, person in people.iterrows():
            start = time.perf_counter()
            answer = explainer.explain(person)
            times.append(1000 * (time.perf_counter() - start))
            bounded += not answer.counterfactuals and answer.run.guarantee == "bounded"
            if answer.counterfactuals:
                costs[index] = answer[0].cost
                shares.append(float(fresh.survival(explainer.black_box_.frame([answer[0].values]))[0]))
        today = costs if today is None else today
        both = [i for i in costs if i in today]
        robust = explainer.black_box_.robust
        runs.append(
            RobustRun(
                name, type(estimator).__name__, setting, bool(robust.exact) if robust is not None else explainer.engine_.glass is not None,
                len(people), len(costs), bounded, statistics.fmean(shares) if shares else float("nan"),
                float(np.mean(np.array(shares) == 1.0)) if shares else float("nan"), statistics.fmean(costs.values()) if costs else float("nan"),
                sum(costs[i] for i in both) / sum(today[i] for i in both) if both else float("nan"), statistics.median(times), fit_seconds,
            )
        )  # fmt: skip
    return runs
