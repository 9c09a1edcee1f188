"""A batch's results folder: a manifest of the settings, one Parquet file per partition.

- ``_batch.json`` records the settings every answer in the folder was made under (the ones a
  results file's header holds: :func:`mc3g.records.batch_settings`) and their hash.  A rerun
  under other settings is refused, each difference named (:func:`mc3g.records.check_settings`);
  ``overwrite`` empties the folder's partitions first.
- ``_batch.lock`` is held by the run writing the folder, so a second run is refused.
- ``part-NNNNN.parquet`` is one partition's people.  A rerun keeps a partition file whose
  metadata names this run's settings hash and the partition's rows, and removes any other (a
  file of another plan, a damaged one) and every temporary file left by a run that stopped, so
  those partitions are explained again.

Names starting with ``_`` or ``.`` are what pandas and pyarrow skip when they read the folder as
one data set, so ``pd.read_parquet(folder)`` reads the people and nothing else.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..exceptions import ResultsFileError
from ..reading import loads, read_text, regular_file
from ..records import check_settings, lock_file, settings_hash
from .inputs import Partition
from .work import METADATA_KEY, partition_metadata

MANIFEST = "_batch.json"
LOCK = "_batch.lock"
FORMAT = "mc3g.batch"
VERSION = 1
AUDIT = "_audit"  # the audit's default folder inside the results


class ResultsFolder:
    """The results folder ``out`` of a run under ``settings``, locked while it is open; ``plan``
    (how many partitions and people the input makes) tells a reader whether the run is complete."""

    def __init__(self, out: Path, settings: Mapping[str, Any], plan: Mapping[str, int], overwrite: bool = False) -> None:
        self.out = out
        self.settings = dict(settings)
        self.plan = dict(plan)
        self.hash = settings_hash(settings)
        if out.exists() and not out.is_dir():
            raise ResultsFileError(f"{out} is a file: name a folder for the results of a batch")
        out.mkdir(parents=True, exist_ok=True)
        self._lock = os.open(out / LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
        try:
            lock_file(self._lock, str(out))
            self._open(overwrite)
        except BaseException:
            os.close(self._lock)
            raise

    def __enter__(self) -> ResultsFolder:
        return self

    def __exit__(self, *exc: object) -> None:
        os.close(self._lock)

    def _open(self, overwrite: bool) -> None:
        manifest = self.out / MANIFEST
        if not manifest.exists():
            strangers = sorted(p.name for p in self.out.iterdir() if not _ours(p.name))
            if strangers:
                raise ResultsFileError(f"{self.out} is not the results folder of a batch (it holds {strangers[:3]}): name a new or an empty folder")
        elif not overwrite:
            try:
                recorded = loads(read_text(manifest, "batch manifest"))
            except json.JSONDecodeError as exc:
                raise ResultsFileError(f"{manifest} cannot be read ({exc}); start the folder afresh with --overwrite (its answers are lost)") from None
            if not isinstance(recorded, dict) or recorded.get("format") != FORMAT or recorded.get("version") != VERSION:
                raise ResultsFileError(f"{manifest} is not the manifest of an mc3g batch of version {VERSION}; start the folder afresh with --overwrite")
            check_settings(str(manifest), recorded.get("settings"), self.settings)
        if overwrite:
            for path in self.out.iterdir():
                if path.name.startswith(("part-", ".part-")):
                    path.unlink()
        document = {"format": FORMAT, "version": VERSION, "settings": self.settings, "settings_hash": self.hash, "plan": self.plan}
        _write_atomically(manifest, json.dumps(document, indent=1))

    def finished(self, partitions: Iterable[Partition]) -> set[int]:
        """The partitions already in the folder, whole and of this run's settings; every other
        partition file, and every temporary one, is removed."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        expected = {p.file_name: p for p in partitions}
        done = set()
        self.remove_temporaries()
        for path in sorted(self.out.glob("part-*")):
            part = expected.get(path.name)
            try:
                metadata = pq.read_metadata(regular_file(path, "results partition"))
                mine = json.loads((metadata.metadata or {}).get(METADATA_KEY, b"null"))
            except (pa.ArrowException, OSError, json.JSONDecodeError):
                mine = None
            if part is not None and mine == partition_metadata(part, self.hash) and metadata.num_rows == part.rows:
                done.add(part.number)
            else:
                path.unlink()
        return done

    def remove_temporaries(self) -> None:
        """Remove the temporary files of partitions whose writer died: call it only while no task
        of this folder's runs can still be writing."""
        for path in self.out.glob(".part-*"):
            path.unlink(missing_ok=True)


def _ours(name: str) -> bool:
    return name in (LOCK, AUDIT, f".{MANIFEST}.tmp") or name.startswith(("part-", ".part-"))


def _write_atomically(path: Path, text: str) -> None:
    temporary = path.with_name(f".{path.name}.tmp")
    with open(temporary, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(temporary, path)


def partition_files(folder: str | Path) -> list[Path]:
    """The partition files of a results folder, in order (what its people are read from)."""
    out = Path(folder)
    if not (out / MANIFEST).is_file():
        raise ResultsFileError(f"{out} is not the results folder of a batch (it has no {MANIFEST})")
    return sorted(regular_file(p, "results partition") for p in out.iterdir() if p.name.startswith("part-") and p.suffix == ".parquet")


def read_manifest(folder: str | Path) -> dict[str, Any]:
    """The manifest of a results folder: its format, settings and their hash."""
    path = Path(folder) / MANIFEST
    try:
        return loads(read_text(path, "batch manifest"))
    except json.JSONDecodeError as exc:
        raise ResultsFileError(f"{path} cannot be read: {exc}") from None
