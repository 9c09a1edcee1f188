"""The ``mc3g`` command: its sub-commands, its consoles, and how it reports a refused input.

The consoles read no markup: what they print (a message quoting a file's ``[explainer]`` table,
a value, a path) appears as it is, in tables and progress lines too; emphasis is given
explicitly with :func:`styled`."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text
from typer.core import TyperGroup

from .. import __version__
from ..exceptions import InternalError, MC3GError
from ..profiles import Profile

out = Console(highlight=False, markup=False)
err = Console(stderr=True, highlight=False, markup=False)


def styled(*parts: str | tuple[str, str]) -> Text:
    """A line of plain text and (text, style) parts: the text is never read as markup."""
    return Text.assemble(*parts)


@contextmanager
def spinner(text: str, console: Console | None = None) -> Iterator[Callable[[str], None]]:
    """A spinner with a line of plain text (standard error by default); yields what sets the line."""
    with (console or err).status(Text(text)) as shown:
        yield lambda line: shown.update(Text(line))


@contextmanager
def user_errors() -> Iterator[None]:
    """Errors about the user's input or the system's refusals (a file, a port, a full disk) end
    the command with their message and exit 2, not a traceback; anything else is a bug."""
    try:
        yield
    except InternalError:
        raise  # a bug: it shows as one
    except MC3GError as exc:
        _refused(str(exc))
    except OSError as exc:
        said = exc.strerror or str(exc)
        _refused(f"{exc.filename}: {said}" if exc.filename else said)


def _refused(message: str) -> None:
    err.print(styled(("error:", "bold red"), " ", message), soft_wrap=True)
    raise typer.Exit(2) from None


class _Commands(TyperGroup):
    """Every command runs inside :func:`user_errors`: one place decides what a refusal looks like."""

    def invoke(self, ctx: Any) -> Any:
        with user_errors():
            return super().invoke(ctx)


app = typer.Typer(
    cls=_Commands,
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

PROFILE_HELP = " or ".join(f"{p} ({p.description})" for p in Profile) + "."
MODE_HELP = "derived (MC3G: what follows from your actions is free), explained (the authors' code) or none (C3G)."


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
