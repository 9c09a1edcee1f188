"""DiCE baseline (mc3g.baselines.dice) on a small synthetic table; skipped without dice-ml."""

from __future__ import annotations

import random
import time

import numpy as np
import pandas as pd
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

dice_ml = pytest.importorskip("dice_ml")

from conftest import Stalling  # noqa: E402

from mc3g.baselines.dice import DiceExplainer  # noqa: E402
from mc3g.exceptions import InputError  # noqa: E402
from mc3g.explain.result import NO_COUNTERFACTUAL, NOT_REFUSED, REFUSED, Recourse  # noqa: E402

CONTINUOUS = ["income", "years"]
METHODS = ["random", "genetic"]


def _table(categories: list) -> tuple[pd.DataFrame, np.ndarray]:
    """Two numeric columns and one categorical; approved when income + years + job bonus is high."""
    rng = np.random.default_rng(0)
    n = 400
    X = pd.DataFrame(
        {
            "income": rng.normal(50.0, 15.0, n).round(1),
            "years": rng.integers(0, 40, n),
            "job": rng.choice(categories, n),
        }
    )
    score = (X["income"] - 50) / 15 + (X["years"] - 20) / 12 + np.where(X["job"] == categories[0], 1.0, 0.0)
    return X, np.where(score > 0.5, "approved", "refused")


def _pipeline(classifier) -> Pipeline:
    encode = ColumnTransformer([("job", OneHotEncoder(), ["job"]), ("num", StandardScaler(), CONTINUOUS)])
    return Pipeline([("encode", encode), ("classify", classifier)])


@pytest.fixture(scope="module")
def setup() -> tuple[Pipeline, pd.DataFrame, pd.DataFrame]:
    """A logistic-regression pipeline, its training frame and some refused rows."""
    X, y = _table(["clerk", "engineer", "nurse"])
    model = _pipeline(LogisticRegression()).fit(X, y)
    return model, X, X[model.predict(X) == "refused"].head(5)


def _dice(model, X: pd.DataFrame, method: str = "random", **options) -> DiceExplainer:
    return DiceExplainer(model, continuous=CONTINUOUS, method=method, **options).fit(X)


def _frame(answer: Recourse, X: pd.DataFrame) -> pd.DataFrame:
    """The counterfactuals' values as a frame (dtypes inferred from the values)."""
    return pd.DataFrame([cf.values for cf in answer], columns=list(X.columns))


def _check_actions(answer: Recourse, X: pd.DataFrame) -> None:
    """Every changed feature is a direct action priced as MC3G's L1 term (training std units,
    categories 1); nothing is caused; cheapest first."""
    for cf in answer:
        changed = {c for c in X.columns if cf.values[c] != answer.instance[c]}
        assert {a.feature for a in cf.direct_actions} == changed and not cf.caused_changes
        for a in cf.direct_actions:
            expected = abs(a.after - a.before) / X[a.feature].std(ddof=1) if a.feature in CONTINUOUS else 1.0
            assert a.cost == pytest.approx(expected)
        assert cf.cost == pytest.approx(sum(a.cost for a in cf.direct_actions)) and cf.norm == "l1"
    assert [cf.cost for cf in answer] == sorted(cf.cost for cf in answer)


@pytest.mark.slow
@pytest.mark.parametrize("method", METHODS)
def test_counterfactuals_have_training_columns_and_dtypes_and_flip(setup, method) -> None:
    model, X, refused = setup
    answers = _dice(model, X, method, k=3).explain(refused)
    assert len(answers) == len(refused) and all(a.status == REFUSED and len(a) == 3 for a in answers)
    cfs = pd.concat([_frame(a, X) for a in answers], ignore_index=True)
    assert list(cfs.columns) == list(X.columns)
    assert cfs.dtypes.to_dict() == X.dtypes.to_dict()
    assert set(cfs["job"]) <= set(X["job"])
    # Both methods keep only candidates the model puts in the other class.
    assert (model.predict(cfs) == "approved").all()
    for answer in answers:
        _check_actions(answer, X)
        assert answer.run.method == f"dice_{method}" and answer.run.k == 3 and answer.run.search_seconds > 0


@pytest.mark.slow
@pytest.mark.parametrize("method", METHODS)
def test_same_seed_same_answer_and_global_generators_untouched(setup, method) -> None:
    model, X, refused = setup
    row = refused.iloc[0]
    random.seed(123)
    np.random.seed(123)
    before = (random.random(), np.random.random())
    random.seed(123)
    np.random.seed(123)
    first = _dice(model, X, method, seed=7, k=3).explain(row)
    second = _dice(model, X, method, seed=7, k=3).explain(row)
    assert (random.random(), np.random.random()) == before
    assert first.counterfactuals and first.counterfactuals == second.counterfactuals


@pytest.mark.parametrize("method", ["random", pytest.param("genetic", marks=pytest.mark.slow)])
def test_features_to_vary_is_respected(setup, method) -> None:
    model, X, refused = setup
    row = refused.iloc[0]
    answer = _dice(model, X, method, features_to_vary=["income", "job"], k=3).explain(row)
    cfs = _frame(answer, X)
    assert len(cfs) > 0
    assert (cfs["years"] == row["years"]).all()
    assert (model.predict(cfs) == "approved").all()


def test_permitted_range_bounds_the_search(setup) -> None:
    model, X, refused = setup
    row = refused.iloc[0]
    answer = _dice(model, X, features_to_vary=["income"], permitted_range={"income": [row["income"], 120.0]}, k=3).explain(row)
    cfs = _frame(answer, X)
    assert len(cfs) > 0
    assert cfs["income"].between(row["income"], 120.0).all()


@pytest.mark.slow
def test_integer_coded_categories_reach_the_model_as_integers() -> None:
    """DiCE turns categories into strings; a pipeline fitted on integer codes must get integers."""
    X, y = _table([1, 2, 3])
    model = _pipeline(RandomForestClassifier(n_estimators=30, random_state=0)).fit(X, y)
    row = X[model.predict(X) == "refused"].iloc[0]
    answer = _dice(model, X, k=3).explain(row)
    cfs = _frame(answer, X)
    assert len(cfs) > 0
    assert cfs["job"].dtype == X["job"].dtype
    assert set(cfs["job"]) <= {1, 2, 3}
    assert (model.predict(cfs) == "approved").all()
    _check_actions(answer, X)  # job is priced as a category (1), not by its codes


@pytest.mark.slow
def test_desired_class_is_a_label(setup) -> None:
    model, X, _ = setup
    approved = X[model.predict(X) == "approved"].iloc[0]
    answer = _dice(model, X, desired_class="refused", k=3).explain(approved)
    assert answer.status == REFUSED
    assert (model.predict(_frame(answer, X)) == "refused").all()
    # A row the model already gives the desired class needs nothing.
    settled = _dice(model, X, desired_class="approved").explain(approved)
    assert settled.status == NOT_REFUSED and not settled and "approved" in settled.reasons[0]
    with pytest.raises(ValueError, match="desired_class"):
        _dice(model, X, desired_class="maybe")


def test_no_counterfactual_gives_a_reason(setup) -> None:
    """Years alone cannot lift this row (DiCE raises 'No counterfactuals found')."""
    model, X, refused = setup
    row = refused.sort_values("income").iloc[0]
    answer = _dice(model, X, features_to_vary=["years"], permitted_range={"years": [0, 1]}, k=3).explain(row)
    assert answer.status == NO_COUNTERFACTUAL and not answer.counterfactuals
    assert "found no counterfactual" in answer.reasons[0]
    assert answer.instance == {c: row[c] for c in X.columns}


@pytest.mark.slow
@pytest.mark.parametrize("method", METHODS)
def test_timeout_stops_a_hanging_call(setup, method: str) -> None:
    model, X, refused = setup
    stalling = Stalling(model)
    explainer = _dice(stalling, X, method, timeout=1.0)
    stalling.stalled = True
    start = time.monotonic()
    answer = explainer.explain(refused.iloc[0])
    assert time.monotonic() - start < 5
    assert answer.status == NO_COUNTERFACTUAL and "timeout of 1.0 s" in answer.reasons[0]


@pytest.mark.slow
def test_dice_is_built_once_per_fit(setup, monkeypatch) -> None:
    model, X, refused = setup
    built = []
    real = dice_ml.Dice

    def counting(*args, **kwargs):
        built.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(dice_ml, "Dice", counting)
    explainer = DiceExplainer(model, continuous=CONTINUOUS)
    with pytest.raises(InputError, match="fit"):
        explainer.explain(refused.iloc[0])
    explainer.fit(X)
    explainer.explain(refused.head(3))
    explainer.explain(refused.iloc[0])
    assert len(built) == 1


def test_bad_method_is_refused(setup) -> None:
    model, X, _ = setup
    with pytest.raises(ValueError, match="method"):
        _dice(model, X, "kdtree")
