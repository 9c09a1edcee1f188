"""``mc3g serve`` as a process: the address it binds (refused with a message when in use,
loopback recognised in either family) and its workers, each replaced when it dies."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import children, kill_all
from typer.testing import CliRunner

from mc3g.bench.serve import free_port
from mc3g.cli import app
from mc3g.datasets import JOHN
from mc3g.serve import address, is_loopback

runner = CliRunner()


def test_a_port_in_use_is_refused_before_anything_is_announced() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = runner.invoke(app, ["serve", "--port", str(port)])
    assert result.exit_code == 2 and result.exception.__class__ is SystemExit
    assert f"cannot listen on 127.0.0.1:{port}: Address already in use" in result.output and "Serving" not in result.output


@pytest.mark.parametrize(("host", "loopback"), [("127.0.0.1", True), ("127.8.0.1", True), ("::1", True), ("[::1]", True), ("localhost", True),
                                                ("0.0.0.0", False), ("::", False), ("192.168.1.20", False), ("example.org", False)])  # fmt: skip
def test_loopback_is_recognised_in_both_families(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_an_ipv6_loopback_is_served_without_a_warning(monkeypatch) -> None:
    if not socket.has_ipv6:
        pytest.skip("no IPv6 here")
    port = free_port()
    try:
        socket.create_server(("::1", port), family=socket.AF_INET6).close()
    except OSError:
        pytest.skip("::1 cannot be bound here")
    served = []
    monkeypatch.setattr("mc3g.serve.run", lambda service, config, workers, sock: served.append(sock.getsockname()[:2]) or sock.close())
    result = runner.invoke(app, ["serve", "--host", "::1", "--port", str(port)])
    assert result.exit_code == 0, result.output
    assert "not loopback" not in result.output and f"http://{address('::1', port)}/" in result.output and served == [("::1", port)]


# -- workers --------------------------------------------------------------------------------------
def _workers(parent: int) -> set[int]:
    """The worker processes of ``mc3g serve``: its children started by multiprocessing's spawn."""
    return children(parent, b"spawn_main")


def _wait(condition: Callable[[], bool], seconds: float, what: str, log: Path) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} within {seconds:.0f} s; the log:\n{log.read_text(errors='replace')[-3000:]}")
        time.sleep(0.2)


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_killed_worker_is_logged_and_replaced() -> None:
    """kill -9 of one of two workers, then of both: each is logged and replaced, and a request
    sent while none is up waits in the listening socket's queue and is answered."""
    import httpx

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "serve.log"
        with log.open("wb") as sink:
            server = subprocess.Popen([sys.executable, "-m", "mc3g.cli", "serve", "--port", str(port), "--workers", "2"], stdout=sink, stderr=subprocess.STDOUT)
        try:

            def answers() -> bool:
                try:
                    return httpx.get(f"{url}/healthz", timeout=2).status_code == 200
                except httpx.TransportError:
                    return False

            _wait(lambda: answers() and len(_workers(server.pid)) == 2, 180, "two workers did not start", log)
            first, second = sorted(_workers(server.pid))
            os.kill(first, signal.SIGKILL)
            _wait(lambda: f"Child process [{first}] died" in log.read_text() and len(_workers(server.pid) - {first}) == 2, 180, "no replacement", log)
            survivors = _workers(server.pid)
            for pid in survivors:
                os.kill(pid, signal.SIGKILL)
            answer = httpx.post(f"{url}/v1/explain", json={"applicant": JOHN}, timeout=180)
            assert answer.status_code == 200 and answer.json()["status"] == "refused"
            _wait(lambda: all(f"Child process [{pid}] died" in log.read_text() for pid in survivors), 60, "the deaths were not logged", log)
            assert server.poll() is None
        finally:
            workers = _workers(server.pid)
            server.terminate()
            try:
                server.wait(30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
            kill_all(workers)
