"""The rows a black box accepted for one person, priced under the causal knowledge, and the K
options among them and the states a search found.

Every row the model accepts is a possible answer, whatever led to it (a single change scanned, a
point sectioned, a row drawn around the person): it is priced with every feature the person may
change in play and no decision rule (:meth:`Engine.open`), so the answer can take it over a
dearer state the rules led to.
"""

from __future__ import annotations

import math
import operator
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from fractions import Fraction
from itertools import islice
from typing import Any, NamedTuple

import numpy as np

from ..engine import Engine
from ..exceptions import UnknownNameError
from ..search import ActionSets, Assessment, Problem, change_size
from .verdicts import Row, Verdicts
from .verified import EPSILON

# Exact cost (:attr:`Assessment.order`), source (0: found, 1: accepted), state, problem, assessment.
Pool = list[tuple[tuple[float, Fraction], int, tuple[int, ...], Problem, Assessment]]


class Choice(NamedTuple):
    """The K options :meth:`Accepted.options` chose (a problem and a state each), the problems
    that priced the rows accepted, and the options passed over as unlike every past applicant."""

    chosen: list[tuple[Problem, Assessment]]
    outside: tuple[Problem, ...]
    unlike: int


class Accepted:
    """The rows ``verdicts`` holds accepted for the person ``row``, priced once each."""

    def __init__(self, engine: Engine, row: Row, k: int, verdicts: Verdicts, person: Row | None = None) -> None:
        self.engine, self.row, self.k, self.verdicts = engine, row, k, verdicts
        self.person = row if person is None else person  # as past applicants are compared with (:meth:`_unlike`)
        self._past = engine.observed.past if engine.settings.profile.typical else None
        self._far: dict[tuple, bool] = {}  # by row: :meth:`_unlike`
        self.distinct = engine.settings.distinct
        self.tuning = engine.settings.hunt
        self._open: Engine | None = None
        self._must: frozenset[str] = frozenset()  # the features in play that must change (:meth:`_price`)
        self._priced: dict[tuple, tuple[Problem, Assessment] | None] = {}  # by their changes
        self._terms = _Terms(self._term)  # by change (a feature and its value)
        self._seen: list[tuple] = []  # the rows accepted (keys), in the order the search saw them
        self._seen_at: dict[tuple, int] = {}  # where the search saw each of them
        self._rough = np.empty(0)  # by where the search saw them: each row's L1 (:meth:`_placed`)
        self._set = np.empty(0, dtype=np.intp)  # and the set of features its fewest changes make (:meth:`Verdicts.fewest`), numbered
        self._set_numbers: dict[tuple[str, ...], int] = {}
        self._fewer = 0  # the rows found reached by fewer changes that :meth:`_ranked` has taken
        self._ranking: tuple[int | None, list[int]] | None = None  # :meth:`_ranked`'s last ``most`` and ranking, until more rows are seen
        self._keys: dict[tuple[int, tuple], tuple[Problem, tuple]] = {}  # by problem and state: :meth:`_key_of`

    def priced(self, kept: int, typical: bool = False) -> list[tuple[Problem, Assessment]]:
        """The rows the model accepted that the knowledge allows, priced: the ``kept`` cheapest
        by their L1 of the changes made (:meth:`_placed`, never below the price), at most
        ``per_set`` of each set of changes made, and then of direct actions (K if more, where
        options need not be distinct): one set's near-copies would crowd out the other sets,
        and only its cheapest can be options.  They are priced in that order, ``kept`` at a
        time, until enough are found: a row the knowledge forbids takes no place.  Each row is
        priced once.  With ``typical``, a row unlike every past applicant (where the profile
        leaves such options out) takes no place either, and those read are returned after the
        others, for :meth:`choose` to pass over and count."""
        most = self.tuning.per_set if self.distinct else max(self.tuning.per_set, self.k)
        free = self._unlike if typical and self._past is not None else None  # rows unlike every past applicant take no place
        accepted = self._ranked(most)
        far: list[tuple[Problem, Assessment]] = []
        chosen: list[tuple[Problem, Assessment]] = []
        sets: Counter[frozenset[str]] = Counter()  # the rows allowed so far of each set of direct actions (kept from chunk to chunk)
        while chunk := list(islice(accepted, kept)):
            self._price([key for key in chunk if key not in self._priced])
            if free is not None:
                self._measure([key for key in chunk if self._priced[key] is not None])
            for key in chunk:
                if (pa := self._priced[key]) is None:
                    continue
                if free is not None and free(key):
                    far.append(pa)
                elif len(chosen) < kept:
                    kind = frozenset(pa[1].direct)
                    sets[kind] += 1
                    if sets[kind] <= most:
                        chosen.append(pa)
            if len(chosen) == kept:
                break
        return chosen + far  # those unlike every past applicant for :meth:`choose` to pass over (and count)

    def _ranked(self, most: int | None = None) -> Iterator[tuple]:
        """The rows accepted (keys) by their L1 (:meth:`_placed`), ties in the order the search saw them;
        with ``most``, at most that many of each set of changes made (the first in that order):
        one set's near-copies would crowd out the other sets.  Each row's L1 and set are found
        once, as it is seen, and held in arrays: a ranking is a sort of them, not a walk over
        every row (tens of thousands after a wide draw), and the rows come as they are read
        (pricing reads a few chunks of them).  A row that fewer changes turn out to
        reach (a causal rule's effect asked for, then found to follow from the rest) costs less
        by them: its L1 and set are found again."""
        fewer = self.verdicts.reached_with_fewer(self._fewer)
        self._fewer += len(fewer)
        again = [(key, at) for key in fewer if (at := self._seen_at.get(key)) is not None]
        if again:
            at = [at for _, at in again]
            self._rough[at], self._set[at] = self._placed([key for key, _ in again])
        new = self.verdicts.accepted(len(self._seen))
        if new:
            start = len(self._seen)
            self._seen += new
            self._seen_at.update(zip(new, range(start, len(self._seen))))
            rough, sets = self._placed(new)
            self._rough = np.r_[self._rough, rough]
            self._set = np.r_[self._set, sets]
        if again or new or self._ranking is None or self._ranking[0] != most:  # else the last one: options are chosen many times over the same rows
            order = np.argsort(self._rough, kind="stable")
            self._ranking = most, (order if most is None else order[few_of_each_set(self._set[order], most)]).tolist()
        return map(self._seen.__getitem__, self._ranking[1])

    def _placed(self, keys: list[tuple]) -> tuple[np.ndarray, np.ndarray]:
        """Each row's L1 (numbers in spreads, categories their move's effort, weighted) by its
        changes (its key), and the number of the set of features its fewest changes make: every
        change the person makes counted, and what the causal rules force from them under the
        mode ``none`` only (elsewhere it is free: the fewest changes that reach the row,
        :meth:`Verdicts.fewest`).  Found once a row, as it is ranked, the rows ``keys``
        together: a wide draw accepts thousands, and one at a time they cost more than the
        ranking (German's held-out forest, K = 3: about 2,800 rows a person)."""
        made = self.verdicts.fewest(keys)
        counted = keys if self.engine.settings.mode == "none" else made
        rough = np.array(list(map(self._l1, counted)), dtype=np.float64)
        numbers = self._set_numbers
        sets = [numbers.setdefault(tuple(map(_name, changes)), len(numbers)) for changes in made]
        return rough, np.array(sets, dtype=np.intp)

    def _price(self, new: list[tuple]) -> None:
        """Price the rows ``new`` (by their changes) together, in a problem of their own (a state's
        price does not depend on the other candidates); None for a row the knowledge forbids."""
        if not new:
            return
        if self._open is None:
            self._open = self.engine.open()
            self._must = frozenset(n for n in self._open.features if self._open.schema.feature(n).must_change)
        self._priced.update(dict.fromkeys(new))
        new = [key for key in new if self._must.issubset(n for n, _ in key)]  # one that leaves a feature that must change is no option
        if not new:
            return
        engine = self._open
        rows = [dict(key) for key in new]
        numeric = [n for n in engine.features if engine.schema.feature(n).is_numeric]
        values = {n: sorted({c[n] for c in rows if n in c}) for n in numeric}
        problem = engine.problem(engine.instance(self.row), 1, [], values, observed=False)  # the grid's nearest points and the rows' own values
        person = _state(problem, self.row)
        states = [None if person is None else _moved(problem, person, c) for c in rows]
        priced = iter(problem.assess_many([st for st in states if st is not None]))
        for key, st in zip(new, states):
            a = next(priced) if st is not None else None
            self._priced[key] = (problem, a) if a is not None else None

    def cheaper(self, keys: Sequence[tuple], options: Sequence[Assessment]) -> list[tuple]:
        """The rows ``keys`` (unjudged) the knowledge allows that cost less than the K-th of
        ``options`` (all, while there are fewer): only they can change the answer if accepted."""
        self._price([key for key in keys if key not in self._priced])
        bound = options[-1].cost if len(options) == self.k else math.inf
        return [key for key in keys if (pa := self._priced[key]) is not None and pa[1].cost < bound - EPSILON]

    def options(self, problem: Problem | None = None, found: Sequence[Assessment] = (), typical: bool = False, kept: int | None = None) -> Choice:
        """The K options among the states ``found`` in ``problem`` and the rows accepted
        (:meth:`choose`).  Rows are priced ``kept`` at a time (:meth:`priced`; ``tuning.kept``
        unless given: ``last_kept`` after a last draw); where those give fewer than K options and
        more are left, up to ``tuning.last_kept``: the rows ranked first may all add actions to
        one option (a capital gain the model accepts with anything), or be its points sectioned,
        and crowd out the rows of another.  With ``typical`` (the answer's options, and whether
        the person has K), none unlike every past applicant where the profile leaves those out;
        without (the options the search goes on from), whatever their remoteness."""
        kept = self.tuning.kept if kept is None else kept
        rows = self.priced(kept, typical)
        chosen, unlike = self.choose(_pool(problem, found, rows), typical)
        if len(chosen) < self.k and len(rows) == kept < self.tuning.last_kept:
            rows = self.priced(self.tuning.last_kept, typical)
            chosen, unlike = self.choose(_pool(problem, found, rows), typical)
        return Choice(chosen, tuple({id(p): p for p, _ in rows}.values()), unlike)

    def _term(self, change: tuple[str, Any]) -> float:
        """What a change (a feature and its value) counts in a row's L1 (:meth:`_placed`): its weight times
        its size (:func:`~mc3g.search.change_size`: a number's distance from the person's value
        in spreads, a category's move its effort, as the price counts it; counted 1, a German
        overdrawn account raised past 200 DM, two bands, ranked its rows below others' and
        crowded a cheaper option out of the rows priced).  Kept (:class:`_Terms`): the rows
        accepted share most of their changes."""
        name, value = change
        f = self.engine.schema.feature(name)
        return f.weight * change_size(f, self.row[name], value, self.engine.spreads.get(name, 1.0))

    def choose(self, pool: Pool, typical: bool = False) -> tuple[list[tuple[Problem, Assessment]], int]:
        """The k least-cost of ``pool``, each row once, with distinct action sets under
        ``distinct`` (found states first among equals), none unlike every past applicant where
        the profile leaves those out: passed over (counted, second), they take no place (a
        German applicant's one plausible option was crowded out by three cheaper others)."""
        pool.sort(key=lambda t: t[:3])
        options, far = (ActionSets(), ActionSets()) if self.distinct else (None, None)
        chosen: dict[tuple, tuple[Problem, Assessment]] = {}
        passed: set[tuple] = set()
        for _, _, _, problem, a in pool:
            key = self._key_of(problem, a)
            if len(chosen) == self.k:
                break
            if key in chosen or (options is not None and not options.open(a)):
                continue
            if typical and self._unlike(key):
                if far is None or far.admit(a):
                    passed.add(key)
            elif options is None or options.admit(a):
                chosen[key] = (problem, a)
        return list(chosen.values()), len(passed)

    def _unlike(self, key: tuple) -> bool:
        """Whether the row ``key`` (its changes) is unlike every past applicant
        (:mod:`mc3g.search.past`: its remoteness above 1) where the profile leaves such options
        out; found once a row (:meth:`_measure`)."""
        if self._past is None:
            return False
        if key not in self._far:
            self._measure([key])
        return self._far[key]

    def _measure(self, keys: Sequence[tuple]) -> None:
        """Find, in one pass over the past applicants, whether each row of ``keys`` not measured
        yet is unlike them all."""
        new = [key for key in keys if key not in self._far]
        if new and self._past is not None:
            far = self._past.unlike(self.person, [{**self.row, **dict(key)} for key in new], base=self.row)
            self._far.update(zip(new, far.tolist()))

    def _key_of(self, problem: Problem, a: Assessment) -> tuple:
        """The row of state ``a`` as the verdicts know it, kept: the pool is chosen from often."""
        seen = self._keys.get((id(problem), a.state))
        if seen is None:  # the problem is kept beside its keys, so its id names no other meanwhile
            seen = self._keys[(id(problem), a.state)] = (problem, self.verdicts.state_key(problem, a.state))
        return seen[1]

    def rough(self, changes: Mapping[str, Any]) -> float:
        """The L1 of a row given by the values it sets (each that is not the person's)."""
        row = self.row
        return self._l1(c for c in changes.items() if c[1] != row[c[0]])

    def _l1(self, changes: Iterable[tuple[str, Any]]) -> float:
        """The sum of the changes' :meth:`_term`, in order."""
        return sum(map(self._terms.__getitem__, changes), 0.0)


class _Terms(dict[tuple[str, Any], float]):
    """Each change's term in a row's L1, found by ``term`` when first asked for."""

    def __init__(self, term: Callable[[tuple[str, Any]], float]) -> None:
        super().__init__()
        self._term = term

    def __missing__(self, change: tuple[str, Any]) -> float:
        self[change] = found = self._term(change)
        return found


_name = operator.itemgetter(0)  # a change's feature


def _pool(problem: Problem | None, found: Sequence[Assessment], rows: list[tuple[Problem, Assessment]]) -> Pool:
    """The states ``found`` in ``problem`` and the rows accepted priced, as :meth:`Accepted.choose` takes them."""
    pool: Pool = [(a.order, 0, a.state, problem, a) for a in found if problem is not None]
    return pool + [(a.order, 1, a.state, p, a) for p, a in rows]


def few_of_each_set(sets: np.ndarray, most: int) -> np.ndarray:
    """Whether each item is among the first ``most`` of its set (``sets``: each item's, numbered,
    in the items' order), as a walk over them counting each set's would keep it."""
    by_set = np.argsort(sets, kind="stable")
    ranked = sets[by_set]
    starts = np.flatnonzero(np.r_[True, ranked[1:] != ranked[:-1]])
    first = np.repeat(starts, np.diff(np.r_[starts, len(sets)]))  # where each item's set begins
    kept = np.empty(len(sets), dtype=bool)
    kept[by_set] = np.arange(len(sets)) - first < most
    return kept


def _state(problem: Problem, values: Mapping[str, Any]) -> tuple[int, ...] | None:
    """The candidate indices of ``values`` in ``problem`` (None if one is not a candidate)."""
    try:
        return tuple(problem.space[n].index(values[n]) for n in problem.names)
    except UnknownNameError:
        return None


def _moved(problem: Problem, person: tuple[int, ...], changes: Mapping[str, Any]) -> tuple[int, ...] | None:
    """The person's state ``person`` with ``changes`` made (None if one is not a candidate): only
    the changed values are looked up, as a row changes a few of many features."""
    state = list(person)
    try:
        for name, value in changes.items():
            if (at := problem.position.get(name)) is not None:
                state[at] = problem.space[name].index(value)
    except UnknownNameError:
        return None
    return tuple(state)
