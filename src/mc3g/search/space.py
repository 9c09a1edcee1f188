"""Candidate values: which values the search may give each feature of a refused person.

Two candidate schemes.  ``exact`` (the default) is exact over the whole domain.  The thresholds of every rule that
mentions a numeric feature cut its range into *atoms* on which every literal keeps its truth
value, so within an atom the value nearest to the person's own is at least as good as any other
for every Lp.  One value per atom gives the true least-cost counterfactual; for K of them, the K
nearest values per atom suffice (any state using a farther value is beaten by the states using
the nearer ones).

``data`` is the MC3G authors' scheme (their published code): the escape regions of the decision
rules (the s(CASP) dual of each rule, multiplied out) fix an interval per numeric feature, which
is split below / at / above the person's value and filled with the ``data_k`` distinct training
values nearest to it; categorical features take the values seen in training.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..exceptions import InputError, UnknownNameError
from ..moves import effort
from ..params import OneOf, validate
from ..rules import Column, Literal, RuleSet, escape_boxes, token
from ..schema import Feature
from ..values import check_grid, plains
from .grid import Domain, decimal, grid_value, person_step, units
from .regions import data_numeric, forbidden_combo

if TYPE_CHECKING:
    from .past import PastApplicants

CANDIDATE_SCHEMES = ("exact", "data")


@dataclass
class FeatureValues:
    """The values one feature may take; index 0 is always the person's own value.  Each value's
    change from it is ``units[j] * unit`` spreads, exactly: a number's values are taken as the
    decimals they are written as and its spread as the float it is, so costs can be compared
    exactly however small or close they are (categories: 0 or 1 unit of 1)."""

    feature: Feature
    values: list[Any]
    units: tuple[int, ...]
    unit: Fraction
    domain: Domain | None = None  # where the candidates stand for intervals of it (:meth:`Domain.spans`)
    spans: tuple[Any, ...] | None = None  # then, the farthest value each candidate stands for

    @property
    def name(self) -> str:
        return self.feature.name

    @property
    def original(self) -> Any:
        return self.values[0]

    def position(self, value: Any) -> int | None:
        """The value's index (the first of equal values), or None where it is no candidate."""
        return self._positions.get(value)

    def index(self, value: Any) -> int:
        position = self.position(value)
        if position is None:
            raise UnknownNameError(f"{value!r} is not a candidate value of {self.name}")
        return position

    @functools.cached_property
    def _positions(self) -> dict[Any, int]:
        """Each value's index, the first where equal values repeat (38 and 38.0 are one): the
        rows accepted are priced a value at a time, in thousands."""
        positions: dict[Any, int] = {}
        for i, v in enumerate(self.values):
            positions.setdefault(v, i)
        return positions

    @classmethod
    def of(cls, feature: Feature, values: list[Any], spreads: dict[str, float]) -> FeatureValues:
        """The values (the person's own first) with their changes in exact units: a category's
        move counts its effort (1 unless the knowledge says: :func:`mc3g.moves.effort`)."""
        if not feature.is_numeric:
            efforts = [decimal(effort(feature.efforts, token(values[0]), token(v))) for v in values]
            common = math.lcm(*(x.denominator for x in efforts))
            return cls(feature, values, tuple(int(x * common) for x in efforts), Fraction(1, common))
        exact = [decimal(v) for v in values]
        common = math.lcm(*(x.denominator for x in exact))
        numerators = [x.numerator * (common // x.denominator) for x in exact]
        units = tuple(n - numerators[0] for n in numerators)
        return cls(feature, values, units, 1 / (common * Fraction(spreads.get(feature.name, 1.0))))


@dataclass
class Region:
    """A product of per-feature value lists; ``box`` is the escape condition it stands for."""

    box: tuple[Literal, ...]
    allowed: dict[str, list[int]]  # feature -> indices into FeatureValues.values


@dataclass
class CandidateSpace:
    features: list[FeatureValues]
    regions: list[Region]
    scheme: str  # the candidate scheme that built it
    n_regions: int = 0  # the authors' count of symbolic regions (data scheme)
    n_candidates: int = 0  # states in the union of the regions, before the solver's checks
    by_name: dict[str, FeatureValues] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.by_name = {f.name: f for f in self.features}

    def __getitem__(self, name: str) -> FeatureValues:
        return self.by_name[name]

    def with_values(self, wanted: dict[str, Any], spreads: dict[str, float]) -> CandidateSpace:
        """One region over every candidate value, and the ``wanted`` values among them (a
        person's own plan, whatever the scheme would have offered)."""
        features = [
            f if f.name not in wanted or wanted[f.name] in f.values else FeatureValues.of(f.feature, [*f.values, wanted[f.name]], spreads)
            for f in self.features
        ]
        region = Region((), {f.name: list(range(len(f.values))) for f in features})
        return CandidateSpace(features, [region], self.scheme, 1, math.prod(len(f.values) for f in features))


# -- grids -------------------------------------------------------------------------------------
HALF = Fraction(1, 2)


@functools.lru_cache(maxsize=1 << 12)  # the same rules' literals, person after person
def _boundaries(literals: tuple[Literal, ...], step: float) -> tuple[Fraction, ...]:
    """Positions (in grid units, at half steps) where some literal changes truth value, in order."""
    cuts: set[Fraction] = set()
    for lit in literals:
        if not lit.is_numeric:
            continue
        values = lit.value if lit.op in ("in", "not in") else (lit.value,)
        for t in values:  # type: ignore[union-attr]
            u = units(t, step)
            if lit.op in ("<=", ">"):
                cuts.add(math.floor(u) + HALF)
            elif lit.op in ("<", ">="):
                cuts.add(math.ceil(u) - HALF)
            elif u.denominator == 1:  # equality with a grid point
                cuts.update((u - HALF, u + HALF))
    return tuple(sorted(cuts))


def _atoms(lo: float, hi: float, step: float, literals: Sequence[Literal]) -> list[tuple[int, int]]:
    """Grid intervals [a, b] (in units) of [lo, hi] on which every literal is constant."""
    ka, kb = math.ceil(units(lo, step)), math.floor(units(hi, step))
    if ka > kb:
        return []
    cuts = [c for c in _boundaries(tuple(literals), step) if ka < c < kb]
    edges = [ka - HALF] + cuts + [kb + HALF]
    return [(math.ceil(left), math.floor(right)) for left, right in zip(edges, edges[1:]) if math.ceil(left) <= math.floor(right)]


def _nearest_in_atom(a: int, b: int, origin: Fraction | int, n: int) -> list[int]:
    """The ``n`` grid points of [a, b] nearest to ``origin`` (in units), nearest first."""
    if origin <= a:
        return [k for k in range(a, min(b, a + n) + 1) if k != origin][:n]
    if origin >= b:
        return [k for k in range(b, max(a, b - n) - 1, -1) if k != origin][:n]
    below, above = math.floor(origin), math.ceil(origin)
    out: list[int] = []
    while len(out) < n and (below >= a or above <= b):
        d_below = origin - below if below >= a else math.inf
        d_above = above - origin if above <= b else math.inf
        if d_below <= d_above:
            if below != origin:
                out.append(below)
            below -= 1
        else:
            if above != origin:
                out.append(above)
            above += 1
    return out


# -- the space ---------------------------------------------------------------------------------
@dataclass
class SpaceSettings:
    """How candidate values are chosen.  ``scheme``: the candidate scheme (``exact`` or
    ``data``).  ``per_atom``: values per atom (``exact``; the K of a top-K search).
    ``plausible``: only training values.  ``data_k``: training values per side of the person's
    own (``data``).  ``observed``: training values too, beside the grid (for a black box, whose
    own thresholds sit between observed values, not at the rules').  ``extra``: more values of a
    numeric feature (``exact``; a black box's boundaries found on the model), kept only where
    the feature's bounds allow them.  ``spans``: numbers whose candidates stand for the values
    after them (a model's score linear in them: :meth:`Domain.spans`), with values one, two, four
    ... steps from the person's own among them (:meth:`Domain.doubling`)."""

    scheme: str = "exact"
    per_atom: int = 1
    plausible: bool = False
    data_k: int = 20
    observed: bool = False
    extra: Mapping[str, Sequence[Any]] = field(default_factory=dict)
    spans: frozenset[str] = frozenset()


def numeric_bounds(feature: Feature, original: float, unbounded: bool = False) -> tuple[float, float]:
    """Where a counterfactual may put a numeric feature: its range (without one, the person's
    value, or anywhere when ``unbounded``) within its valid values, cut by its direction and by
    how far one person may move it."""
    lo, hi = feature.range if feature.range is not None else (-math.inf, math.inf) if unbounded else (original, original)
    if feature.valid is not None:
        lo, hi = max(lo, feature.valid[0]), min(hi, feature.valid[1])
    if feature.direction == "increase":
        lo = max(lo, original)
    elif feature.direction == "decrease":
        hi = min(hi, original)
    if feature.max_change is not None:
        lo, hi = max(lo, original - feature.max_change), min(hi, original + feature.max_change)
    return lo, hi


def _exact_numeric(feature: Feature, original: float, literals: Sequence[Literal], step: float, n: int, seen: np.ndarray | None, grid: bool) -> list[float]:
    """Per atom: the ``n`` grid values nearest the original (``grid``), and the ``n`` training
    values nearest it (when ``seen`` is given)."""
    if seen is None:
        return list(_grid_numeric(feature, original, tuple(literals), step, n, grid))
    return _nearest_values(feature, original, literals, step, n, seen, grid)


@functools.lru_cache(maxsize=1 << 12)
def _grid_numeric(feature: Feature, original: float, literals: tuple[Literal, ...], step: float, n: int, grid: bool) -> tuple[float, ...]:
    """:func:`_exact_numeric` without training values, found once for the many problems that
    price one person's rows accepted (their values come on top)."""
    return tuple(_nearest_values(feature, original, literals, step, n, None, grid))


def _nearest_values(feature: Feature, original: float, literals: Sequence[Literal], step: float, n: int, seen: np.ndarray | None, grid: bool) -> list[float]:
    lo, hi = numeric_bounds(feature, original)
    check_grid(feature.name, step, max(abs(lo), abs(hi)))
    out: list[Any] = []
    origin = units(original, step)
    origin = origin.numerator if origin.denominator == 1 else origin  # whole: compared as an int, many times cheaper
    for a, b in _atoms(lo, hi, step, literals):
        if grid:
            out.extend(grid_value(k, step) for k in _nearest_in_atom(a, b, origin, n))
        if seen is not None:
            inside = seen[(seen >= grid_value(a, step)) & (seen <= grid_value(b, step)) & (seen != original)]
            order = np.lexsort((inside, np.abs(inside - original)))
            out.extend(plains(inside[order][:n]))
    return out


def _within(seen: np.ndarray | None, lo: float, hi: float) -> np.ndarray:
    return np.zeros(0) if seen is None else seen[(seen >= lo) & (seen <= hi)]


def _spanned(values: FeatureValues, domain: Domain | None) -> FeatureValues:
    """The values with what each stands for in ``domain`` (unchanged without one)."""
    return values if domain is None else replace(values, domain=domain, spans=domain.spans(values.values))


def allows(feature: Feature, original: Any, value: Any) -> bool:
    """Whether advice may put ``feature`` at ``value`` from the person's ``original`` (the
    person's own value always)."""
    if value == original:
        return True
    if feature.immutable:
        return False
    if feature.is_numeric:
        lo, hi = numeric_bounds(feature, original)
        return bool(lo <= value <= hi)
    return (feature.domain is None or value in feature.domain) and feature.may_move(token(original), value)


def _categorical_values(feature: Feature, original: str, seen: Sequence[str] | None) -> list[str]:
    if feature.immutable:
        return [original]
    domain = set(feature.domain) if feature.domain is not None else set(seen or [])
    if seen is not None:
        domain &= set(seen)
    before = token(original)
    return [original] + [v for v in sorted(domain) if v != original and feature.may_move(before, v)]


@dataclass(frozen=True)
class Observed:
    """The distinct training values of each feature: sorted numbers, or sorted tokens; and a
    sample of the training rows, to say how unlike them a state is (``past``: None in an
    explainer saved before it was kept)."""

    numbers: dict[str, np.ndarray]
    tokens: dict[str, list[str]]
    past: PastApplicants | None = None  # set by the engine, with the search's spreads

    @classmethod
    def of(cls, train: pd.DataFrame, features: Sequence[Feature]) -> Observed:
        present = [f for f in features if f.name in train.columns]
        return cls(
            {f.name: np.unique(pd.to_numeric(train[f.name], errors="coerce").dropna().to_numpy(np.float64)) for f in present if f.is_numeric},
            {f.name: list(Column.from_values(train[f.name]).categories) for f in present if not f.is_numeric},
        )


def build_space(
    features: Sequence[Feature],
    instance: dict[str, Any],
    literals: dict[str, list[Literal]],
    observed: Observed,
    spreads: dict[str, float],
    settings: SpaceSettings,
    decision: RuleSet | None = None,
    forbidden: Sequence[tuple[Literal, ...]] = (),
) -> CandidateSpace:
    """Candidate values for the features in play, and the regions they combine in."""
    validate({"scheme": settings.scheme}, {"scheme": [OneOf(CANDIDATE_SCHEMES)]})
    per_atom = max(settings.per_atom, 1)
    seen_numbers, seen_tokens = observed.numbers, observed.tokens

    if settings.scheme == "exact":
        value_lists: dict[str, list[Any]] = {}
        domains: dict[str, Domain] = {}
        for f in features:
            original = instance[f.name]
            if f.immutable:
                value_lists[f.name] = [original]
            elif f.is_numeric:
                step = person_step(f.step, seen_numbers.get(f.name), original)
                seen = seen_numbers.get(f.name) if settings.plausible or settings.observed else None
                values = _exact_numeric(f, original, literals.get(f.name, []), step, per_atom, seen, not settings.plausible)
                lo, hi = numeric_bounds(f, original)
                values += [v for v in settings.extra.get(f.name, ()) if lo <= v <= hi]
                if f.name in settings.spans:
                    domains[f.name] = domain = Domain(step, lo, hi, _within(seen_numbers.get(f.name), lo, hi) if settings.plausible else None)
                    values += domain.doubling(original)
                value_lists[f.name] = [original] + [v for v in dict.fromkeys(values) if v != original]
            else:
                value_lists[f.name] = _categorical_values(f, original, seen_tokens.get(f.name) if settings.plausible else None)
        fvs = [_spanned(FeatureValues.of(f, value_lists[f.name], spreads), domains.get(f.name)) for f in features]
        region = Region((), {f.name: list(range(len(f.values))) for f in fvs})
        total = math.prod(len(f.values) for f in fvs)
        return CandidateSpace(fvs, [region], "exact", 1, total)

    return _data_space(features, instance, spreads, settings, decision, forbidden, seen_numbers, seen_tokens)


# -- the authors' data scheme ------------------------------------------------------------------
def _data_space(features, instance, spreads, settings, decision, forbidden, seen_numbers, seen_tokens) -> CandidateSpace:
    if decision is None:
        raise InputError("the 'data' candidate scheme needs the decision rules")
    boxes = escape_boxes(decision.rules)
    per_box: list[dict[str, list[Any]]] = []
    n_regions = n_candidates = 0
    categorical = [f for f in features if not f.is_numeric]
    cat_forbidden = [c for c in forbidden if all(lit.feature in {f.name for f in categorical} for lit in c)]
    for box in boxes:
        lists: dict[str, list[Any]] = {}
        pieces: dict[str, int] = {}
        for f in features:
            original = instance[f.name]
            on_f = [lit for lit in box if lit.feature == f.name]
            if f.immutable:
                lists[f.name] = [original] if all(lit.holds(original) for lit in on_f) else []
                pieces[f.name] = len(lists[f.name])
            elif f.is_numeric:
                lo, hi = numeric_bounds(f, original, unbounded=True)
                lists[f.name], pieces[f.name] = data_numeric(original, on_f, seen_numbers[f.name], settings.data_k, lo, hi)
            else:
                values = _categorical_values(f, original, seen_tokens.get(f.name))
                lists[f.name] = [v for v in values if all(lit.holds(v) for lit in on_f)]
        if any(not v for v in lists.values()):
            continue
        tuples = [
            combo
            for combo in itertools.product(*(lists[f.name] for f in categorical))
            if not forbidden_combo(dict(zip((f.name for f in categorical), combo)), cat_forbidden)
        ]
        numeric = [f for f in features if f.is_numeric]
        n_regions += len(tuples) * math.prod(pieces[f.name] for f in numeric)
        n_candidates += len(tuples) * math.prod(len(lists[f.name]) for f in numeric)
        if tuples:
            per_box.append({"__box__": box, **lists})  # type: ignore[dict-item]
    union: dict[str, list[Any]] = {}
    for f in features:
        merged = [instance[f.name]]
        for lists in per_box:
            merged.extend(v for v in lists[f.name] if v not in merged)
        union[f.name] = merged
    fvs = [FeatureValues.of(f, union[f.name], spreads) for f in features]
    index = {f.name: {v: i for i, v in enumerate(f.values)} for f in fvs}
    regions = [
        Region(tuple(lists["__box__"]), {f.name: [index[f.name][v] for v in lists[f.name]] for f in fvs})  # type: ignore[arg-type]
        for lists in per_box
    ]
    return CandidateSpace(fvs, regions, "data", n_regions, n_candidates)
