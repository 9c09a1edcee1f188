"""Searches off the event loop, each within its request's time limit.

A search is CPU-bound (milliseconds for rules, more for a black box), so it runs in a small pool
of threads and the event loop stays free to accept and refuse requests.  The time limit covers
waiting for a thread as well as searching: when it passes, the request answers 503 at once, a
search still waiting is dropped, and a black box's search stops at its next question to the
model (a session can be abandoned between questions).  A search over plain rules asks no
questions; it is bounded by ``max_states`` and runs to its end, a few milliseconds.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from ..exceptions import MC3GError
from ..explain import MC3G, Recourse, WhatIf

T = TypeVar("T")


class TimeLimit(MC3GError):
    """A request ran out of its time limit; the service answers 503 with this message."""


class Searches:
    """The explainer's searches, at most ``threads`` at once, each within ``timeout`` seconds."""

    def __init__(self, explainer: MC3G, threads: int, timeout: float) -> None:
        self.explainer = explainer
        self.timeout = timeout
        self._pool = ThreadPoolExecutor(threads, thread_name_prefix="mc3g-search")

    async def explain(self, row: Mapping[str, Any], k: int) -> Recourse:
        return await self._run(lambda stop: self.explainer.session(row, k).run(self._judge(stop)))

    async def portfolio(self, rows: Sequence[Mapping[str, Any]], k: int) -> list[Recourse]:
        """Every applicant's answer, in turn in one search thread, within one time limit."""
        return await self._run(lambda stop: [self.explainer.session(row, k).run(self._judge(stop)) for row in rows])

    async def whatif(self, row: Mapping[str, Any], changes: Mapping[str, Any]) -> WhatIf:
        return await self._run(lambda stop: self.explainer.whatif(row, changes))

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    def _judge(self, stop: threading.Event) -> Callable[[list[dict[str, Any]]], list[bool]]:
        """The model's verdicts for a session, until the request has given up on it."""

        def judge(rows: list[dict[str, Any]]) -> list[bool]:
            if stop.is_set():
                raise TimeLimit("abandoned: the request ran out of time")
            return self.explainer.refuses_rows(rows)

        return judge

    async def _run(self, work: Callable[[threading.Event], T]) -> T:
        stop = threading.Event()
        future = asyncio.get_running_loop().run_in_executor(self._pool, work, stop)
        try:
            return await asyncio.wait_for(future, self.timeout)
        except TimeoutError:
            stop.set()
            busy = "the service is busy or this search is long; try again later, or ask for fewer options (k)"
            raise TimeLimit(f"no answer within the time limit of {self.timeout:g} s: {busy}") from None
