"""Python's cyclic garbage collector held off while a chunk of people is searched (a portfolio's
partition, ``explain_each``: issue 51, out of the hot path), and left as the caller had it: on once
the last chunk running in the process has ended, off if it was off before.  One answer searched
alone (a service's, whose requests may overlap without end) leaves it alone."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

from mc3g import MC3G
from mc3g.datasets import JOHN, load
from mc3g.explain import explain_chunk
from mc3g.explain.batch import COLLECTOR
from mc3g.reference import reference


@pytest.fixture(scope="module")
def explainer() -> MC3G:
    ds = load("loan", split="default")
    ref = reference("loan")
    return MC3G(ref.rules, ref.causal(ds), schema=ds.schema).fit(ds.X_train)


@pytest.fixture
def collecting() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_a_chunk_searches_with_the_collector_off_and_leaves_it_on_one_answer_alone_leaves_it_be(explainer, collecting, monkeypatch) -> None:
    seen: list[bool] = []
    session = explainer.session
    monkeypatch.setattr(explainer, "session", lambda *args, **kwargs: (seen.append(gc.isenabled()), session(*args, **kwargs))[1])
    answers = explain_chunk(explainer, [JOHN, JOHN], 1, ["a", "b"])
    one = explainer.explain(JOHN)
    assert seen == [False, False, True]
    assert gc.isenabled()
    assert [a.status for a in answers] == ["refused", "refused"] and one.counterfactuals[0].values == answers[0].counterfactuals[0].values


def test_a_collector_the_caller_turned_off_stays_off(explainer, collecting) -> None:
    gc.disable()
    explain_chunk(explainer, [JOHN], 1, ["a"])
    assert not gc.isenabled()


def test_the_collector_comes_back_once_the_last_of_overlapping_chunks_ends_even_on_an_error(collecting) -> None:
    inside, leave = threading.Event(), threading.Event()

    def other() -> None:
        with COLLECTOR.held_off():
            inside.set()
            leave.wait(10)

    thread = threading.Thread(target=other)
    thread.start()
    inside.wait(10)
    with pytest.raises(RuntimeError), COLLECTOR.held_off():
        assert not gc.isenabled()
        raise RuntimeError("a search that fails")
    assert not gc.isenabled()  # the other chunk still runs
    leave.set()
    thread.join(10)
    assert gc.isenabled()
