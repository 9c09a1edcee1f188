"""Where ``explain``, ``whatif``, ``export`` and ``batch`` find their explainer and their people:
a data set mc3g ships (``DATASET``: an explainer fitted on its training split, its test split the
people), or a saved explainer (``--explainer FILE``, from ``mc3g fit`` or ``MC3G.save``; a black
box's model named again with ``--model``) with the rows of an input file (``--input FILE``) or
one person as JSON (``--person``).

A saved explainer holds its settings: an option that would change them (``--mode``,
``--causal``, ...) is refused rather than ignored; ``-k`` asks for another number of options."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import typer

from ..applicants import people_of, person_of, row_of
from ..exceptions import InputError
from ..explain import MC3G, with_saved_trust
from ..models import ModelFile
from ..reading import file_sha256
from ..records import frame_sha256
from ..reference import HELD

SAVED_HELP = "A saved explainer (mc3g fit, or MC3G.save in Python) instead of DATASET; a black box's model is named again with --model."
INPUT_HELP = "A CSV or Parquet file of people (every column the explainer reads): --row N picks one, --all-refused takes every refused one."
PERSON_HELP = 'One person as a JSON object of feature -> value, e.g. \'{"age": 38, "debt": "none"}\'.'


@dataclass(frozen=True)
class People:
    """Rows a command may be asked about (``--row N`` is a position among them); ``data`` is what
    a results header records of them and of the explainer, ``title(N)`` names row N on the page."""

    rows: pd.DataFrame
    data: dict[str, Any]
    title: Callable[[int], str]
    pick: Callable[[int], pd.Series]


def dataset_or_saved(dataset: str | None, saved: str | None) -> None:
    if (dataset is None) == (saved is None):
        raise InputError("name a data set (DATASET) or a saved explainer (--explainer FILE), one of the two")


def saved_explainer(ctx: typer.Context, path: str, model: ModelFile) -> tuple[MC3G, dict[str, Any]]:
    """The explainer saved in ``path`` (its black box read from ``model``), and what a results
    header records of it; an option it already holds the answer to is refused."""
    given = [name for name in HELD if name in ctx.params and given_option(ctx, name)]
    if given:
        options = ", ".join(f"--{name}" for name in given)
        raise InputError(f"{options}: the saved explainer {path} holds its own; fit and save it again to change them (mc3g fit ... --out {path})")
    explainer = MC3G.load(path, model=with_saved_trust(Path(path), model).load())
    return explainer, {"explainer": Path(path).name, "explainer_sha256": file_sha256(Path(path), "saved explainer")}


def given_option(ctx: typer.Context, name: str) -> bool:
    """Whether the user gave option ``name`` (typer's own click names the source; compared by name)."""
    source = ctx.get_parameter_source(name)
    return source is not None and source.name in ("COMMANDLINE", "ENVIRONMENT")


def split_people(ds: Any, explainer: MC3G) -> People:
    """A shipped data set's test split, as ``mc3g explain DATASET`` has always read it."""
    data = {"name": ds.name, "split": ds.split, "train_sha256": frame_sha256(ds.train), "test_sha256": frame_sha256(ds.test)}
    columns = list(explainer.feature_names_in_)

    def pick(row: int) -> pd.Series:
        if not len(ds.test):
            raise InputError(f"the {ds.name} {ds.split} test split has no rows: there is no row {row} to explain")
        if not 0 <= row < len(ds.test):
            raise InputError(f"row {row} is out of range: the {ds.name} {ds.split} test split has rows 0 to {len(ds.test) - 1}")
        return ds.test[columns].iloc[row].rename(f"{row} of the {ds.split} test split")  # as errors name it

    return People(ds.test, data, lambda row: f"{ds.name} test row {row} ({ds.split} split)", pick)


def input_file(explainer: MC3G, path: str, data: dict[str, Any], every: bool) -> People:
    """The rows of the input file ``path``; with ``every`` each cell is checked first, so that a
    bad row stops the run before anything is written."""
    rows = people_of(explainer, path, check=every)
    columns = [str(c) for c in explainer.feature_names_in_]
    recorded = {**data, "input": Path(path).name, "input_sha256": frame_sha256(rows.frame)}
    return People(rows.frame, recorded, lambda row: f"{Path(path).name}, row {row} ({rows.place(row)})", lambda row: row_of(rows, row, columns))


def one_person(explainer: MC3G, text: str) -> pd.Series:
    """``--person``'s JSON as a row, checked against the explainer's features."""
    return pd.Series(person_of(explainer, text), name="given by --person", dtype=object)


def choose(*, row: int | None, all_refused: bool | None, person: str | None, input_path: str | None, saved: str | None) -> None:
    """Refuse a combination of --row, --all-refused (None: a command without it), --person and
    --input that names no one, or more than one way."""
    if sum((row is not None, bool(all_refused), person is not None)) != 1:
        raise InputError("give one of --row N, --all-refused or --person JSON" if all_refused is not None else "give one of --row N or --person JSON")
    if person is not None and input_path:
        raise InputError("--person is one person; --input is a file of people: give one of the two")
    if saved and person is None and not input_path:
        raise InputError(f"{'--row' if row is not None else '--all-refused'} picks people from a file: give it with --input FILE (or one person with --person)")
