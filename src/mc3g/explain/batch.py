"""Explaining many people: in order, in several processes, with a progress bar, and one
person's failure reported in its own answer instead of stopping the rest."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator

import pandas as pd
from joblib import Parallel, delayed
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from .result import ERROR, Recourse

if TYPE_CHECKING:
    from .mc3g import MC3G

CHUNK = 32  # rows per task: large enough to hide the cost of a process round trip


def _answer(explainer: MC3G, row: dict[str, Any], k: int, refused: bool | None) -> Recourse:
    try:
        return explainer._explain_one(row, k, refused)
    except Exception as exc:  # one person's failure must not lose the others' answers
        return Recourse(row, ERROR, reasons=(f"{type(exc).__name__}: {exc}",), settings=explainer._settings(k))


def _chunk(explainer: MC3G, rows: list[dict[str, Any]], k: int) -> list[Recourse]:
    try:  # the model judges the whole chunk in one call; if that fails, each row on its own
        verdicts: list[bool | None] = list(explainer.refused(rows))
    except Exception:
        verdicts = [None] * len(rows)
    return [_answer(explainer, row, k, refused) for row, refused in zip(rows, verdicts)]


def explain_rows(explainer: MC3G, rows: pd.DataFrame, k: int, n_jobs: int = 1, progress: bool = False) -> Iterator[tuple[Any, Recourse]]:
    """(index, answer) for each row of ``rows``, in order, as soon as each is ready."""
    index = list(rows.index)
    records = [dict(r.items()) for _, r in rows.iterrows()]
    chunks = [records[i : i + CHUNK] for i in range(0, len(records), CHUNK)]
    if n_jobs == 1 or len(chunks) <= 1:
        results: Iterator[list[Recourse]] = (_chunk(explainer, c, k) for c in chunks)
    else:
        results = Parallel(n_jobs=n_jobs, return_as="generator")(delayed(_chunk)(explainer, c, k) for c in chunks)
    bar = Progress(TextColumn("explaining"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(), disable=not progress, transient=True)
    with bar:
        task = bar.add_task("explaining", total=len(records))
        position = 0
        for answers in results:
            for answer in answers:
                yield index[position], answer
                position += 1
            bar.update(task, advance=len(answers))
