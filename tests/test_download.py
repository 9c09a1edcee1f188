"""``download`` against a local HTTP server that mimics the UCI layout (no real network)."""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from mc3g.datasets import ChecksumError, DownloadError, download
from mc3g.datasets.download import UCI_FILES


class FakeUci:
    """A UCI-like server for the shared data; paths in ``corrupt`` are served with wrong bytes."""

    def __init__(self, root: Path) -> None:
        self.corrupt: set[str] = set()
        self.requests: list[str] = []
        local = {f"/{f.remote}": root / f.local for f in UCI_FILES.values()}
        fake = self

        class Handler(SimpleHTTPRequestHandler):
            def do_GET(self) -> None:
                fake.requests.append(self.path)
                if self.path not in local:
                    self.send_error(404)
                    return
                body = local[self.path].read_bytes()
                if self.path in fake.corrupt:
                    body = body.replace(b"a", b"b", 1)
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


@pytest.fixture
def uci(shared_data: Path) -> Iterator[FakeUci]:
    server = FakeUci(shared_data)
    yield server
    server.close()


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_pinned_hashes_are_those_of_sha256sums(shared_data: Path) -> None:
    """Every file mc3g downloads is pinned to the hash SHA256SUMS gives it; the shared folder may
    list more (the Taiwan card clients' CSV, a conversion of UCI's spreadsheet, is read from there)."""
    listed = dict(reversed(line.split()) for line in (shared_data / "SHA256SUMS").read_text().splitlines())
    pinned = {f.local: f.sha256 for f in UCI_FILES.values()}
    assert {name: listed.get(name) for name in pinned} == pinned


def test_downloads_every_file_verified_then_skips(uci: FakeUci, tmp_path: Path) -> None:
    seen: dict[str, tuple[int, int | None]] = {}
    got = download(tmp_path, base_url=uci.url, progress=lambda name, done, total: seen.__setitem__(name, (done, total)))
    assert got == [tmp_path / f.local for f in UCI_FILES.values()]
    assert "/statlog/german/german.data" in uci.requests
    for spec in UCI_FILES.values():
        path = tmp_path / spec.local
        assert sha256(path) == spec.sha256
        assert seen[spec.local] == (path.stat().st_size, path.stat().st_size)
    assert not list(tmp_path.rglob("*.part"))

    uci.requests.clear()
    assert download(tmp_path, base_url=uci.url) == []
    assert uci.requests == []


def test_names_select_files_and_dest_defaults_to_the_data_dir(uci: FakeUci, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MC3G_DATA_DIR", str(tmp_path))
    assert download(base_url=uci.url, names=["cars", "cars4", "loan"]) == [tmp_path / "car" / "car.data"]
    assert uci.requests == ["/car/car.data"]
    with pytest.raises(ValueError, match="unknown data set 'iris'"):
        download(tmp_path, base_url=uci.url, names=["iris"])


def test_a_file_with_the_wrong_hash_is_replaced(uci: FakeUci, tmp_path: Path) -> None:
    stale = tmp_path / "german" / "german.data"
    stale.parent.mkdir()
    stale.write_text("not the data\n")
    assert download(tmp_path, base_url=uci.url, names=["german"]) == [stale]
    assert sha256(stale) == UCI_FILES["german/german.data"].sha256


def test_corrupted_download_raises_and_leaves_nothing(uci: FakeUci, tmp_path: Path) -> None:
    uci.corrupt.add("/car/car.data")
    with pytest.raises(ChecksumError) as caught:
        download(tmp_path, base_url=uci.url, names=["cars"])
    message = str(caught.value)
    assert "car/car.data" in message and UCI_FILES["car/car.data"].sha256 in message
    assert re.search(r"SHA-256 [0-9a-f]{64}", message)
    assert list((tmp_path / "car").iterdir()) == []


def test_http_error_names_the_url(uci: FakeUci, tmp_path: Path) -> None:
    base = f"{uci.url}/moved"
    with pytest.raises(DownloadError, match=rf"{re.escape(base)}/adult/adult.data.*404"):
        download(tmp_path, base_url=base, names=["adult"])
    assert not (tmp_path / "adult" / "adult.data").exists()
