"""The ``mc3g`` command: its sub-commands, its consoles, and how it reports a refused input."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from .. import __version__
from ..exceptions import InternalError, MC3GError

app = typer.Typer(
    help="Causally constrained counterfactual explanations (MC3G) with the FOLD-SE rule learner.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
data_app = typer.Typer(help="The data sets: list them, download the UCI originals.", no_args_is_help=True)
bench_app = typer.Typer(help="Benchmarks that print tables of measured figures.", no_args_is_help=True)
reproduce_app = typer.Typer(help="The paper's tables, recomputed and printed beside the published numbers.", no_args_is_help=True)
app.add_typer(data_app, name="data")
app.add_typer(bench_app, name="bench")
app.add_typer(reproduce_app, name="reproduce")

out = Console(highlight=False)
err = Console(stderr=True, highlight=False)

PROFILE_HELP = "product (advice for an applicant: the data's protected and one-way features hold) or paper (the MC3G paper's settings)."
MODE_HELP = "derived (MC3G: what follows from your actions is free), explained (the authors' code) or none (C3G)."


@contextmanager
def user_errors() -> Iterator[None]:
    """Errors about the user's input end the command with their message, not a traceback."""
    try:
        yield
    except InternalError:
        raise  # a bug: it shows as one
    except (MC3GError, FileNotFoundError) as exc:
        err.print(f"[bold red]error:[/] {exc}", markup=True, highlight=False, soft_wrap=True)
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


def print_results(results: Sequence[Any], columns: Sequence[str], row: Callable[[Any], Sequence[str]], title: str, as_json: bool, markdown: bool) -> None:
    """A benchmark's results as JSON, as a Markdown table (for the docs) or as a table."""
    if as_json:
        sys.stdout.write(json.dumps([r.to_dict() for r in results], indent=2) + "\n")
    elif markdown:
        sys.stdout.write("| " + " | ".join(columns) + " |\n|" + "---|" * len(columns) + "\n")
        for r in results:
            sys.stdout.write("| " + " | ".join(row(r)) + " |\n")
    else:
        table = Table(*columns, title=title)
        for r in results:
            table.add_row(*row(r))
        out.print(table)
