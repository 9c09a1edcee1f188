"""Explaining many people: in order, in several processes, with a progress bar, and one
person's failure reported in its own answer instead of stopping the rest.  The worker processes
end with the process that started them, killed or not.

Everything here drives the public seams: :meth:`MC3G.session` for each person's search and
:meth:`MC3G.refuses_rows` for the model's verdicts, pooled across people.
"""

from __future__ import annotations

import gc
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, Protocol

import pandas as pd

from ..exceptions import InputError
from ..models import ChangedRows
from .result import Recourse, RunRecord
from .session import Session


class Explains(Protocol):
    """What a batch needs of an explainer: a person's search, the model's verdicts, and the
    settings an error answer records."""

    def session(self, row: Mapping[str, Any], k: int | None = None, where: str | None = None) -> Session: ...

    def refuses_rows(self, rows: Sequence[Mapping[str, Any]]) -> list[bool]: ...

    def run_record(self, k: int | None = None) -> RunRecord: ...


CHUNK = 32  # rows per task and per pooled predict call, at most: hides a process round trip


def explain_chunk(explainer: Explains, rows: list[dict[str, Any]], k: int, labels: list[Any]) -> list[Recourse]:
    """Every person's search side by side, their questions to the model pooled into one
    ``predict`` call per round: a model call costs about the same for one row as for thousands.
    When a pooled call fails, each person's rows are asked on their own, so only the people whose
    rows the model cannot judge get an ``error`` answer; ``labels`` name the rows in its reason."""
    with COLLECTOR.held_off():
        return _explained(explainer, rows, k, labels)


def _explained(explainer: Explains, rows: list[dict[str, Any]], k: int, labels: list[Any]) -> list[Recourse]:
    """:func:`explain_chunk`'s searches, the collector held off around them."""
    sessions: list[Session | Recourse] = []
    for row, label in zip(rows, labels):
        try:
            sessions.append(explainer.session(row, k, where=f"row {label}"))
        except Exception as exc:  # one person's bad row must not lose the others' answers
            sessions.append(Recourse.failed(row, exc, explainer.run_record(k)))
    while asking := [s for s in sessions if isinstance(s, Session) and s.questions is not None]:
        try:
            pooled = explainer.refuses_rows(ChangedRows.joined([s.questions for s in asking]))  # type: ignore[misc]
        except Exception:
            pooled = None
        start = 0
        for s in asking:
            n = len(s.questions)  # type: ignore[arg-type]
            try:
                s.answer(pooled[start : start + n] if pooled is not None else explainer.refuses_rows(s.questions))  # type: ignore[arg-type]
            except Exception as exc:
                s.fail(exc)
            start += n
    return [s.result if isinstance(s, Session) else s for s in sessions]  # type: ignore[misc]


class _Collector:
    """Python's cyclic garbage collector, held off while chunks run and back as it was once the
    last of them (a process's threads may each run one) has ended: the searches make millions of
    short-lived objects, almost none of them in cycles, and the collector's scans of them took
    about a tenth of an MLP portfolio's time (3,000 adults: 5.5 s of 79, in 9,743 collections;
    without, the same peak memory).  Reference counting frees the rest as before.  Not held for
    one answer searched alone: a service's requests may overlap without end."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running = 0
        self._was_enabled = False

    @contextmanager
    def held_off(self) -> Iterator[None]:
        with self._lock:
            if self._running == 0:
                self._was_enabled = gc.isenabled()
                gc.disable()
            self._running += 1
        try:
            yield
        finally:
            with self._lock:
                self._running -= 1
                if self._running == 0 and self._was_enabled:
                    gc.enable()


COLLECTOR = _Collector()


def usable_cores() -> int:
    """The cores this process may run on (joblib counts CPU affinity and container limits):
    what ``n_jobs=-1`` means, and the most processes that do not just wait for each other."""
    from joblib import cpu_count

    return cpu_count()


def explain_rows(explainer: Explains, rows: pd.DataFrame, k: int, *, n_jobs: int = 1, progress: bool = False) -> Iterator[tuple[Any, Recourse]]:
    """(index, answer) for each row of ``rows``, in order, as soon as each is ready; ``n_jobs``
    beyond :func:`usable_cores` runs that many processes, no more."""
    if not isinstance(rows, pd.DataFrame):
        raise InputError(f"the rows to explain are a DataFrame, not {type(rows).__name__}; explain one person's row with explain")
    index = list(rows.index)
    records = [dict(r.items()) for _, r in rows.iterrows()]
    processes = 1 if n_jobs == 1 else min(n_jobs if n_jobs > 0 else usable_cores(), usable_cores())
    parts = [([r for r, _ in part], [i for _, i in part]) for part in chunks(list(zip(records, index)), processes)]
    if processes == 1 or len(parts) <= 1:
        results: Iterator[list[Recourse]] = (explain_chunk(explainer, c, k, labels) for c, labels in parts)
    else:
        from joblib import Parallel, delayed

        parent = os.getpid()
        results = Parallel(n_jobs=processes, return_as="generator")(delayed(_in_worker)(parent, explainer, c, k, labels) for c, labels in parts)
    with PeopleBar(len(records), progress) as advance:
        position = 0
        for answers in results:
            for answer in answers:
                yield index[position], answer
                position += 1
            advance(len(answers))


def _in_worker(parent: int, explainer: Explains, rows: list[dict[str, Any]], k: int, labels: list[Any]) -> list[Recourse]:
    """:func:`explain_chunk` in a worker process, which ends with ``parent``."""
    end_with_parent(parent)
    return explain_chunk(explainer, rows, k, labels)


_WATCHED: set[int] = set()


def end_with_parent(parent: int) -> None:
    """End this process soon after ``parent``, the process that started it, has ended (killed,
    say): the answers it computes would go nowhere.  A process that ``parent`` did not start is
    left alone.  A thread checks once a second whether this process was handed to a new parent."""
    if os.getppid() != parent or parent in _WATCHED:
        return
    _WATCHED.add(parent)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, name="mc3g-end-with-parent", daemon=True).start()


def chunks(items: list[Any], processes: int) -> list[list[Any]]:
    """``items`` in runs of at most ``CHUNK``; fewer than ``processes`` runs of ``CHUNK`` are
    split evenly among the processes, so a small batch is shared too."""
    size = max(1, min(CHUNK, -(-len(items) // processes)))
    return [items[i : i + size] for i in range(0, len(items), size)]


class PeopleBar:
    """A progress bar (rich, imported only when one is shown) that counts people and their rate,
    on standard error when it is a terminal: standard output may be where the answers go.
    ``done`` people are counted as finished from the start, and not in the rate."""

    def __init__(self, total: int, shown: bool, done: int = 0) -> None:
        self.total, self.shown, self.done = total, shown, done

    def __enter__(self) -> Callable[[int], None]:
        if not self.shown:
            return lambda n: None
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeRemainingColumn
        from rich.text import Text

        class Rate(ProgressColumn):
            def render(self, task: Any) -> Text:
                return Text(f"{task.speed or 0:,.1f} people/s")

        columns = (TextColumn("explaining"), BarColumn(), MofNCompleteColumn(), Rate(), TimeRemainingColumn())
        console = Console(stderr=True)
        self._bar = Progress(*columns, console=console, transient=True, disable=not console.is_terminal)
        self._bar.__enter__()
        task = self._bar.add_task("explaining", total=self.total, completed=self.done)
        return lambda n: self._bar.update(task, advance=n)

    def __exit__(self, *exc: object) -> None:
        if self.shown:
            self._bar.__exit__(*exc)
