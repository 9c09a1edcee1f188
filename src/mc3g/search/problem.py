"""One counterfactual question: a person, the decision rules to escape, the causal knowledge.

:meth:`Problem.assess` is the reference semantics of MC3G's ``is_counterfactual`` and
``compute_weighted_Lp`` (Dasgupta et al., NeSy 2025, Algorithms 2-3) for one candidate state, in
each cost mode:

- ``none`` (C3G): every change costs.
- ``explained`` (the authors' code): a changed feature is free when a causal rule for it has its
  cause and its effect true in the new state.
- ``derived`` (MC3G, the default): a changed feature is free when it is *caused*: a rule for it
  has cause and effect true in the new state and both false in the person's state (the cause
  *became* true: a cause that already held causes nothing new), the feature
  lands on the point of the effect nearest to where it was, and a changed feature of the cause is
  itself a direct action or caused — a well-founded derivation, so rules cannot excuse each
  other in a circle.

A feature that may change only as a consequence must be caused (``derived``) or explained (the
other modes) when it changes.  The solver (:mod:`mc3g.search.solver`) searches for states; this
module prices the states it finds, exactly and independently.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Any

import numpy as np

from ..causal import CausalModel, CausalRule
from ..glassbox import GlassBox
from ..params import OneOf, validate
from ..rules import Column, Literal, Rule
from .distance import Distance
from .score import Score
from .space import CandidateSpace

COST_MODES = ("derived", "explained", "none")

State = tuple[int, ...]  # one candidate index per feature in play, in space order


@dataclass(frozen=True)
class Assessment:
    """A priced counterfactual state: which changes are direct actions and which are caused."""

    state: State
    cost: float
    terms: dict[str, float]  # the norm's term of each change that costs
    direct: tuple[str, ...]
    caused: dict[str, CausalRule]
    total: int  # the sum of the terms, exactly (before any root), as an integer over denominator
    denominator: int  # the problem's: states of one problem compare by their totals

    @cached_property
    def exact(self) -> Fraction:
        """The sum of the terms, exactly: what orders states, of one problem or of several
        priced with the same spreads, weights and norm (one explainer's)."""
        return Fraction(self.total, self.denominator)

    @cached_property
    def order(self) -> tuple[float, Fraction]:
        """Sorts as :attr:`exact`, fractions compared only where floats tie (rounding keeps order)."""
        return float(self.exact), self.exact


@dataclass(frozen=True)
class Consequences:
    """What the causal rules force once a person makes some changes: ``force(changes)`` gives the
    changes with what they force (:meth:`Problem.consequences`); a change of none of ``forcing``
    forces nothing, so most rows need no look."""

    force: Callable[[dict[str, Any]], dict[str, Any]]
    forcing: frozenset[str]

    def __call__(self, changes: dict[str, Any]) -> dict[str, Any]:
        return changes if self.forcing.isdisjoint(changes) else self.force(changes)


@dataclass
class Problem:
    space: CandidateSpace
    decision: Sequence[Rule]
    causal: CausalModel
    mode: str = "derived"
    distance: Distance = field(default_factory=Distance)
    model: GlassBox | None = None  # a model read exactly: a counterfactual must be a state it accepts
    _truth: dict[Literal, np.ndarray] = field(default_factory=dict, init=False, repr=False)
    _columns: dict[str, Column] = field(default_factory=dict, init=False, repr=False)
    _cells: dict[tuple[Literal, Any], bool] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        validate({"mode": self.mode}, {"mode": [OneOf(COST_MODES)]})
        self.names = [f.name for f in self.space.features]
        self.position = {n: i for i, n in enumerate(self.names)}
        self._value_lists = [f.values for f in self.space.features]
        self.denominator, self.numerators = self._exact_terms()
        self.costs = {n: [t / self.denominator for t in ts] for n, ts in self.numerators.items()}
        self.rules = [r for r in self.causal.rules if r.effect.feature in self.position]
        self.nearest = [self._nearest(r) for r in self.rules]
        self.cause_before = [all(self.truth(c)[0] for c in r.cause) for r in self.rules]  # the cause held in the person's state
        self._forcing = [(rule, j) for k, rule in enumerate(self.rules) if (j := self._forced_landing(k)) is not None]
        # Worked out once for pricing: the rules that may cause each feature (neither their cause nor their
        # effect held for the person), the features a person may set, constraints, features that must change.
        self._may_cause: dict[str, list[int]] = {}
        for k, rule in enumerate(self.rules):
            if not (self.truth(rule.effect)[0] or self.cause_before[k]):
                self._may_cause.setdefault(rule.effect.feature, []).append(k)
        self.actionable = frozenset(f.name for f in self.space.features if not (f.feature.consequence_only or f.feature.immutable))
        self._forbidden = [Rule(None, tuple(combo)) for combo in self.causal.forbidden if self.in_play(combo)]
        self._must_change = [self.position[f.name] for f in self.space.features if f.feature.must_change]

    @cached_property
    def score(self) -> Score | None:
        """The model read exactly over the candidates (None without one), made when first read: a
        problem of what would open a way out, solved in a program shared, never reads it."""
        return None if self.model is None else Score.of(self.model, self.space)

    def _exact_terms(self) -> tuple[int, dict[str, list[int]]]:
        """Each candidate value's term as an integer over one common denominator: exact costs
        that sum and compare as integers."""
        factors = [self.distance.factor(f.unit, f.feature.weight) for f in self.space.features]
        common = math.lcm(*(x.denominator for x in factors))
        per_unit = [x.numerator * (common // x.denominator) for x in factors]
        size = self.distance.size
        return common, {f.name: [size(u) * c for u in f.units] for f, c in zip(self.space.features, per_unit)}

    # -- literal truth on candidate values -----------------------------------------------------
    def truth(self, lit: Literal) -> np.ndarray:
        """Whether each candidate value of the literal's feature satisfies it."""
        hit = self._truth.get(lit)
        if hit is None:
            column = self._columns.get(lit.feature)
            if column is None:  # one column per feature: its numbers and codes are read once
                fv = self.space[lit.feature]
                values = np.array(fv.values, dtype=object)
                numbers = np.array(fv.values, dtype=np.float64) if fv.feature.is_numeric else None  # candidates of a number are numbers
                column = self._columns[lit.feature] = Column(values, numbers=numbers)
            hit = self._truth[lit] = lit.mask(column)
        return hit

    def holds(self, lit: Literal, state: State) -> bool:
        return bool(self.truth(lit)[state[self.position[lit.feature]]])

    def covers(self, rule: Rule, state: State) -> bool:
        return bool(self._covering(rule, np.array([state], dtype=np.intp))[0])

    def _covering(self, rule: Rule, grid: np.ndarray) -> np.ndarray:
        """Which states (rows of candidate indices) the rule covers."""
        hit = np.ones(len(grid), dtype=bool)
        for lit in rule.body:
            hit &= self.truth(lit)[grid[:, self.position[lit.feature]]]
        for exception in rule.exceptions:
            hit &= ~self._covering(exception, grid)
        return hit

    def _nearest(self, rule: CausalRule) -> np.ndarray:
        """Candidate values a caused change may land on: the effect's values nearest the original."""
        fv = self.space[rule.effect.feature]
        inside = self.truth(rule.effect)
        if not fv.feature.is_numeric or not inside.any():
            return inside
        far = np.abs(np.array(fv.units))  # whole numbers of units (objects past 64 bits): compared exactly
        return inside & (far == far[inside].min())

    # -- what a person's changes force ----------------------------------------------------------
    def _forced_landing(self, k: int) -> int | None:
        """Where rule ``k`` moves its feature when the person's changes make its cause true: the
        first of the effect's nearest candidates; None when the rule forces nothing (it is no
        constraint, its cause or its effect held for the person, or no candidate may be caused)."""
        rule = self.rules[k]
        if not rule.constraint or self.cause_before[k] or self.truth(rule.effect)[0]:
            return None
        landing = np.flatnonzero(self.nearest[k])
        return int(landing[0]) if len(landing) else None

    @property
    def forcing(self) -> frozenset[str]:
        """The features whose change can force another (:meth:`force`)."""
        return frozenset(f for rule, _ in self._forcing for f in rule.cause_features)

    def force(self, values: dict[str, Any], chosen: Collection[str]) -> dict[str, CausalRule]:
        """What the causal rules force once the person sets the features ``chosen`` to their
        ``values`` (a value of every feature in play, updated in place).  Each causal rule that is a
        constraint and whose cause the changes make true forces its effect where it does not hold:
        the feature lands on the effect's candidate nearest the person's value (the first in
        candidate order when two are equally near, as ties are broken in the search), and may
        force further effects in turn.  A ``cause`` rule only allows its effect; a feature chosen
        stays as chosen.  Returns the forced features and their rules."""
        forced: dict[str, CausalRule] = {}
        progress = True
        while progress:
            progress = False
            for rule, landing in self._forcing:
                name = rule.effect.feature
                if name in chosen or name in forced:
                    continue
                if all(self._holds_at(c, values[c.feature]) for c in rule.cause) and not self._holds_at(rule.effect, values[name]):
                    values[name] = self.space[name].values[landing]
                    forced[name] = rule
                    progress = True
        return forced

    def consequences(self, instance: Mapping[str, Any]) -> Consequences | None:
        """For the person ``instance``: their changes (feature -> value) and what the causal rules
        force once they make them (:meth:`force`, as the what-if applies them), the state a model
        is to judge; None when no change of theirs can force anything."""
        if not (forcing := self.forcing):
            return None
        # What is forced depends only on the changes to the forcing rules' features (and on which
        # of their effects the person sets): kept by those, as most rows share them.
        involved = list(dict.fromkeys(f for rule, _ in self._forcing for f in (*(c.feature for c in rule.cause), rule.effect.feature)))
        known: dict[tuple, dict[str, Any]] = {}

        def forced(changes: dict[str, Any]) -> dict[str, Any]:
            key = tuple((name, changes[name]) for name in involved if name in changes)
            extra = known.get(key)
            if extra is None:
                values = {**instance, **changes}
                extra = known[key] = {name: values[name] for name in self.force(values, changes)}
            return {**changes, **extra}

        return Consequences(forced, forcing)

    def chosen(self, found: Assessment) -> dict[str, Any]:
        """A state's values but the changes a rule forces there (:meth:`force` makes them again
        from the others): what the person sets, to be judged elsewhere with what it forces."""
        forcing = {rule for rule, _ in self._forcing}
        return {n: v for n, v in self.describe(found.state).items() if found.caused.get(n) not in forcing}

    def _holds_at(self, lit: Literal, value: Any) -> bool:
        """Whether ``value`` (a candidate or not) satisfies ``lit``, computed once."""
        key = (lit, value)
        if key not in self._cells:
            self._cells[key] = lit.holds(value)
        return self._cells[key]

    # -- the semantics ---------------------------------------------------------------------------
    def assess(self, state: State) -> Assessment | None:
        """The state's cost and the split into direct and caused changes; None if it is not a
        counterfactual (a decision rule still covers it, a constraint or a feature's metadata is
        violated, or a change has no justification it needs)."""
        return self.assess_many([state])[0]

    def assess_many(self, states: Sequence[State], model_checked: bool = False) -> list[Assessment | None]:
        """:meth:`assess` for many states: the checks that need no search (decision rules,
        constraints, features that must change, the model read exactly unless ``model_checked``)
        run on all of them at once."""
        grid = np.array(states, dtype=np.intp).reshape(len(states), len(self.names))
        ok = np.ones(len(grid), dtype=bool)
        for rule in self.decision:
            ok &= ~self._covering(rule, grid)
        ok &= ~self.forbids(grid)
        for position in self._must_change:
            ok &= grid[:, position] != 0
        if not model_checked and self.model is not None and len(grid):  # the score read only where it is asked for
            ok &= ~self.model_refuses(states)
        return [self.price(tuple(state)) if good else None for state, good in zip(states, ok.tolist())]

    def forbids(self, grid: np.ndarray, among: Collection[int] | None = None) -> np.ndarray:
        """Which states (rows of candidate indices) a constraint of the knowledge forbids (only
        the constraints on features at positions ``among``, where given)."""
        hit = np.zeros(len(grid), dtype=bool)
        for combo in self._forbidden:
            if among is None or all(self.position[lit.feature] in among for lit in combo.body):
                hit |= self._covering(combo, grid)
        return hit

    @cached_property
    def tied(self) -> list[list[int]]:
        """The features' positions in groups no constraint of the knowledge crosses (each
        constraint's features in one group, most features alone): a state is forbidden only by
        what it holds within a group, so each group's values can be chosen apart."""
        groups = [{p} for p in range(len(self.names))]
        for combo in self._forbidden:
            joined = [g for g in groups if any(self.position[lit.feature] in g for lit in combo.body)]
            groups = [g for g in groups if g not in joined] + [set().union(*joined)]
        return [sorted(g) for g in groups]

    def model_refuses(self, states: Sequence[State]) -> np.ndarray:
        """Which states the model read exactly refuses (none without one): the solver's bound on
        it is rounded up, so a few it lets through are refused here.  Where a candidate stands
        for an interval (a linear score), a state is refused when none of its box may be
        accepted (:meth:`Score.possible`)."""
        if self.score is None or not len(states):
            return np.zeros(len(states), dtype=bool)
        return ~self.score.possible(np.array(states, dtype=np.intp).reshape(len(states), len(self.names)))

    def price(self, state: State) -> Assessment | None:
        """The cheapest justification of the state's changes under the mode (which are direct
        actions, which are caused) and its cost, whether or not the state escapes the decision or
        keeps the constraints; None when a change lacks the justification it needs (a feature
        that may change only as a consequence, changed without a cause)."""
        changed = [n for n, j in zip(self.names, state) if j]
        if self.mode == "derived":
            return self._assess_derived(state, changed)
        explained = {n: r for n in changed if (r := self._explaining_rule(n, state)) is not None}
        for n in changed:
            if self.space[n].feature.consequence_only and n not in explained:
                return None
        if self.mode == "none":
            # C3G: the rules constrain the change but every change costs; a feature the person
            # cannot set still follows from its rule, and is reported as such.
            follows = {n: r for n, r in explained.items() if self.space[n].feature.consequence_only}
            return self._priced(state, [n for n in changed if n not in follows], follows, counted=changed)
        return self._priced(state, [n for n in changed if n not in explained], explained)

    def in_play(self, combo: Sequence[Literal]) -> bool:
        return all(lit.feature in self.position for lit in combo)

    def _explaining_rule(self, name: str, state: State) -> CausalRule | None:
        for rule in self.rules:
            if rule.effect.feature == name and self.holds(rule.effect, state) and all(self.holds(c, state) for c in rule.cause):
                return rule
        return None

    def _causable(self, name: str, state: State, changed: set[str]) -> list[int]:
        """Rules that could cause this change (all but the cause's grounding hold)."""
        out = []
        idx = state[self.position[name]]
        for k in self._may_cause.get(name, ()):
            rule = self.rules[k]
            if self.nearest[k][idx] and all(self.holds(c, state) for c in rule.cause) and any(f in changed for f in rule.cause_features):
                out.append(k)
        return out

    def _assess_derived(self, state: State, changed_list: list[str]) -> Assessment | None:
        changed = set(changed_list)
        options = {n: ks for n in changed_list if n in self._may_cause and (ks := self._causable(n, state, changed))}
        forced = [n for n in changed_list if n not in options]
        if any(n not in self.actionable for n in forced):
            return None
        if not options:  # nothing could be caused: every change is a direct action
            return self._priced(state, changed_list, {})
        optional = [n for n in options if n in self.actionable]
        best: tuple[int, list[str], dict[str, CausalRule]] | None = None
        # Try every choice of which causable changes are done directly, cheapest first; only the
        # cheapest justification is priced in full.
        for size in range(len(optional) + 1):
            for chosen in itertools.combinations(optional, size):
                direct = set(forced) | set(chosen)
                caused = self._derive(state, direct, {n: options[n] for n in options if n not in direct})
                if caused is None:
                    continue
                actions = [n for n in changed_list if n in direct]
                total = self._total(state, actions)
                if best is None or total < best[0]:
                    best = (total, actions, caused)
        return None if best is None else self._priced(state, best[1], best[2])

    def _derive(self, state: State, direct: set[str], pending: dict[str, list[int]]) -> dict[str, CausalRule] | None:
        """The least fixpoint of "caused" from the direct actions; None unless it covers every
        pending change (a change no derivation reaches would have to be a direct action)."""
        grounded = set(direct)
        caused: dict[str, CausalRule] = {}
        progress = True
        while progress:
            progress = False
            for name, ks in pending.items():
                if name in caused:
                    continue
                for k in ks:
                    if any(f in grounded for f in self.rules[k].cause_features):
                        caused[name] = self.rules[k]
                        grounded.add(name)
                        progress = True
                        break
        return caused if len(caused) == len(pending) else None

    def _priced(self, state: State, direct: list[str], caused: dict[str, CausalRule], counted: list[str] | None = None) -> Assessment:
        counted = direct if counted is None else counted
        terms = {n: self.costs[n][state[self.position[n]]] for n in counted}
        total = self._total(state, counted)
        return Assessment(state, self.distance.total(total / self.denominator), terms, tuple(direct), caused, total, self.denominator)

    def _total(self, state: State, counted: Iterable[str]) -> int:
        """The state's cost over the features ``counted``, on the totals' integer scale."""
        return sum(self.numerators[n][state[self.position[n]]] for n in counted)

    def value(self, name: str, state: State) -> Any:
        return self.space[name].values[state[self.position[name]]]

    def original_state(self) -> State:
        return tuple(0 for _ in self.names)

    def values_of(self, state: State) -> tuple[Any, ...]:
        """The state's value of each feature in play, in ``names`` order."""
        return tuple(values[j] for values, j in zip(self._value_lists, state))

    def describe(self, state: State) -> dict[str, Any]:
        return dict(zip(self.names, self.values_of(state)))

    def changes(self, state: State) -> dict[str, Any]:
        """The state's values that are not the person's (index 0 is the person's own value): a
        row as the model's verdicts remember it, without reading every feature left alone."""
        return {n: values[j] for n, values, j in zip(self.names, self._value_lists, state) if j}
