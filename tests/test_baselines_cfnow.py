"""CFNOW baseline (mc3g.baselines.cfnow) on a small synthetic table: its rows as CFNOW's vectors
and back, and its answers; the search's tests are skipped without cfnow."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest
from conftest import Stalling
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from mc3g.baselines.cfnow import CfnowExplainer, _Vectors
from mc3g.exceptions import InputError
from mc3g.explain.result import NO_COUNTERFACTUAL, REFUSED

NUMBERS = ["net_income", "years"]


@pytest.fixture(scope="module")
def setup() -> tuple[Pipeline, pd.DataFrame, pd.DataFrame]:
    """A logistic regression behind one-hot and scaling, its training rows and five it refuses."""
    rng = np.random.default_rng(1)
    n = 400
    X = pd.DataFrame({"net_income": rng.normal(50.0, 15.0, n).round(1), "years": rng.integers(0, 40, n), "job_kind": rng.choice(["clerk", "nurse", "cook"], n)})
    score = (X["net_income"] - 50) / 15 + (X["years"] - 20) / 12 + np.where(X["job_kind"] == "nurse", 1.0, 0.0)
    encode = ColumnTransformer([("job", OneHotEncoder(), ["job_kind"]), ("num", StandardScaler(), NUMBERS)])
    model = Pipeline([("encode", encode), ("classify", LogisticRegression())]).fit(X, np.where(score > 0.5, "approved", "refused"))
    return model, X, X[model.predict(X) == "refused"].head(5)


def test_a_row_goes_to_cfnows_vector_and_back(setup) -> None:
    """Numbers as they are, a category one-hot under its name without underscores (CFNOW groups
    one-hot columns by the text before the first '_'); back, a category is its largest column,
    an integer column is rounded, and the columns held keep the person's values."""
    _, X, refused = setup
    vectors = _Vectors(X, NUMBERS)
    assert vectors.names == ["netincome", "years", "jobkind_0", "jobkind_1", "jobkind_2"]
    assert vectors.types == {"netincome": "num", "years": "num", "jobkind_0": "cat", "jobkind_1": "cat", "jobkind_2": "cat"}
    person = refused.iloc[0]
    vector = vectors.vector(person)
    assert vector.iloc[:2].tolist() == [person["net_income"], person["years"]] and vector.iloc[2:].sum() == 1.0
    assert vectors.rows(vector.to_numpy(), person, []).iloc[0].tolist() == person.tolist()
    other = next(v for v in vectors.domains["job_kind"] if v != person["job_kind"])
    tried = vector.to_numpy().copy()
    tried[:2] = [61.25, 7.6]
    tried[2:] = [0.2, 0.2, 0.2]
    tried[2 + vectors.domains["job_kind"].index(other)] = 0.9
    back = vectors.rows(np.vstack([tried, tried]), person, ["net_income"])
    assert back.dtypes.to_dict() == X.dtypes.to_dict() and len(back) == 2
    assert back.iloc[0].tolist() == [person["net_income"], 8, other]


def test_names_that_clash_without_their_underscores_and_unseen_categories_are_refused(setup) -> None:
    _, X, refused = setup
    with pytest.raises(InputError, match="clash"):
        _Vectors(X.assign(netincome=X["net_income"]), NUMBERS)
    with pytest.raises(InputError, match="job_kind = 'pilot'"):
        _Vectors(X, NUMBERS).vector(refused.iloc[0].replace({"clerk": "pilot", "nurse": "pilot", "cook": "pilot"}))


def test_settings_are_checked_at_fit(setup) -> None:
    model, X, _ = setup
    with pytest.raises(InputError, match="strategy"):
        CfnowExplainer(model, strategy="annealing").fit(X)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="tuning_seconds"):
        CfnowExplainer(model, tuning_seconds=0).fit(X)
    with pytest.raises(InputError, match="continuous"):
        CfnowExplainer(model, continuous=["salary"]).fit(X)


@pytest.mark.slow
def test_cfnow_answers_in_the_training_columns_holding_what_may_not_vary(setup) -> None:
    """CFNOW's greedy search on five refused rows: its options have the training columns and
    dtypes, change only the features that may vary, are priced as MC3G's L1 (cheapest first),
    and the run record times its two parts on CFNOW's own clock."""
    pytest.importorskip("cfnow")
    model, X, refused = setup
    explainer = CfnowExplainer(model, k=2, continuous=NUMBERS, features_to_vary=["net_income", "years"], tuning_seconds=1, timeout=5).fit(X)
    answers = explainer.explain(refused)
    assert [a.status for a in answers].count(REFUSED) >= 3  # with the job held, its greedy search finds none for two in 5 s
    for (_, person), answer in zip(refused.iterrows(), answers):
        assert answer.run.method == "cfnow_greedy" and len(answer.counterfactuals) <= 2
        if answer.status == REFUSED:
            assert set(answer.run.seconds_by_phase) == {"greedy", "tuning"} and answer.run.seconds_by_phase["greedy"] < answer.run.search_seconds
        else:
            assert answer.status == NO_COUNTERFACTUAL and answer.reasons[0].startswith("CFNOW (greedy) ")
        for cf in answer.counterfactuals:
            assert list(cf.values) == list(X.columns) and cf.values["job_kind"] == person["job_kind"] and float(cf.values["years"]).is_integer()
            assert cf.cost == pytest.approx(sum(a.cost for a in cf.direct_actions)) and not cf.caused_changes
        assert [cf.cost for cf in answer.counterfactuals] == sorted(cf.cost for cf in answer.counterfactuals)
    flipped = [model.predict(pd.DataFrame([cf.values]).astype(X.dtypes))[0] for a in answers for cf in a.counterfactuals]
    assert flipped.count("approved") >= len(flipped) // 2  # CFNOW's own options, judged again: rounding a year may undo one


@pytest.mark.slow
def test_the_timeout_stops_a_search_that_hangs(setup) -> None:
    pytest.importorskip("cfnow")
    model, X, refused = setup
    stalling = Stalling(model)
    explainer = CfnowExplainer(stalling, continuous=NUMBERS, timeout=1.0).fit(X)
    stalling.stalled = True
    start = time.monotonic()
    answer = explainer.explain(refused.iloc[0])
    assert time.monotonic() - start < 5
    assert answer.status == NO_COUNTERFACTUAL and "timeout of 1.0 s" in answer.reasons[0]
