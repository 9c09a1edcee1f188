"""A model's own decision read exactly (``mc3g.glassbox``) and searched as it is.

On small mixed domains, with models of every kind read (a tree, forests, bagged trees, boosters
of scikit-learn (AdaBoost's among them), XGBoost and LightGBM, a logistic regression and a linear
SVM) behind random pipelines (one-hot or ordinal encoders, scalers, passthrough, a column
dropped), the histogram boosting, XGBoost and LightGBM also splitting categories themselves
(ordinal codes declared categories, or fitted on a frame of pandas categories), and now and then
a lender's threshold, a calibration (one sigmoid or one isotonic fit), or both: the reading
agrees with ``predict`` on every state of the domain, and the search's answers are those brute
force finds over the whole domain with ``predict`` deciding, under both profiles, with causal
rules and protections drawn at random."""

from __future__ import annotations

import itertools
import math
import warnings
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import clingo
import jsonschema
import numpy as np
import pandas as pd
import pytest
from conftest import tiered
from hypothesis import assume, event
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.calibration import CalibratedClassifierCV
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import (
    AdaBoostClassifier,
    BaggingClassifier,
    ExtraTreesClassifier,
    GradientBoostingClassifier,
    HistGradientBoostingClassifier,
    RandomForestClassifier,
    VotingClassifier,
)
from sklearn.feature_selection import SelectKBest, SelectPercentile, VarianceThreshold
from sklearn.frozen import FrozenEstimator
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import LogisticRegression, LogisticRegressionCV, RidgeClassifier
from sklearn.model_selection import FixedThresholdClassifier, GridSearchCV, KFold
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import KBinsDiscretizer, MinMaxScaler, OneHotEncoder, OrdinalEncoder, StandardScaler, TargetEncoder
from sklearn.svm import LinearSVC
from sklearn.tree import DecisionTreeClassifier

import mc3g.explain.exact as exact
import mc3g.search.lifts as lifts
from mc3g import MC3G
from mc3g.causal import CausalModel, CausalRule, Constraint
from mc3g.exceptions import InputError, ReadingError, SearchError
from mc3g.explain import Recourse
from mc3g.explain.exact import blocking
from mc3g.glassbox import GlassBox, Splits, Trees
from mc3g.glassbox.calibration import Calibration
from mc3g.glassbox.estimators import read_estimator
from mc3g.protections import PROTECTIONS
from mc3g.rules import Literal
from mc3g.schema import Feature, Schema
from mc3g.search import Problem
from mc3g.search.encoding import Program
from mc3g.search.lifts import MOST_SETS, _conflicts, _fewest
from mc3g.search.score import Score
from mc3g.search.space import CandidateSpace, FeatureValues, Region
from mc3g.serialization import json_schema

RECOURSE = jsonschema.Draft202012Validator(json_schema("mc3g.recourse"))
X_VALUES = list(range(9))
Y_VALUES = [v / 2 for v in range(7)]  # a grid of half steps
DOMAIN = {"x": X_VALUES, "y": Y_VALUES, "c": ["a", "b", "c"], "d": ["p", "q"]}
EVERY = pd.DataFrame(list(itertools.product(*DOMAIN.values())), columns=list(DOMAIN))
KINDS = ("tree", "forest", "extra", "bagging", "adaboost", "boosting", "histogram", "xgboost", "lightgbm", "logistic", "linear svm")
NATIVE = ("histogram", "lightgbm", "xgboost")  # boosters that split categories themselves
LINEAR = ("logistic", "linear svm")  # read with numbers in steps too (a scorecard's bins)
CATEGORIES = {"c": pd.CategoricalDtype(DOMAIN["c"]), "d": pd.CategoricalDtype(DOMAIN["d"])}


def _train(seed: int) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    frame = EVERY.sample(260, replace=True, random_state=seed).reset_index(drop=True)
    weights = rng.normal(size=4)
    score = weights[0] * frame["x"] / 4 + weights[1] * frame["y"] / 1.5 + weights[2] * (frame["c"] == "b") + weights[3] * (frame["d"] == "q")
    return frame, np.where(score + rng.normal(scale=0.4, size=len(frame)) > np.median(score), "yes", "no")


def _estimator(kind: str, seed: int):
    if kind == "xgboost":
        from xgboost import XGBClassifier

        return XGBClassifier(n_estimators=15, max_depth=3, n_jobs=1, random_state=seed)
    if kind == "lightgbm":
        from lightgbm import LGBMClassifier

        return LGBMClassifier(n_estimators=15, num_leaves=6, min_child_samples=5, n_jobs=1, random_state=seed, verbose=-1)
    return {
        "tree": lambda: DecisionTreeClassifier(max_depth=5, random_state=seed),
        "forest": lambda: RandomForestClassifier(n_estimators=12, max_depth=5, random_state=seed),
        "extra": lambda: ExtraTreesClassifier(n_estimators=12, min_samples_leaf=3, random_state=seed),
        "bagging": lambda: BaggingClassifier(DecisionTreeClassifier(max_depth=4), n_estimators=8, max_features=0.75, random_state=seed),
        "adaboost": lambda: AdaBoostClassifier(DecisionTreeClassifier(max_depth=2), n_estimators=15, random_state=seed),
        "boosting": lambda: GradientBoostingClassifier(n_estimators=20, max_depth=2, random_state=seed),
        "histogram": lambda: HistGradientBoostingClassifier(max_iter=15, max_leaf_nodes=6, random_state=seed),
        "logistic": lambda: LogisticRegression(C=10.0),
        "linear svm": lambda: LinearSVC(C=1.0, random_state=seed),
    }[kind]()


@st.composite
def models(draw, kinds: tuple[str, ...] = KINDS):
    """A model of a drawn kind behind a drawn pipeline, fitted; its favourable label."""
    seed, kind = draw(st.integers(0, 10_000)), draw(st.sampled_from(kinds))
    frame, labels = _train(seed)
    native = kind in NATIVE and draw(st.sampled_from([None, "codes", "frame"]))  # the booster splits the categories itself
    encoder = "ordinal" if native == "codes" else draw(st.sampled_from(["onehot", "ordinal"]))
    sparse = encoder == "onehot" and kind != "histogram" and draw(st.booleans())  # a sparse matrix: XGBoost reads its zeros as missing
    categories = OneHotEncoder(sparse_output=sparse, handle_unknown="ignore") if encoder == "onehot" else OrdinalEncoder()
    binned = [] if native else ["bins", "bins of x"]  # a booster told its first columns are codes takes the two numbers after them
    scaler = draw(st.sampled_from(["standard", "minmax", "passthrough", *binned]))
    numbers = {"standard": StandardScaler(), "minmax": MinMaxScaler(), "passthrough": "passthrough"}.get(scaler)
    dropped = draw(st.booleans())
    steps = [("categories", categories, ["c"] if dropped else ["c", "d"]), ("numbers", numbers, ["x", "y"])]
    if numbers is None:  # a scorecard: the numbers binned (one-hot or ordinal bins), or x binned and y scaled
        encode, strategy = draw(st.sampled_from(["onehot-dense", "ordinal"])), draw(st.sampled_from(["quantile", "uniform"]))
        binned = KBinsDiscretizer(n_bins=draw(st.integers(2, 4)), encode=encode, strategy=strategy)
        steps[1:] = [("bins", binned, ["x", "y"])] if scaler == "bins" else [("bins", binned, ["x"]), ("numbers", StandardScaler(), ["y"])]
        scaler = f"{scaler} ({encode}, {strategy})"
    if native == "frame":  # fitted on a frame of pandas categories, no pipeline
        model, frame, encoder, scaler = _told_categories(kind, _estimator(kind, seed), None), frame.astype(CATEGORIES), "pandas categories", "none"
    elif native == "codes":  # the ordinal codes declared categories
        estimator = _told_categories(kind, _estimator(kind, seed), 1 if dropped else 2)
        model, encoder = make_pipeline(ColumnTransformer(steps, remainder="drop"), estimator), "ordinal codes split natively"
    else:
        selected = numbers is not None and draw(st.booleans())  # the best of the encoded columns kept (a number's bins dropped are no steps: not read)
        encoded = ColumnTransformer(steps, remainder="drop", sparse_threshold=1.0 if sparse else 0.0)
        model = make_pipeline(encoded, *([SelectPercentile(percentile=60)] if selected else []), _estimator(kind, seed))
        encoder += (" (sparse)" if sparse else "") + (", selected" if selected else "")
    threshold = draw(st.sampled_from([None, None, 0.3, 0.7]))
    calibrated = draw(st.sampled_from([None, None, "frozen", "refitted"]))
    calibration = draw(st.sampled_from(["sigmoid", "isotonic"])) if calibrated else None
    target = (labels == "yes").astype(int) if kind == "xgboost" else labels
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if calibrated == "frozen":  # calibrated by one sigmoid or one isotonic fit, the model fitted first
            model = CalibratedClassifierCV(FrozenEstimator(model.fit(frame, target)), method=calibration)
        elif calibrated == "refitted":
            model = CalibratedClassifierCV(model, method=calibration, ensemble=False, cv=3)
        if threshold is not None:  # a lender's own: on the (calibrated) probability, or on a linear SVM's decision function
            method = "decision_function" if kind == "linear svm" and not calibrated else "predict_proba"
            model = FixedThresholdClassifier(model, threshold=threshold if method == "predict_proba" else threshold - 0.5, response_method=method)
        model.fit(frame, target)
    assume(len(set(_predicted(model, EVERY))) == 2)  # a lender's threshold may leave one decision
    if calibrated:  # a calibration fitted to fall as the model's score rises says why it is not read
        calibrator = (model.estimator_ if threshold is not None else model).calibrated_classifiers_[0].calibrators[0]
        assume(calibrator.a_ < 0 if calibration == "sigmoid" else calibrator.increasing_)
    wrapped = f", calibrated ({calibrated}, {calibration})" if calibrated else ""
    wrapped += f", threshold {threshold}" if threshold is not None else ""
    event(f"{kind}, {encoder}, {scaler}" + (", d dropped" if dropped else "") + wrapped)
    return model, frame, "1" if kind == "xgboost" else "yes"


def _told_categories(kind: str, estimator, codes: int | None, numbers: int = 2):
    """The booster told that its first ``codes`` input columns are categories' codes (then
    ``numbers`` numbers), or (None) to split a frame's pandas categories itself."""
    if kind == "xgboost":
        return estimator.set_params(enable_categorical=True, feature_types=None if codes is None else ["c"] * codes + ["q"] * numbers)
    if codes is None:
        return estimator
    return estimator.set_params(**{"categorical_features" if kind == "histogram" else "categorical_feature": list(range(codes))})


def _predicted(model, rows: pd.DataFrame) -> np.ndarray:
    inner = model
    while isinstance(inner, (FixedThresholdClassifier, CalibratedClassifierCV, FrozenEstimator)):
        inner = inner.estimator
    rows = rows[list(DOMAIN)] if isinstance(inner, Pipeline) else rows[list(DOMAIN)].astype(CATEGORIES)  # as it was fitted
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.asarray([str(v) for v in model.predict(rows)])


def _read_as_predict_runs(model, frame: pd.DataFrame, favourable: str = "yes") -> GlassBox:
    """The model read (``read_model="always"``), its verdict on every state of the domain the
    model's own ``predict`` (both decisions among them)."""
    glass = MC3G(model, desired_class=favourable, read_model="always", refine=0).fit(frame).engine_.glass
    verdicts = glass.verdicts(glass.margins({f: EVERY[f].tolist() for f in glass.features}))
    accepted = _predicted(model, EVERY) == favourable
    assert accepted.any() and not accepted.all()
    assert not ((verdicts > 0) & ~accepted).any() and not ((verdicts < 0) & accepted).any()
    return glass


@tiered(2, 80, models())
def test_the_reading_agrees_with_predict_on_every_state_of_the_domain(drawn) -> None:
    model, frame, favourable = drawn
    explainer = MC3G(model, desired_class=favourable, read_model="always", refine=0).fit(frame)
    glass = explainer.engine_.glass
    verdicts = glass.verdicts(glass.margins({f: EVERY[f].tolist() for f in glass.features}))
    accepted = _predicted(model, EVERY) == favourable
    assert not ((verdicts > 0) & ~accepted).any() and not ((verdicts < 0) & accepted).any()
    assert (verdicts == 0).mean() < 0.2  # ties only: the rest is read for sure
    event(f"{int((verdicts == 0).sum())} tie(s)" if (verdicts == 0).any() else "no tie")


@st.composite
def knowledge(draw):
    """Protections on the features (a schema) and causal knowledge, drawn."""
    x = Feature("x", "numeric", range=(0, 8), step=1, direction=draw(st.sampled_from([None, "increase"])), max_change=draw(st.sampled_from([None, 4])))
    y = Feature("y", "numeric", range=(0, 3), step=0.5, immutable=draw(st.integers(0, 5)) == 0)
    c = Feature("c", "categorical", domain=("a", "b", "c"), moves=draw(st.sampled_from([None, (("a", "b"), ("c", "b"), ("b", "a"))])))
    d = Feature("d", "categorical", domain=("p", "q"), immutable=draw(st.booleans()))
    schema = Schema("small", (x, y, c, d), "label", ("no", "yes"), "no")
    rules = []
    if draw(st.booleans()):
        rules.append(CausalRule(Literal("y", ">=", 2.0), (Literal("c", "==", "a"),), constraint=draw(st.booleans())))
    if draw(st.booleans()):
        rules.append(CausalRule(Literal("d", "==", "q"), (Literal("x", ">=", 6),)))
    constraints = (Constraint((Literal("c", "==", "c"), Literal("x", ">", 6))),) if draw(st.booleans()) else ()
    return schema, CausalModel(rules=tuple(rules), constraints=constraints)


def _every_state(explainer: MC3G, person: dict) -> tuple[Problem, list]:
    """Every state of the whole domain the knowledge allows, priced as mc3g prices it (no model)."""
    engine = explainer.engine_
    full = engine.read_problem(engine.instance(person), 1, {"x": X_VALUES, "y": Y_VALUES})
    problem = Problem(full.space, [], full.causal, full.mode, full.distance)
    allowed = [a for state in itertools.product(*(range(len(f.values)) for f in problem.space.features)) if (a := problem.assess(state)) is not None]
    return problem, allowed


@tiered(2, 60, models(), knowledge(), st.sampled_from(["product", "paper"]), st.integers(1, 3))
def test_the_answers_are_those_brute_force_finds_over_the_whole_domain(drawn, known, profile, k) -> None:
    model, frame, favourable = drawn
    schema, causal = known
    if favourable == "1":
        schema = Schema("small", schema.features, "label", ("0", "1"), "0")
    explainer = MC3G(model, causal, schema=schema, desired_class=favourable, k=k, profile=profile, read_model="always", refine=0).fit(frame)
    refused = EVERY[_predicted(model, EVERY) != favourable].sample(frac=1, random_state=0).iloc[:4]
    for _, person in refused.iterrows():
        answer = explainer.explain(person)
        assert answer.run.rules == "model"
        problem, allowed = _every_state(explainer, person.to_dict())
        rows = pd.DataFrame([{**person.to_dict(), **problem.describe(a.state)} for a in allowed], columns=list(DOMAIN))
        accepted = [a for a, ok in zip(allowed, _predicted(model, rows) == favourable) if ok] if allowed else []
        options = list(answer.counterfactuals)
        event("no option" if not options else f"{len(options)} of {k} option(s)")
        if not accepted:
            assert answer.status == "no_counterfactual", "an option where brute force finds none"
            _fewest_lifts_as_brute_force(explainer, person.to_dict(), answer.blocking, model, favourable)
            continue
        assert options, "no option where brute force finds one"
        if profile == "product":
            _distinct_as_brute_force(options, accepted, k)
        else:
            least = sorted(a.cost for a in accepted)[:k]
            assert [round(cf.cost, 9) for cf in options] == [round(c, 9) for c in least]


@tiered(3, 60, models(kinds=("logistic", "linear svm")), knowledge())
def test_what_would_open_a_way_out_on_a_linear_score_is_what_brute_force_finds(drawn, known) -> None:
    """A linear score's candidates stand for intervals, and each switch is mostly settled apart
    from the solver (its ceiling, or a state its best values make): for every person with no way
    out, the fewest protections whose lifting opens one, against brute force over the whole domain
    (an interval that ran past a held protection's bound once opened states that broke it)."""
    model, frame, favourable = drawn
    schema, causal = known
    if favourable == "1":
        schema = Schema("small", schema.features, "label", ("0", "1"), "0")
    explainer = MC3G(model, causal, schema=schema, desired_class=favourable, read_model="always", refine=0).fit(frame)
    settled = []
    apart = lifts._apart

    def counted(*args):
        found = yield from apart(*args)
        settled.append(found is not None)
        return found

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lifts, "_apart", counted)
        for _, person in EVERY[_predicted(model, EVERY) != favourable].sample(frac=1, random_state=0).iloc[:8].iterrows():
            answer = explainer.explain(person)
            if answer.status == "no_counterfactual":
                _fewest_lifts_as_brute_force(explainer, person.to_dict(), answer.blocking, model, favourable)
    event(f"{sum(settled)} of {len(settled)} settled apart" if settled else "no one kept out")


def test_a_held_bound_inside_a_linear_score_s_interval_keeps_what_it_opens_within_it() -> None:
    """x may rise by 10 from 0 and the model accepts x from 13: the lifted candidates stand for
    intervals (8 for 8 to 15), and a state x = 13 inside 8's broke the bound held: "no way out
    unless" nothing was said (before: the empty set; 13 of 300 adults under a logistic regression,
    and 57 of them with a set that does not open alone)."""
    rng = np.random.default_rng(0)
    x = rng.integers(0, 41, 600)
    frame = pd.DataFrame({"x": x, "z": rng.integers(0, 5, 600)})
    model = LogisticRegression(C=100.0, max_iter=2000).fit(frame, np.where(x >= 13, "yes", "no"))
    x = Feature("x", "numeric", range=(0, 40), step=1, direction="increase", max_change=10)
    features = (x, Feature("z", "numeric", range=(0, 4), step=1, immutable=True))
    explainer = MC3G(model, schema=Schema("one", features, "label", ("no", "yes"), "no"), desired_class="yes", refine=0).fit(frame)
    answer = explainer.explain({"x": 0, "z": 2})
    assert answer.status == "no_counterfactual" and answer.blocking == ((("x", "max_change"),),)
    assert answer.reasons[-1] == "No way out unless x could move by more than 10."


def test_with_only_training_values_a_held_bound_s_nearest_ones_are_the_cuts_not_values_never_seen() -> None:
    """x seen only at 0, 4, 9, 20, 25, 30 and 40, and may rise by 12 from 4; the model accepts x
    from 15.  Within the bound only 4 and 9 are seen: no way out.  Cut at the bound on the grid
    instead (16, a value never seen), the lifted problem opened a state within every protection
    (now a SearchError); cut at the nearest training values (9 and 20), lifting the bound opens x = 20."""
    rng = np.random.default_rng(0)
    x = rng.choice([0, 4, 9, 20, 25, 30, 40], 600)
    frame = pd.DataFrame({"x": x, "z": rng.integers(0, 5, 600)})
    model = LogisticRegression(C=100.0, max_iter=2000).fit(frame, np.where(x >= 20, "yes", "no"))
    features = (
        Feature("x", "numeric", range=(0, 40), step=1, direction="increase", max_change=12),
        Feature("z", "numeric", range=(0, 4), step=1, immutable=True),
    )
    explainer = MC3G(model, schema=Schema("one", features, "label", ("no", "yes"), "no"), desired_class="yes", refine=0, plausible=True).fit(frame)
    answer = explainer.explain({"x": 4, "z": 2})
    assert answer.status == "no_counterfactual" and answer.blocking == ((("x", "max_change"),),)
    assert answer.reasons[-1] == "No way out unless x could move by more than 12."


@tiered(2, 60, models(), knowledge(), st.integers(0, 10_000))
def test_the_ceiling_at_each_value_of_a_feature_bounds_every_state_holding_it(drawn, known, seed) -> None:
    """Score.ceilings against every state of a person's candidates (protections drawn, some
    immutable): no state's margin passes the ceiling of a value it holds, and none of those passes
    the ceiling over all; a proof that no state is accepted (refuses_at_each_value) holds of every
    state."""
    model, frame, favourable = drawn
    schema, _ = known
    if favourable == "1":
        schema = Schema("small", schema.features, "label", ("0", "1"), "0")
    explainer = MC3G(model, schema=schema, desired_class=favourable, read_model="always", refine=0).fit(frame)
    refused = EVERY[_predicted(model, EVERY) != favourable]
    person = refused.iloc[seed % len(refused)].to_dict()
    engine = explainer.engine_
    score = engine.read_problem(engine.instance(person), 1, {"x": X_VALUES, "y": Y_VALUES}).score
    grid = np.array(list(itertools.product(*(range(len(f.values)) for f in score.space.features))), dtype=np.intp)
    margins = score.margins(grid)
    for position, best in score.ceilings().items():
        held = np.full(len(best), -np.inf)
        np.maximum.at(held, grid[:, position], margins)
        assert (held <= best + 1e-9).all() and (best <= score.ceiling() + 1e-9).all()
    proved = score.refuses_at_each_value()
    assert not proved or (score.verdicts(grid) < 0).all()
    event("proved at each value" + ("" if score.refuses_every_state() else ", not by the ceiling") if proved else "not proved")


def _two_trees() -> GlassBox:
    """x <= 3 adds 1 in one tree, x > 5 in the other (each 1 where y <= 2, else 0.5), bias -1.5."""
    trees = Trees(
        feature=np.array([0, 1, -1, -1, -1, 0, -1, 1, -1, -1]), test=np.array([0, 0, 0, 0, 0, 1, 0, 0, 0, 0]),
        yes=np.array([1, 2, -1, -1, -1, 6, -1, 8, -1, -1]), no=np.array([4, 3, -1, -1, -1, 7, -1, 9, -1, -1]),
        value=np.array([0.0, 0.0, 1.0, 0.5, -1.0, 0.0, -1.0, 0.0, 1.0, 0.5]), roots=np.array([0, 5]),
    )  # fmt: skip
    return GlassBox("two trees", ("x", "y"), (Splits(cuts=np.array([3.0, 5.0])), Splits(cuts=np.array([2.0]))), trees, bias=-1.5, tolerance=1e-9)


def _space_of(values: dict[str, list]) -> CandidateSpace:
    features = [FeatureValues.of(Feature(name, "numeric", range=(0, 8), step=0.5), vs, {name: 1.0}) for name, vs in values.items()]
    return CandidateSpace(features, [Region((), {name: list(range(len(vs))) for name, vs in values.items()})], "exact", 1, 0)


def test_two_trees_whose_best_leaves_no_value_reaches_together_refuse_at_each_value() -> None:
    """The ceiling (both trees at their best) passes the decision, no value of x reaches both,
    so no state is accepted, proved at each value of x (before, only a solve of the person's own
    program proved it)."""
    score = Score.of(_two_trees(), _space_of({"x": X_VALUES, "y": Y_VALUES}))
    assert len(score.trees.roots) == 2 and not score.terms  # each tree reads both features: none is summed into terms
    assert score.ceiling() == pytest.approx(0.5) and not score.refuses_every_state()
    assert score.ceilings()[0].tolist() == pytest.approx([-1.5] * 4 + [-3.5] * 2 + [-1.5] * 3)
    assert score.refuses_at_each_value()


def test_a_tree_that_reads_one_feature_of_a_person_s_candidates_is_summed_into_its_terms() -> None:
    """With y held at one value, each tree reads x alone: both become one term per candidate of
    x, the solver gets no node of them, the margins stay the model's on every state, and the
    ceiling is the best value of x itself, so no program is needed to prove no state accepted."""
    box = _two_trees()
    for y in ([1.0], [1.0, 2.5]):  # y fixed (both trees fold), or free (neither does)
        space = _space_of({"x": X_VALUES, "y": y})
        score = Score.of(box, space)
        grid = np.array(list(itertools.product(range(len(X_VALUES)), range(len(y)))), dtype=np.intp)
        columns = {"x": [X_VALUES[i] for i in grid[:, 0]], "y": [y[j] for j in grid[:, 1]]}
        assert score.margins(grid) == pytest.approx(box.margins(columns))
        assert (len(score.trees.roots), sorted(score.terms)) == ((0, [0]) if len(y) == 1 else (2, []))
        assert score.refuses_every_state() == (len(y) == 1)  # the best of x: 0, the bias -1.5
    program = Program(Problem(_space_of({"x": X_VALUES, "y": [1.0]}), [], CausalModel(), "derived", model=box)).facts()
    assert "node(" not in program and "term(" in program


def _fewest_lifts_as_brute_force(explainer: MC3G, person: dict, blocking, model, favourable: str, inside_property: bool = True) -> None:
    """What would open a way out, against every set of protections lifted over the whole domain:
    each set reported is of the fewest that let the model accept a state, every such set is
    reported when there are at most MOST_SETS, and none is reported when no lifting opens one."""
    engine = explainer.engine_
    instance = engine.instance(person)
    protections = engine.protections_in_play()
    names = list(engine._read_names)

    def opens(lifted: tuple[tuple[str, str], ...]) -> bool:
        features = [replace(f, **{s: PROTECTIONS[s].free for n, s in lifted if n == f.name}) for f in map(engine.schema.feature, names)]
        problem = engine._read(features, instance, 1, {"x": X_VALUES, "y": Y_VALUES})
        states = [a.state for a in map(problem.assess, itertools.product(*(range(len(f.values)) for f in problem.space.features))) if a is not None]
        rows = pd.DataFrame([{**person, **problem.describe(state)} for state in states], columns=list(DOMAIN))
        return bool(states) and bool((_predicted(model, rows) == favourable).any())

    for size in range(len(protections) + 1):
        fewest = [set(unit) for unit in itertools.combinations(protections, size) if opens(unit)]
        if fewest:
            break
    assert blocking is not None, "what would open a way out was not determined"
    reported = [set(unit) for unit in blocking]
    if inside_property:
        event(f"{len(fewest)} fewest set(s) of {size}" if fewest else "no lifting opens one")
    assert all(unit in fewest for unit in reported), (reported, fewest)
    assert len(reported) == min(len(fewest), MOST_SETS), (reported, fewest)


def _distinct_as_brute_force(options, accepted, k) -> None:
    """Each option is the least-cost accepted state of its action set, none contains an earlier
    option's set, and every set cheaper than the K-th option contains a chosen one that costs no more."""
    least: dict[frozenset, float] = {}
    for a in accepted:
        actions = frozenset(a.direct)
        least[actions] = min(least.get(actions, a.cost), a.cost)
    chosen = [(frozenset(d.feature for d in cf.direct_actions), cf.cost) for cf in options]
    assert [c for _, c in chosen] == sorted(c for _, c in chosen)
    for i, (actions, cost) in enumerate(chosen):
        assert cost == pytest.approx(least[actions], abs=1e-9)
        assert not any(actions >= earlier for earlier, _ in chosen[:i])
    bar = chosen[-1][1] if len(chosen) == k else None
    for actions, cost in least.items():
        if bar is None or cost < bar - 1e-9:
            assert any(actions >= other and c <= cost + 1e-9 for other, c in chosen), (actions, cost, chosen)


def _fitted(kind: str, seed: int = 3):
    frame, labels = _train(seed)
    encode = ColumnTransformer([("c", OneHotEncoder(sparse_output=False), ["c", "d"]), ("n", StandardScaler(), ["x", "y"])])
    return make_pipeline(encode, _estimator(kind, seed) if kind in KINDS else MLPClassifier((8,), max_iter=500, random_state=0)).fit(frame, labels), frame


@pytest.mark.slow
def test_a_model_that_cannot_be_read_is_searched_through_its_surrogate_and_says_why() -> None:
    model, frame = _fitted("mlp")
    with pytest.raises(InputError, match="cannot be read exactly: .*MLPClassifier"):
        MC3G(model, desired_class="yes", read_model="always", refine=0).fit(frame)
    explainer = MC3G(model, desired_class="yes", refine=0).fit(frame)
    assert explainer.engine_.glass is None and "MLPClassifier" in explainer.engine_.opaque
    person = EVERY[_predicted(model, EVERY) == "no"].iloc[0]
    assert explainer.explain(person).run.rules != "model"


def test_adaboost_s_vote_and_bagged_trees_are_read_as_their_own_scores_and_one_of_other_estimators_says_why() -> None:
    """AdaBoost's margin is its decision function and bagged trees' the share of their votes
    past one half, state by state; an AdaBoost of logistic regressions is not one of trees."""
    frame, labels = _train(5)
    for kind, score in (
        ("adaboost", lambda m: m.decision_function(EVERY[list(DOMAIN)])),
        ("bagging", lambda m: m.predict_proba(EVERY[list(DOMAIN)])[:, 1] * 8 - 4),
    ):
        model, frame = _fitted(kind, 5)
        glass = MC3G(model, desired_class="yes", read_model="always", refine=0).fit(frame).engine_.glass
        assert glass.kind == {"adaboost": "AdaBoostClassifier", "bagging": "BaggingClassifier"}[kind]
        assert np.allclose(glass.margins({f: EVERY[f].tolist() for f in glass.features}), score(model), atol=1e-9)
    voted = make_pipeline(OneHotEncoder(handle_unknown="ignore"), AdaBoostClassifier(LogisticRegression(), n_estimators=3)).fit(frame[["c", "d"]], labels)
    with pytest.raises(InputError, match="AdaBoostClassifier combines LogisticRegression"):
        MC3G(voted, desired_class="yes", read_model="always", refine=0).fit(frame[["c", "d"]])


@pytest.mark.parametrize("encode", ["onehot", "ordinal"])
def test_a_scorecard_s_bins_are_read_as_steps_even_those_no_training_value_falls_in(encode: str) -> None:
    """A logistic regression over a discretizer's bins of the numbers (a credit scorecard): its
    margin is its decision function on every state, the bins of x between 2 and 6, where no
    training value falls, included; a tree over one-hot bins reads each bin as a stretch of the
    number (before: not read, "falls as it rises")."""
    frame, labels = _train(7)
    sparse = frame[frame["x"].isin([0, 1, 8])].reset_index(drop=True)
    bins = KBinsDiscretizer(n_bins=4, encode=encode, strategy="uniform")  # x's edges 2, 4 and 6
    encode_all = ColumnTransformer([("c", OneHotEncoder(sparse_output=False), ["c", "d"]), ("bins", bins, ["x", "y"])])
    model = make_pipeline(encode_all, LogisticRegression(C=100.0)).fit(sparse, labels[sparse.index])
    glass = MC3G(model, desired_class="yes", read_model="always", refine=0).fit(sparse).engine_.glass
    assert np.allclose(glass.margins({f: EVERY[f].tolist() for f in glass.features}), model.decision_function(EVERY[list(DOMAIN)]), atol=1e-9)
    cuts = glass.splits[glass.features.index("x")].cuts
    assert np.array_equal(cuts, np.nextafter([2.0, 4.0, 6.0], -np.inf))  # the last value of each bin but the last: below its edge
    tree = make_pipeline(encode_all, DecisionTreeClassifier(max_depth=4, random_state=0)).fit(sparse, labels[sparse.index])
    glass = _read_as_predict_runs(tree, sparse)
    if encode == "onehot":  # a bin's column is 1 on a stretch of the number: a test with a hole
        assert any(split.holes is not None for split in glass.splits)


@pytest.mark.slow
def test_a_tree_model_is_read_by_default_and_asked_once_a_person() -> None:
    model, frame = _fitted("forest")
    explainer = MC3G(model, desired_class="yes", k=2, refine=0).fit(frame)
    assert explainer.engine_.glass is not None and MC3G(model, desired_class="yes", read_model="never", refine=0).fit(frame).engine_.glass is None
    for _, person in EVERY[_predicted(model, EVERY) == "no"].iloc[:5].iterrows():
        answer = explainer.explain(person)
        assert answer.run.rules == "model" and answer.run.model_rounds == 1


@pytest.mark.slow
def test_a_model_whose_predict_differs_from_its_reading_is_an_error_naming_the_row() -> None:
    model, frame = _fitted("boosting")
    explainer = MC3G(model, desired_class="yes", refine=0).fit(frame)
    person = EVERY[_predicted(model, EVERY) == "no"].iloc[0]
    estimator = model[-1]  # the model now refuses everyone, however its input is built (a frame, or arrays: Encoded)
    estimator.predict = lambda X: np.full(X.shape[0], "no")
    with pytest.raises(ReadingError, match="the model refuses the row x = "):
        explainer.explain(person)


@pytest.mark.slow
def test_no_way_out_is_proved_on_the_model_itself() -> None:
    model, frame = _fitted("tree")
    immutable = Schema("small", tuple(Feature(n, "numeric" if n in "xy" else "categorical", immutable=True) for n in DOMAIN), "label", ("no", "yes"), "no")
    explainer = MC3G(model, schema=immutable, desired_class="yes", refine=0).fit(frame)
    answer = explainer.explain(EVERY[_predicted(model, EVERY) == "no"].iloc[0])
    assert answer.status == "no_counterfactual" and answer.run.rules == "model" and answer.run.model_rounds == 1
    assert "proved on its own decision read exactly" in answer.reasons[0]


@pytest.mark.slow
def test_a_proved_no_way_out_names_the_fewest_protections_whose_lifting_opens_one() -> None:
    """A model that accepts only people with d = q (and x high): with d immutable and x bounded,
    the person has no way out, and lifting d's immutability alone would open one; the answer
    says so, and lifting nothing more is asked."""
    frame, model, features = _only_where_d_is_q()
    explainer = MC3G(model, schema=Schema("small", features, "label", ("no", "yes"), "no"), desired_class="yes", refine=0).fit(frame)
    kept_out = explainer.explain({"x": 5, "y": 1.0, "c": "a", "d": "p"})
    assert kept_out.status == "no_counterfactual" and kept_out.run.guarantee == "exact"
    assert kept_out.blocking == ((("d", "immutable"),),)
    assert kept_out.reasons[-1] == "No way out unless d could change."
    both = explainer.explain({"x": 2, "y": 1.0, "c": "a", "d": "p"})  # x cannot fall, and need not: d alone opens it, x then rises
    assert both.blocking == ((("d", "immutable"),),)
    document = kept_out.to_dict()
    RECOURSE.validate(document)
    assert Recourse.from_dict(document).blocking == kept_out.blocking
    guarded = MC3G(
        model, schema=Schema("small", (*features[:3], replace(features[3], protected=True)), "label", ("no", "yes"), "no"), desired_class="yes", refine=0
    )
    hidden = guarded.fit(frame).explain({"x": 5, "y": 1.0, "c": "a", "d": "p"})  # d a protected characteristic: the lender reads it, the applicant not
    assert hidden.blocking == kept_out.blocking and hidden.reasons[-1] == "No way out within what advice may change."
    engine = explainer.engine_
    instance = engine.instance({"x": 5, "y": 1.0, "c": "a", "d": "p"}, "the person")
    assert _driven(blocking(engine, {"x": 5, "y": 1.0, "c": "a", "d": "p"}, instance, conflicts=0), model)[0] is None  # out of conflicts first: not determined
    opened, _ = _driven(blocking(engine, {"x": 5, "y": 1.0, "c": "a", "d": "p"}, instance), model)
    assert [[lift.key for lift in unit] for unit in opened or ()] == [["d:immutable"]]


def test_a_way_out_within_every_protection_found_after_none_was_proved_is_an_error_naming_the_row(monkeypatch) -> None:
    """Were what would open a way out to find a state within every protection (the empty set),
    the proof of no way out and that search would disagree: an error naming the row, never the
    answer "No way out unless ." (before, the words went out with the empty set)."""
    frame, model, features = _only_where_d_is_q()
    explainer = MC3G(model, schema=Schema("small", features, "label", ("no", "yes"), "no"), desired_class="yes", refine=0).fit(frame)

    def none_needed(*_):
        return [()]
        yield

    monkeypatch.setattr(exact, "openings", none_needed)
    with pytest.raises(SearchError, match=r"no way out was proved for the row x = 5.*d = 'p'.*the two searches disagree"):
        explainer.explain({"x": 5, "y": 1.0, "c": "a", "d": "p"})


def test_where_no_single_protection_opens_a_way_out_the_fewest_two_are_found() -> None:
    """A tree that accepts only c = b with d = q, both immutable: no set of one opens a way out
    (the search tries every one at once first), so the fewest are searched for, and both are
    named together."""
    frame = EVERY.sample(400, replace=True, random_state=0).reset_index(drop=True)
    labels = np.where((frame["c"] == "b") & (frame["d"] == "q"), "yes", "no")
    encode = ColumnTransformer([("c", OneHotEncoder(sparse_output=False), ["c", "d"])], remainder="passthrough")
    model = make_pipeline(encode, DecisionTreeClassifier(random_state=0)).fit(frame, labels)
    features = (
        Feature("x", "numeric", range=(0, 8), step=1),
        Feature("y", "numeric", range=(0, 3), step=0.5),
        Feature("c", "categorical", domain=("a", "b", "c"), immutable=True),
        Feature("d", "categorical", domain=("p", "q"), immutable=True),
    )
    explainer = MC3G(model, schema=Schema("small", features, "label", ("no", "yes"), "no"), desired_class="yes", refine=0).fit(frame)
    person = {"x": 5, "y": 1.0, "c": "a", "d": "p"}
    answer = explainer.explain(person)
    assert answer.status == "no_counterfactual" and answer.blocking == ((("c", "immutable"), ("d", "immutable")),)
    _fewest_lifts_as_brute_force(explainer, person, answer.blocking, model, "yes", inside_property=False)


def _only_where_d_is_q() -> tuple[pd.DataFrame, Any, tuple[Feature, ...]]:
    """A tree that accepts only people with d = q (and x high), its training rows, and features
    where d is immutable and x only rises."""
    frame = EVERY.sample(300, replace=True, random_state=0).reset_index(drop=True)
    labels = np.where((frame["d"] == "q") & (frame["x"] >= 4), "yes", "no")
    encode = ColumnTransformer([("c", OneHotEncoder(sparse_output=False), ["c", "d"])], remainder="passthrough")
    model = make_pipeline(encode, DecisionTreeClassifier()).fit(frame, labels)
    features = (
        Feature("x", "numeric", range=(0, 8), step=1, direction="increase"),
        Feature("y", "numeric", range=(0, 3), step=0.5),
        Feature("c", "categorical", domain=("a", "b", "c")),
        Feature("d", "categorical", domain=("p", "q"), immutable=True),
    )
    return frame, model, features


def test_a_person_the_trees_refuse_even_each_at_its_best_leaf_is_answered_without_a_solve(monkeypatch) -> None:
    """With d = p immutable, no leaf the tree can reach accepts: "no option" is proved by the
    score's ceiling alone, no program of the person's written, grounded or solved (before, one
    was, about 20 ms of a precluded adult's own work)."""
    frame, model, features = _only_where_d_is_q()
    explainer = MC3G(model, schema=Schema("small", features, "label", ("no", "yes"), "no"), desired_class="yes", refine=0).fit(frame)

    def unwanted(*args: Any) -> None:
        raise AssertionError("a solve was started")

    monkeypatch.setattr(exact, "StateStream", unwanted)
    answer = explainer.explain({"x": 5, "y": 1.0, "c": "a", "d": "p"})
    assert answer.status == "no_counterfactual" and answer.run.guarantee == "exact" and answer.run.model_rounds == 1
    assert answer.blocking == ((("d", "immutable"),),)


def _driven(asking, model):
    """Run a generator that asks the model rows (its verdicts sent back: True where refused)."""
    try:
        rows = next(asking)
        while True:
            rows = asking.send(list(_predicted(model, pd.DataFrame(list(rows))) == "no"))
    except StopIteration as done:
        return done.value


def test_a_state_only_the_model_can_tell_opens_a_way_out_only_if_the_model_accepts_it() -> None:
    """A tree whose leaf is a tie (probability 0.5, which predict refuses): the states it reaches
    are asked of the model.  Before, such a state opened a way out by itself, and a person the
    model refuses everywhere was told nothing need be lifted (an empty set)."""
    frame, labels = _train(155)
    encode = ColumnTransformer([("categories", OrdinalEncoder(), ["c"]), ("numbers", StandardScaler(), ["x", "y"])], remainder="drop")
    model = make_pipeline(encode, DecisionTreeClassifier(max_depth=5, random_state=155)).fit(frame, labels)
    features = (
        Feature("x", "numeric", range=(0, 8), step=1),
        Feature("y", "numeric", range=(0, 3), step=0.5, immutable=True),
        Feature("c", "categorical", domain=("a", "b", "c")),
        Feature("d", "categorical", domain=("p", "q")),
    )
    explainer = MC3G(model, schema=Schema("small", features, "label", ("no", "yes"), "no"), desired_class="yes", read_model="always", refine=0).fit(frame)
    person = {"x": 3, "y": 2.0, "c": "c", "d": "p"}
    answer = explainer.explain(person)
    assert answer.status == "no_counterfactual" and answer.blocking == ((("y", "immutable"),),)
    assert answer.run.model_rounds > 1  # the confirmation, and the ties asked
    _fewest_lifts_as_brute_force(explainer, person, answer.blocking, model, "yes", inside_property=False)


def test_the_search_for_what_opens_a_way_out_stops_when_its_conflicts_run_out() -> None:
    """Nine pigeons in eight holes: no proof within 50 conflicts, so nothing is settled; with
    the conflicts to spare, the proof that no state exists."""
    control = clingo.Control(["--warn=none"])
    control.add("base", [], "p(1..9). h(1..8). 1 { in(P,H) : h(H) } 1 :- p(P). :- in(P,H), in(Q,H), P < Q. #show.")
    control.ground([("base", [])])
    control.configuration.solve.solve_limit = "50"
    assert _fewest(control, SimpleNamespace(names=()), {}) == ([], False)
    assert _conflicts(control) == control.statistics["solving"]["solvers"]["conflicts"] == 50  # read alone, as the tree has it
    control.configuration.solve.solve_limit = "umax"
    assert _fewest(control, SimpleNamespace(names=()), {}) == ([], True)
    assert _conflicts(control) == control.statistics["solving"]["solvers"]["conflicts"] > 50


def test_a_category_s_codes_are_the_same_found_row_by_row_or_once_per_distinct_value() -> None:
    """Past FACTORIZED values, a category's codes are found once per distinct value: the same
    codes as one by one, a value outside the domain and a missing one -1."""
    from mc3g.glassbox.box import FACTORIZED, Splits

    split = Splits(members=np.zeros((1, 3), dtype=bool), domain=("a", "b", "True"))
    few = ["b", "a", "z", True, None, float("nan"), "True"]
    many = few * (FACTORIZED // len(few) + 2)
    assert len(many) >= FACTORIZED
    assert split.codes(few).tolist() == [1, 0, -1, 2, -1, -1, 2]
    assert split.codes(many).tolist() == split.codes(few).tolist() * (len(many) // len(few))


def test_a_person_the_model_accepts_has_no_search_written(monkeypatch) -> None:
    """A person the model read exactly accepts is answered from the decision alone: no problem
    of theirs is written (before, each one was, about 3 ms of every accepted row of a batch)."""
    frame, model, features = _only_where_d_is_q()
    explainer = MC3G(model, schema=Schema("small", features, "label", ("no", "yes"), "no"), desired_class="yes", refine=0).fit(frame)

    def unwanted(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a problem was written")

    monkeypatch.setattr(type(explainer.engine_), "read_problem", unwanted)
    answer = explainer.explain({"x": 6, "y": 1.0, "c": "a", "d": "q"})
    assert answer.status == "not_refused" and answer.run.model_rounds == 1


@pytest.mark.parametrize("kind", NATIVE)
def test_a_booster_s_own_split_of_a_category_is_read_for_codes_it_never_saw_negative_and_missing(kind: str) -> None:
    """The codes a booster meets outside its training categories (one it never saw, a negative
    one an encoder gives an unknown value, a missing one) take the branch its own prediction
    sends them: the sum of the leaves read is its raw score less one constant."""
    import xgboost

    rng = np.random.default_rng(0)
    codes, x = rng.integers(0, 4, 600).astype(float), rng.normal(size=600)
    labels = (codes == 0) * 1.5 - (codes == 3) + x + rng.normal(scale=0.3, size=600) > 0.5
    estimator = _told_categories(kind, _estimator(kind, 0), 1, numbers=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        estimator.fit(np.column_stack([codes, x]), labels.astype(int))
        raw = {
            "histogram": lambda Z: estimator.decision_function(Z),
            "lightgbm": lambda Z: estimator.booster_.predict(Z, raw_score=True),
            "xgboost": lambda Z: estimator.get_booster().predict(xgboost.DMatrix(Z, feature_types=["c", "q"], enable_categorical=True), output_margin=True),
        }[kind]
        trees = read_estimator(estimator).trees
        asked = np.array([[c, x] for c in (0, 1, 2, 3, 7, -1, np.nan) for x in (-1.0, 0.3, 2.0)])
        gaps = raw(asked) - trees.scores(asked)
    assert trees.set_of is not None and (trees.set_of >= 0).any()  # it did split the category itself
    assert np.ptp(gaps) < 1e-5  # XGBoost sums its leaves in float32; a code sent the wrong way moves a leaf's worth


@pytest.mark.parametrize("kind", ["lightgbm", "xgboost"])
def test_a_booster_fitted_on_pandas_categories_is_read_and_asked_from_a_frame_of_text(kind: str) -> None:
    """LightGBM and XGBoost refuse text where they were fitted on pandas categories; a lender's
    file is read as text: its columns are made categories again, and the model is read exactly."""
    frame, labels = _train(5)
    model = _told_categories(kind, _estimator(kind, 5), None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(frame.astype(CATEGORIES), (labels == "yes").astype(int))
    explainer = MC3G(model, desired_class="1", read_model="always", refine=0).fit(frame)  # text, as read from a file
    person = EVERY[_predicted(model, EVERY) == "0"].iloc[0]
    answer = explainer.explain(person.to_dict())
    assert answer.run.guarantee == "exact" and answer.counterfactuals
    options = pd.DataFrame([{**person.to_dict(), **cf.values} for cf in answer.counterfactuals])
    assert (_predicted(model, options) == "1").all()


@pytest.mark.parametrize("kind", ["logistic", "histogram"])
@pytest.mark.parametrize("step", ["selection", "target encoder"])
def test_a_feature_selection_or_a_target_encoder_is_read_through(kind: str, step: str) -> None:
    """A lender's pipeline often keeps the best of the encoded columns (``SelectKBest``) or drops
    constant ones (``VarianceThreshold``), or codes a category by its share of each label
    (``TargetEncoder``): each column is still one raw feature's, so the model is read as it is
    (before, such a pipeline was searched through its surrogate)."""
    frame, labels = _train(9)
    categories = OneHotEncoder(sparse_output=False) if step == "selection" else TargetEncoder(cv=KFold(5))
    encode = ColumnTransformer([("categories", categories, ["c", "d"]), ("numbers", StandardScaler(), ["x", "y"])])
    selected = [VarianceThreshold(), SelectKBest(k=4)] if step == "selection" else []
    model = make_pipeline(encode, *selected, _estimator(kind, 9)).fit(frame, labels)
    _read_as_predict_runs(model, frame)


@pytest.mark.parametrize("kind", ["ridge", "cross-validated logistic"])
def test_a_ridge_classifier_and_a_cross_validated_logistic_regression_behind_a_threshold_are_read(kind: str) -> None:
    """A ridge classifier of two classes keeps its weights in one flat row (before: not read);
    a cross-validated logistic regression gives a logistic probability, so a lender's threshold
    on it is read (before: "no logistic probability")."""
    frame, labels = _train(12)
    encode = ColumnTransformer([("categories", OneHotEncoder(sparse_output=False), ["c", "d"]), ("numbers", StandardScaler(), ["x", "y"])])
    if kind == "ridge":
        model = make_pipeline(encode, RidgeClassifier())
    else:
        regression = LogisticRegressionCV(cv=3, l1_ratios=(0.0,), scoring="neg_log_loss", use_legacy_attributes=False)
        model = FixedThresholdClassifier(make_pipeline(encode, regression), threshold=0.35, response_method="predict_proba")
    model.fit(frame, labels)
    _read_as_predict_runs(model, frame)


def test_a_model_of_pipelines_says_it_is_not_read_as_what_it_is() -> None:
    """A vote of two pipelines takes the raw frame, text and all: the reason it is not read names
    it (before: the reading tried to make the text numbers first, and said that had failed)."""
    frame, labels = _train(11)
    encode = ColumnTransformer([("categories", OneHotEncoder(sparse_output=False), ["c", "d"]), ("numbers", StandardScaler(), ["x", "y"])])
    vote = VotingClassifier([("a", make_pipeline(encode, LogisticRegression())), ("b", make_pipeline(clone(encode), DecisionTreeClassifier(max_depth=3)))])
    with pytest.raises(InputError, match="not a VotingClassifier"):
        MC3G(vote.fit(frame, labels), desired_class="yes", read_model="always", refine=0).fit(frame)


@pytest.mark.parametrize("where", ["around", "last step"])
def test_a_search_of_settings_is_read_as_the_best_model_it_refitted(where: str) -> None:
    """A lender often saves the ``GridSearchCV`` that chose their model's settings; it predicts
    with its best model, refitted, which is read (before: searched through its surrogate)."""
    frame, labels = _train(10)
    encode = ColumnTransformer([("categories", OneHotEncoder(sparse_output=False), ["c", "d"]), ("numbers", StandardScaler(), ["x", "y"])])
    if where == "around":
        model = GridSearchCV(make_pipeline(encode, LogisticRegression()), {"logisticregression__C": [0.1, 10.0]}, cv=3)
    else:
        model = make_pipeline(encode, GridSearchCV(_estimator("forest", 10), {"max_depth": [3, 5]}, cv=3))
    model.fit(frame, labels)
    _read_as_predict_runs(model, frame)


@pytest.mark.parametrize("numbers", ["passthrough", "minmax", "standard"])
def test_xgboost_fed_a_sparse_matrix_reads_its_zeros_as_missing_and_is_read_so(numbers: str) -> None:
    """A default one-hot encoder makes a sparse matrix, and XGBoost reads every entry it leaves
    out (every 0) as missing, sending it the way a node sends a missing value: a category's
    columns, and a number where its column is 0 (x = 0 passed through, its least scaled to 0).
    Before, the reading compared 0 with the thresholds and disagreed with predict."""
    from xgboost import XGBClassifier

    frame, labels = _train(8)
    scaler = {"passthrough": "passthrough", "minmax": MinMaxScaler(), "standard": StandardScaler()}[numbers]
    encode = ColumnTransformer([("categories", OneHotEncoder(handle_unknown="ignore"), ["c", "d"]), ("numbers", scaler, ["x", "y"])], sparse_threshold=1.0)
    model = make_pipeline(encode, XGBClassifier(n_estimators=30, max_depth=3, n_jobs=1, random_state=8)).fit(frame, (labels == "yes").astype(int))
    glass = _read_as_predict_runs(model, frame, "1")
    if numbers != "standard":  # x = 0 is a column of 0 where it is not scaled to a mean
        assert any(split.holes is not None for split in glass.splits)


@pytest.mark.parametrize("kind", ["lightgbm", "xgboost"])
@pytest.mark.parametrize("ensemble", [False, True])
def test_a_calibrated_booster_fitted_on_pandas_categories_is_asked_from_a_frame_of_text(kind: str, ensemble: bool) -> None:
    """A calibration's boosters were fitted on pandas categories as a lone booster is: a
    lender's file of text is made categories for them too (it was not: the calibration was
    asked with text, and LightGBM and XGBoost refused it).  One calibration is read exactly;
    an average of several is searched as a black box."""
    frame, labels = _train(7)
    booster = _told_categories(kind, _estimator(kind, 7), None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = CalibratedClassifierCV(booster, method="sigmoid", cv=3, ensemble=ensemble).fit(frame.astype(CATEGORIES), (labels == "yes").astype(int))
    explainer = MC3G(model, desired_class="1", refine=0).fit(frame)  # text, as read from a file
    people = EVERY.iloc[::9]
    refused = explainer.refuses(people)
    assert refused.tolist() == (_predicted(model, people) == "0").tolist()
    answer = explainer.explain(people[refused].iloc[0].to_dict())
    assert answer.run.guarantee == ("surrogate" if ensemble else "exact")
    options = pd.DataFrame([{**people[refused].iloc[0].to_dict(), **cf.values} for cf in answer.counterfactuals])
    assert len(options) and (_predicted(model, options) == "1").all()


def test_a_pipeline_in_the_last_step_of_a_pipeline_is_read_as_predict_runs_them() -> None:
    frame, labels = _train(2)
    encode = ColumnTransformer([("categories", OneHotEncoder(sparse_output=False), ["c", "d"]), ("numbers", "passthrough", ["x", "y"])])
    model = make_pipeline(encode, make_pipeline(StandardScaler(), HistGradientBoostingClassifier(max_iter=10, random_state=2))).fit(frame, labels)
    glass = MC3G(model, desired_class="yes", read_model="always", refine=0).fit(frame).engine_.glass
    verdicts = glass.verdicts(glass.margins({f: EVERY[f].tolist() for f in glass.features}))
    accepted = _predicted(model, EVERY) == "yes"
    assert not ((verdicts > 0) & ~accepted).any() and not ((verdicts < 0) & accepted).any()


def _calibrated(method: str, threshold: float | None = None, seed: int = 4, estimator: Any = None):
    """An ``estimator`` (by default a histogram boosting) fitted first, calibrated by
    ``method``, behind a lender's ``threshold`` on the calibrated probability (None: none)."""
    frame, labels = _train(seed)
    encode = ColumnTransformer([("categories", OneHotEncoder(sparse_output=False), ["c", "d"]), ("numbers", "passthrough", ["x", "y"])])
    estimator = HistGradientBoostingClassifier(max_iter=10, random_state=seed) if estimator is None else estimator
    fitted = make_pipeline(encode, estimator).fit(frame, labels)
    model = CalibratedClassifierCV(FrozenEstimator(fitted), method=method).fit(frame, labels)
    if threshold is not None:
        model = FixedThresholdClassifier(model, threshold=threshold, response_method="predict_proba").fit(frame, labels)
    return model, fitted, frame, labels


@pytest.mark.parametrize(("method", "threshold"), [("sigmoid", None), ("isotonic", None), ("sigmoid", 0.35), ("isotonic", 0.65)])
def test_a_calibration_by_one_sigmoid_or_one_isotonic_fit_is_read_behind_a_lender_s_threshold_or_none(method: str, threshold: float | None) -> None:
    model, _, frame, _ = _calibrated(method, threshold)
    _read_as_predict_runs(model, frame)


def test_a_calibration_that_averages_several_or_falls_as_the_score_rises_says_why_it_is_not_read() -> None:
    _, fitted, frame, labels = _calibrated("sigmoid")
    averaged = CalibratedClassifierCV(fitted, method="sigmoid", cv=3).fit(frame, labels)
    with pytest.raises(InputError, match="averages 3 calibrated models"):
        MC3G(averaged, desired_class="yes", read_model="always", refine=0).fit(frame)
    falling = CalibratedClassifierCV(FrozenEstimator(fitted), method="sigmoid").fit(frame, np.where(labels == "yes", "no", "yes"))
    with pytest.raises(InputError, match="does not rise with the model's score"):
        MC3G(falling, desired_class="yes", read_model="always", refine=0).fit(frame)


@pytest.mark.parametrize("method", ["sigmoid", "isotonic"])
def test_a_margin_on_a_calibrated_probability_is_where_the_calibrated_probability_clears_it(method: str) -> None:
    """The headroom an option's margin must clear is on the calibrated probability, not on the
    forest's own (where it was, for a calibration by one sigmoid, before: 29 states misjudged)."""
    model, _, frame, _ = _calibrated(method, seed=0, estimator=RandomForestClassifier(n_estimators=10, max_depth=4, random_state=0))
    glass = MC3G(model, desired_class="yes", read_model="always", refine=0, margin=0.1).fit(frame).engine_.glass.for_options()
    verdicts = glass.verdicts(glass.margins({f: EVERY[f].tolist() for f in glass.features}))
    clears = model.predict_proba(EVERY[list(DOMAIN)])[:, list(model.classes_).index("yes")] >= 0.6
    assert clears.any() and not clears.all()
    assert not ((verdicts > 0) & ~clears).any() and not ((verdicts < 0) & clears).any()


def test_an_isotonic_fit_flat_at_one_half_turns_the_decision_at_the_end_of_the_flat_stretch() -> None:
    """Where the calibrated probability is exactly one half over a stretch, predict gives the
    first class there (the likelier, the first on a tie) and a lender's threshold of one half the
    second: the two cuts are the stretch's two ends, found on the calibrator itself."""
    flat = IsotonicRegression(out_of_bounds="clip").fit([0.0, 1.0, 2.0, 3.0], [0.0, 0.5, 0.5, 1.0])
    calibration = Calibration("isotonic", flat, "decision_function")
    assert calibration.turn(lambda second, first: second > first) == np.nextafter(2.0, 3.0)
    assert calibration.turn(lambda second, first: second >= 0.5) == 1.0
    assert calibration.turn(lambda second, first: second > 1.0) == math.inf
    assert calibration.turn(lambda second, first: second >= 0.0) == -math.inf


@pytest.mark.parametrize("kind", ["lightgbm", "xgboost"])
def test_a_booster_fitted_on_pandas_categories_is_asked_about_a_frame_of_text_after_fit(kind: str) -> None:
    """Not only at fit: which of a file's people it refuses, and their answers, asked with the
    file's frame of text as it is."""
    frame, labels = _train(6)
    model = _told_categories(kind, _estimator(kind, 6), None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(frame.astype(CATEGORIES), (labels == "yes").astype(int))
    explainer = MC3G(model, desired_class="1", refine=0).fit(frame)
    people = EVERY.iloc[::9]
    refused = explainer.refuses(people)
    assert refused.tolist() == (_predicted(model, people) == "0").tolist()
    answers = explainer.explain(people[refused].iloc[:3])
    assert all(a.run.guarantee == "exact" for a in answers)
