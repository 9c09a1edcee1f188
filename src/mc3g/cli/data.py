"""``mc3g data``: the data sets and their download."""

from __future__ import annotations

from typing import Any

import typer
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn
from rich.table import Table

from ..datasets import default_data_dir, download, names
from .app import data_app, err, out


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
    with Progress(TextColumn("{task.description}", markup=False), BarColumn(), DownloadColumn(), console=err) as bar:
        tasks: dict[str, Any] = {}

        def progress(name: str, done: int, total: int | None) -> None:
            if name not in tasks:
                tasks[name] = bar.add_task(name, total=total)
            bar.update(tasks[name], completed=done)

        fetched = download(progress=progress, **kwargs)
    target = dest or default_data_dir()
    out.print(f"{len(fetched)} file(s) fetched into {target}; every file's SHA-256 checked." if fetched else f"All files already in {target}.")
