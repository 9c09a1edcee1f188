"""``mc3g serve``: the recourse service and the applicant's page."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import typer

from ..exceptions import InputError
from .app import app, bench_app, err, print_results, spinner, styled


@app.command()
def serve(
    config: str = typer.Option(
        None, "--config", help="A TOML file: data set or saved explainer, model, knowledge, profile, defaults, limits. Default: the loan example."
    ),
    saved: str = typer.Option(None, "--explainer", help="Serve this saved explainer (mc3g fit, or MC3G.save): [explainer] saved = FILE without a file."),
    model: str = typer.Option(None, "--model", help="With --explainer: the model file of the black box it explains."),
    trust_types: list[str] = typer.Option(None, "--trust-type", help="With --model: a type a .skops file may hold beyond skops' trusted defaults."),
    title: str = typer.Option(None, "--title", help="With --explainer: the page's title (default: the explainer's file name)."),
    host: str = typer.Option(None, "--host", help="Address to bind; 127.0.0.1 (loopback) unless the file or this option says otherwise."),
    port: int = typer.Option(None, "--port", min=1, max=65535, help="Port; 8000 unless the file or this option says otherwise."),
    workers: int = typer.Option(1, "--workers", min=1, max=64, help="Processes; each fits or loads the explainer once at start-up."),
) -> None:
    """Serve the JSON API (/v1/explain, /v1/whatif, /v1/schema, /openapi.json) and the page at /."""
    try:
        from ..serve import address, is_loopback, listening, run, service_of
    except ImportError as exc:
        raise InputError(f"mc3g serve needs the serve extra: pip install 'mc3g[serve]' ({exc})") from None
    source = _source(config, saved, model, trust_types, title)
    service = service_of(source)
    service = replace(service, host=host or service.host, port=port or service.port)
    sock = listening(service.host, service.port)
    if not is_loopback(service.host):
        err.print(styled(("note:", "bold yellow"), f" binding to {service.host}, not loopback: the service is reachable from other machines."))
    err.print(f"Serving {service.title} on http://{address(service.host, service.port)}/ (the page), API under /v1/, OpenAPI at /openapi.json")
    run(service, source, workers, sock=sock)


def _source(
    config: str | None, saved: str | None, model: str | None, trust_types: list[str] | None, title: str | None = None
) -> str | dict[str, Any] | None:
    """What the service is built from: a TOML file, or a saved explainer named on the command
    line (the same tables a file's [explainer] and [service] would hold), or neither (the loan example)."""
    if saved is None:
        if model or trust_types or title:
            raise InputError("--model, --trust-type and --title go with --explainer (a service file names them in its [explainer] and [service] tables)")
        return config
    if config:
        raise InputError("--explainer serves a saved explainer; --config a service file that names one: give one of the two")
    table: dict[str, Any] = {"saved": str(Path(saved).resolve())}
    if model:
        table["model"] = str(Path(model).resolve())
    if trust_types:
        table["trusted_types"] = list(trust_types)
    return {"explainer": table} | ({"service": {"title": title}} if title else {})


@bench_app.command("serve")
def bench_serve(
    cases: list[str] = typer.Option(["loan", "adult"], "--case", help="loan (the paper's rules) or adult (a gradient-boosted black box); repeat for several."),
    requests: int = typer.Option(2000, "--requests", min=1, max=100_000, help="Requests per run."),
    concurrency: list[int] = typer.Option([16], "--concurrency", "-c", min=1, max=256, help="Concurrent clients; repeat for several runs."),
    workers: int = typer.Option(2, "--workers", min=1, max=64, help="Server processes."),
    k: int = typer.Option(3, "-k", "--k", min=1, max=10, help="Options per request."),
    timeout: float = typer.Option(None, "--timeout", min=0.1, max=3600, help="Seconds a request may take (default: the service's, 10)."),
    markdown: bool = typer.Option(False, help="Print a Markdown table (for the docs)."),
    as_json: bool = typer.Option(False, "--json", help="Print the results as JSON."),
) -> None:
    """The service under a bounded load on 127.0.0.1: latency percentiles and requests per second,
    every answer checked against the explainer's own."""
    from ..bench.serve import serve_benchmark

    columns = ("case", "model", "workers", "clients", "requests", "answered", "errors", "wrong", "p50 ms", "p95 ms", "p99 ms", "requests/s")

    def row(r: Any) -> tuple[str, ...]:
        counts = (r.workers, r.concurrency, r.requests, r.answered, r.errors, r.wrong)
        return (r.case, r.model, *(f"{n:,}" for n in counts), f"{r.p50_ms:.1f}", f"{r.p95_ms:.1f}", f"{r.p99_ms:.1f}", f"{r.requests_per_second:.0f}")

    with spinner("starting...") as status:
        results = serve_benchmark(cases, requests=requests, concurrency=concurrency, workers=workers, k=k, timeout=timeout, on_case=status)
    limit = f"{timeout:g} s" if timeout else "the default time limit"
    print_results(results, columns, row, f"mc3g serve under load (POST /v1/explain, K = {k}, {limit})", as_json, markdown)
