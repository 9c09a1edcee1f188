"""Fetch the UCI originals into the data directory, verified against pinned SHA-256 hashes.

The data sets are CC BY 4.0 but not shipped with the package; this module downloads them once.
Only ``urllib`` is used so the download needs no extra dependency, and every file is written to a
temporary name and renamed only after its hash matched, so a data directory never holds a
truncated or altered file under a real name.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import tempfile
import urllib.request
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from ..exceptions import ChecksumError, DownloadError, InputError

ENV_VAR = "MC3G_DATA_DIR"
UCI_BASE = "https://archive.ics.uci.edu/ml/machine-learning-databases"

Progress = Callable[[str, int, int | None], None]
"""``progress(name, bytes_done, bytes_total)``; ``bytes_total`` is None if the server sends no size."""

_CHUNK = 1 << 16
_TIMEOUT_S = 60


@dataclass(frozen=True)
class UciFile:
    """A file of the data directory: where it lives locally, where on the UCI server, its hash."""

    local: str
    remote: str
    sha256: str


UCI_FILES: dict[str, UciFile] = {
    f.local: f
    for f in (
        UciFile(
            "adult/adult.data",
            "adult/adult.data",
            "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
        ),
        UciFile(
            "adult/adult.test",
            "adult/adult.test",
            "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",
        ),
        UciFile(
            "german/german.data",
            "statlog/german/german.data",
            "b21f3d81db8071257d5ff1deaeba1fd4303b62712e6fcc9715c7a86202cb5871",
        ),
        UciFile(
            "car/car.data",
            "car/car.data",
            "b703a9ac69f11e64ce8c223c0a40de4d2e9d769f7fb20be5f8f2e8a619893d83",
        ),
    )
}

# Which UCI files each data set name needs (``loan`` is generated and needs none).
FILES_BY_DATASET: dict[str, tuple[str, ...]] = {
    "adult": ("adult/adult.data", "adult/adult.test"),
    "german": ("german/german.data",),
    "cars": ("car/car.data",),
    "cars4": ("car/car.data",),
    "loan": (),
}


def default_data_dir() -> Path:
    """``$MC3G_DATA_DIR`` if set, else ``<user cache>/mc3g/data``: where data is read and downloaded."""
    env = os.environ.get(ENV_VAR)
    return Path(env) if env else Path(platformdirs.user_cache_dir("mc3g")) / "data"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def download(
    dest: Path | str | None = None,
    base_url: str = UCI_BASE,
    names: Iterable[str] | None = None,
    progress: Progress | None = None,
) -> list[Path]:
    """Download the UCI files of the data sets ``names`` (default: all) into ``dest``.

    Files already present with the pinned hash are skipped, a present file with another hash is
    replaced.  Returns the paths actually downloaded (empty if everything was in place).
    """
    root = Path(dest) if dest is not None else default_data_dir()
    fetched = []
    for local in _files_for(names):
        spec = UCI_FILES[local]
        target = root / spec.local
        if target.is_file() and sha256_of(target) == spec.sha256:
            continue
        _fetch(f"{base_url.rstrip('/')}/{spec.remote}", target, spec, progress)
        fetched.append(target)
    return fetched


def _files_for(names: Iterable[str] | None) -> list[str]:
    """The distinct local file names the data sets ``names`` need, in a stable order."""
    if names is None:
        return list(UCI_FILES)
    wanted = []
    for name in names:
        if name not in FILES_BY_DATASET:
            raise InputError(f"unknown data set {name!r}; valid names are {sorted(FILES_BY_DATASET)}")
        wanted.extend(f for f in FILES_BY_DATASET[name] if f not in wanted)
    return wanted


def _fetch(url: str, target: Path, spec: UciFile, progress: Progress | None) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    tmp = Path(tmp_name)
    try:
        digest = hashlib.sha256()
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=_TIMEOUT_S) as response:
            length = response.headers.get("Content-Length")
            total = int(length) if length and length.isdigit() else None
            done = 0
            for chunk in iter(lambda: response.read(_CHUNK), b""):
                out.write(chunk)
                digest.update(chunk)
                done += len(chunk)
                if progress is not None:
                    progress(spec.local, done, total)
        actual = digest.hexdigest()
        if actual != spec.sha256:
            raise ChecksumError(f"{spec.local} downloaded from {url} has SHA-256 {actual}, expected {spec.sha256}; the file was discarded")
        os.replace(tmp, target)
    except (OSError, http.client.HTTPException) as exc:
        # OSError covers urllib's URLError / HTTPError, timeouts and refused connections;
        # HTTPException a connection that breaks off mid-file.
        raise DownloadError(f"could not download {url}: {exc}") from exc
    finally:
        tmp.unlink(missing_ok=True)
