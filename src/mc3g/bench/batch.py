"""``mc3g bench batch``: a portfolio on Dask, measured.

Every row of adult's test split (paper split) is explained by :class:`mc3g.batch.Batch` on a
``LocalCluster`` of 1, then 2 worker processes, with a black box of Table 1 (the
gradient-boosted model by default) fitted once.  For each cluster: the wall-clock seconds of
the run (planning, shipping the explainer, explaining and writing every partition; the
cluster's start is timed apart), people and refused people per second, the workers' CPU seconds
per person, and each worker's peak memory (its largest resident set).  Optionally the same
refused rows through ``MC3G.explain_each`` with joblib processes, the path of
``mc3g explain --all-refused --n-jobs N``, for comparison.

:func:`projection` turns the measured cost per person into hours for a million people on N
workers, assuming the refused share of adult's test split, and the parallel efficiency measured
on the largest cluster here holding on larger ones.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from ..audit import audit, parse_groupings, write_report
from ..batch import Batch, dask_client
from ..causal import CausalModel
from ..datasets import load
from ..explain import MC3G, NO_COUNTERFACTUAL, REFUSED
from ..profiles import Profile
from ..reference import knowledge
from .table1 import SURROGATE_TAIL, black_box

PROJECTED_WORKERS = (8, 32, 128)
MILLION = 1_000_000


@dataclass(frozen=True)
class BatchTiming:
    model: str
    profile: str
    k: int
    runner: str  # "dask" or "joblib"
    workers: int
    people: int  # rows of the input
    refused: int  # people the model refuses (with or without an option)
    seconds: float  # the run, without starting the cluster
    cpu_seconds: float  # the workers' CPU time on the partitions (dask only)
    peak_mib: tuple[float, ...]  # each worker's largest resident set (dask only)
    start_seconds: float  # starting the cluster (dask only)

    def to_dict(self) -> dict:
        return asdict(self)


def batch_benchmark(
    workers: tuple[int, ...] = (1, 2),
    profile: str = Profile.PRODUCT,
    k: int = 1,
    model: str = "gbm",
    joblib: bool = False,
    progress: Callable[[str], None] | None = None,
    audit_to: Path | None = None,
) -> list[BatchTiming]:
    """One :class:`BatchTiming` per cluster size in ``workers`` (and, with ``joblib``, per
    number of joblib processes); with ``audit_to``, the last run's results audited by sex and
    by race, with its recourse summary and weakest subgroups over the model's columns, into that
    folder (``audit.md`` and its plots: docs/audit)."""
    say = progress or (lambda text: None)
    ds = load("adult", split="paper")
    say(f"fitting the {model} black box and its explainer")
    judge = black_box(ds, model)
    causal = knowledge(ds) or CausalModel()
    explainer = MC3G(judge, causal, schema=ds.schema, profile=profile, k=k, tail=SURROGATE_TAIL["adult"]).fit(ds.train.drop(columns=[ds.schema.label]))
    label = type(judge[-1]).__name__
    timings = []
    with tempfile.TemporaryDirectory(prefix="mc3g-bench-batch-") as tmp:
        source = Path(tmp) / "adult-test.parquet"
        ds.test.to_parquet(source)
        for n in workers:
            say(f"{n} worker(s)")
            began = time.perf_counter()
            with dask_client(workers=n) as client:
                start = time.perf_counter() - began
                began = time.perf_counter()
                with Batch(explainer, source, Path(tmp) / f"out-{n}", client) as run:
                    summary = run.run()
                seconds = time.perf_counter() - began
                peaks = tuple(client.run(_peak_mib).values())
            refused = summary.statuses.get(REFUSED, 0) + summary.statuses.get(NO_COUNTERFACTUAL, 0)
            timings.append(BatchTiming(label, profile, k, "dask", n, summary.people, refused, seconds, summary.cpu_seconds, peaks, start))
        if audit_to is not None:
            features = list(explainer.feature_names_in_)  # the summary and the subgroups over what the model reads, not the outcome the file holds
            write_report(audit(Path(tmp) / f"out-{workers[-1]}", parse_groupings("sex,race"), patterns=features), audit_to)
        if joblib:
            X = ds.test[list(explainer.feature_names_in_)]
            rows = X[explainer.refuses(X)]
            for n in workers:
                say(f"joblib, {n} process(es)")
                began = time.perf_counter()
                answers = list(explainer.set_params(n_jobs=n).explain_each(rows))
                seconds = time.perf_counter() - began
                timings.append(BatchTiming(label, profile, k, "joblib", n, len(answers), len(answers), seconds, 0.0, (), 0.0))
    return timings


def _peak_mib() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kilobytes on Linux


@dataclass(frozen=True)
class Projection:
    workers: int
    hours: float  # for a million people

    def to_dict(self) -> dict:
        return asdict(self)


def projection(timings: list[BatchTiming], sizes: tuple[int, ...] = PROJECTED_WORKERS) -> list[Projection]:
    """Hours for a million people on each cluster size: the seconds per person of the smallest
    measured Dask cluster, times its size, spread over ``sizes`` workers at the parallel
    efficiency of the largest measured one."""
    dask_runs = sorted((t for t in timings if t.runner == "dask"), key=lambda t: t.workers)
    smallest, largest = dask_runs[0], dask_runs[-1]
    worker_seconds = smallest.seconds * smallest.workers / smallest.people
    efficiency = min(1.0, (smallest.seconds * smallest.workers) / (largest.seconds * largest.workers))
    return [Projection(n, MILLION * worker_seconds / (n * efficiency) / 3600) for n in sizes]
