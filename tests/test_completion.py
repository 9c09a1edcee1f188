"""A linear score's box completed (:mod:`mc3g.search.completion`): the K least-cost choices of a
point per number that make up the score's deficit, against every choice enumerated."""

from __future__ import annotations

import itertools

import numpy as np
from conftest import tiered
from hypothesis import event
from hypothesis import strategies as st

from mc3g.search.completion import _cheapest, _Move


@st.composite
def boxes(draw):
    """One to three numbers, each a few points on from the box's value: gains growing, costs
    never falling (convex, or the first step the dearest, or flat), and a deficit, met already
    or not."""
    moves = []
    for position in range(draw(st.integers(1, 3))):
        count = draw(st.integers(1, 6))
        gains = np.concatenate([[0.0], np.cumsum(draw(st.lists(st.integers(1, 5), min_size=count, max_size=count)))]).astype(float)
        steps = draw(st.lists(st.integers(0, 4), min_size=count, max_size=count))
        costs = np.concatenate([[0.0], np.cumsum(sorted(steps) if draw(st.booleans()) else steps)]).astype(float)
        rate = float(np.min(costs[1:] / gains[1:]))
        moves.append(_Move(position, gains, costs, rate, lambda t: t))
    moves.sort(key=lambda m: m.rate)
    return moves, float(draw(st.integers(-3, 20))), draw(st.integers(1, 4))


@tiered(100, 1500, boxes())
def test_the_k_cheapest_choices_are_those_enumeration_finds(box) -> None:
    moves, deficit, k = box
    every = sorted(
        sum(m.costs[t] for m, t in zip(moves, choice))
        for choice in itertools.product(*(range(len(m.gains)) for m in moves))
        if sum(m.gains[t] for m, t in zip(moves, choice)) >= deficit
    )
    found = _cheapest(moves, deficit, k)
    event("met already" if deficit <= 0 else f"{len(found)} of {k}")
    assert all(sum(m.gains[t] for m, t in zip(moves, choice)) >= deficit for choice in found)
    assert [sum(m.costs[t] for m, t in zip(moves, choice)) for choice in found] == every[:k]
    assert len(set(found)) == len(found)
