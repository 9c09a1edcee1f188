"""Time per person for the counterfactual search over every refused test row of the paper's
data sets, with the profile's rules and causal knowledge; every answer is checked on the way."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np

from ..explain import forbidden_in, violations
from ..profiles import Profile
from ..reference import decision_rules, reference
from ..rules import Table

BENCH_DATASETS = ("adult", "german", "cars")


@dataclass(frozen=True)
class ExplainTiming:
    dataset: str
    profile: str
    k: int
    mode: str
    candidates: str
    distinct: bool
    people: int  # refused test rows explained
    found: int  # people with at least one counterfactual
    counterfactuals: int
    violations: int  # counterfactuals that break a rule, the causal knowledge or the metadata
    step_violations: int  # states on the way (steps before the last) that break the causal knowledge
    median_ms: float
    p95_ms: float
    worst_ms: float

    def to_dict(self) -> dict:
        return asdict(self)


def refused_rows(name: str, profile: str = Profile.PRODUCT, limit: int | None = None, every: int = 1):
    """The reference's data set and its test rows on which a decision rule of the profile fires
    (every ``every``-th of them, at most ``limit``)."""
    ref = reference(name)
    ds = ref.data()
    covered = decision_rules(ds, profile).covers(Table.from_frame(ds.X_test))
    rows = ds.X_test[covered].iloc[::every]
    return ref, ds, rows if limit is None else rows.iloc[:limit]


def explain_benchmark(
    datasets: tuple[str, ...] = BENCH_DATASETS,
    ks: tuple[int, ...] = (1, 20),
    mode: str = "derived",
    candidates: str = "exact",
    profile: str = Profile.PRODUCT,
    distinct: bool | None = None,
    limit: int | None = None,
    every: int = 1,
    on_person: Callable[[str, int], None] | None = None,
) -> list[ExplainTiming]:
    out = []
    for name in datasets:
        ref, ds, rows = refused_rows(name, profile, limit, every)
        for k in ks:
            explainer = ref.explainer(ds, profile=profile, mode=mode, k=k, candidates=candidates, distinct=distinct)
            decision = explainer.decision_rules_
            times, found, n_cf, bad, bad_steps = [], 0, 0, 0, 0
            for _, row in rows.iterrows():
                start = time.perf_counter()
                result = explainer.explain(row)
                times.append(time.perf_counter() - start)
                found += bool(result.counterfactuals)
                n_cf += len(result.counterfactuals)
                person = dict(row.items())
                bad += sum(bool(violations(cf, person, decision, explainer.causal_, explainer.schema_)) for cf in result)
                bad_steps += sum(bool(forbidden_in(step.state, explainer.causal_)) for cf in result for step in cf.steps[:-1])
                if on_person is not None:
                    on_person(name, k)
            ms = np.array(times) * 1000
            out.append(
                ExplainTiming(
                    name,
                    profile,
                    k,
                    mode,
                    candidates,
                    explainer.run_record().distinct,
                    len(rows),
                    found,
                    n_cf,
                    bad,
                    bad_steps,
                    float(np.median(ms)),
                    float(np.percentile(ms, 95)),
                    float(ms.max()),
                )  # fmt: skip
            )
    return out
