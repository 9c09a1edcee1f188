"""``mc3g learn`` and ``mc3g bench learn``: FOLD-SE rules and their benchmark."""

from __future__ import annotations

import json
import sys
from typing import Any

import typer
from rich.table import Table

from ..datasets import load
from .app import app, bench_app, out, print_results, spinner, styled


@app.command()
def learn(
    dataset: str = typer.Argument(..., help="adult, german, cars, cars4 or loan."),
    split: str = typer.Option("uci", help="uci (the UCI originals), paper (the MC3G splits) or default (loan)."),
    ratio: float = typer.Option(0.5, help="Exception ratio."),
    tail: float = typer.Option(0.005, help="Drop rules covering fewer than this share of the training rows."),
    heuristic: str = typer.Option("mgi", help="mgi (FOLD-SE), ig (FOLD-R++) or gini."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Learn FOLD-SE rules for the unfavourable class and score them on the test split."""
    from ..bench.learn import run_foldse

    ds = load(dataset, split=split)
    result = run_foldse(ds, ratio=ratio, tail=tail, heuristic=heuristic)
    rules = result.rules
    assert rules is not None
    if as_json:
        payload = {**result.to_dict(), "english": rules.to_english(ds.schema.words())}
        payload.pop("peak_mib")
        sys.stdout.write(json.dumps(payload, indent=2) + "\n")
        return
    what = f"{ds.schema.label} = {result.target!r}" if result.target is not None else f"the classes of {ds.schema.label}"
    counts = f"{result.n_train:,} training rows, {result.n_test:,} test rows; the rules describe {what}.\n"
    out.print(styled(("FOLD-SE", "bold"), " on ", (ds.name, "bold"), f" ({ds.split} split): {counts}"))
    out.print(styled(("Logic program", "bold")))
    out.print(result.program or "(no rules: every row gets the default class)", soft_wrap=True)
    out.print(styled("\n", ("In words", "bold")))
    out.print(rules.to_english(ds.schema.words()), soft_wrap=True)
    table = Table(title="Test split", title_justify="left", show_header=False)
    for key, value in (
        ("accuracy", f"{result.accuracy:.4f}"),
        ("precision", f"{result.precision:.4f}"),
        ("recall", f"{result.recall:.4f}"),
        ("rules / exceptions / literals", f"{result.n_rules} / {result.n_exceptions} / {result.n_literals}"),
        ("training time", f"{result.train_seconds:.3f} s"),
    ):
        table.add_row(key, value)
    out.print()
    out.print(table)


@bench_app.command("learn")
def bench_learn(
    repeat: int = typer.Option(3, min=1, help="Fits per timing (the best is reported)."),
    memory: bool = typer.Option(True, help="Measure peak memory (an extra fit under tracemalloc)."),
    foldrpp: bool = typer.Option(True, help="Include FOLD-R++ mode (information gain, no tail; slow on adult)."),
    replicas: int = typer.Option(4, min=1, help="Also train on adult's training set stacked this many times."),
    markdown: bool = typer.Option(False, help="Print a Markdown table (for the docs)."),
    as_json: bool = typer.Option(False, "--json", help="Print the results as JSON."),
) -> None:
    """FOLD-SE against FOLD-R++ mode and a decision tree of comparable accuracy."""
    from ..bench.learn import learn_benchmark

    columns = ("data", "rows", "learner", "accuracy", "rules", "literals", "train s", "peak MiB")

    def row(r: Any) -> tuple[str, ...]:
        peak = "" if r.peak_mib is None else f"{r.peak_mib:.1f}"
        return (r.dataset, f"{r.n_train:,}", r.learner, f"{r.accuracy:.4f}", str(r.n_rules), str(r.n_literals), f"{r.train_seconds:.3f}", peak)

    if as_json or markdown:
        results = learn_benchmark(repeat=repeat, memory=memory, replicas=replicas, foldrpp=foldrpp)
    else:
        table = Table(*columns, title="FOLD-SE training benchmark (test accuracy; best of repeated fits)")
        with spinner("training...", out) as status:

            def show(r: Any) -> None:
                status(f"done: {r.dataset} / {r.learner}")
                table.add_row(*row(r))

            learn_benchmark(repeat=repeat, memory=memory, replicas=replicas, foldrpp=foldrpp, on_result=show)
        out.print(table)
        return
    print_results(results, columns, row, "", as_json, markdown)
