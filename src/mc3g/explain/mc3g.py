"""The MC3G estimator: least-effort counterfactuals that respect the causal knowledge.

Dasgupta, Halim, Arias, Salazar, Gupta: "MC3G: Model Agnostic Causally Constrained
Counterfactual Generation", NeSy 2025 (arXiv 2508.17221).  ``fit`` reads the data once (feature
spreads, domains, the decision rules); ``explain`` answers one person or a frame of people.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterable

import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from ..causal.model import CausalModel
from ..datasets.schema import Feature, Schema, infer_schema, observed_feature
from ..rules import Literal, Rule, RuleSet, Table, token
from ..search.distance import SCALINGS, Distance, spread
from ..search.encoding import Program
from ..search.problem import MODES, Assessment, Problem
from ..search.solver import search
from ..search.space import CANDIDATE_MODES, Observed, SpaceSettings, build_space
from .result import NO_COUNTERFACTUAL, NOT_REFUSED, REFUSED, CausedChange, Counterfactual, DirectAction, Recourse


class MC3G(BaseEstimator):
    """Counterfactual explanations under causal knowledge.

    Parameters
    ----------
    model : the decision as a :class:`~mc3g.rules.RuleSet` whose rules describe the unfavourable
        outcome (for instance ``FoldSE(...).fit(X, y).rules_``).
    causal : a :class:`CausalModel`, a path to a causal-knowledge file, or None.
    mode : ``"derived"`` (MC3G: changes that follow from the person's actions are free),
        ``"explained"`` (the authors' published code) or ``"none"`` (C3G: every change costs).
    norm : ``"l0"``, ``"l1"`` or ``"l2"`` (``root=False`` for the squared L2).
    k : how many counterfactuals, least cost first.
    candidates : ``"exact"`` (the true optimum over each domain) or ``"data"`` (the authors'
        scheme: the ``data_k`` nearest training values per region).
    scaling : numeric changes in units of the training ``"std"`` or ``"mad"``.
    plausible : only values seen in the training data.
    schema : feature kinds and metadata; by default read off the data given to ``fit``.
    """

    def __init__(
        self,
        model: RuleSet,
        causal: CausalModel | str | Path | None = None,
        mode: str = "derived",
        norm: str = "l1",
        k: int = 1,
        candidates: str = "exact",
        scaling: str = "std",
        root: bool = True,
        plausible: bool = False,
        data_k: int = 20,
        schema: Schema | None = None,
    ) -> None:
        self.model = model
        self.causal = causal
        self.mode = mode
        self.norm = norm
        self.k = k
        self.candidates = candidates
        self.scaling = scaling
        self.root = root
        self.plausible = plausible
        self.data_k = data_k
        self.schema = schema

    # -- fitting -------------------------------------------------------------------------------
    def fit(self, X: pd.DataFrame, y: Any = None) -> MC3G:
        for name, value, allowed in (("mode", self.mode, MODES), ("candidates", self.candidates, CANDIDATE_MODES), ("scaling", self.scaling, SCALINGS)):
            if value not in allowed:
                raise ValueError(f"{name} must be one of {list(allowed)}, not {value!r}")
        Distance(self.norm)  # validates the norm
        if not isinstance(X, pd.DataFrame) or X.empty:
            raise ValueError("fit needs the training data as a non-empty DataFrame")
        if not isinstance(self.model, RuleSet):
            raise TypeError(f"model must be a RuleSet of decision rules, not {type(self.model).__name__}")
        self.rules_ = self.model
        self.causal_ = self._causal_model()
        base = self.schema or _schema_of(X, self.rules_)
        self.schema_ = _with_data_bounds(self.causal_.schema(base), X)
        self.unfavourable_ = _unfavourable(self.rules_, self.schema_)
        self.decision_rules_ = [r for r in self.rules_.rules if str(r.head.value) == self.unfavourable_]  # type: ignore[union-attr]
        self.features_in_play_ = self._features_in_play()
        missing = [f for f in self.features_in_play_ if f not in X.columns]
        if missing:
            raise ValueError(f"the rules or the causal knowledge use feature(s) {missing} that the data does not have")
        self.spreads_ = {f: spread(X[f], self.scaling) for f in self.features_in_play_ if self.schema_.feature(f).is_numeric}
        self.observed_ = Observed.of(X, [self.schema_.feature(f) for f in self.features_in_play_])
        return self

    def _causal_model(self) -> CausalModel:
        if self.causal is None:
            return CausalModel()
        if isinstance(self.causal, CausalModel):
            return self.causal
        return CausalModel.load(self.causal, schema=self.schema)

    def _features_in_play(self) -> list[str]:
        names: dict[str, None] = {}
        for rule in self.decision_rules_:
            for lit in rule.literals():
                names.setdefault(lit.feature)
        for f in self.causal_.mentioned:
            names.setdefault(f)
        for f in self.schema_.features:
            if f.must_change:
                names.setdefault(f.name)
        unknown = [n for n in names if n not in self.schema_]
        if unknown:
            raise ValueError(f"feature(s) {unknown} are used by the rules but are not in the schema")
        return list(names)

    # -- explaining ----------------------------------------------------------------------------
    def explain(self, rows: pd.DataFrame | pd.Series | dict[str, Any], k: int | None = None) -> Recourse | list[Recourse]:
        """Counterfactuals for one row (a Series or dict) or for every row of a DataFrame."""
        check_is_fitted(self, "rules_")
        if isinstance(rows, pd.DataFrame):
            return [self.explain(row, k) for _, row in rows.iterrows()]  # type: ignore[misc]
        row = dict(rows.items()) if isinstance(rows, pd.Series) else dict(rows)
        return self._explain_one(row, self.k if k is None else k)

    def problem(self, row: pd.Series | dict[str, Any], k: int | None = None) -> Problem:
        """The search problem for one person (what :meth:`explain` solves)."""
        check_is_fitted(self, "rules_")
        instance = self._instance(dict(row.items()) if isinstance(row, pd.Series) else dict(row))
        return self._problem(instance, self.k if k is None else k)

    def program(self, row: pd.Series | dict[str, Any], k: int | None = None) -> str:
        """The ASP program (decision rules, causal knowledge, the person, the query) for clingo."""
        return Program(self.problem(row, k)).text()

    def _instance(self, row: dict[str, Any]) -> dict[str, Any]:
        missing = [f for f in self.features_in_play_ if f not in row]
        if missing:
            raise ValueError(f"the row lacks feature(s) {missing}")
        instance = {}
        for name in self.features_in_play_:
            value = row[name]
            if self.schema_.feature(name).is_numeric:
                number = pd.to_numeric(pd.Series([value]), errors="coerce").iloc[0]
                if pd.isna(number):
                    raise ValueError(f"feature {name!r} is numeric but the row has {value!r}; fill it in before explaining")
                instance[name] = _plain_number(number)
            else:
                instance[name] = token(value)
        return instance

    def _problem(self, instance: dict[str, Any], k: int) -> Problem:
        features = [self.schema_.feature(n) for n in self.features_in_play_]
        literals: dict[str, list[Literal]] = {}
        for lit in _all_literals(self.decision_rules_, self.causal_):
            literals.setdefault(lit.feature, []).append(lit)
        settings = SpaceSettings(self.candidates, k, self.plausible, self.data_k)
        space = build_space(
            features, instance, literals, self.observed_, self.spreads_, settings, RuleSet(tuple(self.decision_rules_), self.rules_.label, self.rules_.default), self.causal_.forbidden
        )
        return Problem(space, self.decision_rules_, self.causal_, self.mode, Distance(self.norm, self.root))

    def _settings(self, k: int) -> dict[str, Any]:
        return {"mode": self.mode, "norm": self.norm, "root": self.root, "k": k, "candidates": self.candidates, "scaling": self.scaling}

    def _explain_one(self, row: dict[str, Any], k: int) -> Recourse:
        start = time.perf_counter()
        instance = self._instance(row)
        person = Table.from_frame(pd.DataFrame([instance]))
        firing = [r for r in self.decision_rules_ if r.covers(person)[0]]
        settings = self._settings(k)
        if not firing:
            reason = f"no rule for {self.rules_.label} = {self.unfavourable_!r} fires on this person, so the decision is already favourable."
            return Recourse(row, NOT_REFUSED, reasons=(reason,), settings=settings)
        problem = self._problem(instance, k)
        result = search(problem, k)
        settings.update(
            {"regions": problem.space.n_regions, "candidates_in_space": problem.space.n_candidates, "solves": result.solves}
        )
        decision = tuple(str(_rule_text(r)) for r in firing)
        if not result.found:
            settings["seconds"] = time.perf_counter() - start
            return Recourse(row, NO_COUNTERFACTUAL, reasons=tuple(why_none(problem)), decision=decision, settings=settings)
        counterfactuals = tuple(self._counterfactual(row, problem, a) for a in result.found)
        settings["seconds"] = time.perf_counter() - start
        return Recourse(row, REFUSED, counterfactuals, decision=decision, settings=settings)

    def _counterfactual(self, row: dict[str, Any], problem: Problem, found: Assessment) -> Counterfactual:
        values = dict(row)
        direct, caused = [], []
        for name in problem.names:
            before, after = problem.value(name, problem.original_state()), problem.value(name, found.state)
            if before == after:
                continue
            values[name] = after
            cost = found.terms.get(name, 0.0)
            if name in found.caused:
                caused.append(CausedChange(name, before, after, str(found.caused[name]), cost))
            else:
                direct.append(DirectAction(name, before, after, cost))
        # Actions that set off a consequence read first: "clear your debt; your score follows".
        triggers = {f for rule in found.caused.values() for f in rule.cause_features}
        direct.sort(key=lambda a: a.feature not in triggers)
        return Counterfactual(values, tuple(direct), tuple(caused), found.cost, Distance(self.norm, self.root).label, self.mode)


def _rule_text(rule: Rule) -> str:
    from ..rules.render import rule_to_english

    return rule_to_english(rule)


def why_none(problem: Problem) -> list[str]:
    """Why no counterfactual exists: a rule that no allowed change escapes; else what makes the
    rules and the knowledge impossible to satisfy together."""
    original = problem.original_state()
    reasons = []
    for i, rule in enumerate(problem.decision, 1):
        if problem.covers(rule, original) and not rule.exceptions and all(problem.truth(lit).all() for lit in rule.body):
            names = sorted({lit.feature for lit in rule.body})
            reasons.append(f"rule {i} ({_rule_text(rule)}) cannot be escaped: its features {names} cannot change ({_locks(problem, names)}).")
    if reasons:
        return reasons
    for combo in problem.causal.forbidden:
        if problem.in_play(combo) and all(problem.holds(lit, original) for lit in combo):
            reasons.append(
                "the person's own values break the causal knowledge (forbidden: "
                + ", ".join(str(lit) for lit in combo)
                + "), so a counterfactual must repair that too."
            )
    must = [f.name for f in problem.space.features if f.feature.must_change]
    if must:
        reasons.append(f"{', '.join(must)} must change, and only to the allowed values.")
    locked = [f.name for f in problem.space.features if len(f.values) == 1]
    reasons.append(
        "No state escapes every decision rule while satisfying the causal knowledge and the feature metadata"
        + (f" (features that cannot change: {', '.join(locked)})" if locked else "")
        + "."
    )
    return reasons


def _locks(problem: Problem, names: Iterable[str]) -> str:
    parts = []
    for name in names:
        f = problem.space[name].feature
        why = (
            "immutable" if f.immutable
            else "changes only as a consequence, and no causal rule can cause it" if f.consequence_only
            else f"{f.direction}-only" if f.direction
            else "no other value is allowed"
        )  # fmt: skip
        parts.append(f"{name}: {why}")
    return "; ".join(parts)


def _all_literals(rules: Iterable[Rule], causal: CausalModel) -> Iterable[Literal]:
    for rule in rules:
        yield from rule.literals()
    yield from causal.literals()


def _plain_number(x: Any) -> int | float:
    f = float(x)
    return int(f) if f.is_integer() else f


def _schema_of(X: pd.DataFrame, rules: RuleSet) -> Schema:
    """Kinds read off the data (numeric dtypes are numeric), labelled as the rules are."""
    unfavourable = str(rules.rules[0].head.value) if rules.rules else rules.default  # type: ignore[union-attr]
    frame = X.drop(columns=[rules.label], errors="ignore").assign(**{rules.label: unfavourable})
    return infer_schema(frame, rules.label, unfavourable, "data")


def _with_data_bounds(schema: Schema, X: pd.DataFrame) -> Schema:
    """Numeric features without a range get the training [min, max]; categorical features
    without a domain get the training values."""
    features: list[Feature] = []
    for f in schema.features:
        if f.name in X.columns and (f.range if f.is_numeric else f.domain) is None:
            seen = observed_feature(f.name, X[f.name], f.is_numeric)
            f = replace(f, range=seen.range, step=f.step or seen.step) if f.is_numeric else replace(f, domain=seen.domain)
        features.append(f)
    return replace(schema, features=tuple(features))


def _unfavourable(rules: RuleSet, schema: Schema) -> str:
    heads = {str(r.head.value) for r in rules.rules}  # type: ignore[union-attr]
    if len(heads) == 1:
        return heads.pop()
    if schema.unfavourable in heads:
        return schema.unfavourable
    raise ValueError(f"the rules describe several classes {sorted(heads)}; say which is unfavourable in the schema")
