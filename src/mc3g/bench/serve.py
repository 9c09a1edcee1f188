"""``mc3g bench serve``: the service under a bounded load, on 127.0.0.1 only.

Each case starts ``mc3g serve`` in its own process (the real command, with a configuration file
in a temporary folder), waits for ``/healthz``, and sends a fixed number of ``POST /v1/explain``
requests from a fixed number of concurrent clients; then it stops the server.  The applicants are
the refused test rows of the data, in turn.  Every answer is compared with the one the same
explainer gives in this process: a request with no answer, an error, or an answer that differs
from it counts against the run.  Latency is measured per request at the client (p50, p95, p99);
throughput is the requests answered over the run's wall-clock time.
"""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

LOOPBACK = "127.0.0.1"
CASES = ("loan", "adult")


@dataclass(frozen=True)
class LoadRun:
    """One case under load: what was sent, what came back, and how fast."""

    case: str
    model: str
    workers: int
    concurrency: int
    requests: int
    answered: int  # 200 and the same answer as the explainer gives alone
    errors: int  # no response, or a status other than 200 (a 503 past the time limit included)
    wrong: int  # a 200 whose answer differs from the explainer's own
    p50_ms: float
    p95_ms: float
    p99_ms: float
    requests_per_second: float
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def free_port() -> int:
    """A port nothing on the loopback listens on now."""
    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        return s.getsockname()[1]


@contextmanager
def started_server(args: Sequence[str], startup_seconds: float = 180.0) -> Iterator[str]:
    """``mc3g serve ARGS`` on a free loopback port in its own process; yields its URL once
    ``/healthz`` answers, and stops the process (by its id) afterwards."""
    import httpx

    port = free_port()
    command = [sys.executable, "-m", "mc3g.cli", "serve", "--host", LOOPBACK, "--port", str(port), *args]
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        url = f"http://{LOOPBACK}:{port}"
        try:
            deadline = time.monotonic() + startup_seconds
            while True:
                if process.poll() is not None:
                    log.seek(0)
                    raise RuntimeError(f"mc3g serve stopped with code {process.returncode}:\n{log.read().decode(errors='replace')[-3000:]}")
                try:
                    if httpx.get(f"{url}/healthz", timeout=1.0).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"mc3g serve did not answer /healthz within {startup_seconds:.0f} s")
                time.sleep(0.1)
            yield url
        finally:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def comparable(answer: dict[str, Any]) -> dict[str, Any]:
    """An answer without its measured search times, the fields two equal answers differ in."""
    from ..explain import TIMINGS

    return {**answer, "run": {k: v for k, v in answer["run"].items() if k not in TIMINGS}}


def load(url: str, bodies: Sequence[dict[str, Any]], expected: Sequence[dict[str, Any]], requests: int, concurrency: int, limit_seconds: float = 600.0):
    """Send ``requests`` bodies (``bodies`` in turn) from ``concurrency`` clients to
    ``url/v1/explain``; returns (latencies in s of the answered requests, errors, wrong answers,
    wall-clock seconds).  It stops by itself: after ``requests``, or at ``limit_seconds``, when
    the requests not yet sent count as errors."""
    import httpx

    async def run() -> tuple[list[float], int, int, float]:
        latencies: list[float] = []
        failed = wrong = 0
        sent = 0
        deadline = time.monotonic() + limit_seconds
        limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
        async with httpx.AsyncClient(base_url=url, limits=limits, timeout=60.0) as client:

            async def worker() -> None:
                nonlocal sent, failed, wrong
                while sent < requests and time.monotonic() < deadline:
                    i = sent
                    sent += 1
                    start = time.perf_counter()
                    try:
                        response = await client.post("/v1/explain", json=bodies[i % len(bodies)])
                    except httpx.HTTPError:
                        failed += 1
                        continue
                    elapsed = time.perf_counter() - start
                    if response.status_code != 200:
                        failed += 1
                    elif comparable(response.json()) != expected[i % len(bodies)]:
                        wrong += 1
                    else:
                        latencies.append(elapsed)

            began = time.perf_counter()
            await asyncio.gather(*(worker() for _ in range(concurrency)))
            seconds = time.perf_counter() - began
        return latencies, failed + (requests - sent), wrong, seconds

    return asyncio.run(run())


def _case(name: str, folder: Path, people: int, timeout: float | None) -> tuple[str, str, Any, list[dict[str, Any]]]:
    """A case's configuration file (with ``timeout`` seconds per request, else the service's
    default), its model's name, the explainer the server will build, and the refused applicants
    (at most ``people``)."""
    from ..exceptions import InputError
    from ..reference import fitted_explainer

    if name == "loan":
        settings: dict[str, Any] = {"dataset": "loan"}
        model_name = "loan rules"
    elif name == "adult":
        settings = {"dataset": "adult", "split": "paper", "model": str(_adult_black_box(folder)), "trusted_types": ["sklearn.tree._tree.Tree"]}
        model_name = "adult, GradientBoosting (black box)"
    else:
        raise InputError(f"unknown case {name!r}; the cases are {list(CASES)}")
    config = folder / f"{name}.toml"
    text = "[explainer]\n" + "".join(f"{key} = {json.dumps(value)}\n" for key, value in settings.items())
    config.write_text(text + (f"[service]\ntimeout_seconds = {timeout}\n" if timeout else ""), encoding="utf-8")
    ds, explainer = fitted_explainer(settings["dataset"], settings.get("split"), model_file=settings.get("model"), trusted_types=settings.get("trusted_types"))
    return str(config), model_name, explainer, refused_applicants(explainer, ds.test, people)


def refused_applicants(explainer: Any, test: Any, people: int) -> list[dict[str, Any]]:
    """The first ``people`` rows of the frame ``test`` that the explainer's model refuses, as the
    plain values a JSON request carries."""
    from ..values import plain

    X = test[list(explainer.feature_names_in_)]
    return [{name: plain(value) for name, value in row.items()} for _, row in X[explainer.refuses(X)].iloc[:people].iterrows()]


def _adult_black_box(folder: Path) -> Path:
    """The Table 1 gradient-boosted model of adult, kept as a .skops file."""
    import skops.io

    from ..datasets import load as load_dataset
    from .table1 import BLACK_BOXES, black_box

    path = folder / "adult-gbm.skops"
    skops.io.dump(black_box(load_dataset("adult", split="paper"), BLACK_BOXES["adult"]), path)
    return path


def serve_benchmark(
    cases: Sequence[str] = CASES,
    requests: int = 2000,
    concurrency: Sequence[int] = (16,),
    workers: int = 2,
    k: int = 3,
    people: int = 200,
    timeout: float | None = None,
    on_case: Any = None,
) -> list[LoadRun]:
    """Each case at each concurrency, against ``mc3g serve --workers WORKERS`` (``timeout``: the
    seconds a request may take, else the service's default)."""
    runs = []
    with tempfile.TemporaryDirectory() as folder:
        for name in cases:
            config, model_name, explainer, applicants = _case(name, Path(folder), people, timeout)
            bodies = [{"applicant": person, "k": k} for person in applicants]
            expected = [comparable(explainer.explain(person, k).to_dict()) for person in applicants]
            with started_server(["--config", config, "--workers", str(workers)]) as url:
                for clients in concurrency:
                    if on_case:
                        on_case(f"{name}: {requests} requests from {clients} clients")
                    latencies, errors, wrong, seconds = load(url, bodies, expected, requests, clients)
                    ms = np.percentile(np.array(latencies) * 1000, [50, 95, 99]) if latencies else [float("nan")] * 3
                    runs.append(
                        LoadRun(name, model_name, workers, clients, requests, len(latencies), errors, wrong, *map(float, ms), len(latencies) / seconds, seconds)
                    )
    return runs
