"""The fitted counterfactual engine: what every person's search shares.

:class:`MC3G` builds one at ``fit`` (or reads one from a saved document); a :class:`Session`
uses it to search for one person.  It holds the decision rules, the causal knowledge, the
features with their metadata, what the training data showed of them (values and spreads) and the
settings, and turns a person's row into a search :class:`~mc3g.search.Problem`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ..causal import CausalModel
from ..exceptions import InputError
from ..glassbox import GlassBox
from ..models import BlackBox
from ..params import Constraints, Flag, Instance, OneOf, Whole, validate
from ..profiles import Profile
from ..protections import PROTECTIONS
from ..rules import Literal, Rule, RuleSet, Table, Words, token
from ..schema import Feature, Schema
from ..search import (
    CANDIDATE_SCHEMES,
    COST_MODES,
    NORMS,
    SCALINGS,
    Consequences,
    Distance,
    Observed,
    PastApplicants,
    Problem,
    SpaceSettings,
    build_space,
    model_literals,
    spread,
)
from ..values import category, number, plains
from .tuning import DEFAULT, MEASURED, HuntSettings


@dataclass(frozen=True)
class SearchSettings:
    """How counterfactuals are priced and searched: the cost ``mode``, the ``norm`` (``root``:
    L2 with its square root), the candidate ``scheme`` (``exact`` or the authors' ``data``, with
    ``data_k`` values per region), ``scaling`` of numeric changes, ``plausible`` (training values
    only), ``max_states``, how many states the model may judge for one person, ``distinct``:
    options whose action sets truly differ rather than the K cheapest states (by default the
    ``profile``'s choice); ``random_state`` seeds what is drawn (a black box's samples); ``local``: where a
    black box's surrogate fails near a person, learn rules there (see :mod:`mc3g.hunt`); ``hunt``: how far a
    black box's search goes and how many rows it asks at once (:class:`HuntSettings`: ``MC3G``'s
    ``hunt``, its fields laid over the defaults, or the defaults priced by the model at ``fit``)."""

    mode: str = "derived"
    norm: str = "l1"
    root: bool = True
    scheme: str = "exact"
    scaling: str = "std"
    plausible: bool = False
    data_k: int = 20
    max_states: int = 2000
    distinct: bool = True
    profile: Profile = Profile.PRODUCT
    random_state: int = 0
    local: bool = True
    hunt: HuntSettings = DEFAULT

    _parameter_constraints: ClassVar[Constraints] = {
        "mode": [OneOf(COST_MODES)],
        "norm": [OneOf(NORMS)],
        "root": [Flag()],
        "candidates": [OneOf(CANDIDATE_SCHEMES)],
        "scaling": [OneOf(SCALINGS)],
        "plausible": [Flag()],
        "data_k": [Whole(1)],
        "max_states": [Whole(1)],
        "distinct": [Flag(), None],
        "profile": [OneOf(tuple(Profile))],
        "random_state": [Whole(0)],
        "local": [Flag()],
        "hunt": [None, OneOf((MEASURED,)), Instance(Mapping, "a mapping of the black-box search's settings to values (HuntSettings' fields)")],
    }
    """What each of :class:`MC3G`'s parameters behind these settings accepts, by its name there."""

    @classmethod
    def of(cls, params: Mapping[str, Any]) -> SearchSettings:
        """The settings from an :class:`MC3G`'s parameters, checked against the table (a saved
        explainer's among them: one saved before profiles ran under the paper's, one saved
        before ``local`` searched without it)."""
        params = {"profile": Profile.PAPER, "local": True} | dict(params)
        validate(params, cls._parameter_constraints)
        chosen = Profile(params["profile"])
        distinct = chosen.distinct if params["distinct"] is None else bool(params["distinct"])
        names = ("mode", "norm", "root", "candidates", "scaling", "plausible", "data_k", "max_states")
        given = params.get("hunt")
        hunt = HuntSettings.of(given) if isinstance(given, Mapping) else DEFAULT  # measured: priced once the model is known (MC3G.fit)
        return cls(*(params[n] for n in names), distinct=distinct, profile=chosen, random_state=params["random_state"], local=bool(params["local"]), hunt=hunt)

    @property
    def distance(self) -> Distance:
        return Distance(self.norm, self.root)


class Engine:
    """Decision rules (those of the ``unfavourable`` class are the ones to escape), causal
    knowledge and feature metadata, with the training data's values (``observed``) and
    ``spreads``; ``black_box`` is the model when the rules are its surrogate (of held-out
    ``fidelity``), else None; ``glass`` is that model's decision read exactly (then every search
    is against it, the rules only saying why a person is refused), or None with ``opaque``
    saying why it was not read ('' where nothing was tried)."""

    def __init__(
        self,
        rules: RuleSet,
        causal: CausalModel,
        schema: Schema,
        unfavourable: str,
        observed: Observed,
        spreads: Mapping[str, float],
        settings: SearchSettings,
        black_box: BlackBox | None = None,
        fidelity: float | None = None,
        glass: GlassBox | None = None,
        opaque: str = "",
    ) -> None:
        self.rules = rules
        self.causal = causal
        self.schema = schema
        self.unfavourable = unfavourable
        self.observed = observed
        self.spreads = dict(spreads)
        self.settings = settings
        self.black_box = black_box
        self.fidelity = fidelity
        self.glass = glass
        self.opaque = opaque
        self.decision = refusing_rules(rules, unfavourable)
        self.features = features_in_play(self.decision, causal, schema)
        if glass is not None:  # a person's values of every feature the model reads
            self.features = list(dict.fromkeys(self.features + list(glass.features)))
        self._checked = [(f.name, f) for f in schema.features]
        self._domains = {f.name: frozenset(f.domain) for f in schema.features if f.domain is not None}
        self._literals: dict[str, list[Literal]] = {}
        for lit in _all_literals(self.decision, causal):
            self._literals.setdefault(lit.feature, []).append(lit)
        self._read_literals = model_literals(glass, causal)

    @classmethod
    def from_data(
        cls,
        X: pd.DataFrame,
        rules: RuleSet,
        causal: CausalModel,
        schema: Schema,
        unfavourable: str,
        settings: SearchSettings,
        black_box: BlackBox | None = None,
        fidelity: float | None = None,
    ) -> Engine:
        """The engine with what the training rows ``X`` show of the features in play: their
        values and spreads.  For a black box, of every feature: rules learned later, near one
        person or from the model's mistakes, may read any of them."""
        in_play = features_in_play(refusing_rules(rules, unfavourable), causal, schema)
        missing = [f for f in in_play if f not in X.columns]
        if missing:
            raise InputError(f"the rules or the causal knowledge use feature(s) {missing} that the data does not have")
        if black_box is not None:
            in_play += [f.name for f in schema.features if f.name in X.columns and f.name not in in_play]
        features = [schema.feature(f) for f in in_play]
        spreads = {f.name: spread(X[f.name], settings.scaling) for f in features if f.is_numeric}
        observed = replace(Observed.of(X, features), past=PastApplicants.of(X, features, spreads))
        return cls(rules, causal, schema, unfavourable, observed, spreads, settings, black_box, fidelity)

    @cached_property
    def words(self) -> Words:
        """How a person reads the features and values (the schema's labels)."""
        return self.schema.words()

    def with_rules(self, rules: RuleSet, fidelity: float | None = None, settings: SearchSettings | None = None) -> Engine:
        """The same engine with other decision rules (a black box's refined or local surrogate),
        and other ``settings`` if given; the training values it holds cover every feature the
        rules may read."""
        chosen = settings or self.settings
        return Engine(
            rules, self.causal, self.schema, self.unfavourable, self.observed, self.spreads, chosen, self.black_box, fidelity, self.glass, self.opaque
        )

    def with_glass(self, glass: GlassBox | None, opaque: str = "") -> Engine:
        """The same engine with the model's decision read exactly (``glass``), or not (``opaque``: why)."""
        return Engine(
            self.rules, self.causal, self.schema, self.unfavourable, self.observed, self.spreads, self.settings, self.black_box, self.fidelity, glass, opaque
        )

    def open(self) -> Engine:
        """The engine with no decision rule and every feature a person may change in play: where
        rows the model accepted are priced whatever the rules said of them."""
        engine = self.with_rules(RuleSet((), self.rules.label, self.rules.default), self.fidelity)
        engine.features = list(dict.fromkeys(engine.features + self.varied))
        return engine

    @cached_property
    def plain_numbers(self) -> dict[str, list[Any]]:
        """Each number's distinct training values (sorted) as plain numbers, turned once: every
        person's draws read them (:func:`~mc3g.hunt.local.moves`)."""
        return {name: plains(values) for name, values in self.observed.numbers.items()}

    @property
    def triable(self) -> list[str]:
        """The features a person may try changing themselves (a what-if): those in play and, for a
        black box, every one its search may change, so any advice given can be tried."""
        return self.features if self.black_box is None else list(dict.fromkeys(self.features + self.varied))

    @property
    def advisable(self) -> list[str]:
        """The features advice may change under the knowledge in force: those a person may try,
        less the immutable ones (a feature that changes only as a consequence is among them)."""
        return [name for name in self.triable if not self.schema.feature(name).immutable]

    @property
    def varied(self) -> list[str]:
        """The features a person may change directly whose training values the engine holds:
        where samples around a person move (a black box's local rules)."""
        held = set(self.observed.numbers) | set(self.observed.tokens)
        return [f.name for f in self.schema.features if f.name in held and not (f.immutable or f.consequence_only)]

    def instance(self, row: Mapping[str, Any], where: str = "the row") -> dict[str, Any]:
        """The person's values of the features in play, as the search reads them.  Every row
        passes here, so here it is checked: each feature in play present, and every feature of
        the schema it holds a finite number no larger than mc3g takes and within the feature's
        valid values, or a category of its domain (``where`` names the row in an error).  A
        number outside the training range is the person's own: it is kept."""
        missing = [f for f in self.features if f not in row]
        if missing:
            raise InputError(f"{where} lacks feature(s) {missing}")
        checked = {}
        for name, feature in self._checked:
            if name not in row:
                continue
            value, said = row[name], f"{where}: feature {name!r}"
            if feature.is_numeric:
                checked[name] = feature.within(number(value, said), said)
            else:
                checked[name] = category(value, token(value), self._domains.get(name), said)
        return {name: checked[name] for name in self.features}

    def consequences(self, instance: Mapping[str, Any]) -> Consequences | None:
        """What the causal rules force once the person ``instance`` makes some changes
        (:meth:`Problem.consequences`); None when no change of theirs can force anything."""
        return self.problem(instance, 1, []).consequences(instance)

    def refuses(self, X: pd.DataFrame) -> np.ndarray:
        """Which rows of ``X`` the decision rules refuse."""
        return RuleSet(tuple(self.decision), self.rules.label, self.rules.default).covers(X)

    def firing(self, instance: Mapping[str, Any]) -> list[Rule]:
        """The decision rules that cover the person."""
        person = Table.from_frame(instance)
        return [r for r in self.decision if r.covers(person)[0]]

    def problem(
        self, instance: Mapping[str, Any], per_atom: int, escape: list[Rule] | None = None, extra: Mapping[str, list[Any]] | None = None, observed: bool = True
    ) -> Problem:
        """The search for one person with ``per_atom`` candidate values per atom; ``escape`` are
        the rules a counterfactual must not fire (by default every decision rule); ``extra``
        are more candidate values of numeric features (a black box's boundaries); ``observed``:
        for a black box, training values besides the grid."""
        escape = self.decision if escape is None else escape
        features = [self.schema.feature(n) for n in self.features]
        s = self.settings
        seen = observed and self.black_box is not None
        space_settings = SpaceSettings(scheme=s.scheme, per_atom=per_atom, plausible=s.plausible, data_k=s.data_k, observed=seen, extra=dict(extra or {}))
        space = build_space(
            features, dict(instance), self._literals, self.observed, self.spreads, space_settings,
            RuleSet(tuple(escape), self.rules.label, self.rules.default), self.causal.forbidden,
        )  # fmt: skip
        return Problem(space, escape, self.causal, s.mode, s.distance)

    def read_problem(self, instance: Mapping[str, Any], k: int, extra: Mapping[str, list[Any]] | None = None) -> Problem:
        """The search for ``k`` options of one person against the model read exactly (``glass``):
        every feature it reads or the knowledge names in play, its own tests cutting the numbers'
        ranges beside the knowledge's, and ``extra`` values; no rule to escape, the model's own
        decision instead.  Distinct options are each the least-cost state of its actions, so one
        value per atom (the nearest) finds them; the K nearest states need K."""
        return self._read([self.schema.feature(n) for n in self._read_names], instance, 1 if self.settings.distinct else k, extra)

    def protections_in_play(self) -> list[tuple[str, str]]:
        """The protections (feature, setting) of the features a search against the model read
        exactly has in play, that a proved "no way out" is asked about (:data:`LIFTED`): not the
        direction of a feature only time changes, which no one could lift."""
        features = [self.schema.feature(n) for n in self._read_names]
        return [(f.name, s) for f in features for s in LIFTED if getattr(f, s) != PROTECTIONS[s].free and not (s == "direction" and f.waits is not None)]

    @cached_property
    def _read_names(self) -> list[str]:
        assert self.glass is not None
        return list(dict.fromkeys([*self.glass.features, *features_in_play((), self.causal, self.schema)]))

    def _read(self, features: list[Feature], instance: Mapping[str, Any], per_atom: int, extra: Mapping[str, list[Any]] | None = None) -> Problem:
        assert self.glass is not None
        s = self.settings
        space_settings = SpaceSettings(per_atom=per_atom, plausible=s.plausible, extra=dict(extra or {}), spans=frozenset(self.glass.slopes))
        values = {f.name: instance[f.name] for f in features}
        space = build_space(features, values, self._read_literals, self.observed, self.spreads, space_settings)
        return Problem(space, [], self.causal, s.mode, s.distance, model=self.glass.for_options())  # an option's decision: past any headroom


LIFTED = ("immutable", "consequence_only", "direction", "max_change", "targets", "moves")
"""The protections a proved "no way out" is asked about: which, lifted, would open one (never
to an unknown value: no advice ever goes there)."""


K = [Whole(1, "max_states", "the search hands out at most that many states for one person; raise max_states for more")]
"""How many counterfactuals: up to ``max_states``, the most states the search hands out for one
person (more would be cut off without a word)."""


def checked_k(k: Any, max_states: int, name: str = "k") -> int:
    """``k`` (called ``name``) as :data:`K` accepts it, under the fitted ``max_states``."""
    validate({"max_states": max_states, name: k}, {name: K})
    return int(k)


def person(row: pd.Series | Mapping[str, Any]) -> tuple[dict[str, Any], str]:
    """A person's row as a dict, and how a message names it: by its label when it is a Series
    taken from a frame (``row 17``), else ``the row``."""
    if isinstance(row, pd.Series):
        return dict(row.items()), "the row" if row.name is None else f"row {row.name}"
    if not isinstance(row, Mapping):
        raise InputError(f"a person's row is a mapping of feature -> value (a dict or a Series), not {type(row).__name__}")
    return dict(row), "the row"


def refusing_rules(rules: RuleSet, unfavourable: str) -> list[Rule]:
    """The rules of the unfavourable class: the ones a counterfactual must escape."""
    return [r for r in rules.rules if str(r.head.value) == unfavourable]  # type: ignore[union-attr]


def features_in_play(decision: Iterable[Rule], causal: CausalModel, schema: Schema) -> list[str]:
    """The features a counterfactual may touch: those the decision rules or the causal knowledge
    read, and those that must change; every other feature keeps the person's value."""
    names: dict[str, None] = {}
    for rule in decision:
        for lit in rule.literals():
            names.setdefault(lit.feature)
    for f in causal.mentioned:
        names.setdefault(f)
    for f in schema.features:
        if f.must_change:
            names.setdefault(f.name)
    unknown = [n for n in names if n not in schema]
    if unknown:
        raise InputError(f"feature(s) {unknown} are used by the rules but are not in the schema")
    return list(names)


def _all_literals(rules: Iterable[Rule], causal: CausalModel) -> Iterable[Literal]:
    for rule in rules:
        yield from rule.literals()
    yield from causal.literals()
