"""What a worker does with one partition: explain its people with their questions to the model
pooled (:func:`mc3g.explain.explain_chunk`), and write one Parquet file of one row per person.

A partition file appears whole or not at all: it is written under a hidden temporary name, synced
and renamed into place.  A worker that dies mid-write leaves only the temporary file, which the
next run removes; a partition written twice (a task retried after its worker died just after
the rename) is written with the same rows under the same name, so nobody is in the results twice.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..explain import ERROR, NO_COUNTERFACTUAL, NOT_REFUSED, REFUSED, Recourse, explain_chunk
from ..values import plain
from .inputs import Partition

PARTITION_FORMAT = "mc3g.batch.partition"
METADATA_KEY = b"mc3g.batch"
_REFUSED = {REFUSED: True, NO_COUNTERFACTUAL: True, NOT_REFUSED: False}


@dataclass(frozen=True)
class Job:
    """What every partition of a run shares: the results folder, the settings' hash, the arrow
    schema of the input columns, and whether index labels are whole numbers."""

    out: str
    settings_hash: str
    inputs: Any  # pyarrow.Schema
    integer_index: bool


def explain_partition(explainer: Any, block: Any, part: Partition, job: Job) -> dict[str, Any]:
    """Explain the rows of ``part`` (cut from ``block``, a frame) and write their partition file;
    returns the partition's number, its rows, the count of each status, and the wall-clock and
    CPU seconds it took."""
    start, cpu = time.perf_counter(), time.process_time()
    rows = block.iloc[part.start : part.stop]
    features = list(explainer.feature_names_in_)
    records = [dict(r.items()) for _, r in rows[features].iterrows()]
    positions = list(range(part.position, part.position + part.rows))
    answers = explain_chunk(explainer, records, explainer.run_record().k, positions)
    write_partition(Path(job.out), part, job, _table(rows, answers, part, job))
    statuses: dict[str, int] = {}
    for answer in answers:
        statuses[answer.status] = statuses.get(answer.status, 0) + 1
    return {"number": part.number, "rows": part.rows, "statuses": statuses, "seconds": time.perf_counter() - start, "cpu_seconds": time.process_time() - cpu}


def _table(rows: Any, answers: list[Recourse], part: Partition, job: Job) -> Any:
    """One row per person: the results' columns, then the person's input columns."""
    import pyarrow as pa

    stored = rows.index if part.indexed else (part.first_label + part.step * i for i in range(part.rows))
    labels = [_label(v, job.integer_index) for v in stored]
    audited = audited_columns(answers)
    results = {
        "position": pa.array(range(part.position, part.position + part.rows), pa.int64()),
        "index": pa.array(labels, pa.int64() if job.integer_index else pa.string()),
        "source": pa.array([part.source] * part.rows, pa.string()),
        "status": pa.array(audited["status"], pa.string()),
        "refused": pa.array(audited["refused"], pa.bool_()),
        "cost": pa.array(audited["cost"], pa.float64()),
        "actions": pa.array(audited["actions"], pa.list_(pa.string())),
        "options": pa.array(audited["options"], pa.string()),
        "reasons": pa.array([" ".join(a.reasons) if a.status != ERROR else None for a in answers], pa.string()),
        "fewer": pa.array(audited["fewer"], pa.string()),
        "error": pa.array([" ".join(a.reasons) if a.status == ERROR else None for a in answers], pa.string()),
        "guarantee": pa.array(audited["guarantee"], pa.string()),
        "blocking": pa.array(audited["blocking"], pa.list_(pa.string())),
        "turns_on": pa.array(audited["turns_on"], pa.list_(pa.string())),
        "settings_hash": pa.array([job.settings_hash] * part.rows, pa.string()),
        "principal_reasons": pa.array([json.dumps([r.to_dict() for r in a.principal]) for a in answers], pa.string()),
    }
    inputs = pa.Table.from_pandas(rows.reset_index(drop=True), schema=job.inputs, preserve_index=False)
    return pa.Table.from_arrays([*results.values(), *inputs.columns], names=[*results, *inputs.column_names])


def audited_columns(answers: list[Recourse]) -> dict[str, list[Any]]:
    """The columns of the results the audit reads, one entry per answer: ``status``, ``refused``
    (None for an error), the best option's ``cost`` and ``actions``, ``guarantee``, ``blocking``,
    ``turns_on`` (``feature = value`` each: :attr:`Recourse.turns_on`), ``fewer``: why a person
    with options has fewer than K (None otherwise; a person with none is told why in ``reasons``),
    and every option as JSON (``options``: a recourse summary's plans)."""
    best = [a.best for a in answers]
    return {
        "status": [a.status for a in answers],
        "refused": [_REFUSED.get(a.status) for a in answers],
        "cost": [b.cost if b else None for b in best],
        "actions": [[d.feature for d in b.direct_actions] if b else [] for b in best],
        "guarantee": [a.run.guarantee for a in answers],
        "blocking": [blocking_keys(a) for a in answers],
        "turns_on": [[f"{feature} = {plain(value)}" for feature, value in a.turns_on or ()] for a in answers],
        "fewer": [a.fewer or None if a.counterfactuals else None for a in answers],
        "options": [json.dumps([cf.to_dict() for cf in a.counterfactuals]) for a in answers],
    }


def blocking_keys(answer: Recourse) -> list[str]:
    """The protections (``feature: setting``) of the smallest sets whose lifting would open a way
    out for a person with none, proved (:attr:`Recourse.blocking`); [] for anyone else."""
    return sorted({f"{feature}: {setting}" for unit in answer.blocking or () for feature, setting in unit})


def _label(value: Any, integer: bool) -> Any:
    """An index label as the results hold it: a whole number, or else text."""
    if hasattr(value, "item"):
        value = value.item()
    return int(value) if integer else str(value)


def partition_metadata(part: Partition, settings_hash: str) -> dict[str, Any]:
    """What a partition file says of itself: a rerun keeps it only if this is what it would write."""
    return {"format": PARTITION_FORMAT, "version": 1, "settings_hash": settings_hash, "number": part.number, "position": part.position, "rows": part.rows}


def write_partition(out: Path, part: Partition, job: Job, table: Any) -> None:
    """Write ``table`` as the file of ``part``: all of it, under its name, or nothing there."""
    import pyarrow.parquet as pq

    table = table.replace_schema_metadata({METADATA_KEY: json.dumps(partition_metadata(part, job.settings_hash)).encode("utf-8")})
    temporary = out / f".{part.file_name}.{uuid.uuid4().hex}.tmp"
    try:
        pq.write_table(table, temporary)
        with open(temporary, "rb") as written:
            os.fsync(written.fileno())
        os.replace(temporary, out / part.file_name)
    finally:
        temporary.unlink(missing_ok=True)
