"""A bounded load against 127.0.0.1: many clients at once, every answer the one the explainer
gives alone, no error, and a run that stops by itself.  Speeds are measured by ``mc3g bench
serve`` for docs/benchmarks.md, never asserted here."""

from __future__ import annotations

import json

import pytest
from conftest import live_server
from typer.testing import CliRunner

from mc3g.bench.serve import comparable, free_port, load, refused_applicants
from mc3g.cli import app
from mc3g.datasets import load as load_dataset
from mc3g.serve import create_app, embedded


@pytest.fixture(scope="module")
def people() -> tuple[list[dict], list[dict]]:
    """Twenty refused loan applicants as request bodies, and the answers they get alone."""
    explainer = embedded().explainer
    rows = refused_applicants(explainer, load_dataset("loan", split="default").test, 20)
    return [{"applicant": row, "k": 3} for row in rows], [comparable(explainer.explain(row, k=3).to_dict()) for row in rows]


@pytest.mark.slow
def test_eight_clients_lose_no_answer(people: tuple[list[dict], list[dict]]) -> None:
    bodies, expected = people
    with live_server(create_app(embedded())) as url:
        latencies, errors, wrong, seconds = load(url, bodies, expected, requests=80, concurrency=8)
    assert (len(latencies), errors, wrong) == (80, 0, 0) and seconds > 0


@pytest.mark.slow
def test_the_load_test_counts_wrong_answers_and_errors(people: tuple[list[dict], list[dict]]) -> None:
    bodies, expected = people
    swapped = expected[1:] + expected[:1]  # every answer now belongs to another applicant
    with live_server(create_app(embedded())) as url:
        latencies, errors, wrong, _ = load(url, bodies, swapped, requests=20, concurrency=4)
    assert (len(latencies), errors, wrong) == (0, 0, 20)
    latencies, errors, wrong, _ = load(f"http://127.0.0.1:{free_port()}", bodies, expected, requests=12, concurrency=3)  # nothing listens
    assert (len(latencies), errors, wrong) == (0, 12, 0)


@pytest.mark.slow
def test_bench_serve_against_two_worker_processes() -> None:
    result = CliRunner().invoke(app, ["bench", "serve", "--case", "loan", "--requests", "300", "-c", "8", "--workers", "2", "--json"])
    assert result.exit_code == 0, result.output
    (run,) = json.loads(result.output[result.output.index("[") :])
    assert (run["answered"], run["errors"], run["wrong"], run["workers"], run["concurrency"]) == (300, 0, 0, 2, 8)
    assert 0 < run["p50_ms"] <= run["p95_ms"] <= run["p99_ms"]
