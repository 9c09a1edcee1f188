"""The MC3G estimator: least-effort counterfactuals that respect the causal knowledge.

Dasgupta, Halim, Arias, Salazar, Gupta: "MC3G: Model Agnostic Causally Constrained
Counterfactual Generation", NeSy 2025 (arXiv 2508.17221).  ``fit`` reads the data once (feature
spreads, domains, the decision rules); ``explain`` answers one person or a frame of people.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from ..causal.model import CausalModel
from ..exceptions import BlackBoxError, InputError
from ..rules import Literal, Rule, RuleSet, Table, token
from ..schema import Feature, Schema, infer_schema, observed_feature
from ..search.distance import SCALINGS, Distance, spread
from ..search.encoding import Program
from ..search.problem import MODES, Assessment, Problem
from ..search.solver import StateStream
from ..search.space import CANDIDATE_MODES, Observed, SpaceSettings, build_space
from .result import NO_COUNTERFACTUAL, NOT_REFUSED, REFUSED, CausedChange, Counterfactual, DirectAction, Recourse


class MC3G(BaseEstimator):
    """Counterfactual explanations under causal knowledge, for rules or for any classifier.

    Parameters
    ----------
    model : the decision.  A :class:`~mc3g.rules.RuleSet` whose rules describe the unfavourable
        outcome is used as it is; anything else with ``predict`` (a scikit-learn estimator or
        pipeline, xgboost, lightgbm) or a plain function from a DataFrame to labels is a black
        box: ``fit`` learns FOLD-SE rules of its predictions (the surrogate), and every
        counterfactual is checked with the black box before it is returned.
    causal : a :class:`CausalModel`, a path to a causal-knowledge file, or None.
    mode : ``"derived"`` (MC3G: changes that follow from the person's actions are free),
        ``"explained"`` (the authors' published code) or ``"none"`` (C3G: every change costs).
    norm : ``"l0"``, ``"l1"`` or ``"l2"`` (``root=False`` for the squared L2).
    k : how many counterfactuals, least cost first (``total_CFs`` is DiCE's name for it).
    candidates : ``"exact"`` (the true optimum over each domain) or ``"data"`` (the authors'
        scheme: the ``data_k`` nearest training values per region).
    scaling : numeric changes in units of the training ``"std"`` or ``"mad"``.
    plausible : only values seen in the training data.
    schema : feature kinds and metadata (and the unfavourable class); by default read off the
        data given to ``fit``.
    desired_class : ``"opposite"`` (leave the unfavourable class) or the favourable label.
    features_to_vary, permitted_range, feature_weights : DiCE's names: the features that may
        change (the others are immutable), ``{feature: [low, high]}`` or ``{feature: [values]}``,
        and ``{feature: weight}``.
    ratio, tail : FOLD-SE's settings for the surrogate (when ``tail`` leaves no rule at all,
        ``tail/5`` and then 0 are tried); ``holdout`` is the share of the data kept aside to
        measure the surrogate's fidelity (``random_state`` picks it).
    max_states : how many candidate states one person's search may visit.
    n_jobs : processes for explaining a DataFrame of people.
    """

    def __init__(
        self,
        model: Any,
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
        *,
        total_CFs: int | None = None,  # noqa: N803 - DiCE's name
        desired_class: Any = "opposite",
        features_to_vary: str | list[str] = "all",
        permitted_range: dict[str, list[Any]] | None = None,
        feature_weights: dict[str, float] | None = None,
        ratio: float = 0.5,
        tail: float = 0.005,
        holdout: float = 0.2,
        random_state: int = 0,
        max_states: int = 2000,
        n_jobs: int = 1,
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
        self.total_CFs = total_CFs
        self.desired_class = desired_class
        self.features_to_vary = features_to_vary
        self.permitted_range = permitted_range
        self.feature_weights = feature_weights
        self.ratio = ratio
        self.tail = tail
        self.holdout = holdout
        self.random_state = random_state
        self.max_states = max_states
        self.n_jobs = n_jobs

    # -- fitting -------------------------------------------------------------------------------
    def fit(self, X: pd.DataFrame, y: Any = None) -> MC3G:
        """Read the data: the surrogate rules of a black box (and their fidelity), the spreads and
        domains of the features, the causal knowledge checked against them."""
        for name, value, allowed in (("mode", self.mode, MODES), ("candidates", self.candidates, CANDIDATE_MODES), ("scaling", self.scaling, SCALINGS)):
            if value not in allowed:
                raise InputError(f"{name} must be one of {list(allowed)}, not {value!r}")
        Distance(self.norm)  # validates the norm
        if not isinstance(X, pd.DataFrame) or X.empty:
            raise InputError("fit needs the training data as a non-empty DataFrame")
        self.columns_ = list(X.columns)
        self.dtypes_ = X.dtypes.to_dict()
        if isinstance(self.model, RuleSet):
            self.predict_, self.surrogate_, self.fidelity_ = None, None, None
            self.rules_ = self.model
            base = self.schema or _schema_of(X, self.rules_)
        else:
            self.predict_ = _predictor(self.model)
            base = _covering(self.schema, X)
            self.rules_ = self._surrogate(X, base)
        self.causal_ = self._causal_model()
        schema = _with_data_bounds(self.causal_.schema(base), X)
        self.schema_ = self._with_dice_settings(schema)
        self.unfavourable_ = _unfavourable(self.rules_, self.schema_)
        self.decision_rules_ = [r for r in self.rules_.rules if str(r.head.value) == self.unfavourable_]  # type: ignore[union-attr]
        self.features_in_play_ = self._features_in_play()
        missing = [f for f in self.features_in_play_ if f not in X.columns]
        if missing:
            raise InputError(f"the rules or the causal knowledge use feature(s) {missing} that the data does not have")
        self.spreads_ = {f: spread(X[f], self.scaling) for f in self.features_in_play_ if self.schema_.feature(f).is_numeric}
        self.observed_ = Observed.of(X, [self.schema_.feature(f) for f in self.features_in_play_])
        return self

    def _surrogate(self, X: pd.DataFrame, base: Schema) -> RuleSet:
        """MC3G's extract_logic: FOLD-SE rules of the black box's own predictions, with their
        fidelity (agreement with the black box) measured on rows the rules did not see."""
        from ..foldse import FoldSE

        labels = np.asarray(self._predict(X), dtype=object).astype(str)
        classes = sorted(set(labels))
        if len(classes) != 2:
            raise InputError(f"the model predicts {len(classes)} class(es) {classes} on the data; MC3G needs two")
        unfavourable = self._unfavourable_label(classes, base)
        order = np.random.default_rng(self.random_state).permutation(len(X))
        n_out = int(round(len(X) * self.holdout)) if 0 < self.holdout < 1 else 0
        held, used = order[:n_out], order[n_out:]
        numeric = [c for c in base.numeric if c in X.columns]
        y = pd.Series(labels[used], name=base.label if base.label != "__label__" else "decision")

        def agreement(model: FoldSE, rows: np.ndarray) -> float:
            return float(np.mean(model.predict(X.iloc[rows]).astype(str) == labels[rows]))

        # FOLD-SE's tail cut can stop at a first rule too small to keep, leaving no rules at all;
        # then finer tails are tried, down to none.
        for tail in _tails(self.tail):
            surrogate = FoldSE(ratio=self.ratio, tail=tail, target=unfavourable, numeric=numeric).fit(X.iloc[used], y)
            if surrogate.rules_.n_rules:
                break
        self.surrogate_ = surrogate
        self.fidelity_train_ = agreement(surrogate, used)
        self.fidelity_ = agreement(surrogate, held) if n_out else None
        return surrogate.rules_

    def _unfavourable_label(self, classes: list[str], base: Schema) -> str:
        if self.desired_class != "opposite":
            desired = str(self.desired_class)
            if desired not in classes:
                raise InputError(f"desired_class {self.desired_class!r} is not a class the model predicts ({classes})")
            return next(c for c in classes if c != desired)
        if base.unfavourable in classes:
            return base.unfavourable
        raise InputError(f"say which outcome is unfavourable: pass schema= with it, or desired_class= the favourable label (one of {classes})")

    def _with_dice_settings(self, schema: Schema) -> Schema:
        """DiCE's features_to_vary, permitted_range and feature_weights as feature metadata."""
        changes: dict[str, dict[str, Any]] = {}
        if self.features_to_vary != "all":
            vary = [self.features_to_vary] if isinstance(self.features_to_vary, str) else list(self.features_to_vary)
            unknown = [f for f in vary if f not in schema]
            if unknown:
                raise InputError(f"features_to_vary names unknown feature(s) {unknown}")
            for f in schema.features:
                if f.name not in vary:
                    changes.setdefault(f.name, {})["immutable"] = True
        for name, allowed in (self.permitted_range or {}).items():
            if name not in schema:
                raise InputError(f"permitted_range names unknown feature {name!r}")
            if schema.feature(name).is_numeric:
                low, high = allowed
                changes.setdefault(name, {})["range"] = (float(low), float(high))
            else:
                changes.setdefault(name, {})["targets"] = tuple(token(v) for v in allowed)
        for name, weight in (self.feature_weights or {}).items():
            if name not in schema:
                raise InputError(f"feature_weights names unknown feature {name!r}")
            changes.setdefault(name, {})["weight"] = float(weight)
        return schema.with_features(*(replace(schema.feature(n), **c) for n, c in changes.items())) if changes else schema

    def _predict(self, frame: pd.DataFrame) -> np.ndarray:
        try:
            return np.asarray(self.predict_(frame)).reshape(-1)  # type: ignore[misc]
        except Exception as exc:  # the black box is the user's code: report what it said
            raise BlackBoxError(f"the model's predict failed on {len(frame)} row(s): {type(exc).__name__}: {exc}") from exc

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
            raise InputError(f"feature(s) {unknown} are used by the rules but are not in the schema")
        return list(names)

    # -- explaining ----------------------------------------------------------------------------
    def explain(self, rows: pd.DataFrame | pd.Series | dict[str, Any], k: int | None = None, progress: bool = False) -> Recourse | list[Recourse]:
        """Counterfactuals for one row (a Series or dict) or for every row of a DataFrame (in
        ``n_jobs`` processes, with a progress bar when ``progress``)."""
        check_is_fitted(self, "rules_")
        if isinstance(rows, pd.DataFrame):
            return [result for _, result in self.explain_each(rows, k, progress=progress)]
        row = dict(rows.items()) if isinstance(rows, pd.Series) else dict(rows)
        return self._explain_one(row, self._k(k))

    def explain_each(self, rows: pd.DataFrame, k: int | None = None, progress: bool = False) -> Iterator[tuple[Any, Recourse]]:
        """(index, answer) for every row, in order, as they are ready.  A row whose answer fails
        (a black box that raises, a bad value) gets an ``error`` answer; the others go on."""
        from .batch import explain_rows

        check_is_fitted(self, "rules_")
        return explain_rows(self, rows, self._k(k), self.n_jobs, progress)

    def _k(self, k: int | None) -> int:
        chosen = k if k is not None else (self.total_CFs if self.total_CFs is not None else self.k)
        if chosen < 1:
            raise InputError(f"k must be at least 1, not {chosen}")
        return chosen

    def problem(self, row: pd.Series | dict[str, Any], k: int | None = None) -> Problem:
        """The search problem for one person (what :meth:`explain` solves)."""
        check_is_fitted(self, "rules_")
        instance = self._instance(dict(row.items()) if isinstance(row, pd.Series) else dict(row))
        return self._problem(instance, self._k(k))

    def program(self, row: pd.Series | dict[str, Any], k: int | None = None) -> str:
        """The ASP program (decision rules, causal knowledge, the person, the query) for clingo."""
        return Program(self.problem(row, k)).text()

    def _instance(self, row: dict[str, Any]) -> dict[str, Any]:
        missing = [f for f in self.features_in_play_ if f not in row]
        if missing:
            raise InputError(f"the row lacks feature(s) {missing}")
        instance = {}
        for name in self.features_in_play_:
            value = row[name]
            if self.schema_.feature(name).is_numeric:
                number = pd.to_numeric(pd.Series([value]), errors="coerce").iloc[0]
                if pd.isna(number):
                    raise InputError(f"feature {name!r} is numeric but the row has {value!r}; fill it in before explaining")
                instance[name] = _plain_number(number)
            else:
                instance[name] = token(value)
        return instance

    def _problem(self, instance: dict[str, Any], k: int, escape: list[Rule] | None = None) -> Problem:
        """The search for one person: the candidate values come from every rule's thresholds;
        ``escape`` are the rules a counterfactual must not fire (by default all of them)."""
        escape = self.decision_rules_ if escape is None else escape
        features = [self.schema_.feature(n) for n in self.features_in_play_]
        literals: dict[str, list[Literal]] = {}
        for lit in _all_literals(self.decision_rules_, self.causal_):
            literals.setdefault(lit.feature, []).append(lit)
        settings = SpaceSettings(self.candidates, k, self.plausible, self.data_k, observed=self.predict_ is not None)
        space = build_space(
            features, instance, literals, self.observed_, self.spreads_, settings,
            RuleSet(tuple(escape), self.rules_.label, self.rules_.default), self.causal_.forbidden,
        )  # fmt: skip
        return Problem(space, escape, self.causal_, self.mode, Distance(self.norm, self.root))

    def _settings(self, k: int) -> dict[str, Any]:
        return {"mode": self.mode, "norm": self.norm, "root": self.root, "k": k, "candidates": self.candidates, "scaling": self.scaling}

    def _frame(self, rows: list[dict[str, Any]]) -> pd.DataFrame:
        """Rows as the model saw its data: its columns, in its order, with its dtypes."""
        frame = pd.DataFrame(rows, columns=self.columns_)
        for column, dtype in self.dtypes_.items():
            try:
                frame[column] = frame[column].astype(dtype)
            except (TypeError, ValueError):
                pass  # a value the column's dtype cannot hold stays as it is; the model decides
        return frame

    def refused(self, rows: list[dict[str, Any]]) -> list[bool]:
        """Which people the model refuses (one call for all of them, for a black box)."""
        if self.predict_ is None:
            return [bool(self.rules_.covers(Table.from_frame(pd.DataFrame([self._instance(r)])))[0]) for r in rows]
        for row in rows:
            self._check_columns(row)
        return self._refuses(rows)

    def _check_columns(self, row: dict[str, Any]) -> None:
        unknown = [c for c in row if c not in self.columns_]
        absent = [c for c in self.columns_ if c not in row]
        if unknown or absent:
            raise InputError(
                "the row does not match the columns the model was fitted on: "
                + "; ".join(p for p in (f"unknown {unknown}" if unknown else "", f"missing {absent}" if absent else "") if p)
            )

    def _refuses(self, rows: list[dict[str, Any]]) -> list[bool]:
        """The black box's verdict on rows the search made: True where it refuses."""
        return [str(label) == self.unfavourable_ for label in self._predict(self._frame(rows))]

    def _explain_one(self, row: dict[str, Any], k: int) -> Recourse:
        """One person, the model asked whenever the search needs it."""
        talk = self._conversation(row, k)
        try:
            rows = next(talk)
            while True:
                rows = talk.send(self._refuses(rows))
        except StopIteration as done:
            return done.value

    def _conversation(self, row: dict[str, Any], k: int) -> Conversation:
        """One person's search as a conversation with the black box: it yields rows for the
        model to judge, is sent back which of them the model refuses, and returns the answer.
        Keeping the model outside lets a batch of people share each ``predict`` call (see
        :mod:`mc3g.explain.batch`); plain rules need no model, so nothing is yielded for them."""
        clock = _Clock()
        settings = self._settings(k)
        if self.predict_ is not None:
            self._check_columns(row)
        instance = self._instance(row)
        person = Table.from_frame(pd.DataFrame([instance]))
        firing = [r for r in self.decision_rules_ if r.covers(person)[0]]
        refused = (yield from clock.away([row]))[0] if self.predict_ is not None else bool(firing)
        if not refused:
            reason = f"the decision for this person is not {self.unfavourable_!r}, so it is already favourable."
            return Recourse(row, NOT_REFUSED, reasons=(reason,), settings=settings)
        decision = tuple(_rule_text(r) for r in firing)
        # Where the model refuses but its surrogate rules do not, the rules cannot say what to
        # escape; the states are then searched in cost order and the model alone decides.
        escape = self.decision_rules_ if firing or self.predict_ is None else []
        verdicts: dict[tuple, bool] = {}
        per_atom = k
        problem = self._problem(instance, per_atom, escape)
        found, rejected, exhausted = yield from self._verified(problem, row, k, verdicts, clock)
        while self.predict_ is not None and len(found) < k and exhausted and per_atom < WIDEST and len(verdicts) < self.max_states:
            # The model's boundary lies past the values tried: take more values per atom (the
            # states the model has judged count against max_states across the rounds).
            per_atom *= 8
            problem = self._problem(instance, per_atom, escape)
            found, more, exhausted = yield from self._verified(problem, row, k, verdicts, clock)
            rejected += more
        settings.update({"regions": problem.space.n_regions, "candidates_in_space": problem.space.n_candidates})
        if self.predict_ is not None:
            settings.update({"fidelity": self.fidelity_, "rejected_by_model": rejected, "judged_by_model": len(verdicts)})
        settings["search_seconds"] = clock.seconds()
        if not found:
            reasons = (
                why_none(problem)
                if not rejected
                else [
                    f"the model still refused all {rejected} least-cost candidate states"
                    + ("" if firing else " (its surrogate rules do not refuse this person, so the model alone decided)")
                    + f"; the search asks the model about at most {self.max_states} states per person."
                ]
            )
            return Recourse(row, NO_COUNTERFACTUAL, reasons=tuple(reasons), decision=decision, settings=settings)
        counterfactuals = tuple(self._counterfactual(row, problem, a) for a in found)
        return Recourse(row, REFUSED, counterfactuals, decision=decision, settings=settings)

    def _verified(
        self, problem: Problem, row: dict[str, Any], k: int, verdicts: dict[tuple, bool], clock: _Clock
    ) -> Generator[list[dict[str, Any]], list[bool], tuple[list[Assessment], int, bool]]:
        """The k least-cost states that the black box accepts (all, for plain rules), how many it
        newly rejected, and whether the candidate space ran out.  The model is asked in batches
        and never twice about the same values (``verdicts`` remembers)."""
        candidates = StateStream(problem, max(self.max_states - len(verdicts), 1))
        if self.predict_ is None:
            found = candidates.take(k)
            return found, 0, len(found) < k
        kept: list[Assessment] = []
        rejected = 0
        size = 4 * k
        while len(kept) < k:
            batch = candidates.take(size)
            size = min(2 * size, BATCH)  # the model disagrees here: ask it about more states at once
            if not batch:
                return kept, rejected, True
            keys = [problem.values_of(a.state) for a in batch]
            unknown = [i for i, key in enumerate(keys) if key not in verdicts]
            if unknown:
                refusals = yield from clock.away([{**row, **dict(zip(problem.names, keys[i]))} for i in unknown])
                for i, refuses in zip(unknown, refusals):
                    verdicts[keys[i]] = not refuses
                    rejected += refuses
            kept += [a for a, key in zip(batch, keys) if verdicts[key]][: k - len(kept)]
        return kept, rejected, False

    def _counterfactual(self, row: dict[str, Any], problem: Problem, found: Assessment) -> Counterfactual:
        values = {**row, **problem.describe(found.state)}
        direct, caused = [], []
        for name in problem.names:
            before, after = problem.value(name, problem.original_state()), problem.value(name, found.state)
            if before == after:
                continue
            cost = found.terms.get(name, 0.0)
            if name in found.caused:
                caused.append(CausedChange(name, before, after, str(found.caused[name]), cost))
            else:
                direct.append(DirectAction(name, before, after, cost))
        # Actions that set off a consequence read first: "clear your debt; your score follows".
        triggers = {f for rule in found.caused.values() for f in rule.cause_features}
        direct.sort(key=lambda a: a.feature not in triggers)
        return Counterfactual(values, tuple(direct), tuple(caused), found.cost, Distance(self.norm, self.root).label, self.mode)


WIDEST = 512  # candidate values per atom at most, when widening the search for a black box
BATCH = 1024  # states the model is asked about at once, at most, for one person
Conversation = Generator[list[dict[str, Any]], list[bool], Recourse]


class _Clock:
    """The time a conversation spends searching, without the time it waits for the model."""

    def __init__(self) -> None:
        self._spent = 0.0
        self._since = time.perf_counter()

    def away(self, rows: list[dict[str, Any]]) -> Generator[list[dict[str, Any]], list[bool], list[bool]]:
        self._spent += time.perf_counter() - self._since
        refusals = yield rows
        self._since = time.perf_counter()
        return refusals

    def seconds(self) -> float:
        return self._spent + time.perf_counter() - self._since


def _tails(tail: float) -> list[float]:
    return sorted({tail, tail / 5, 0.0}, reverse=True)


def _predictor(model: Any) -> Callable[[pd.DataFrame], Any]:
    """The black box's ``predict``, or the model itself when it is a plain function."""
    predict = getattr(model, "predict", None)
    if callable(predict):
        return predict
    if callable(model):
        return model
    raise InputError(f"model must be a RuleSet, have a predict method, or be a function of a DataFrame; got {type(model).__name__}")


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


def _covering(schema: Schema | None, X: pd.DataFrame) -> Schema:
    """A schema for every column a black box sees: the given one, plus the columns it lacks as
    the data show them (a paper schema restricts the features; a model reads them all)."""
    inferred = infer_schema(X.assign(__label__="?"), "__label__", "?", "data")
    if schema is None:
        return inferred
    extra = tuple(f for f in inferred.features if f.name not in schema)
    return replace(schema, features=schema.features + extra)


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
    raise InputError(f"the rules describe several classes {sorted(heads)}; say which is unfavourable in the schema")
