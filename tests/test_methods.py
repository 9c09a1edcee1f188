"""Every registered explainer is built, fitted and asked the same way, and answers Recourse objects."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from mc3g.exceptions import UnknownNameError
from mc3g.explain.result import NO_COUNTERFACTUAL, NOT_REFUSED, REFUSED, Recourse
from mc3g.methods import REGISTRY, Explainer, explainer

NEEDS = {"dice": "dice_ml", "cfnow": "cfnow"}  # explainers whose optional dependency may be missing
OPTIONS = {"cfnow": {"tuning_seconds": 1}}  # CFNOW tunes for 120 s a query by default (eight minutes for these five)


@pytest.fixture(scope="module")
def setup() -> tuple[Pipeline, pd.DataFrame]:
    """A differentiable pipeline (so that Wachter can run too) on 300 people."""
    rng = np.random.default_rng(0)
    n = 300
    X = pd.DataFrame({"income": rng.normal(50.0, 15.0, n).round(1), "years": rng.integers(0, 40, n), "job": rng.choice(["clerk", "nurse", "pilot"], n)})
    y = np.where((X["income"] - 50) / 15 + (X["years"] - 20) / 12 + (X["job"] == "pilot") > 0.5, "approved", "refused")
    encode = ColumnTransformer([("job", OneHotEncoder(), ["job"]), ("num", StandardScaler(), ["income", "years"])])
    return Pipeline([("encode", encode), ("classify", LogisticRegression())]).fit(X, y), X


def test_the_methods_are_registered() -> None:
    assert {"mc3g", "nearest_noncausal", "dice", "wachter"} <= set(REGISTRY)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_explainer_answers_recourse_for_a_row_and_a_frame(setup, name) -> None:
    if name in NEEDS:
        pytest.importorskip(NEEDS[name])
    model, X = setup
    chosen = explainer(name, model, None, k=2, desired_class="approved", **OPTIONS.get(name, {}))
    assert isinstance(chosen, Explainer)
    assert chosen.fit(X) is chosen
    predicted = model.predict(X)
    rows = pd.concat([X[predicted == "refused"].head(3), X[predicted == "approved"].head(1)])

    one = chosen.explain(rows.iloc[0])
    assert isinstance(one, Recourse) and one.status in (REFUSED, NO_COUNTERFACTUAL)
    answers = chosen.explain(rows)
    assert isinstance(answers, list) and len(answers) == len(rows) and all(isinstance(a, Recourse) for a in answers)
    assert [a.status for a in answers][-1] == NOT_REFUSED
    assert any(a.status == REFUSED for a in answers)
    for answer in answers:
        assert answer.run.k == 2 and len(answer) <= 2
        if answer.counterfactuals:  # each one is accepted by the model
            frame = pd.DataFrame([cf.values for cf in answer], columns=list(X.columns)).astype(X.dtypes)
            assert (model.predict(frame) == "approved").all()
        assert Recourse.from_json(answer.to_json()).status == answer.status


def test_baselines_ignore_causal_knowledge(setup) -> None:
    """nearest_noncausal is MC3G with the knowledge switched off and every change priced."""
    model, _ = setup
    nearest = explainer("nearest_noncausal", model, "no such file.causal", desired_class="approved")
    assert nearest.causal is None and nearest.mode == "none"


def test_a_method_of_ones_own_joins_the_registry(setup) -> None:
    from mc3g.methods import REGISTRY, register

    model, _ = setup
    register("mc3g_l0", "mc3g.baselines.nearest:nearest_noncausal")
    try:
        built = explainer("mc3g_l0", model, None, norm="l0")
        assert isinstance(built, Explainer) and built.norm == "l0" and built.mode == "none"
    finally:
        del REGISTRY["mc3g_l0"]


def test_unknown_name_is_refused(setup) -> None:
    model, _ = setup
    with pytest.raises(UnknownNameError, match="no explainer named 'mace'"):
        explainer("mace", model)


@pytest.mark.slow
def test_importing_the_protocol_does_not_import_dice() -> None:
    code = "import sys, mc3g, mc3g.methods, mc3g.baselines; print('dice_ml' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_dice_missing_says_how_to_install_it_without_the_cuda_xgboost(setup, monkeypatch) -> None:
    model, X = setup
    monkeypatch.setitem(sys.modules, "dice_ml", None)  # as if not installed
    with pytest.raises(ImportError, match=r"pip install --no-deps 'dice-ml>=0\.12,<0\.13'"):
        explainer("dice", model, None, desired_class="approved").fit(X)
