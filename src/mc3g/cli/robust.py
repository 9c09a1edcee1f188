"""``mc3g bench robust``: options that hold beyond today's model, and what holding costs."""

from __future__ import annotations

from typing import Any

import typer

from .app import bench_app, print_results, spinner


@bench_app.command("robust")
def bench_robust(
    rows: int = typer.Option(30, "--rows", min=1, help="Refused test rows per data set and model."),
    kinds: list[str] = typer.Option(["hgb"], "--model", help="Held-out models: hgb, xgb, lr, rf, et. Repeat for several."),
    data: list[str] = typer.Option(["german", "taiwan"], "--data", help="german, taiwan (UCI splits). Repeat for several."),
    margins: list[float] = typer.Option([0.1, 0.2], "--margin", min=0.01, max=0.49, help="A margin beside the retrained models; repeat for several."),
    markdown: bool = typer.Option(False, help="Print a Markdown table (for the docs)."),
    as_json: bool = typer.Option(False, "--json", help="Print the results as JSON."),
) -> None:
    """German and Taiwan held-out models (product, K = 1): today's options, those chosen to survive 10
    models retrained on resamples, and those with a margin too, each judged by 10 fresh retrained models."""
    from ..bench.robust import robust_benchmark

    columns = ("data", "model", "options", "proved", "refused", "answered", "none, at the bound", "fresh survival", "survive all 10 fresh",
               "mean cost", "cost ÷ today's", "ms a person", "fit s")  # fmt: skip

    def row(r: Any) -> tuple[str, ...]:
        return (
            r.dataset, r.model, r.setting, "yes" if r.exact else "no", str(r.refused), str(r.answered), str(r.bounded),
            f"{r.survival:.1%}", f"{r.all_fresh:.0%}",
            f"{r.cost:.3f}", f"{r.extra_cost:.2f}", f"{r.ms_person:.0f}", f"{r.fit_seconds:.1f}",
        )  # fmt: skip

    with spinner("fitting and explaining...") as status:
        results = robust_benchmark(rows, tuple(kinds), tuple((name, "uci") for name in data), margins=tuple(margins), progress=status)
    print_results(results, columns, row, "Options that hold: judged by 10 models retrained on fresh resamples (product, K = 1)", as_json, markdown)
