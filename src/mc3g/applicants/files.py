"""A file of applicants that mc3g has never seen: a CSV or Parquet file, read as pandas reads it,
with what pandas would let pass silently refused at its line.

A model of one's own was most likely fitted on ``pandas.read_csv(FILE)``, so the cells are typed
as pandas types them by default (numbers, ``True``/``False``, ``NA`` and empty cells missing):
the model then sees what it saw in training.  Where pandas guesses and may guess wrong, the file
is refused instead, naming the file, the line and the column: a row with more fields than the
header (pandas would take the first column as an index), a column without a name (but the
first, the index pandas' ``to_csv`` writes, read back as the index) or named twice, a column of
numbers with text in it (a typo in a number, unless the column is named as text: a category
some of whose values look like numbers), an empty file, a header without rows.

A header with no comma but a ``;``, a tab or a ``|`` is split at that.  Line numbers come from a
pass of Python's ``csv`` reader, which splits a file as pandas does, so every error names the
line a person sees in an editor; a row of a Parquet file is named by its position.
"""

from __future__ import annotations

import csv
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..exceptions import DataFormatError, FileRefusedError, InputError
from ..reading import refuse_binary, regular_file
from ..rules import Column
from ..schema import Feature
from ..values import MISSING_MARKS, first_non_number, suggest

KINDS = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet"}


@dataclass(frozen=True)
class DataFile:
    """The rows of a data file (``frame``, labelled as pandas labels them) and, for a CSV, the
    line each row starts on (``lines``), so that an error names what a person sees."""

    path: Path
    frame: pd.DataFrame
    lines: np.ndarray | None

    def place(self, position: int) -> str:
        """Where the row at ``position`` is in its file: ``line L`` (a CSV) or ``row N``."""
        return f"line {self.lines[position]}" if self.lines is not None else f"row {position}"

    def where(self, position: int) -> str:
        """The row at ``position`` as a person finds it: ``FILE, line L`` or ``FILE, row N``."""
        return f"{self.path}, {self.place(position)}"

    def error(self, position: int, problem: str) -> InputError:
        if self.lines is not None:
            return DataFormatError(self.path, int(self.lines[position]), problem)
        return InputError(f"{self.where(position)}: {problem}")

    def require(self, columns: Iterable[str], needs: str) -> None:
        """Refuse a file that lacks one of ``columns`` (``needs`` says who reads them), with the
        nearest column it has for each."""
        missing = [c for c in columns if c not in self.frame.columns]
        if missing:
            hints = "".join(suggest(c, map(str, self.frame.columns)) for c in missing[:1])
            raise InputError(f"{self.path} has no column(s) {missing}, which {needs}{hints}; its columns are {list(self.frame.columns)}")

    def check(self, features: Iterable[Feature], missing_only: bool = False) -> None:
        """Refuse the first cell a feature cannot hold (text in a numeric column, a missing
        cell, a value outside the feature's valid values or domain), naming its line and column;
        ``missing_only``: the first missing cell (mc3g check counts the rest as statements broken)."""
        features = [f for f in features if f.name in self.frame.columns]
        for f in features:
            column = self.frame[f.name]
            bad = f.first_refused(column[column.isna()] if missing_only else column)
            if bad is not None:
                position = int(self.frame.index.get_loc(bad[0]))
                gaps = int(self.frame[[g.name for g in features]].isna().any(axis=1).sum())
                more = f"; {gaps:,} row(s) have a missing cell: fill them in, or leave those rows out" if pd.isna(self.frame[f.name].iloc[position]) else ""
                raise self.error(position, f"{f.name} is {bad[1]}{more}")


def read_data(path: str | Path, *, categorical: Collection[str] = (), hint: str = "") -> DataFile:
    """The rows of the CSV or Parquet file ``path``, typed as pandas types them; the columns
    named ``categorical`` may mix numbers and text (categories such as ``2`` and ``3+``), the
    others may not.  Every problem is an :class:`~mc3g.exceptions.InputError` naming the file
    (and the line and column where there is one); ``hint`` ends the message about a column of
    numbers and text (how to declare it categorical)."""
    file = regular_file(path, "data file")
    kind = KINDS.get(file.suffix.lower())
    if kind is None:
        raise FileRefusedError(file, f"is neither a CSV nor a Parquet file (a data file's name ends in {', '.join(KINDS)})")
    data = _csv(file) if kind == "csv" else _parquet(file)
    for column in data.frame.columns:
        _check_cells(data, str(column))
        if column not in categorical:
            _check_not_mixed(data, str(column), hint)
    return data


def _check_cells(data: DataFile, column: str) -> None:
    """Refuse a cell that is no single number or category (a Parquet list or map column), and a
    number that is not finite or is beyond :data:`~mc3g.values.LARGEST`: each is named at its
    line and column, before anything drafts or fits on it."""
    values = data.frame[column]
    if pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
        bad = first_non_number(values, missing_ok=True)  # a missing cell is the features' to refuse (DataFile.check)
        if bad is not None:
            raise data.error(int(data.frame.index.get_loc(bad[0])), f"column {column!r} is {bad[1]}")
    elif values.dtype == object:
        nested = np.flatnonzero([isinstance(v, (list, tuple, dict, set, np.ndarray)) for v in values.to_numpy(dtype=object)])
        if len(nested):
            cell = values.iloc[int(nested[0])]
            cell = cell.tolist() if isinstance(cell, np.ndarray) else cell  # a Parquet list, as pandas reads it
            raise data.error(int(nested[0]), f"column {column!r} holds a {type(cell).__name__} ({_cell(cell)}): a cell holds one number or one category")


def decision_classes(frame: pd.DataFrame, target: str, source: str) -> dict[str, int]:
    """The values of the decision column ``target`` and how many rows have each; a column that
    is missing, has missing cells or has fewer than two values is refused, and so is a file with
    no feature beside it."""
    if target not in frame.columns:
        raise InputError(f"{source} has no column {target!r} for the decision{suggest(target, map(str, frame.columns))}; its columns are {list(frame.columns)}")
    if len(frame.columns) == 1:
        raise InputError(f"{source} has no column but the decision {target!r}: a file of past applicants needs their features beside it")
    column = Column.from_values(frame[target])
    missing = int(frame[target].isna().sum())
    if missing:
        raise InputError(f"{source}: the decision {target!r} is missing in {missing:,} row(s), the first at row {int(np.flatnonzero(frame[target].isna())[0])}")
    counts = np.bincount(column.codes, minlength=len(column.categories))
    if len(counts) < 2:
        raise InputError(f"{source}: the decision {target!r} has one value ({column.categories[0]!r}) in every row: there is no refusal to explain")
    return {str(c): int(n) for c, n in zip(column.categories, counts)}


def _csv(file: Path) -> DataFile:
    refuse_binary(file, "data file")
    delimiter = _delimiter(file)
    header, lines = _lines(file, delimiter)
    indexed = not header[0].strip()  # written by pandas' to_csv with its index: read it back as the index
    try:
        frame = pd.read_csv(file, sep=delimiter, low_memory=False, index_col=0 if indexed else None)
    except (ValueError, OSError) as exc:  # pandas' parser errors are ValueErrors
        raise FileRefusedError(file, f"cannot be read as CSV: {exc}") from None
    if len(frame) != len(lines) or list(frame.columns) != header[indexed:]:  # the two readers split it differently: name rows, not lines
        return DataFile(file, frame, None)
    return DataFile(file, frame, lines)


def _delimiter(file: Path) -> str:
    """A comma, unless the header has none and one of ``;``, a tab or ``|`` instead (a CSV saved
    where the comma is the decimal mark)."""
    with file.open(encoding="utf-8-sig", errors="replace") as fh:
        first = fh.readline(1 << 16)
    others = [d for d in ";\t|" if d in first]
    return others[0] if "," not in first and len(others) == 1 else ","


def _lines(file: Path, delimiter: str) -> tuple[list[str], np.ndarray]:
    """The header and the line each row starts on; a file without rows, a row with another count
    of fields than the header, and a header naming a column twice or not at all are refused."""
    header: list[str] | None = None
    starts: list[int] = []
    try:
        with file.open(encoding="utf-8-sig", newline="") as fh:  # pandas drops a byte-order mark too
            reader = csv.reader(fh, delimiter=delimiter)
            end = 0
            for fields in reader:
                start, end = end + 1, reader.line_num
                if not fields:
                    continue  # a blank line, which pandas skips too
                if header is None:
                    header = _header(file, fields, start)
                elif len(fields) > len(header):
                    raise DataFormatError(file, start, f"{len(fields)} fields, but the header names {len(header)} columns")
                else:
                    starts.append(start)
    except UnicodeDecodeError:
        raise DataFormatError(file, _first_non_utf8(file), "not UTF-8 text: save the file as UTF-8") from None
    except csv.Error as exc:
        raise FileRefusedError(file, f"cannot be read as CSV: {exc}") from None
    if header is None:
        raise FileRefusedError(file, "is empty: a data file needs a header line naming its columns, then one line per row")
    if not starts:
        raise FileRefusedError(file, "has a header but no rows")
    return header, np.asarray(starts, dtype=np.int64)


def _first_non_utf8(file: Path) -> int:
    with file.open("rb") as fh:
        for number, raw in enumerate(fh, 1):
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError:
                return number
    return 1


def _header(file: Path, names: list[str], line: int) -> list[str]:
    """The header's names; the first alone may be empty (the index pandas' to_csv writes)."""
    _few_enough(file, len(names))
    for i, name in enumerate(names[1:], 2):
        if not name.strip():
            raise DataFormatError(file, line, f"column {i} of the header has no name")
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise DataFormatError(file, line, f"the header names the column(s) {twice} more than once")
    return names


MOST_COLUMNS = 10_000
"""The most columns of a data file: a feature a column, and every feature is drafted, searched
and shown to a person (the UCI files have 15 to 25)."""


def _few_enough(file: Path, columns: int) -> None:
    if columns > MOST_COLUMNS:
        raise FileRefusedError(file, f"has {columns:,} columns; mc3g reads at most {MOST_COLUMNS:,} (each column a feature a person's advice may name)")


def _parquet(file: Path) -> DataFile:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError(f"{file}: reading Parquet needs pyarrow: pip install 'mc3g[batch]'") from None
    try:
        columns = len(pq.read_schema(file).names)
    except Exception as exc:  # pyarrow's errors: a damaged or foreign file
        raise FileRefusedError(file, f"cannot be read as Parquet: {type(exc).__name__}: {exc}") from None
    _few_enough(file, columns)
    try:
        frame = pq.read_table(file).to_pandas()
    except Exception as exc:  # pyarrow's errors: a damaged or foreign file
        raise FileRefusedError(file, f"cannot be read as Parquet: {type(exc).__name__}: {exc}") from None
    if frame.columns.empty:
        raise FileRefusedError(file, "has no columns")
    if frame.empty:
        raise FileRefusedError(file, "has no rows")
    unnamed = [c for c in frame.columns if not isinstance(c, str) or not c.strip()]
    if unnamed:
        raise FileRefusedError(file, f"has column(s) without a name as text: {unnamed}")
    return DataFile(file, frame, None)


def _check_not_mixed(data: DataFile, column: str, hint: str) -> None:
    """Refuse a column of numbers with text in it (pandas reads it as text, so ``40000`` and
    ``4O000`` would both be categories): the error names a cell of the rarer kind, and one of the
    other.  Numbers with ``?`` for a missing cell are a numeric column with gaps, read as such."""
    values = data.frame[column]
    if pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
        return
    codes, distinct = pd.factorize(values.to_numpy(dtype=object), use_na_sentinel=True)  # each distinct cell is looked at once
    numbers = np.array([_as_number(v) for v in distinct] + [np.nan], dtype=np.float64)
    gap = np.array([isinstance(v, str) and v in MISSING_MARKS for v in distinct] + [False])
    is_number = ~np.isnan(numbers[codes])  # code -1, a missing cell, reads the NaN at the end
    is_text = (codes >= 0) & ~is_number & ~gap[codes]
    if not is_number.any():
        return
    if not is_text.any():
        data.frame[column] = pd.Series(numbers[codes], index=values.index)  # the gaps (and empty cells) become NaN
        return
    rare, common = (is_text, is_number) if is_text.sum() <= is_number.sum() else (is_number, is_text)
    at, other = int(np.flatnonzero(rare)[0]), int(np.flatnonzero(common)[0])
    cells = values.to_numpy(dtype=object)
    raise data.error(
        at,
        f"column {column!r} holds numbers and text: {_cell(cells[at])} here, {_cell(cells[other])} at {data.place(other)} "
        f"({int(is_number.sum()):,} numbers, {int(is_text.sum()):,} text); make every cell a number, or every cell text{hint}",
    )


def _as_number(value: Any) -> float:
    """A cell as a number, or NaN when it is text (or a truth value) rather than one."""
    if isinstance(value, (bool, np.bool_)):
        return np.nan
    if isinstance(value, (int, float, np.number)):
        return float(value)
    try:
        return float(value) if isinstance(value, str) and "_" not in value else np.nan
    except ValueError:
        return np.nan


def _cell(value: Any) -> str:
    return repr(value if not isinstance(value, np.generic) else value.item())
