"""What the model does around a person: samples of nearby rows, and FOLD-SE rules learned from
the model's verdicts on them.

MC3G explains a black box through FOLD-SE rules of its predictions (Dasgupta et al., NeSy 2025,
``extract_logic``).  Rules learned on the whole training data can be poor exactly where a
refused person stands; rules learned on rows around that person, labelled by the model, describe
the model there.  The samples are drawn as DiCE's random method draws its candidates (Mothilal et
al., FAccT 2020): a few features the person may change, each set to a value seen in training
within its bounds.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator, Mapping, Sequence
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from ..foldse import described
from ..models import ChangedRows, Coded
from ..rules import Column, RuleSet, Table, token
from ..search import numeric_bounds

Changes = tuple[tuple[str, Any], ...]
"""A row's changes from the person, pairs of a feature and its value in name order: its key
(with what the causal rules force) and how rows drawn around the person come."""

BLOCK = 256
"""Rows drawn at once, in whole blocks: a draw of n rows is the first n of any larger draw from the
same generator (a person's samples for local rules are the start of their last draw)."""


def rng_for(row: Mapping[str, Any], seed: int) -> np.random.Generator:
    """A generator seeded by the person's values: the same person gets the same samples, alone or
    in a batch, in any process, their numbers written as ints or floats (38 or 38.0, as JSON and
    the service give them)."""
    text = repr(sorted((str(k), token(v)) for k, v in row.items()))
    return np.random.default_rng([seed, zlib.crc32(text.encode())])


def moves(engine: Any, row: Mapping[str, Any]) -> dict[str, list[Any]]:
    """For each feature of ``engine.varied`` that may move from ``row``, the training values its
    bounds allow (numbers within range and direction, categories by the moves they may make):
    what :func:`neighbours` draws from, found once for a person who draws more than once."""
    choices: dict[str, list[Any]] = {}
    for name in engine.varied:
        feature, original = engine.schema.feature(name), row[name]
        if feature.is_numeric:
            lo, hi = numeric_bounds(feature, original)
            seen, plain = engine.observed.numbers[name], engine.plain_numbers[name]  # sorted: those within bounds are a slice
            start, at = np.searchsorted(seen, [lo, original])
            end = np.searchsorted(seen, hi, "right")
            values = plain[start:at] + plain[at + 1 : end] if start <= at < end and seen[at] == original else plain[start:end]
        else:
            values = [v for v in engine.observed.tokens[name] if v != str(original) and feature.may_move(str(original), v)]
        if values:
            choices[name] = values
    return choices


class Moves:
    """What a person's rows are drawn from (:func:`moves`), laid out once for draws of thousands
    of rows: each feature's moves as pairs of its name and a value, in one array in name order,
    so a draw picks the pairs a row's key holds instead of building them."""

    def __init__(self, choices: Mapping[str, list[Any]]) -> None:
        self.names = list(choices)  # the order the draws' arrays take the features in
        self.sizes = np.array([len(pool) for pool in choices.values()], dtype=np.int64)
        self.by_name = sorted(range(len(self.names)), key=self.names.__getitem__)
        self.named = [self.names[j] for j in self.by_name]  # the order of a draw's columns
        self.starts = np.cumsum([0, *(len(choices[name]) for name in self.named)])[:-1]  # each feature's first pair, in name order
        self.pairs = np.fromiter(((name, value) for name in self.named for value in choices[name]), dtype=object, count=int(self.sizes.sum()))
        self.pools = [self.pairs[start : start + size].tolist() for start, size in zip(self.starts, self.sizes[self.by_name])]  # by column of a draw
        self._codes: dict[tuple[str, Any], tuple[int, int]] | None = None

    def packed(self, codes: np.ndarray) -> np.ndarray:
        """Rows of ``codes`` (:func:`drawn_codes`) packed into as few integers each as hold them
        without loss: equal rows, equal integers."""
        words, word, room = [], np.zeros(len(codes), dtype=np.int64), 1
        for j, size in enumerate(self.sizes[self.by_name].tolist()):
            if room * (size + 1) >= 2**62:
                words.append(word)
                word, room = np.zeros(len(codes), dtype=np.int64), 1
            word, room = word * (size + 1) + codes[:, j], room * (size + 1)
        return np.stack([*words, word], axis=1)

    def codes_of(self, keys: Sequence[Changes]) -> tuple[np.ndarray, np.ndarray]:
        """The rows ``keys`` (pairs of a feature and a value) as codes, and which of them are
        rows a draw can hold: every pair among the moves."""
        if self._codes is None:
            self._codes = {pair: (j, c + 1) for j, pool in enumerate(self.pools) for c, pair in enumerate(pool)}
        codes, fits = np.zeros((len(keys), len(self.names)), dtype=np.int64), np.ones(len(keys), dtype=bool)
        for i, key in enumerate(keys):
            for pair in key:
                at = self._codes.get(pair)
                if at is None:
                    fits[i] = False
                    break
                codes[i, at[0]] = at[1]
        return codes, fits


def neighbours(
    engine: Any,
    row: Mapping[str, Any],
    n: int,
    rng: np.random.Generator,
    most: int | None = None,
    choices: Moves | None = None,
    always: Sequence[str] = (),
    unique: bool = False,
) -> list[Changes]:
    """``n`` changes around ``row``, each of one to ``most`` (by default the search settings'
    ``most_changed``) features set to a value of their :func:`moves` (``choices`` when given),
    and the features ``always`` too (those a person's answer must change: a row that leaves one
    can be no option).  Each is its pairs of a feature and its new value in name order, as a
    row's key holds them (:meth:`~mc3g.hunt.verdicts.Verdicts.made_key`): thousands of rows are
    keyed without a mapping built and sorted for each.  A person's are asked with what the
    causal rules force from them; refinement's teach the surrogate the model as they are.  With
    ``unique``, each row once, where it was first drawn (the generator goes on as without): a
    wide draw repeats most of its rows of few changes, and a row costs more as a tuple than drawn."""
    choices = Moves(moves(engine, row)) if choices is None else choices
    codes = drawn_codes(engine, n, rng, most, choices, always)
    return changes_of(codes[first_of_each(codes, choices)] if unique else codes, choices)


def drawn_codes(engine: Any, n: int, rng: np.random.Generator, most: int | None, choices: Moves, always: Sequence[str] = ()) -> np.ndarray:
    """The rows of :func:`neighbours` as one integer array, a column per feature in name order:
    each feature's pick + 1 where the row changes it, 0 where not."""
    width = len(choices.names)
    if not width or n <= 0:
        return np.zeros((0, width), dtype=np.int64)
    most = engine.settings.hunt.most_changed if most is None else most
    always_at = [j for j, name in enumerate(choices.names) if name in always]
    counts, draws = [], []
    for _ in range(0, n, BLOCK):
        # A whole block at once (the rows past n unused): how many features each row changes, a
        # random key of each feature per row (those of its smallest keys change), then a value
        # of each feature's pool (the keys and the values in one call: the same numbers as two
        # calls one after the other).  Drawn block by block, laid out for all rows at once.
        counts.append(rng.integers(1, most + 1, size=BLOCK))
        draws.append(rng.random((2, BLOCK, width)))
    count = np.minimum(np.concatenate(counts)[:n], width)
    key, picked = np.concatenate(draws, axis=1)[:, :n]
    # Which features each row changes (those ``always`` too), in name order: its pairs come out sorted.
    changed = key <= np.take_along_axis(np.sort(key, axis=1), count[:, None] - 1, axis=1)
    changed[:, always_at] = True
    # Each pick + 1 where the row changes the feature, worked out in place: tens of thousands of rows a wide draw.
    pick = np.multiply(picked, choices.sizes, out=picked).astype(np.int64)
    np.minimum(pick, choices.sizes - 1, out=pick)
    pick += 1
    pick *= changed
    return pick[:, choices.by_name]


def drawn_rounds(engine: Any, sizes: Sequence[int], rng: np.random.Generator, choices: Moves, always: Sequence[str] = ()) -> np.ndarray:
    """:func:`drawn_codes` for each of ``sizes`` in turn: as many rows as DiCE random draws them,
    and as many again that may change every feature, as DiCE random's rows may."""
    return np.concatenate([drawn_codes(engine, n, rng, most, choices, always) for n in sizes for most in (None, len(engine.varied))])


def changes_of(codes: np.ndarray, choices: Moves) -> list[Changes]:
    """Each row of ``codes`` (:func:`drawn_codes`) as its pairs of a feature and its new value."""
    rows, columns = np.nonzero(codes)
    pairs = choices.pairs[choices.starts[columns] + codes[rows, columns] - 1].tolist()
    ends = np.cumsum(np.count_nonzero(codes, axis=1)).tolist()
    return [tuple(pairs[a:b]) for a, b in zip([0, *ends], ends)]


def first_of_each(codes: np.ndarray, choices: Moves) -> np.ndarray:
    """The index of each distinct row of ``codes`` (:func:`drawn_codes`) where it first comes, in
    order, found by hashing the rows packed (:meth:`Moves.packed`): ``np.unique`` by rows sorts
    about twenty times slower, and sorting the packed rows three times slower than hashing them."""
    packed = choices.packed(codes)
    table = pd.Series(packed[:, 0]) if packed.shape[1] == 1 else pd.DataFrame(packed)
    return np.flatnonzero(~table.duplicated().to_numpy())


class Drawn(Coded):
    """Rows drawn around a person (:func:`drawn_codes`), kept as their codes (:class:`Coded`, the
    pools ``choices``' moves): a wide draw holds tens of thousands of rows, nearly all refused
    and never read again, and as tuples they cost more than the model's own call (issue 51)."""

    def __init__(self, codes: np.ndarray, choices: Moves, once: bool = False) -> None:
        self.codes, self.choices, self.pools = codes, choices, choices.pools
        self._once = once  # each row is known to come once
        self._changes: list[Changes] | None = None

    def __len__(self) -> int:
        return len(self.codes)

    def __getitem__(self, index: Any) -> Any:
        return self.changes()[index]

    def __iter__(self) -> Iterator[Changes]:
        return iter(self.changes())

    def changes(self) -> list[Changes]:
        """Every row as its pairs of a feature and its new value, in name order (built once)."""
        if self._changes is None:
            self._changes = changes_of(self.codes, self.choices)
        return self._changes

    def where(self, rows: np.ndarray) -> Drawn:
        """The rows ``rows`` selects (a mask), in order."""
        return Drawn(self.codes[rows], self.choices, self._once)

    def once(self) -> Drawn:
        """Each row once, where it first comes."""
        return self if self._once else Drawn(self.codes[first_of_each(self.codes, self.choices)], self.choices, True)

    def apart(self, sets: Sequence[frozenset[str]], must: Sequence[str]) -> Drawn:
        """Each row without the changes of each of ``sets`` it holds, in turn, but those of the
        features that must change (a row that leaves one can be no option), then each row
        once, where it first comes."""
        codes, column = self.codes.copy(), {name: j for j, name in enumerate(self.choices.named)}
        for s in sets:
            if s <= set(must) or not s <= column.keys():
                continue  # left whole, or never held: a feature the draws cannot change
            held = (codes[:, [column[n] for n in s]] != 0).all(axis=1)
            for name in s - set(must):
                codes[held, column[name]] = 0
        return Drawn(codes, self.choices).once()

    def index_of(self, keys: Sequence[Changes]) -> np.ndarray:
        """Each of ``keys``' row among these (its first), -1 where none is it."""
        out = np.full(len(keys), -1, dtype=np.int64)
        codes, fits = self.choices.codes_of(keys)
        if not fits.any() or not len(self.codes):
            return out
        theirs = self.choices.packed(codes[fits])
        order, ranked, first = self._sought
        if ranked is not None:
            at = np.minimum(np.searchsorted(ranked, theirs[:, 0]), len(ranked) - 1)
            found = np.where(ranked[at] == theirs[:, 0], order[at], -1)
        else:
            found = np.array([first.get(tuple(row), -1) for row in theirs.tolist()], dtype=np.int64)
        out[fits] = found
        return out

    @cached_property
    def _sought(self) -> tuple[np.ndarray, np.ndarray | None, dict[tuple[int, ...], int]]:
        """How :meth:`index_of` finds a row, made once for a draw it searches several times: where
        one integer a row packs the rows (as most draws pack), their order and those integers
        sorted; else each packed row's first place."""
        mine = self.choices.packed(self.codes)
        if mine.shape[1] == 1:
            order = np.argsort(mine[:, 0], kind="stable")
            return order, mine[order, 0], {}
        first: dict[tuple[int, ...], int] = {}
        for i, row in enumerate(map(tuple, mine.tolist())):
            first.setdefault(row, i)
        return np.zeros(0, dtype=np.int64), None, first

    def counts(self) -> np.ndarray:
        """How many features each row changes."""
        return np.count_nonzero(self.codes, axis=1)


def local_rules(engine: Any, row: Mapping[str, Any], changes: Sequence[Changes], refusals: Sequence[bool]) -> RuleSet:
    """FOLD-SE rules of the model's refusal learned from rows around the person (``changes``
    applied to ``row``) and the model's verdicts on them (no tail cut: near one person every
    exception the model makes matters).  Each of ``changes`` is pairs of a feature and its value.
    The rows are the person's values and the search's own, so they go to the learner as a table
    of the model's columns (:func:`~mc3g.foldse.described`), as :meth:`FoldSE.fit` would learn
    from their frame, without the checks of a user's data (about half a set's time through ``fit``:
    ``tools/local_rules.py``)."""
    box = engine.black_box
    names = list(box.dtypes)
    numeric = [f.name for f in engine.schema.features if f.is_numeric and f.name in box.dtypes]
    cells = ChangedRows.around(row, changes).columns(names)
    table = Table({name: Column(_cells(values, name in numeric)) for name, values in zip(names, cells)}, n_rows=len(changes))
    classes = sorted(box.labels)  # as ``FoldSE.classes_`` sorts them
    return described(table, numeric, np.asarray(refusals, dtype=bool), str(engine.unfavourable), [str(c) for c in classes], tail=0.0)


def _cells(values: list[Any], numeric: bool) -> np.ndarray:
    """A column's cells for the learner: a number's as numbers where they all are (a missing
    cell, '?', makes them objects, which the learner reads as a number's do)."""
    if numeric:
        try:
            return np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError):
            pass
    return np.asarray(values, dtype=object)
