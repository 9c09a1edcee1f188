"""Every file mc3g reads passes here first: it must be a regular file no larger than what mc3g
reads of its kind.

A name given by mistake (``/dev/zero``, a pipe, a folder, a runaway log) would otherwise be read
until memory runs out, block for ever or end in a traceback from deep inside a library.  The
check looks at the file before a byte is read and names the file and what is wrong with it; the
readers that load whole files read at most their bound, so a file that grows meanwhile is
refused too.  Nothing here imports the rest of mc3g, so every layer can use it.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path
from typing import Any

from .exceptions import FileRefusedError, MissingFileError

MiB = 1 << 20
GiB = 1 << 30

BOUNDS: dict[str, int] = {
    "causal knowledge file": 16 * MiB,  # written by hand: the shipped files are a few KB
    "rules file": 256 * MiB,  # a learned rule set is a few KB; room for generated ones
    "configuration file": 1 * MiB,  # a service's TOML file: a few settings
    "saved explainer": 2 * GiB,  # holds the training values of the features in play
    "model file": 8 * GiB,  # large forests and networks
    "data file": 4 * GiB,  # read whole into a frame (the UCI files are a few MB)
    "batch input": 1 << 40,  # read in blocks, never whole: only a device or a pipe is the danger
    "results file": 1 << 40,  # read a line at a time to resume
    "batch manifest": 16 * MiB,  # a results folder's settings
    "results partition": 8 * GiB,  # one Parquet file of a batch's results
}
"""The most mc3g reads of each kind of file, in bytes, and why; the kind names the file in a refusal."""

_NOT_REGULAR = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
)


def writable_path(path: str | Path, kind: str) -> Path:
    """``path`` when writing a ``kind`` there replaces nothing but a regular file (or a new
    path): a directory, a device or a named pipe is a :class:`FileRefusedError`, never replaced."""
    file = Path(path)
    try:
        info = os.stat(file)
    except FileNotFoundError:
        return file
    except OSError as exc:
        raise FileRefusedError(file, f"cannot be written as a {kind}: {exc.strerror or exc}") from None
    for test, what in _NOT_REGULAR:
        if test(info.st_mode):
            raise FileRefusedError(file, f"is {what}, not a file: name a file to write the {kind} to")
    return file


def regular_file(path: str | Path, kind: str) -> Path:
    """``path`` when it names a regular file (a link to one counts) of at most
    ``BOUNDS[kind]`` bytes; else a :class:`FileRefusedError` naming the file and ``kind``, a
    :class:`MissingFileError` (also a ``FileNotFoundError``) when there is none."""
    file = Path(path)
    try:
        info = os.stat(file)
    except FileNotFoundError:
        raise MissingFileError(file, f"no such {kind}") from None
    except OSError as exc:
        raise FileRefusedError(file, f"cannot be read as a {kind}: {exc.strerror or exc}") from None
    for test, what in _NOT_REGULAR:
        if test(info.st_mode):
            raise FileRefusedError(file, f"is {what}, not a file (a {kind} must be a regular file)")
    if info.st_size > BOUNDS[kind]:
        raise FileRefusedError(file, f"is {_size(info.st_size)}, more than the {_size(BOUNDS[kind])} mc3g reads of a {kind}")
    return file


def read_bytes(path: str | Path, kind: str) -> bytes:
    """The bytes of the regular file ``path`` (see :func:`regular_file`), at most its kind's bound."""
    file = regular_file(path, kind)
    bound = BOUNDS[kind]
    try:
        with file.open("rb") as f:
            data = f.read(bound + 1)
    except OSError as exc:
        raise FileRefusedError(file, f"cannot be read as a {kind}: {exc.strerror or exc}") from None
    if len(data) > bound:
        raise FileRefusedError(file, f"grew past the {_size(bound)} mc3g reads of a {kind} while it was read")
    return data


HEAD_BYTES = 1 << 16  # what is looked at before a text file is read whole


def refuse_binary(path: str | Path, kind: str) -> Path:
    """The regular file ``path`` (see :func:`regular_file`), refused before it is read whole when
    its first bytes hold a NUL, which no text has: a file of zeros or a binary given by mistake
    is named at once, not after gigabytes are read."""
    file = regular_file(path, kind)
    try:
        with file.open("rb") as f:
            head = f.read(HEAD_BYTES)
    except OSError as exc:
        raise FileRefusedError(file, f"cannot be read as a {kind}: {exc.strerror or exc}") from None
    nul = head.find(b"\0")
    if nul >= 0:
        raise FileRefusedError(file, f"is not text (a NUL byte at byte {nul}): a {kind} is UTF-8 text")
    return file


def read_text(path: str | Path, kind: str) -> str:
    """The UTF-8 text of the regular file ``path`` (a byte-order mark dropped); a file whose
    first bytes show it is not text is refused before it is read whole (:func:`refuse_binary`),
    and a byte that is not UTF-8 with its line."""
    data = read_bytes(refuse_binary(path, kind), kind)
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise FileRefusedError(Path(path), f"line {line}: not UTF-8 text (byte 0x{data[exc.start]:02x}); the {kind} must be UTF-8") from None


def file_sha256(path: str | Path, kind: str) -> str:
    """The SHA-256 of the regular file ``path`` (see :func:`regular_file`), read in pieces: a
    saved explainer names its model file by it, a results header its model, explainer and inputs."""
    digest = hashlib.sha256()
    with regular_file(path, kind).open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _size(n: int) -> str:
    for unit, scale in (("TiB", 1 << 40), ("GiB", GiB), ("MiB", MiB), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n} bytes"


def loads(text: str | bytes) -> Any:
    """``json.loads``, with a document nested deeper than Python's stack (``[[[[...``, which
    ``json`` meets as a RecursionError) refused as JSON like any other: every reader of a
    person's, a rule set's or a saved file's JSON names its input, never a traceback."""
    try:
        return json.loads(text)
    except RecursionError:
        raise json.JSONDecodeError("nested too deeply to read", text if isinstance(text, str) else "", 0) from None
