"""Rows drawn around a person kept as codes (``mc3g.hunt.local.Drawn``, issue 51): asked of the
model, remembered and read back exactly as the same rows asked as keys would be, with what the
options known leave out of them, and found again among them by their changes."""

from __future__ import annotations

import numpy as np
from conftest import tiered
from hypothesis import strategies as st

from mc3g.hunt import Verdicts
from mc3g.hunt.local import BLOCK, Drawn, Moves, drawn_codes

PERSON = {"a": 0, "b": 0, "c": "x", "d": 0.0}
POOLS = {"a": [1, 2, 3], "b": [1, 2], "c": ["y", "z"], "d": [0.5, 1.5, 2.5, 3.5]}


def _drawn(seed: int, n: int, pools=POOLS) -> Drawn:
    rng = np.random.default_rng(seed)
    moves = Moves(pools)
    codes = np.stack([rng.integers(0, len(pool) + 1, size=n) * (rng.random(n) < 0.6) for pool in moves.pools], axis=1)
    return Drawn(codes, moves)


def _apart_by_pairs(changes: tuple, sets: list[frozenset[str]], must: list[str]) -> tuple:
    """The rule, row by row: each set a row holds in turn, its changes left out but those that must change."""
    names, kept = {name for name, _ in changes}, set(must)
    while held := [s for s in sets if s <= names and not s <= kept]:
        names -= held[0] - kept
    return tuple(pair for pair in changes if pair[0] in names)


@tiered(20, 200, st.integers(0, 10_000), st.lists(st.sets(st.sampled_from("abcde"), min_size=1, max_size=3), max_size=3), st.sampled_from([[], ["a"]]))
def test_a_draw_kept_as_codes_leaves_out_what_the_options_known_hold_as_its_rows_would(seed, sets, must) -> None:
    drawn, apart = _drawn(seed, 80), [frozenset(s) for s in sets]
    expected = list(dict.fromkeys(_apart_by_pairs(row, apart, must) for row in drawn))
    assert list(drawn.apart(apart, must)) == expected


def test_rows_are_found_among_the_codes_by_their_changes_however_many_integers_a_row_packs_into() -> None:
    small = _drawn(1, 50)
    wide_pools = {name: list(range(1, 2001)) for name in "pqrstuv"}  # 2,001 ** 7 > 2 ** 62: two integers a row
    wide = _drawn(2, 50, wide_pools)
    assert small.choices.packed(small.codes).shape[1] == 1 and wide.choices.packed(wide.codes).shape[1] == 2
    for drawn in (small, wide):
        rows = list(drawn)
        first = {row: rows.index(row) for row in rows}
        strangers = [(("a", 9),), (("p", 0),), (("zz", 1),)]  # a value no pool holds, a feature no draw changes
        assert drawn.index_of([*first, *strangers]).tolist() == [*first.values(), -1, -1, -1]


def _away(rows):
    return (yield rows)


def _accepts(row: dict) -> bool:
    return row["a"] + 2 * row["b"] + (row["c"] == "z") + row["d"] >= 4


def _driven(steps, asked: list) -> object:
    """What a generator of :class:`Verdicts` returns, each call judged by :func:`_accepts` and
    its rows kept in ``asked``."""
    try:
        rows = next(steps)
        while True:
            rows = list(rows)
            asked.append([tuple(sorted(row.items())) for row in rows])
            rows = steps.send([not _accepts(row) for row in rows])
    except StopIteration as done:
        return done.value


@tiered(20, 200, st.integers(0, 10_000))
def test_a_wide_draw_asked_as_codes_leaves_the_verdicts_as_its_rows_asked_as_keys_would(seed) -> None:
    """Before the draw the person's verdicts hold rows asked (some of the draw's), rows asked
    ahead and held back (some of them the search's, never released); the draw goes with rows
    held back and rows riding along.  Every call, verdict, count and row read back is the same
    whether the draw's rows were keys or codes, and so is a later question about rows of both."""
    rng = np.random.default_rng(seed)
    drawn = _drawn(seed, 120)
    rows = list(drawn)
    pick = lambda n: [rows[i] for i in rng.integers(len(rows), size=n)]  # noqa: E731
    others = [(("a", 7),), (("b", 5), ("c", "y")), (("d", 9.0),)]
    before, ahead, spare = [(), *pick(15), others[0]], pick(10) + [others[1]], pick(3) + [others[2], (("a", 8),)]
    along, after = pick(6) + [(("b", 6),)], pick(8) + [(("a", 1), ("b", 7))]
    said = []
    for as_codes in (False, True):
        asked: list = []
        verdicts = Verdicts(PERSON, _away)
        _driven(verdicts.ask(before, [], ahead[:5]), asked)
        _driven(verdicts.ask([], [], ahead[5:], spare=True), asked)
        if as_codes:
            _driven(verdicts.ask_drawn(drawn, spare, along=lambda: along), asked)
        else:
            _driven(verdicts.ask([], rows, spare, spare=True, along=lambda: along), asked)
        last = (verdicts.judged, verdicts.rejected, verdicts.free, verdicts.asked, verdicts.rounds, verdicts.accepted(), verdicts.judged_alone())
        universe = list(dict.fromkeys(rows + before + ahead + spare + along + after))
        known = [verdicts.verdict(key) for key in universe]
        read = sorted(verdicts.judged_rows({1, 2, 3, 4}), key=repr)
        _driven(verdicts.ask(after), asked)
        said.append((asked, last, known, read, sorted(verdicts.labelled()[0], key=repr), verdicts.release(), verdicts.accepted()))
    assert said[0] == said[1]
    assert len(said[1][0][2]) > 0 and len(said[1][0]) == 4  # the draw took a call, and the question after it one


@tiered(20, 100, st.integers(0, 2**32 - 1), st.integers(1, 700), st.integers(1, 6), st.sampled_from([[], ["b"], ["a", "d"]]))
def test_rows_are_drawn_from_the_generator_as_a_row_by_row_reading_draws_them(seed, n, most, always) -> None:
    """A draw's codes are those a row-by-row reading of the generator gives: block by block, how
    many features each row changes and a key and a pick of every feature; a row changes the
    features of its smallest keys (and those it always changes), each to its pick's place in
    the feature's pool, columns in name order."""
    pools = {"d": [0.5, 1.5, 2.5], "a": [1, 2, 3, 4], "c": ["y", "z"], "b": [1, 2]}  # not in name order
    moves, engine = Moves(pools), _Engine(most)
    codes = drawn_codes(engine, n, np.random.default_rng(seed), None, moves, always)
    rng, names, expected = np.random.default_rng(seed), list(pools), []
    for _ in range(0, n, BLOCK):
        counts, (keys, picks) = rng.integers(1, most + 1, size=BLOCK), rng.random((2, BLOCK, len(names)))
        for count, key, pick in zip(counts.tolist(), keys.tolist(), picks.tolist()):
            smallest = sorted(key)[min(count, len(names)) - 1]
            row = {name: min(int(p * len(pools[name])), len(pools[name]) - 1) + 1 for name, k, p in zip(names, key, pick) if k <= smallest or name in always}
            expected.append([row.get(name, 0) for name in sorted(names)])
    assert codes.tolist() == expected[:n]


class _Engine:
    """What a draw reads of an engine: the search settings' most features changed."""

    def __init__(self, most: int) -> None:
        self.settings = type("Settings", (), {"hunt": type("Hunt", (), {"most_changed": most})()})()
