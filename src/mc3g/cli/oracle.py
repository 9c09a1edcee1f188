"""``mc3g bench oracle``: the black-box search against every state of a small domain; ``mc3g bench
pipelines``: which of a lender's models are read exactly."""

from __future__ import annotations

from typing import Any

import typer

from .app import bench_app, print_results, spinner


@bench_app.command("oracle")
def bench_oracle(
    people: int = typer.Option(25, "--people", min=1, help="Refused training rows per domain and model."),
    k: list[int] = typer.Option([1, 3], "-k", "--k", min=1, help="Options per person; repeat for several."),
    domains: list[str] = typer.Option(["three", "six"], "--domain", help="three, six. Repeat for several."),
    kinds: list[str] = typer.Option(
        ["mlp", "svm", "knn", "forest", "boosting", "logistic", "box"], "--model", help="mlp, svm, knn, forest, boosting, logistic, box (six only)."
    ),
    markdown: bool = typer.Option(False, help="Print a Markdown table (for the docs)."),
    as_json: bool = typer.Option(False, "--json", help="Print the results as JSON."),
) -> None:
    """Black boxes on small domains whose every state the model judges and mc3g prices: first
    answers that are the domain's least, later options no dearer than the domain's at their
    place, people given fewer options than it holds, and false "no option" (product profile)."""
    from ..bench.oracle import CASES, KINDS, oracle_benchmark

    for name in domains:
        if name not in CASES:
            raise typer.BadParameter(f"{name!r} is none of {', '.join(CASES)}", param_hint="--domain")
    for kind in kinds:
        if kind not in KINDS:
            raise typer.BadParameter(f"{kind!r} is none of {', '.join(KINDS)}", param_hint="--model")
    columns = ("domain", "model", "K", "people", "states (accepted)", "first optimal (worst)", "later optimal", "fewer than the domain holds",
               "false no option", "true no option", "own ms median")  # fmt: skip

    def row(r: Any) -> tuple[str, ...]:
        worst = "" if r.worst_first is None or r.worst_first <= 0 else f" ({r.worst_first:.1%})"
        return (
            r.domain, r.model, str(r.k), str(r.people), f"{r.states:,} ({r.accepted:.0%})", f"{r.first_optimal} of {r.people}{worst}",
            f"{r.later_optimal} of {r.later}", str(r.short), str(r.false_none), str(r.true_none), f"{r.own_ms:.1f}",
        )  # fmt: skip

    with spinner("explaining...") as status:
        results = oracle_benchmark(tuple(domains), tuple(kinds), tuple(k), people, progress=status)
    print_results(results, columns, row, "Black boxes against every state of a small domain (product profile)", as_json, markdown)


@bench_app.command("pipelines")
def bench_pipelines(
    names: list[str] = typer.Option([], "--pipeline", help="Pipelines of the catalogue (all by default); repeat for several."),
    train: int = typer.Option(4000, "--train", min=100, help="Adult training rows each is fitted on."),
    rows: int = typer.Option(10, "--rows", min=1, help="Refused adult test rows each explains."),
    markdown: bool = typer.Option(False, help="Print a Markdown table (for the docs)."),
    as_json: bool = typer.Option(False, "--json", help="Print the results as JSON."),
) -> None:
    """Which of a lender's models mc3g reads exactly: a catalogue of scikit-learn, XGBoost and
    LightGBM pipelines of adult (encoders, scalers, selections, bins, estimators, thresholds,
    calibrations, searches of settings), each read exactly or not (and why not), with its first
    refused test rows explained (K = 1, product profile)."""
    from ..bench.pipelines import NAMES, pipelines_benchmark

    for name in names:
        if name not in NAMES:
            raise typer.BadParameter(f"{name!r} is none of {', '.join(NAMES)}", param_hint="--pipeline")
    columns = ("pipeline", "what", "read exactly", "what was read, or why not", "fit s", "refused", "answered", "no option proved", "own ms median")

    def row(r: Any) -> tuple[str, ...]:
        return (
            r.name, r.what, "yes" if r.exact else "no", r.reading, f"{r.fit_seconds:.1f}", str(r.refused), str(r.answered), str(r.proved_none),
            f"{r.own_ms:.1f}",
        )  # fmt: skip

    with spinner("explaining...") as status:
        results = pipelines_benchmark(tuple(names) or NAMES, train, rows, progress=status)
    print_results(results, columns, row, "Which of a lender's models are read exactly (adult, product profile, K = 1)", as_json, markdown)
