"""The Wachter baseline: hand-written gradients against finite differences, and counterfactuals that
flip the real model, stay decodable (ranges, integers, categories) and respect features_to_vary."""

from __future__ import annotations

import time
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import RandomForestClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import MinMaxScaler, OneHotEncoder, StandardScaler

from mc3g.baselines.wachter import SigmoidNetwork, WachterExplainer
from mc3g.exceptions import InputError
from mc3g.explain.result import NO_COUNTERFACTUAL, NOT_REFUSED, REFUSED, Recourse

JOBS = ("clerk", "manager", "worker")


@pytest.fixture(scope="module")
def data() -> tuple[pd.DataFrame, pd.Series]:
    """400 people: integral age, float income, a categorical job (all three matter) and a region
    the models never see."""
    rng = np.random.default_rng(0)
    n = 400
    age = rng.integers(18, 70, n)
    income = rng.normal(50.0, 15.0, n).round(2)
    job = rng.choice(JOBS, n)
    logit = 0.08 * (age - 40) + 0.1 * (income - 50) + np.select([job == "manager", job == "worker"], [1.5, -1.0], 0.0)
    y = pd.Series(np.where(rng.random(n) < expit(logit), "yes", "no"), name="label")
    X = pd.DataFrame({"age": age, "income": income, "job": job, "region": rng.choice(["north", "south"], n)})
    return X, y


def _pipeline(classifier, drop: str | None = None) -> Pipeline:
    ct = ColumnTransformer([("cat", OneHotEncoder(drop=drop), ["job"]), ("num", StandardScaler(), ["age", "income"])])
    return Pipeline([("pre", ct), ("clf", classifier)])


def _fit(model, X: pd.DataFrame, y: pd.Series):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return model.fit(X, y)


@pytest.fixture(scope="module")
def models(data) -> dict[str, Pipeline]:
    X, y = data
    return {
        "logistic": _fit(_pipeline(LogisticRegression()), X, y),
        "mlp": _fit(_pipeline(MLPClassifier(hidden_layer_sizes=(8,), random_state=0, max_iter=1000)), X, y),
    }


def _rows(model, X: pd.DataFrame, per_class: int = 4) -> list[pd.Series]:
    """A few rows of each predicted class, so that both directions of the flip are tried."""
    predicted = model.predict(X)
    return [X[predicted == c].iloc[i] for c in model.classes_ for i in range(per_class)]


def _predicted(model, X: pd.DataFrame, row: pd.Series) -> str:
    return model.predict(row.to_frame().T.astype(X.dtypes))[0]


@pytest.mark.slow
@pytest.mark.parametrize("activation", ["relu", "tanh", "logistic", "identity", None])
def test_network_matches_sklearn_and_finite_differences(data, activation) -> None:
    X, y = data
    classifier = LogisticRegression() if activation is None else MLPClassifier(hidden_layer_sizes=(8, 5), activation=activation, random_state=0, max_iter=500)
    model = _fit(_pipeline(classifier), X, y)
    network = SigmoidNetwork.from_estimator(model[-1])
    Z = model[0].transform(X.iloc[:30])
    assert np.allclose([network.probability(z) for z in Z], model.predict_proba(X.iloc[:30])[:, 1], atol=1e-12)

    rng = np.random.default_rng(1)
    eps = 1e-6
    for z in Z[:5] + rng.normal(0.0, 0.3, Z[:5].shape):
        p, grad = network.value_and_grad(z)
        assert p == pytest.approx(network.probability(z), abs=1e-15)
        numeric = [(network.probability(z + eps * e) - network.probability(z - eps * e)) / (2 * eps) for e in np.eye(len(z))]
        assert np.allclose(grad, numeric, rtol=1e-5, atol=1e-8)
        assert np.abs(grad).max() > 1e-4  # a real gradient, not a vacuous match of zeros


def _wachter(model, X: pd.DataFrame, row: pd.Series, **options) -> Recourse:
    return WachterExplainer(model, **options).fit(X).explain(row)


def _frame(answer: Recourse, X: pd.DataFrame) -> pd.DataFrame:
    """The counterfactuals' values as a frame (dtypes inferred from the values)."""
    return pd.DataFrame([cf.values for cf in answer], columns=list(X.columns))


def _costs(X: pd.DataFrame, row: pd.Series, cfs: pd.DataFrame) -> np.ndarray:
    """MC3G's L1 cost (numbers in training std units, a category change 1), computed independently."""
    numeric = ["age", "income"]
    moved = (cfs[numeric] - row[numeric].astype(float)).abs() / X[numeric].std(ddof=1)
    return moved.sum(axis=1).to_numpy() + sum((cfs[c] != row[c]).to_numpy(dtype=float) for c in X.columns if c not in numeric)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["logistic", "mlp"])
def test_counterfactuals_flip_the_model_and_decode_to_valid_rows(data, models, name) -> None:
    X, _ = data
    model = models[name]
    explainer = WachterExplainer(model, k=3).fit(X)
    for row in _rows(model, X):
        wanted = next(c for c in model.classes_ if c != _predicted(model, X, row))
        answer = explainer.explain(row)
        assert answer.status == REFUSED and answer.run.method == "wachter" and answer.run.k == 3 and answer.run.search_seconds > 0
        cfs = _frame(answer, X)
        assert 1 <= len(cfs) <= 3
        assert list(cfs.columns) == list(X.columns) and (cfs.dtypes == X.dtypes).all()
        assert (model.predict(cfs) == wanted).all()
        assert not cfs.duplicated().any()
        assert cfs["age"].between(X["age"].min(), X["age"].max()).all()
        assert cfs["income"].between(X["income"].min(), X["income"].max()).all()
        assert cfs["job"].isin(JOBS).all()
        assert (cfs["region"] == row["region"]).all()  # not seen by the model: passed through
        costs = _costs(X, row, cfs)
        assert np.allclose([cf.cost for cf in answer], costs) and (np.diff(costs) >= -1e-9).all()  # cheapest first
        for cf in answer:  # every change is a direct action; nothing is caused
            assert {a.feature for a in cf.direct_actions} == {c for c in X.columns if cf.values[c] != row[c]}
            assert not cf.caused_changes and cf.cost == pytest.approx(sum(a.cost for a in cf.direct_actions))


@pytest.mark.slow
def test_integral_columns_stay_integral(data, models) -> None:
    """age is int64 in X_train; a float copy of it must still come back as whole years."""
    X, y = data
    X_float = X.assign(age=X["age"].astype(float))
    model = _fit(_pipeline(LogisticRegression()), X_float, y)
    explainer = WachterExplainer(model, k=3, features_to_vary=["age", "job"]).fit(X_float)
    moved = []
    for row in _rows(model, X_float):
        cfs = _frame(explainer.explain(row), X_float)
        assert (cfs["age"] == cfs["age"].round()).all()
        moved += list(cfs["age"] != row["age"])
    assert any(moved)  # age was really changed somewhere, so rounding was exercised


@pytest.mark.slow
@pytest.mark.parametrize("name", ["logistic", "mlp"])
def test_features_to_vary_keeps_the_other_columns(data, models, name) -> None:
    X, _ = data
    model = models[name]
    for vary in (["income"], ["job", "age"]):
        fixed = [c for c in X.columns if c not in vary]
        explainer = WachterExplainer(model, k=2, features_to_vary=vary).fit(X)
        found = 0
        for row in _rows(model, X):
            cfs = _frame(explainer.explain(row), X)
            found += len(cfs)
            assert (cfs[fixed] == row[fixed]).all().all()
            assert (model.predict(cfs) != _predicted(model, X, row)).all()
        assert found > 0


@pytest.mark.slow
def test_dropped_one_hot_category_and_no_preprocessing(data) -> None:
    X, y = data
    for model, frame in (
        (_fit(_pipeline(LogisticRegression(), drop="first"), X, y), X),
        (_fit(LogisticRegression(max_iter=1000), X[["age", "income"]], y), X[["age", "income"]]),
    ):
        for row in _rows(model, frame):
            cfs = _frame(_wachter(model, frame, row, k=2), frame)
            assert len(cfs) >= 1
            assert (model.predict(cfs) != _predicted(model, frame, row)).all()
            assert cfs["age"].between(frame["age"].min(), frame["age"].max()).all()


@pytest.mark.slow
def test_row_already_in_the_desired_class_needs_nothing(data, models) -> None:
    X, _ = data
    model = models["mlp"]
    row = X.iloc[0]
    answer = _wachter(model, X, row, k=2, desired_class=_predicted(model, X, row))
    assert answer.status == NOT_REFUSED and not answer.counterfactuals
    assert answer.instance == dict(row.items())


def test_nothing_found_gives_a_reason(data, models) -> None:
    X, _ = data
    model = models["mlp"]
    row = _rows(model, X, per_class=1)[0]
    for options in ({"max_iter": 0}, {"features_to_vary": []}):
        answer = _wachter(model, X, row, k=3, **options)
        assert answer.status == NO_COUNTERFACTUAL and not answer.counterfactuals
        assert "no gradient path" in answer.reasons[0]


def test_deterministic_for_a_seed(data, models) -> None:
    X, _ = data
    model = models["mlp"]
    row = _rows(model, X, per_class=1)[0]
    first = _wachter(model, X, row, k=4, seed=7)
    assert len(first) >= 1
    assert first.counterfactuals == _wachter(model, X, row, k=4, seed=7).counterfactuals


def test_models_without_gradients_are_refused(data) -> None:
    X, y = data
    forest = RandomForestClassifier(n_estimators=5, random_state=0)
    minmax = ColumnTransformer([("cat", OneHotEncoder(), ["job"]), ("num", MinMaxScaler(), ["age", "income"])])
    for model in (_pipeline(forest), forest, Pipeline([("pre", minmax), ("clf", LogisticRegression())])):
        frame = X if isinstance(model, Pipeline) else X[["age", "income"]]
        _fit(model, frame, y)
        with pytest.raises(InputError, match="need a differentiable model: LogisticRegression or MLPClassifier"):
            WachterExplainer(model).fit(frame)


def test_bad_arguments_are_named(data, models) -> None:
    X, _ = data
    model = models["logistic"]
    with pytest.raises(ValueError, match="salary"):
        WachterExplainer(model, features_to_vary=["salary"]).fit(X)
    with pytest.raises(ValueError, match="desired_class"):
        WachterExplainer(model, desired_class="maybe").fit(X)
    with pytest.raises(ValueError, match="k must be at least 1"):
        WachterExplainer(model, k=0).fit(X).explain(X.iloc[0])


@pytest.mark.slow
def test_adult_mlp() -> None:
    """The real data: an MLP on 3,000 rows of adult, refused test rows, immutable columns fixed.
    Slow (10 s at a load of 5); the fast tier checks the same on 400 synthetic people."""
    from mc3g.datasets import load

    ds = load("adult", split="paper")
    X = ds.X_train.sample(3000, random_state=0)
    categorical = [c for c in X.columns if X[c].dtype == object]
    numeric = [c for c in X.columns if c not in categorical]
    ct = ColumnTransformer([("cat", OneHotEncoder(handle_unknown="ignore"), categorical), ("num", StandardScaler(), numeric)])
    mlp = MLPClassifier(hidden_layer_sizes=(16,), random_state=0, max_iter=200)
    model = _fit(Pipeline([("pre", ct), ("clf", mlp)]), X, ds.y_train.loc[X.index])
    refused = ds.X_test[model.predict(ds.X_test) == "<=50K"].iloc[:10]
    immutable = ["race", "sex", "native_country"]
    vary = [c for c in X.columns if c not in immutable]

    explainer = WachterExplainer(model, k=3, features_to_vary=vary).fit(X)
    seconds, found = [], 0
    for _, row in refused.iterrows():
        start = time.perf_counter()
        cfs = _frame(explainer.explain(row), X)
        seconds.append(time.perf_counter() - start)
        found += len(cfs)
        assert (model.predict(cfs) == ">50K").all()
        assert (cfs[immutable] == row[immutable]).all().all()
    assert found >= len(refused)
    print(f"\nadult MLP, k=3: {found} counterfactuals for {len(refused)} rows; seconds per row median {np.median(seconds):.3f}, max {max(seconds):.3f}")
