"""Explaining many people: in order, in several processes, with a progress bar, and one
person's failure reported in its own answer instead of stopping the rest."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pandas as pd
from joblib import Parallel, delayed
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from .result import ERROR, Recourse

if TYPE_CHECKING:
    from .mc3g import MC3G

CHUNK = 32  # rows per task and per pooled predict call: hides a process round trip


def _chunk(explainer: MC3G, rows: list[dict[str, Any]], k: int) -> list[Recourse]:
    """Every person's search side by side, their questions to the model pooled into one
    ``predict`` call per round: a model call costs about the same for one row as for thousands.
    When a pooled call fails, each person's rows are asked on their own, so only the people whose
    rows the model cannot judge get an ``error`` answer."""
    answers: list[Recourse | None] = [None] * len(rows)
    talks = [explainer._conversation(row, k) for row in rows]
    asking: dict[int, list[dict[str, Any]]] = {}

    def fail(i: int, exc: Exception) -> None:
        answers[i] = Recourse(rows[i], ERROR, reasons=(f"{type(exc).__name__}: {exc}",), run=explainer._settings(k))

    def step(i: int, refusals: list[bool] | None) -> None:
        try:
            asking[i] = talks[i].send(refusals)
        except StopIteration as done:
            answers[i] = done.value
        except Exception as exc:  # one person's failure must not lose the others' answers
            fail(i, exc)

    for i in range(len(rows)):
        step(i, None)
    while asking:
        round_, replies = dict(asking), {}
        asking.clear()
        try:
            pooled = explainer._refuses([r for questions in round_.values() for r in questions])
            start = 0
            for i, questions in round_.items():
                replies[i], start = pooled[start : start + len(questions)], start + len(questions)
        except Exception:
            for i, questions in round_.items():
                try:
                    replies[i] = explainer._refuses(questions)
                except Exception as exc:
                    fail(i, exc)
                    talks[i].close()
        for i, reply in replies.items():
            step(i, reply)
    return answers  # type: ignore[return-value]


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
