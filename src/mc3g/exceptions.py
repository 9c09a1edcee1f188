"""The errors mc3g raises on purpose.  Each derives from :class:`MC3GError`, so a caller (the CLI,
a service) can tell a refused input from a bug: anything else that escapes is a bug.

An error quotes what it is about (a value, a model's labels, another library's message), and
what it quotes is bounded: :func:`quoted`, :func:`listed` and :func:`said` shorten a value, a
list and an exception, and every message is cut to :data:`MOST_CHARACTERS` in the middle, so no
input can make one a megabyte long."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

MOST_CHARACTERS = 4000
"""The longest message an error carries; a longer one keeps its start and its end."""

MOST_QUOTED = 200
"""The most characters of one value, or of another library's message, that an error quotes."""


def quoted(value: Any, most: int = MOST_QUOTED) -> str:
    """``repr(value)``, cut to ``most`` characters."""
    text = repr(value)
    return text if len(text) <= most else f"{text[: most - 1]}…"


def listed(values: Iterable[Any], most: int = 12) -> str:
    """The first ``most`` values, each :func:`quoted`, and how many there are in all when that
    is more: ``'a', 'b', … (26,048 in all)``."""
    values = list(values)
    shown = ", ".join(quoted(v, 80) for v in values[:most])
    return shown + (f", … ({len(values):,} in all)" if len(values) > most else "")


def said(exc: BaseException) -> str:
    """An exception in one short line: its type and the start of its message."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text[:MOST_QUOTED]}" if text else type(exc).__name__


def bounded(message: str, most: int = MOST_CHARACTERS) -> str:
    """``message``, or its start and end with what was left out counted between them."""
    if len(message) <= most:
        return message
    gap = f" … ({len(message) - most:,} characters left out) … "
    head = (most * 3) // 4
    return message[:head] + gap + message[-(most - head) :]


class MC3GError(Exception):
    """Base of every error mc3g raises on purpose; its message is :func:`bounded`."""

    def __init__(self, *args: object) -> None:
        super().__init__(*(bounded(a) if isinstance(a, str) else a for a in args))


class InputError(MC3GError, ValueError):
    """An input mc3g cannot use: data, a person's row, a parameter, a file's content.  The
    message names what is wrong and where.  It is a ``ValueError`` too, as scikit-learn expects."""


class UnknownNameError(InputError, KeyError):
    """A feature, data set or other name that is not known; the message lists the known ones."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class CausalSyntaxError(InputError):
    """A problem in causal-knowledge text; the message starts with ``file:line:column:``."""

    def __init__(self, message: str, file: str, line: int, column: int) -> None:
        super().__init__(f"{file}:{line}:{column}: {message}")
        self.message = message
        self.file = file
        self.line = line
        self.column = column


class DataFormatError(InputError):
    """A data file does not have the expected shape; the message names the file and the line."""

    def __init__(self, path: Path, line: int, problem: str) -> None:
        self.path = path
        self.line = line
        super().__init__(f"{path}, line {line}: {problem}")


class FileRefusedError(InputError):
    """A file mc3g will not read: not a regular file (a directory, a device, a pipe), larger
    than mc3g reads of its kind, or not what its kind must be; the message names the file."""

    def __init__(self, path: str | Path, problem: str) -> None:
        self.path = Path(path)
        self.problem = problem
        super().__init__(f"{path}: {problem}")


class MissingFileError(FileRefusedError, FileNotFoundError):
    """A file that is not there; also a ``FileNotFoundError``."""


class ModelFileError(FileRefusedError):
    """A model file mc3g will not or cannot load: missing, empty, corrupt, of an unknown kind,
    or one whose loading could run code nobody allowed; the message names the file."""


class ResultsFileError(InputError):
    """A results file mc3g will not write to: a directory, a file that is not a results file or
    holds answers made under other settings, one another run is writing, or one the system
    refuses to take more of (a full disk, a pipe nobody reads); the message names the file."""


class DataNotFoundError(MC3GError, FileNotFoundError):
    """A data file is missing; the message says where it was looked for and how to get it."""


class DownloadError(MC3GError, RuntimeError):
    """A file could not be fetched (network or HTTP error)."""


class ChecksumError(DownloadError):
    """A fetched file does not have the pinned SHA-256; nothing was written."""


class BlackBoxError(MC3GError, RuntimeError):
    """The model's own ``predict`` failed, or answered something that is not one known label per
    row; the message says what it did."""


class BatchError(MC3GError, RuntimeError):
    """Partitions of a batch could not be explained or written (a worker lost too often, a full
    disk); the finished ones are kept, and a rerun does the others."""


class InternalError(MC3GError, RuntimeError):
    """A self-check failed: a bug in mc3g, reported rather than hidden (never a user's fault)."""


class SearchError(InternalError):
    """The solver and the reference semantics disagree."""


class ReadingError(InternalError):
    """A model's decision read exactly (:mod:`mc3g.glassbox`) and its own ``predict`` disagree
    on a row the reading was sure of; the message names the row."""


class NoticeError(InputError):
    """A notice of adverse action mc3g will not write: the person was not refused, a reason is
    vague or names a protected feature, a plan asks the person to change a protected feature, or
    there is no specific reason to give; the message names the person and what to do."""
