"""The ``mc3g`` command line."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import typer
from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn
from rich.table import Table

from . import __version__
from .datasets import DataFormatError, DataNotFoundError, DownloadError, default_data_dir, download, load, names

app = typer.Typer(
    help="Causally constrained counterfactual explanations (MC3G) with the FOLD-SE rule learner.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
data_app = typer.Typer(help="The data sets: list them, download the UCI originals.", no_args_is_help=True)
bench_app = typer.Typer(help="Benchmarks that print tables of measured figures.", no_args_is_help=True)
app.add_typer(data_app, name="data")
app.add_typer(bench_app, name="bench")

out = Console(highlight=False)
err = Console(stderr=True, highlight=False)


@contextmanager
def _user_errors() -> Iterator[None]:
    """Errors about the user's input end the command with their message, not a traceback."""
    try:
        yield
    except (DataNotFoundError, DataFormatError, DownloadError, ValueError, KeyError) as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        err.print(f"[bold red]error:[/] {message}", markup=True, highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None


def _version(value: bool) -> None:
    if value:
        out.print(f"mc3g {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version and exit."),
) -> None:
    """Causally constrained counterfactual explanations (MC3G) with the FOLD-SE rule learner."""


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
    from .bench.learn import run_foldse

    with _user_errors():
        ds = load(dataset, split=split)
        result = run_foldse(ds, ratio=ratio, tail=tail, heuristic=heuristic)
    rules = result.rules
    assert rules is not None
    if as_json:
        payload = {**result.to_dict(), "english": rules.to_english()}
        payload.pop("peak_mib")
        sys.stdout.write(json.dumps(payload, indent=2) + "\n")
        return
    what = f"{ds.schema.label} = {result.target!r}" if result.target is not None else f"the classes of {ds.schema.label}"
    out.print(
        f"[bold]FOLD-SE[/] on [bold]{ds.name}[/] ({ds.split} split): {result.n_train:,} training rows, "
        f"{result.n_test:,} test rows; the rules describe {what}.\n"
    )
    out.print("[bold]Logic program[/]")
    out.print(result.program or "(no rules: every row gets the default class)", markup=False, soft_wrap=True)
    out.print("\n[bold]In words[/]")
    out.print(rules.to_english(), markup=False, soft_wrap=True)
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


@data_app.command("list")
def data_list() -> None:
    """The data sets mc3g knows and where it looks for their files."""
    table = Table("name", "what it is")
    for name, description in names().items():
        table.add_row(name, description)
    out.print(table)
    out.print(f"Files are read from {default_data_dir()} (set MC3G_DATA_DIR to change it).")


@data_app.command("download")
def data_download(
    datasets: list[str] = typer.Argument(None, help="Data sets to fetch (default: all UCI files)."),
    dest: str = typer.Option(None, help="Directory to write to (default: MC3G_DATA_DIR or the user cache)."),
    base_url: str = typer.Option(None, help="Mirror of the UCI repository's machine-learning-databases folder."),
) -> None:
    """Fetch the UCI originals and check their SHA-256."""
    kwargs: dict[str, Any] = {"dest": dest, "names": datasets or None}
    if base_url:
        kwargs["base_url"] = base_url
    with _user_errors(), Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(), console=err) as bar:
        tasks: dict[str, Any] = {}

        def progress(name: str, done: int, total: int | None) -> None:
            if name not in tasks:
                tasks[name] = bar.add_task(name, total=total)
            bar.update(tasks[name], completed=done)

        fetched = download(progress=progress, **kwargs)
    target = dest or default_data_dir()
    out.print(f"{len(fetched)} file(s) fetched into {target}; every file's SHA-256 checked." if fetched else f"All files already in {target}.")


@bench_app.command("learn")
def bench_learn(
    repeat: int = typer.Option(3, help="Fits per timing (the best is reported)."),
    memory: bool = typer.Option(True, help="Measure peak memory (an extra fit under tracemalloc)."),
    foldrpp: bool = typer.Option(True, help="Include FOLD-R++ mode (information gain, no tail; slow on adult)."),
    replicas: int = typer.Option(4, help="Also train on adult's training set stacked this many times."),
    markdown: bool = typer.Option(False, help="Print a Markdown table (for the docs)."),
    as_json: bool = typer.Option(False, "--json", help="Print the results as JSON."),
) -> None:
    """FOLD-SE against FOLD-R++ mode and a decision tree of comparable accuracy."""
    from .bench.learn import learn_benchmark

    columns = ("data", "rows", "learner", "accuracy", "rules", "literals", "train s", "peak MiB")

    def row(r: Any) -> tuple[str, ...]:
        peak = "" if r.peak_mib is None else f"{r.peak_mib:.1f}"
        return (r.dataset, f"{r.n_train:,}", r.learner, f"{r.accuracy:.4f}", str(r.n_rules), str(r.n_literals), f"{r.train_seconds:.3f}", peak)

    with _user_errors():
        if as_json or markdown:
            results = learn_benchmark(repeat=repeat, memory=memory, replicas=replicas, foldrpp=foldrpp)
        else:
            table = Table(*columns, title="FOLD-SE training benchmark (test accuracy; best of repeated fits)")
            with out.status("training...") as status:
                def show(r: Any) -> None:
                    status.update(f"done: {r.dataset} / {r.learner}")
                    table.add_row(*row(r))

                learn_benchmark(repeat=repeat, memory=memory, replicas=replicas, foldrpp=foldrpp, on_result=show)
            out.print(table)
            return
    if as_json:
        sys.stdout.write(json.dumps([r.to_dict() for r in results], indent=2) + "\n")
        return
    sys.stdout.write("| " + " | ".join(columns) + " |\n|" + "---|" * len(columns) + "\n")
    for r in results:
        sys.stdout.write("| " + " | ".join(row(r)) + " |\n")


if __name__ == "__main__":  # pragma: no cover
    app()
