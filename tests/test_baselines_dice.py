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

pytest.importorskip("dice_ml")

from mc3g.baselines import dice
from mc3g.baselines.dice import DiceExplainer, dice_counterfactuals

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
def setup() -> tuple[Pipeline, pd.DataFrame, np.ndarray, pd.DataFrame]:
    """A logistic-regression pipeline, its training frame and predictions, and some refused rows."""
    X, y = _table(["clerk", "engineer", "nurse"])
    model = _pipeline(LogisticRegression()).fit(X, y)
    pred = model.predict(X)
    return model, X, pred, X[pred == "refused"].head(5)


@pytest.mark.parametrize("method", METHODS)
def test_counterfactuals_have_training_columns_and_dtypes_and_flip(setup, method) -> None:
    model, X, pred, refused = setup
    explainer = DiceExplainer(model, X, pred, CONTINUOUS, method)
    found = [explainer.counterfactuals(row, k=3, seed=0) for _, row in refused.iterrows()]
    cfs = pd.concat(found, ignore_index=True)
    assert list(cfs.columns) == list(X.columns)
    assert cfs.dtypes.to_dict() == X.dtypes.to_dict()
    assert all(len(f) == 3 for f in found)
    assert set(cfs["job"]) <= set(X["job"])
    # Both methods keep only candidates the model puts in the other class.
    assert (model.predict(cfs) == "approved").all()


@pytest.mark.parametrize("method", METHODS)
def test_same_seed_same_answer_and_global_generators_untouched(setup, method) -> None:
    model, X, pred, refused = setup
    row = refused.iloc[0]
    random.seed(123)
    np.random.seed(123)
    before = (random.random(), np.random.random())
    random.seed(123)
    np.random.seed(123)
    first = dice_counterfactuals(model, X, pred, row, continuous=CONTINUOUS, method=method, seed=7)
    second = dice_counterfactuals(model, X, pred, row, continuous=CONTINUOUS, method=method, seed=7)
    assert (random.random(), np.random.random()) == before
    pd.testing.assert_frame_equal(first, second)


@pytest.mark.parametrize("method", METHODS)
def test_features_to_vary_is_respected(setup, method) -> None:
    model, X, pred, refused = setup
    row = refused.iloc[0]
    cfs = dice_counterfactuals(model, X, pred, row, continuous=CONTINUOUS, method=method, features_to_vary=["income", "job"], seed=0)
    assert len(cfs) > 0
    assert (cfs["years"] == row["years"]).all()
    assert (model.predict(cfs) == "approved").all()


def test_permitted_range_bounds_the_search(setup) -> None:
    model, X, pred, refused = setup
    row = refused.iloc[0]
    cfs = dice_counterfactuals(
        model, X, pred, row, continuous=CONTINUOUS, method="random", features_to_vary=["income"], permitted_range={"income": [row["income"], 120.0]}
    )
    assert len(cfs) > 0
    assert cfs["income"].between(row["income"], 120.0).all()


def test_integer_coded_categories_reach_the_model_as_integers() -> None:
    """DiCE turns categories into strings; a pipeline fitted on integer codes must get integers."""
    X, y = _table([1, 2, 3])
    model = _pipeline(RandomForestClassifier(n_estimators=30, random_state=0)).fit(X, y)
    pred = model.predict(X)
    row = X[pred == "refused"].iloc[0]
    cfs = dice_counterfactuals(model, X, pred, row, continuous=CONTINUOUS, method="random", seed=0)
    assert len(cfs) > 0
    assert cfs["job"].dtype == X["job"].dtype
    assert set(cfs["job"]) <= {1, 2, 3}
    assert (model.predict(cfs) == "approved").all()


def test_desired_class_is_a_label(setup) -> None:
    model, X, pred, _ = setup
    approved = X[pred == "approved"].iloc[0]
    cfs = dice_counterfactuals(model, X, pred, approved, continuous=CONTINUOUS, method="random", desired_class="refused")
    assert len(cfs) > 0
    assert (model.predict(cfs) == "refused").all()
    with pytest.raises(ValueError, match="desired_class"):
        dice_counterfactuals(model, X, pred, approved, continuous=CONTINUOUS, desired_class="maybe")


def test_no_counterfactual_gives_an_empty_frame(setup) -> None:
    """Years alone cannot lift this row (DiCE raises 'No counterfactuals found'): empty, typed frame."""
    model, X, pred, refused = setup
    row = refused.sort_values("income").iloc[0]
    cfs = dice_counterfactuals(
        model, X, pred, row, continuous=CONTINUOUS, method="random", features_to_vary=["years"], permitted_range={"years": [0, 1]}, seed=0
    )
    assert cfs.empty
    assert list(cfs.columns) == list(X.columns)
    assert cfs.dtypes.to_dict() == X.dtypes.to_dict()


def test_timeout_stops_a_hanging_call(setup) -> None:
    """DiCE genetic loops forever looking for valid starting points when none exist."""
    model, X, pred, refused = setup
    row = refused.sort_values("income").iloc[0]
    start = time.monotonic()
    cfs = dice_counterfactuals(
        model, X, pred, row, continuous=CONTINUOUS, method="genetic", features_to_vary=["years"], permitted_range={"years": [0, 1]}, timeout=1.0
    )
    assert time.monotonic() - start < 5
    assert cfs.empty
    assert list(cfs.columns) == list(X.columns)


def test_explainer_is_cached_per_model_frame_and_method(setup) -> None:
    model, X, pred, refused = setup
    dice._cache.clear()
    for _, row in refused.head(3).iterrows():
        dice_counterfactuals(model, X, pred, row, continuous=CONTINUOUS, method="random")
    (random_explainer,) = dice._cache.values()
    dice_counterfactuals(model, X, pred, refused.iloc[0], continuous=CONTINUOUS, method="genetic")
    assert len(dice._cache) == 2
    assert dice._explainer(model, X, pred.copy(), CONTINUOUS, "random") is random_explainer
    # Other predictions for the same frame mean another DiCE setup.
    assert dice._explainer(model, X, pred[::-1].copy(), CONTINUOUS, "random") is not random_explainer


def test_bad_method_is_refused(setup) -> None:
    model, X, pred, _ = setup
    with pytest.raises(ValueError, match="method"):
        DiceExplainer(model, X, pred, CONTINUOUS, "kdtree")
