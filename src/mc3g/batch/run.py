"""A batch on a Dask cluster: plan the input, open the results folder, ship the fitted explainer
to the workers once, and explain every partition the folder does not hold yet.

The same code runs on a :class:`distributed.LocalCluster` (one worker process per core, bound
to 127.0.0.1) and on an existing cluster named by its scheduler's address.  On a cluster of
several machines, every worker must reach the input and the results folder at the same paths
(a shared file system) and run the same mc3g version, which the run checks.

Dask retries a partition whose worker died; its file is written whole under its own name or
not at all (:mod:`mc3g.batch.work`), so a retry neither loses nor repeats anyone.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ..exceptions import BatchError, InputError
from ..explain import usable_cores
from ..records import batch_settings
from ..schema import Schema
from ..values import first_non_number
from ..version import __version__
from .inputs import Input, plan_input
from .store import ResultsFolder
from .work import Job, explain_partition

PARTITION_ROWS = 256  # people per partition: one pooled search, one file, the unit of resume


@dataclass
class Summary:
    """What a run did: the partitions and people of the input, those already in the folder, the
    count of each status among the people explained now, the CPU seconds the workers spent on
    them, and the partitions that failed."""

    partitions: int
    people: int
    skipped_partitions: int
    skipped_people: int
    statuses: dict[str, int] = field(default_factory=dict)
    cpu_seconds: float = 0.0
    failed: list[str] = field(default_factory=list)


@contextmanager
def dask_client(scheduler: str | None = None, workers: int | None = None) -> Iterator[Any]:
    """A client of the cluster at ``scheduler`` (``tcp://HOST:PORT``), or else of a new
    ``LocalCluster`` of ``workers`` processes (one per usable core) listening on 127.0.0.1 only."""
    from distributed import Client, LocalCluster

    if scheduler is not None:
        try:
            client = Client(scheduler, timeout="20s")
        except (OSError, TimeoutError, ValueError) as exc:
            raise InputError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
        with client:
            yield client
        return
    import dask

    n = workers or usable_cores()
    local = {"host": "127.0.0.1", "dashboard_address": "127.0.0.1:0"}  # the scheduler serves HTTP whatever the dashboard: loopback, a free port
    # Dask's nannies set glibc's trim threshold in their workers, which fixes its mmap threshold
    # too: every array of more than 128 KiB is then mapped and unmapped afresh, and a search's
    # draws and pooled inputs paid about a tenth of their time in page faults (issue 51).
    untrimmed = {"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}
    # A worker samples its task's stack every 10 ms for the dashboard's profile, walking a
    # search's deep generators each time (about 1 % of a worker's samples): no one reads it here.
    unprofiled = {"distributed.worker.profile.enabled": False}
    with (
        dask.config.set({**untrimmed, **unprofiled}),
        LocalCluster(n_workers=n, threads_per_worker=1, processes=True, silence_logs=logging.ERROR, **local) as cluster,
        Client(cluster) as client,
    ):
        yield client


class Batch:
    """One run of ``explainer`` over ``source`` into the folder ``out`` on ``client``'s cluster:
    planned, its folder locked and checked, when made; :meth:`run` explains what is left.
    ``data`` is what the caller records of the explainer's training data (a data set's name,
    split and fingerprint) and ``model_file`` the black box's file, both part of the settings."""

    def __init__(
        self,
        explainer: Any,
        source: str | Path,
        out: str | Path,
        client: Any,
        *,
        data: Mapping[str, Any] | None = None,
        model_file: str | Path | None = None,
        partition_rows: int = PARTITION_ROWS,
        overwrite: bool = False,
    ) -> None:
        self.client = client
        self.explainer = explainer
        _check_workers(client)
        features = [str(c) for c in explainer.feature_names_in_]
        self.input: Input = plan_input(source, partition_rows, features, client, _text(explainer.schema_, features))
        settings = batch_settings(explainer, {**(data or {}), "input": self.input.settings()}, model_file)
        plan = {"partitions": len(self.input.partitions), "people": self.input.rows}
        self.folder = ResultsFolder(Path(out), settings, plan, overwrite)
        try:
            done = self.folder.finished(self.input.partitions)
        except BaseException:
            self.folder.__exit__()
            raise
        self.todo = [p for p in self.input.partitions if p.number not in done]
        skipped = sum(p.rows for p in self.input.partitions if p.number in done)
        self.summary = Summary(len(self.input.partitions), self.input.rows, len(done), skipped)

    def __enter__(self) -> Batch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.folder.__exit__(*exc)

    def run(self, advance: Callable[[int], None] = lambda n: None) -> Summary:
        """Explain every partition not yet in the folder; ``advance(n)`` hears of each partition's
        ``n`` people as it is written.  A partition that fails does not stop the others: they
        are all named in a :class:`~mc3g.exceptions.BatchError` at the end."""
        import dask
        import pyarrow as pa
        from distributed import as_completed

        if not self.todo:
            return self.summary
        token = uuid.uuid4().hex[:12]
        # The explainer travels once: one task holds it, and each worker fetches it once for all its partitions.
        shipped = self.client.submit(_itself, self.explainer, key=f"mc3g-explainer-{token}", pure=False)
        job = Job(str(self.folder.out.resolve()), self.folder.hash, pa.Schema.from_pandas(self.input.meta, preserve_index=False), self.input.integer_index)
        tasks = [
            dask.delayed(explain_partition, pure=False)(shipped, self.input.blocks[p.block], p, job, dask_key_name=f"mc3g-{p.file_name}-{token}")
            for p in self.todo
        ]
        futures = self.client.compute(tasks)
        try:
            for future in as_completed(futures):
                try:
                    result = future.result()
                except Exception as exc:  # reported with the others at the end; the rest go on
                    self.summary.failed.append(f"{future.key}: {type(exc).__name__}: {exc}")
                    continue
                for status, n in result["statuses"].items():
                    self.summary.statuses[status] = self.summary.statuses.get(status, 0) + n
                self.summary.cpu_seconds += result["cpu_seconds"]
                advance(result["rows"])
        finally:
            self.client.cancel([*futures, shipped])
        self.folder.remove_temporaries()  # every task has finished: what a worker killed mid-write left is no one's
        if self.summary.failed:
            raise BatchError(
                f"{len(self.summary.failed)} of {len(self.todo)} partition(s) failed, the first {self.summary.failed[0]}; "
                "the partitions written are kept: run the same command again to do the others"
            )
        return self.summary


def _text(schema: Schema, features: list[str]) -> list[str]:
    """The categorical features that a CSV reader types as text: those with a value that is not
    a number (pandas reads such a column as text, and so must every block of a batch's input)."""
    return [
        name for name in features
        if name in schema and not (f := schema.feature(name)).is_numeric and f.domain is not None and first_non_number(pd.Series(f.domain)) is not None
    ]  # fmt: skip


def _itself(explainer: Any) -> Any:
    return explainer


def _check_workers(client: Any) -> None:
    """Every worker must run this mc3g, or the answers would depend on where a partition ran."""
    try:
        client.wait_for_workers(1, timeout=60)
        versions = client.run(_mc3g_version)
    except Exception as exc:  # a worker without mc3g, or no worker at all
        raise InputError(f"the Dask workers cannot run mc3g: {type(exc).__name__}: {exc}") from None
    other = {address: v for address, v in versions.items() if v != __version__}
    if other:
        raise InputError(f"Dask worker(s) run another mc3g version than this one ({__version__}): {other}")


def _mc3g_version() -> str:
    from mc3g import __version__ as version

    return version
