"""Point the loaders at the shared data: ``$MC3G_DATA_DIR`` if set (CI sets it), else the
``shared/data`` folder next to the checkout (``<repo>/../shared/data``); make hypothesis draw the
same examples everywhere; and serve an app on the loopback for the service's tests."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

# The same examples on every run and every machine: a red CI run is reproducible, not luck.
settings.register_profile("mc3g", derandomize=True)
settings.load_profile("mc3g")

os.environ.setdefault("MC3G_DATA_DIR", str(Path(__file__).resolve().parents[2] / "shared" / "data"))


def tiered(fast: int, deep: int, *strategies: Any) -> Callable[[Callable[..., None]], Callable[[int], None]]:
    """A property test in two tiers, as test_fuzz.py's: ``fast`` examples in the fast tier and
    ``deep`` in the full suite (marked ``slow``), so the fast tier keeps every exactness check at a
    fraction of its cost.  The decorated body is drawn from ``strategies``; ``@example``s written
    below this decorator run in both tiers."""

    def tiers(check: Callable[..., None]) -> Callable[[int], None]:
        def test(examples: int) -> None:
            drawn = settings(max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
            drawn(given(*strategies)(check))()

        test.__name__ = test.__qualname__ = check.__name__
        test.__doc__ = check.__doc__
        depths = [pytest.param(fast, id="fast"), pytest.param(deep, id="deep", marks=pytest.mark.slow)]
        return pytest.mark.parametrize("examples", depths)(test)

    return tiers


def pytest_report_header() -> list[str]:
    """Say at the start, not in a skip nobody reads, whether the browser tests can run."""
    found = shutil.which("chromium")
    return [f"chromium: {found}" if found else "chromium: missing, so the service's browser tests skip (Debian: apt-get install chromium)"]


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The directory with the UCI originals and the paper splits."""
    return Path(os.environ["MC3G_DATA_DIR"]).resolve()  # absolute: tests link its files from elsewhere


def children(pid: int, marker: bytes) -> set[int]:
    """The child processes of ``pid`` whose command line holds ``marker`` (reads Linux's /proc)."""
    found = set()
    for listed in Path(f"/proc/{pid}/task").glob("*/children"):
        for child in listed.read_text().split():
            try:
                if marker in Path(f"/proc/{child}/cmdline").read_bytes():
                    found.add(int(child))
            except FileNotFoundError:  # ended meanwhile
                pass
    return found


def kill_all(pids: Iterable[int]) -> None:
    """SIGKILL each of the processes a test started, by id; those already gone are skipped."""
    import signal

    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@contextmanager
def live_server(app: Any) -> Iterator[str]:
    """Serve an ASGI ``app`` with uvicorn in a thread on 127.0.0.1 (a port the system picks);
    yields its URL and stops the server afterwards."""
    import socket
    import threading
    import time

    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)  # a TCP socket: replies leave without Nagle's wait
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the test server did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(30)
        sock.close()


@pytest.fixture(scope="session")
def adult_paper() -> Iterator[Any]:
    """adult on the paper's split, read once for the session (two seconds a read, a dozen modules
    use it); the tests only read it, and the end of the session checks that none changed it."""
    import pandas as pd

    from mc3g.datasets import load

    ds = load("adult", split="paper")
    before = [pd.util.hash_pandas_object(frame).sum() for frame in (ds.train, ds.test)]
    yield ds
    assert [pd.util.hash_pandas_object(frame).sum() for frame in (ds.train, ds.test)] == before, "a test changed the shared adult data set in place"


@pytest.fixture(scope="session")
def loan() -> Any:
    """The service ``mc3g serve`` starts with no arguments: the loan example, John first."""
    from mc3g.serve import embedded

    return embedded()


@pytest.fixture(scope="module")
def client(loan: Any) -> Iterator[Any]:
    """An HTTP client of the loan service, served on 127.0.0.1 for one test module."""
    import httpx

    from mc3g.serve import create_app

    with live_server(create_app(loan)) as url, httpx.Client(base_url=url, timeout=30) as c:
        yield c


class Stalling:
    """A classifier whose first call for probabilities once ``stalled`` (after fitting) hangs in
    Python for 10 s, whatever a baseline's own loops do: long past a timeout, and over by itself
    if the timeout fails."""

    def __init__(self, model: Any) -> None:
        self.model, self.classes_, self.stalled = model, model.classes_, False

    def predict(self, X: Any) -> Any:
        return self.model.predict(X)

    def predict_proba(self, X: Any) -> Any:
        until = time.monotonic() + 10
        while self.stalled and time.monotonic() < until:
            time.sleep(0.01)
        self.stalled = False
        return self.model.predict_proba(X)
