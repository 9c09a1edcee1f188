"""What a batch explains: the rows of CSV or Parquet files, cut into partitions that come out the
same on every run, so that a rerun knows which partitions it already has.

The input is a file, a folder of files or a glob, all CSV or all Parquet, taken in name order.
Each file is read in blocks (a CSV in byte ranges of :data:`CSV_BLOCK_BYTES`, as
``dask.dataframe`` reads it; a Parquet file by row groups), and each block is cut into
partitions of at most ``partition_rows`` rows.  A row's ``position`` is its place in the whole
input, and its index label is the one pandas gives it reading its file alone: the index a
Parquet file stores (labels, or the range pandas wrote down), else the row's number in its file.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..exceptions import InputError
from ..reading import file_sha256, regular_file

SUFFIXES = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet"}
CSV_BLOCK_BYTES = 16 << 20  # a CSV block is parsed at once, and partitions are cut from it
RESULT_COLUMNS = (
    *("position", "index", "source", "status", "refused", "cost", "actions", "options", "reasons", "fewer", "error"),
    *("guarantee", "blocking", "turns_on", "settings_hash", "principal_reasons"),
)
"""The columns a batch adds to each person's input columns, which may not use these names."""


@dataclass(frozen=True)
class Partition:
    """Rows ``start`` to ``stop`` (exclusive) of block ``block`` of the input, from file
    ``source``; ``position`` is the input position of the first row.  ``indexed``: its file
    stores index labels; else they are ``first_label``, ``first_label + step``, and so on."""

    number: int
    source: str
    block: int
    start: int
    stop: int
    position: int
    indexed: bool
    first_label: int = 0
    step: int = 1

    @property
    def rows(self) -> int:
        return self.stop - self.start

    @property
    def file_name(self) -> str:
        return f"part-{self.number:05d}.parquet"


@dataclass
class Input:
    """The planned input: its blocks (dask ``Delayed`` objects, each a frame of rows), its
    partitions, the pandas dtypes of its columns and whether every index label is a whole number."""

    kind: str
    names: list[str]
    digests: list[str]
    blocks: list[Any]
    partitions: list[Partition]
    meta: Any  # an empty frame of the input's columns and dtypes
    integer_index: bool
    partition_rows: int

    @property
    def rows(self) -> int:
        return sum(p.rows for p in self.partitions)

    def settings(self) -> dict[str, Any]:
        """What a results folder records of its input: a rerun resumes only on the same files, cut alike."""
        files = [{"name": n, "sha256": d} for n, d in zip(self.names, self.digests)]
        return {"kind": self.kind, "files": files, "partition_rows": self.partition_rows, "csv_block_bytes": CSV_BLOCK_BYTES}


def input_files(spec: str | Path) -> tuple[list[Path], str]:
    """The files ``spec`` names (a file, a folder or a glob), in name order, and their kind; in a
    folder or a glob, names starting with ``.`` or ``_`` are skipped, as pandas and pyarrow skip them."""
    path = Path(spec)
    if path.is_dir():
        files = sorted(f for f in path.iterdir() if f.is_file() and f.suffix.lower() in SUFFIXES and not f.name.startswith((".", "_")))
        where = f"the folder {path}"
    elif path.exists():
        files = [regular_file(path, "batch input")]
        where = str(path)
    elif glob.has_magic(str(spec)):
        matches = (Path(f) for f in glob.glob(str(spec)))
        files = sorted(f for f in matches if f.is_file() and f.suffix.lower() in SUFFIXES and not f.name.startswith((".", "_")))
        where = f"the glob {spec}"
    else:
        raise InputError(f"{spec}: no such file or folder (give a CSV or Parquet file, a folder of them or a glob)")
    if not files:
        raise InputError(f"{where} holds no CSV or Parquet file (names ending in {', '.join(SUFFIXES)})")
    kinds = {SUFFIXES.get(f.suffix.lower()) for f in files}
    if None in kinds:
        raise InputError(f"{files[0]} is neither CSV nor Parquet (names ending in {', '.join(SUFFIXES)})")
    if len(kinds) > 1:
        raise InputError(f"{where} mixes CSV and Parquet files: give one kind at a time")
    return [regular_file(f, "batch input") for f in files], kinds.pop()


def plan_input(spec: str | Path, partition_rows: int, features: list[str], client: Any, text: Sequence[str] = ()) -> Input:
    """The input ``spec`` names, planned into partitions; ``features`` must all be columns of it.
    A CSV's blocks are counted on the cluster of ``client`` (a Parquet file's rows are in its
    footer), and its columns ``text`` (categories with values that are not numbers) are read as
    text in every block, as pandas reads them in a whole file: a block whose cells happen to be
    numbers types the column as the others do."""
    files, kind = input_files(spec)
    root = Path(os.path.commonpath([f.resolve().parent for f in files]))
    names = [str(f.resolve().relative_to(root)) for f in files]
    read = _csv_file if kind == "csv" else _parquet_file
    blocks: list[Any] = []
    partitions: list[Partition] = []
    metas = []
    integer_index = True
    for file, name in zip(files, names):
        loaders, sizes, meta, labels = read(file, client, text)
        metas.append((name, meta))
        integer_index = integer_index and labels is not str
        first_row = 0
        for loader, size in zip(loaders, sizes):
            for start in range(0, size, partition_rows):
                stop = min(start + partition_rows, size)
                position = partitions[-1].position + partitions[-1].rows if partitions else 0
                if isinstance(labels, range):
                    unindexed = {"first_label": labels.start + labels.step * (first_row + start), "step": labels.step}
                    partitions.append(Partition(len(partitions), name, len(blocks), start, stop, position, False, **unindexed))
                else:
                    partitions.append(Partition(len(partitions), name, len(blocks), start, stop, position, True))
            blocks.append(loader)
            first_row += size
    meta = _same_columns(metas, features)
    return Input(kind, names, [file_sha256(f, "batch input") for f in files], blocks, partitions, meta, integer_index, partition_rows)


def _csv_file(path: Path, client: Any, text: Sequence[str]) -> tuple[list[Any], list[int], Any, Any]:
    """A CSV file's blocks (read by dask.dataframe, the columns ``text`` as text), their sizes
    counted on the cluster, its dtypes and its labels: the row numbers."""
    import dask
    import dask.dataframe as dd

    def blocks_of(decimals: bool) -> tuple[Any, list[Any], list[int]]:
        frame = dd.read_csv(str(path.resolve()), blocksize=CSV_BLOCK_BYTES, dtype=dict.fromkeys(text, str) or None, assume_missing=decimals)
        blocks = frame.to_delayed()
        return frame, blocks, client.gather(client.compute([dask.delayed(len)(b) for b in blocks]))

    try:
        try:
            frame, blocks, sizes = blocks_of(False)
        except ValueError as exc:
            if "Mismatched dtypes" not in str(exc):
                raise
            frame, blocks, sizes = blocks_of(True)  # whole numbers in the first block, decimals later (hours 40.5): every such column decimal
    except (ValueError, TypeError, OSError, UnicodeDecodeError) as exc:  # pandas' parser errors are ValueErrors
        said = "a column's cells change kind from one part of the file to another" if "Mismatched dtypes" in str(exc) else str(exc)
        raise InputError(f"{path}: cannot be read as CSV: {said}") from None
    return blocks, list(sizes), frame._meta, range(0, sum(sizes))


def _parquet_file(path: Path, client: Any, text: Sequence[str]) -> tuple[list[Any], list[int], Any, Any]:
    """A Parquet file's row groups, their sizes, its dtypes, and its labels: a range (the one
    pandas wrote down, or the row numbers), or the index it stores (``int`` or ``str`` labels).
    Its columns keep the types it stores (``text`` is for CSV files)."""
    import dask
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        metadata = pq.read_metadata(path)
        schema = metadata.schema.to_arrow_schema()
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"{path}: cannot be read as Parquet: {exc}") from None
    index = (schema.pandas_metadata or {}).get("index_columns", [])
    stored = [c for c in index if isinstance(c, str)]
    labels: Any = range(0, metadata.num_rows)
    if stored:
        labels = int if len(stored) == 1 and pa.types.is_integer(schema.field(stored[0]).type) else str
    elif len(index) == 1 and index[0].get("kind") == "range":
        labels = range(index[0]["start"], index[0]["stop"], index[0]["step"])
    where = str(path.resolve())
    blocks = [dask.delayed(read_row_group, pure=True)(where, i) for i in range(metadata.num_row_groups)]
    sizes = [metadata.row_group(i).num_rows for i in range(metadata.num_row_groups)]
    return blocks, sizes, schema.empty_table().to_pandas(), labels


def read_row_group(path: str, group: int) -> Any:
    """One row group of a Parquet file as pandas reads it (with its stored index, if any)."""
    import pyarrow.parquet as pq

    return pq.ParquetFile(path).read_row_group(group).to_pandas()


def _same_columns(metas: list[tuple[str, Any]], features: list[str]) -> Any:
    """The input's columns and dtypes: every file's must be the first's, hold every feature and
    leave the result columns' names free."""
    name, meta = metas[0]
    missing = [f for f in features if f not in meta.columns]
    if missing:
        raise InputError(f"{name} lacks the column(s) {missing} the explainer reads")
    taken = [c for c in meta.columns if c in RESULT_COLUMNS]
    if taken:
        raise InputError(f"{name} has column(s) {taken} named like the results' own columns {list(RESULT_COLUMNS)}: rename them")
    for other, theirs in metas[1:]:
        if list(theirs.columns) != list(meta.columns):
            raise InputError(f"{other} has the columns {list(theirs.columns)}, but {name} has {list(meta.columns)}: every file must have the same")
        for column in meta.columns:
            if theirs[column].dtype != meta[column].dtype:
                raise InputError(f"{other}: column {column!r} is read as {theirs[column].dtype}, but in {name} as {meta[column].dtype}")
    return meta
