"""Finding and reading the data files: where they are, their cells as text, checked values.

Every problem with a file's content is a :class:`DataFormatError` that names the file and the line,
and a missing file is a :class:`DataNotFoundError` that says how to get it.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import pandas as pd

from ..exceptions import DataFormatError, DataNotFoundError
from ..reading import regular_file
from ..schema import Feature
from .download import ENV_VAR, UCI_FILES, default_data_dir


def _not_found(relpath: str, directory: Path, origin: str) -> DataNotFoundError:
    """The error for a missing data file: where it was looked for and how to get it."""
    path = directory / relpath
    if relpath in UCI_FILES:
        how = f"Run `mc3g data download` to fetch the UCI files into {directory}"
    elif relpath.startswith("taiwan/"):
        how = (
            "UCI publishes the Taiwan clients as a spreadsheet (data set 350); save it as this CSV with lower-case column names and the "
            f"label named will_default_next_month (docs/data.md), under {path.parent}"
        )
    else:
        how = f"The paper splits come from the MC3G authors' experiments (they are not on UCI); place them under {path.parent}"
    return DataNotFoundError(
        f"data file {relpath} not found; looked for {path} (data directory from {origin}). {how}, or point {ENV_VAR} at a directory that has them."
    )


def _data_root(data_dir: Path | str | None) -> tuple[Path, str]:
    """The data directory and a phrase saying where that choice came from (for error messages)."""
    if data_dir is not None:
        return Path(data_dir), "the data_dir argument"
    origin = f"${ENV_VAR}" if os.environ.get(ENV_VAR) else f"the user cache; ${ENV_VAR} is not set"
    return default_data_dir(), origin


def locate(relpath: str, data_dir: Path | str | None) -> Path:
    """The path of data file ``relpath`` (e.g. ``adult/adult.data``): DataNotFoundError if
    absent, FileRefusedError if it is no regular file or too large (see :mod:`mc3g.reading`)."""
    root, origin = _data_root(data_dir)
    path = root / relpath
    if not path.exists():
        raise _not_found(relpath, root, origin)
    return regular_file(path, "data file")


def read_table(
    path: Path,
    columns: Sequence[str],
    *,
    delimiter: str | None = ",",
    header: Sequence[str] | None = None,
    comment: str | None = None,
) -> pd.DataFrame:
    """All cells of a delimited text file as stripped strings, indexed by 1-based line number.

    ``delimiter=None`` splits on runs of whitespace.  Blank lines and lines starting with
    ``comment`` are skipped; if ``header`` is given the first data line must be exactly that.
    Keeping the line number as index lets later checks report where a bad value is.
    """
    rows: list[list[str]] = []
    lines: list[int] = []
    expect_header = header is not None
    try:
        with path.open(encoding="utf-8", newline="") as fh:
            for number, raw in enumerate(fh, start=1):
                text = raw.rstrip("\r\n")
                if not text.strip() or (comment is not None and text.startswith(comment)):
                    continue
                if delimiter is None:
                    fields = text.split()
                else:
                    fields = [f.strip() for f in next(csv.reader([text], delimiter=delimiter))]
                if expect_header:
                    if fields != list(header):
                        raise DataFormatError(path, number, f"expected the header {list(header)}, found {fields}")
                    expect_header = False
                    continue
                if len(fields) != len(columns):
                    raise DataFormatError(path, number, f"expected {len(columns)} fields, found {len(fields)}")
                rows.append(fields)
                lines.append(number)
    except UnicodeDecodeError as exc:
        raise DataFormatError(path, _line_of_byte(path, exc.start), f"not UTF-8 text ({exc.reason})") from exc
    return pd.DataFrame(rows, columns=list(columns), index=pd.Index(lines, name="line"), dtype=object)


def _line_of_byte(path: Path, offset: int) -> int:
    return path.read_bytes()[:offset].count(b"\n") + 1


def check_values(frame: pd.DataFrame, column: str, allowed: Sequence[str], path: Path) -> None:
    """A format error at the first line whose ``column`` is not one of ``allowed``."""
    bad = frame.index[~frame[column].isin(allowed)]
    if len(bad):
        value = frame.at[bad[0], column]
        raise DataFormatError(path, int(bad[0]), f"{column} is {value!r}, expected one of {sorted(allowed)}")


def check_cells(frame: pd.DataFrame, features: Iterable[Feature], path: Path) -> None:
    """A format error at the first line whose cell the column's declared feature cannot hold
    (:meth:`~mc3g.schema.Feature.first_refused`): in a numeric column text, infinity, a
    magnitude beyond ±1e15 or a value outside the valid ones; in a categorical one a value
    outside its domain.  The error names the file, the line, the column and the value."""
    for f in features:
        bad = f.first_refused(frame[f.name]) if f.name in frame.columns else None
        if bad is not None:
            raise DataFormatError(path, int(bad[0]), f"{f.name} is {bad[1]}")


def decode(frame: pd.DataFrame, tables: Mapping[str, Mapping[str, str]], path: Path) -> pd.DataFrame:
    """Replace codes by names column by column; an unknown code is a format error."""
    out = frame.copy()
    for col, table in tables.items():
        check_values(out, col, list(table), path)
        out[col] = out[col].map(table)
    return out
