"""Results files: the answers of a batch, one JSON line per person, behind a header that records
the settings every answer in the file was made under.  A batch that stops (killed, out of
time, a full disk) resumes from its file without mixing in answers made under other settings,
and without losing, skipping or repeating anyone.

The first line is the header, every further line one person's answer::

    {"format": "mc3g.results", "version": 1, "settings": {...}, "settings_hash": "sha256:..."}
    {"position": 1, "index": 4001, "format": "mc3g.recourse", "version": 2, "status": ..., "run": ...}

``position`` is the person's place among the rows the batch draws from (for ``mc3g explain``,
the test split: the number ``--row`` takes) and ``index`` that row's own index label.

- A regular file is resumed: its lines are read one at a time, a last line cut off mid-write is
  removed, and the positions it holds are done.  Its header's settings must equal this run's;
  otherwise :class:`~mc3g.exceptions.ResultsFileError` names every setting that differs, and
  only ``overwrite`` starts the file afresh (its answers are lost).
- One writer at a time: the file is locked while it is open, and a second writer is refused.
- Every line is flushed as it is written, so ``kill -9`` loses at most the line being written;
  a regular file is synced to disk at most once a second (:data:`SYNC_SECONDS`) and when it is
  closed, so a power cut loses at most the answers written since the last sync (a sync per
  line took longer than explaining a person of ``loan``).
- A pipe or a device gets the header and the lines but is never read, so it is not resumed; a
  directory is refused.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from ..exceptions import FileRefusedError, ResultsFileError
from ..explain import Recourse
from ..reading import loads, regular_file
from ..values import plain
from .settings import OVERWRITE_HINT, check_settings, settings_hash

FORMAT = "mc3g.results"
VERSION = 1
SYNC_SECONDS = 1.0
LONGEST_LINE = 64 << 20


def _label(value: Any) -> Any:
    """An index label as a results line holds it (and as it reads back)."""
    return json.loads(json.dumps(plain(value), default=str))


class ResultsFile:
    """An open results file (see the module's description); open one with :func:`open_results`
    and close it (or use it in a ``with``) to release its lock.

    ``done`` maps each position already in the file to its index label; ``resumable`` is False
    for a pipe or a device, which is written but never read."""

    def __init__(self, name: str, sink: IO[str], labels: Sequence[Any], done: dict[int, Any], fd: int | None, owned: bool) -> None:
        self.name = name
        self.done = done
        self.resumable = fd is not None
        self._sink = sink
        self._labels = labels
        self._fd = fd
        self._owned = owned
        self._synced = time.monotonic()

    def __enter__(self) -> ResultsFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Sync and close the file (which releases its lock); a write that failed already said why."""
        if self._owned and not self._sink.closed:
            with contextlib.suppress(OSError):
                if self._fd is not None:
                    os.fsync(self._fd)
            with contextlib.suppress(OSError):  # closed all the same
                self._sink.close()

    def write(self, position: int, answer: Recourse) -> None:
        """Append the answer for the row at ``position``; a position already in the file is
        refused, so nobody is in it twice."""
        if position in self.done:
            raise ResultsFileError(f"{self.name} already holds the answer for position {position}")
        if not _is_position(position, len(self._labels)):
            raise ResultsFileError(f"position {position!r} is not one of the {len(self._labels):,} rows the positions of {self.name} refer to")
        index = _label(self._labels[position])
        self._emit({"position": position, "index": index, **answer.to_dict()})
        self.done[position] = index

    def stored(self, position: int) -> Recourse:
        """The answer the file holds for ``position`` (one of ``done``)."""
        if self._fd is None or position not in self.done:
            raise ResultsFileError(f"{self.name} holds no answer for position {position} that can be read back")
        for _, record, _ in _records(self._fd, self.name):
            if record.get("position") == position:
                return Recourse.from_dict(record)
        raise ResultsFileError(f"{self.name} no longer holds the answer for position {position}")

    def _emit(self, record: Mapping[str, Any]) -> None:
        try:
            self._sink.write(json.dumps(record) + "\n")
            self._sink.flush()
            if self._fd is not None and time.monotonic() - self._synced >= SYNC_SECONDS:
                os.fsync(self._fd)
                self._synced = time.monotonic()
        except OSError as exc:
            raise ResultsFileError(f"cannot write to {self.name}: {exc.strerror or exc}") from None


def open_results(target: str | Path | IO[str], settings: Mapping[str, Any], labels: Sequence[Any], *, overwrite: bool = False) -> ResultsFile:
    """Open ``target`` for the answers of a batch made under ``settings`` (from
    :func:`batch_settings`) over rows whose index labels, by position, are ``labels``.

    A regular file (new or not) is locked, checked against ``settings`` line by line and resumed;
    ``overwrite`` empties it first.  A pipe, a device or an open text stream is written without
    resume.  Every refusal is a :class:`~mc3g.exceptions.ResultsFileError`."""
    if isinstance(target, (str, Path)):
        results, fresh = _open_path(Path(target), labels, settings, overwrite)
    else:
        results, fresh = ResultsFile(getattr(target, "name", "the output"), target, labels, {}, None, owned=False), True
    if fresh:
        try:
            results._emit({"format": FORMAT, "version": VERSION, "settings": dict(settings), "settings_hash": settings_hash(settings)})
        except ResultsFileError:
            results.close()
            raise
    return results


def _open_path(path: Path, labels: Sequence[Any], settings: Mapping[str, Any], overwrite: bool) -> tuple[ResultsFile, bool]:
    """The results file at ``path`` and whether it needs its header (it is new, or not resumable)."""
    name = str(path)
    try:
        kind = os.stat(path).st_mode
        if stat.S_ISREG(kind):
            regular_file(path, "results file")  # it is read to resume: its size is bounded
    except FileNotFoundError:
        kind = stat.S_IFREG
    except FileRefusedError as exc:
        raise ResultsFileError(str(exc)) from None
    except OSError as exc:
        raise ResultsFileError(f"cannot use {name} for results: {exc.strerror or exc}") from None
    if stat.S_ISDIR(kind):
        raise ResultsFileError(f"{name} is a directory: name a file for the results")
    try:
        if not stat.S_ISREG(kind):
            return ResultsFile(name, open(path, "w", encoding="utf-8", newline="\n"), labels, {}, None, owned=True), True
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o666)
    except OSError as exc:
        raise ResultsFileError(f"cannot open {name} for results: {exc.strerror or exc}") from None
    try:
        lock_file(fd, name)
        if overwrite:
            os.ftruncate(fd, 0)
        done, complete = _resume(fd, name, settings, labels)
        if complete < os.fstat(fd).st_size:
            os.ftruncate(fd, complete)  # a line cut off mid-write: the next line starts on a line of its own
    except BaseException:
        os.close(fd)
        raise
    return ResultsFile(name, open(fd, "a", encoding="utf-8", newline="\n"), labels, done, fd, owned=True), complete == 0


def lock_file(fd: int, name: str) -> None:
    """Hold an exclusive lock on ``fd`` (released when it is closed): one writer at a time."""
    import fcntl  # POSIX: imported here, so that importing mc3g does not need it

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise ResultsFileError(f"another run is writing {name} (it holds the file's lock): wait for it to finish, or choose another file") from None


_HEADER_START = json.dumps({"format": FORMAT})[:-1].encode("utf-8")


def _records(fd: int, name: str) -> Iterator[tuple[int, dict[str, Any], int]]:
    """(line number, record, the offset just past the line) for each complete line of the file,
    read one at a time from the start; a last line without its newline was cut off mid-write
    (when it is the first, it must be the start of a results header: a file that is not one is
    not cut).
    A line longer than :data:`LONGEST_LINE` is refused unread: no answer is that long."""
    end = 0
    with open(fd, "rb", closefd=False) as reader:
        reader.seek(0)
        for number, line in enumerate(iter(lambda: reader.readline(LONGEST_LINE + 1), b""), 1):
            first = "" if number > 1 else " (the first line of a results file is its header)"
            if len(line) > LONGEST_LINE:
                raise ResultsFileError(f"{name}, line {number}: longer than {LONGEST_LINE >> 20} MiB, not a line of a results file{first}; {OVERWRITE_HINT}")
            if not line.endswith(b"\n"):
                if number == 1 and not (line.startswith(_HEADER_START) or _HEADER_START.startswith(line)):
                    raise ResultsFileError(f"{name} is not an mc3g results file (its only line is not a results header); {OVERWRITE_HINT}")
                return
            end += len(line)
            try:
                record = loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError):
                record = None
            if not isinstance(record, dict):
                raise ResultsFileError(f"{name}, line {number}: not a JSON object, not a line of a results file{first}; {OVERWRITE_HINT}")
            yield number, record, end


def _resume(fd: int, name: str, settings: Mapping[str, Any], labels: Sequence[Any]) -> tuple[dict[int, Any], int]:
    """The positions already in the file (with their labels), checked against ``settings`` and
    ``labels``, and the length of its complete lines."""
    done: dict[int, Any] = {}
    complete = 0
    for number, record, end in _records(fd, name):
        complete = end
        if number == 1:
            _check_header(record, name, settings)
            continue
        position = record.get("position")
        if not _is_position(position, len(labels)):
            raise ResultsFileError(f"{name}, line {number}: position {position!r} is not one of the {len(labels):,} rows; {OVERWRITE_HINT}")
        if position in done:
            raise ResultsFileError(f"{name}, line {number}: position {position} is in the file twice; {OVERWRITE_HINT}")
        if record.get("index") != _label(labels[position]):
            raise ResultsFileError(
                f"{name}, line {number}: position {position} holds the row labelled {record.get('index')!r}, "
                f"but that row is labelled {_label(labels[position])!r} now; {OVERWRITE_HINT}"
            )
        done[position] = record["index"]
    return done, complete


def _is_position(position: Any, rows: int) -> bool:
    return isinstance(position, int) and not isinstance(position, bool) and 0 <= position < rows


def _check_header(record: Mapping[str, Any], name: str, settings: Mapping[str, Any]) -> None:
    """Refuse a file that is not a results file, of a version this mc3g cannot read, or whose
    answers were made under other settings (each difference named, the file's value first)."""
    if record.get("format") != FORMAT:
        raise ResultsFileError(f"{name} is not an mc3g results file (its first line is not a results header); {OVERWRITE_HINT}")
    if record.get("version") != VERSION:
        raise ResultsFileError(f"{name} is a results file of version {record.get('version')!r}; this mc3g reads version {VERSION}; {OVERWRITE_HINT}")
    check_settings(name, record.get("settings"), settings)
