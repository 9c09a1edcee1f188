"""Options that hold beyond today's model (issue 52, item 1): a margin on the model's probability,
exact where the model is read (the same answer as the model behind a lender's threshold at
that probability), and on the search with a black box; models retrained on resampled data, each
option's survival among them, options chosen to survive under ``product``; a person the model
accepts thinly is not refused; what is refused (no labels, decision rules, a model with no
probability, saving retrained models) and the answer's JSON."""

from __future__ import annotations

import jsonschema
import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import FixedThresholdClassifier
from sklearn.tree import DecisionTreeClassifier

from mc3g.exceptions import InputError
from mc3g.explain import MC3G
from mc3g.models import Robustness, retrained_models
from mc3g.rules import Literal, Rule, RuleSet
from mc3g.schema import Feature, Schema
from mc3g.serialization import json_schema

SCHEMA = Schema(
    "book",
    (Feature("income", "numeric", range=(0, 100)), Feature("savings", "numeric", range=(0, 100))),
    "decision",
    ("approved", "refused"),
    "refused",
)


@pytest.fixture(scope="module")
def book() -> tuple[pd.DataFrame, pd.Series]:
    rng = np.random.RandomState(0)
    X = pd.DataFrame({"income": rng.randint(0, 101, 600), "savings": rng.randint(0, 101, 600)})
    y = pd.Series(np.where(X.income + X.savings + rng.normal(0, 15, 600) > 100, "approved", "refused"))
    return X, y


@pytest.fixture(scope="module")
def linear(book: tuple[pd.DataFrame, pd.Series]) -> LogisticRegression:
    return LogisticRegression(max_iter=1000).fit(*book)


def _fitted(model, book, **params) -> MC3G:
    return MC3G(model, schema=SCHEMA, **{"k": 1, **params}).fit(*book)


def _approval(model, values) -> float:
    return float(model.predict_proba(pd.DataFrame([values])[["income", "savings"]])[0, list(model.classes_).index("approved")])


PERSON = {"income": 30, "savings": 30}


@pytest.mark.parametrize("margin", [0.1, 0.25, 0.4])
def test_a_margin_read_exactly_gives_the_answer_of_the_model_behind_a_threshold_at_that_probability(book, linear, margin: float) -> None:
    robust = _fitted(linear, book, margin=margin).explain(PERSON)
    threshold = FixedThresholdClassifier(linear, threshold=0.5 + margin, pos_label="approved").fit(*book)
    plain = _fitted(threshold, book).explain(PERSON)
    assert robust.run.guarantee == plain.run.guarantee == "exact"
    assert robust[0].cost == pytest.approx(plain[0].cost)
    assert _approval(linear, robust[0].values) >= 0.5 + margin
    assert robust.run.robust == {"margin": margin, "retrains": 0, "survive": 0.0, "exact": True}


def test_a_margin_costs_more_than_the_bare_decision_and_the_black_box_search_keeps_it_too(book, linear) -> None:
    bare = _fitted(linear, book).explain(PERSON)
    exact = _fitted(linear, book, margin=0.3).explain(PERSON)
    searched = _fitted(linear, book, margin=0.3, read_model="never").explain(PERSON)
    assert searched.run.guarantee == "surrogate"
    assert exact[0].cost > bare[0].cost
    assert _approval(linear, searched[0].values) >= 0.8 and searched[0].cost >= exact[0].cost - 1e-9


def test_a_person_the_model_accepts_thinly_is_not_refused_whatever_the_margin(book, linear) -> None:
    explainer = _fitted(linear, book, margin=0.45)
    thin = next({"income": i, "savings": i} for i in range(101) if _approval(linear, {"income": i, "savings": i}) > 0.5)
    assert _approval(linear, thin) < 0.95
    assert explainer.explain(thin).status == "not_refused"
    assert _fitted(linear, book, margin=0.45, read_model="never").explain(thin).status == "not_refused"


def test_options_chosen_to_survive_every_retrained_model_under_product_and_measured_only_under_paper(book) -> None:
    tree = DecisionTreeClassifier(max_depth=4, random_state=0).fit(*book)
    product = _fitted(tree, book, retrain=DecisionTreeClassifier(max_depth=4), retrains=8)
    paper = _fitted(tree, book, retrain=DecisionTreeClassifier(max_depth=4), retrains=8, profile="paper")
    people = pd.DataFrame({"income": [10, 30, 45], "savings": [20, 30, 20]})
    chosen, measured = product.explain(people), paper.explain(people)
    assert {a.run.robust["survive"] for a in chosen} == {1.0} and {a.run.robust["survive"] for a in measured} == {0.0}
    assert all(cf.survival == 1.0 for a in chosen for cf in a)
    assert any(cf.survival < 1.0 for a in measured for cf in a), "the bare options: some not sure to hold, else this test shows nothing"
    models = retrained_models(DecisionTreeClassifier(max_depth=4), *book, 8, 0, ["approved", "refused"])
    for answer in chosen:
        values = pd.DataFrame([cf.values for cf in answer])[["income", "savings"]]
        assert all((m.predict(values) == "approved").all() for m in models)  # the same resamples, fitted again: the survival is theirs


def test_a_share_asked_for_is_kept_and_the_answer_s_json_says_what_held(book) -> None:
    tree = DecisionTreeClassifier(max_depth=4, random_state=0).fit(*book)
    explainer = _fitted(tree, book, retrain=DecisionTreeClassifier(max_depth=4), retrains=5, survive=0.6, k=3)
    answer = explainer.explain({"income": 10, "savings": 20})
    assert answer.run.robust == {"margin": 0.0, "retrains": 5, "survive": 0.6, "exact": True}
    assert answer.counterfactuals and all(cf.survival >= 0.6 for cf in answer)
    jsonschema.validate(answer.to_dict(), json_schema("mc3g.recourse"))


def test_the_options_are_the_least_cost_states_that_hold_against_a_brute_force_over_the_grid(book) -> None:
    """Every whole-number state the knowledge allows, priced and judged: the least-cost one the
    model accepts with the margin and every retrained model accepts is the first option."""
    tree = DecisionTreeClassifier(max_depth=4, random_state=0).fit(*book)
    explainer = _fitted(tree, book, retrain=DecisionTreeClassifier(max_depth=4), retrains=4, margin=0.2)
    person = {"income": 25, "savings": 35}
    answer = explainer.explain(person)
    grid = pd.DataFrame([(i, s) for i in range(101) for s in range(101)], columns=["income", "savings"])
    robust: Robustness = explainer.black_box_.robust
    ok = (tree.predict(grid) == "approved") & robust.holds(tree, grid)
    spread = {f: explainer.engine_.spreads[f] for f in ("income", "savings")}
    costs = np.abs(grid.income - person["income"]) / spread["income"] + np.abs(grid.savings - person["savings"]) / spread["savings"]
    assert answer[0].cost == pytest.approx(float(costs[ok].min()), rel=1e-6)


@pytest.mark.parametrize(
    ("model", "params", "labels", "said"),
    [
        ("linear", {"retrain": LogisticRegression()}, False, "give fit the training labels"),
        ("rules", {"margin": 0.1}, True, "the model is decision rules"),
        ("function", {"margin": 0.1}, True, "predict_proba"),
        ("linear", {"survive": 0.5}, True, "give retrain too"),
        ("linear", {"retrain": lambda X, y: 1 / 0}, True, "retrain failed on resample 1 of 10: ZeroDivisionError"),
    ],
)
def test_what_robustness_cannot_do_is_refused_by_name(book, linear, model: str, params: dict, labels: bool, said: str) -> None:
    X, y = book
    target = {
        "linear": linear,
        "rules": RuleSet((Rule(Literal("decision", "==", "refused"), (Literal("income", "<=", 50),)),), "decision", "approved"),
        "function": lambda frame: np.where(frame.income > 50, "approved", "refused"),
    }[model]
    with pytest.raises(InputError, match=said):
        MC3G(target, schema=SCHEMA, **params).fit(X, y if labels else None)


def test_an_explainer_with_retrained_models_is_not_saved_and_one_with_a_margin_keeps_it(book, linear, tmp_path) -> None:
    with pytest.raises(InputError, match="cannot be saved"):
        _fitted(linear, book, retrain=LogisticRegression(max_iter=1000), retrains=2).save(tmp_path / "e.json")
    explainer = _fitted(linear, book, margin=0.2)
    explainer.save(tmp_path / "e.json")
    again = MC3G.load(tmp_path / "e.json", model=linear)
    assert again.explain(PERSON).to_dict()["counterfactuals"] == explainer.explain(PERSON).to_dict()["counterfactuals"]
    assert again.run_record().robust == {"margin": 0.2, "retrains": 0, "survive": 0.0, "exact": True}


def test_no_option_with_a_margin_says_what_an_option_needed(book) -> None:
    tree = DecisionTreeClassifier(max_depth=3, random_state=0).fit(*book)
    top = float(tree.predict_proba(pd.DataFrame({"income": [100], "savings": [100]}))[0, 0])  # approved's
    answer = _fitted(tree, book, margin=min(0.49, top - 0.5 + 0.01)).explain(PERSON)
    assert answer.status == "no_counterfactual"
    assert "a probability of approval at least" in answer.reasons[0]
    retrained = _fitted(tree, book, retrain=lambda X, y: _Never(), retrains=2).explain(PERSON)
    assert retrained.status == "no_counterfactual" and retrained.run.guarantee == "exact"
    assert "were passed over as not sure to hold: an option needs approval by every one of 2 models retrained" in retrained.reasons[0]


class _Never:
    """A retrained model that approves nobody."""

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        return np.array(["refused"] * len(X))
