"""How often a black box's first answer is the true optimum: against brute force over every state
of a small domain (the least-cost state the model accepts and the knowledge allows, priced as
mc3g prices it), for a random forest, boosting, an MLP, a logistic regression and a hand-written
non-monotone model, with and without a causal constraint.  The share is printed (``-s``) and
may not fall below what was measured."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from sklearn.compose import make_column_transformer
from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from mc3g import MC3G
from mc3g.causal import CausalModel, CausalRule
from mc3g.rules import Literal
from mc3g.search import ActionSets

RNG = np.random.default_rng(7)
TRAIN = pd.DataFrame({"x": RNG.integers(0, 21, 400), "y": RNG.integers(0, 11, 400), "c": RNG.choice(["a", "b", "c"], 400)})
DOMAIN = {"x": range(21), "y": range(11), "c": "abc"}
PEOPLE = 25  # refused training rows explained per model
KNOWLEDGE = CausalModel(rules=(CausalRule(Literal("y", ">=", 6), (Literal("c", "==", "a"),)),))  # choosing a lifts y to 6 at least


def _truth(frame: pd.DataFrame) -> np.ndarray:
    """A diagonal boundary, which rules of one feature at a time cut into steps."""
    return np.where(frame["x"] + 2 * frame["y"] + 6 * (frame["c"] == "b") >= 28, "yes", "no")


def _band(frame: pd.DataFrame) -> np.ndarray:
    """Not monotone in x: refused in a band of x however high y is."""
    accepted = (frame["x"] + 2 * frame["y"] >= 24) & ~frame["x"].between(12, 14)
    return np.where(accepted, "yes", "no")


def _fitted(classifier) -> object:
    encode = make_column_transformer((OneHotEncoder(), ["c"]), (StandardScaler(), ["x", "y"]))
    return make_pipeline(encode, classifier).fit(TRAIN, _truth(TRAIN))


MODELS = {
    "random forest": lambda: _fitted(RandomForestClassifier(n_estimators=50, min_samples_leaf=3, random_state=0)).predict,
    "boosting": lambda: _fitted(GradientBoostingClassifier(random_state=0)).predict,
    "mlp": lambda: _fitted(MLPClassifier((16,), max_iter=2000, random_state=0)).predict,
    "logistic regression": lambda: _fitted(LogisticRegression()).predict,
    "non-monotone": lambda: _band,
}
FLOOR = {  # of the 25 people, those whose first answer was optimal when measured (issue 24, the last draw seen at the merge): it may only rise
    ("random forest", False): 25,
    ("boosting", False): 25,
    ("mlp", False): 25,
    ("logistic regression", False): 24,
    ("non-monotone", False): 25,
    ("random forest", True): 25,
    ("boosting", True): 25,
    ("mlp", True): 25,
    ("logistic regression", True): 24,
    ("non-monotone", True): 25,
}


def _least(explainer: MC3G, model, person: dict) -> float | None:
    """The least cost of a state of the whole domain that the model accepts and the knowledge
    allows, priced with every feature in play and no decision rule (:meth:`Engine.open`)."""
    return next(iter(_options(explainer, model, person, 1)), None)


def _options(explainer: MC3G, model, person: dict, k: int, domain: dict = DOMAIN, accepted: pd.DataFrame | None = None) -> list[float]:
    """The costs of the ``k`` least-cost options of the whole ``domain`` (the rows the model
    accepts: ``accepted``, judged here when not given) that the knowledge allows, the person's
    own values kept where they may not change, of distinct action sets where the explainer's
    settings say so."""
    engine = explainer.engine_.open()
    numbers = {n: list(values) for n, values in domain.items() if isinstance(values, range)}
    problem = engine.problem(engine.instance(person), 1, [], numbers, observed=False)
    if accepted is None:
        rows = pd.DataFrame(list(itertools.product(*domain.values())), columns=list(domain))
        accepted = rows[model(rows) == "yes"]
    kept_still = [n for n in domain if n not in problem.names]  # immutable: the person's own values only
    if kept_still:
        accepted = accepted[(accepted[kept_still] == pd.Series({n: person[n] for n in kept_still})).all(axis=1)]
    states = []
    for row in accepted[list(problem.names)].itertuples(index=False):
        if (a := problem.assess(tuple(problem.space[n].index(v) for n, v in zip(problem.names, row)))) is not None:
            states.append(a)
    kept, sets = [], ActionSets()
    for a in sorted(states, key=lambda a: round(a.cost, 9)):
        if len(kept) < k and (not engine.settings.distinct or sets.admit(a)):
            kept.append(a.cost)
    return kept


@pytest.mark.slow
@pytest.mark.parametrize("knowledge", [False, True], ids=["no knowledge", "a constraint"])
@pytest.mark.parametrize("kind", list(MODELS))
def test_the_first_answer_is_the_optimum_for_most_people(kind: str, knowledge: bool) -> None:
    model = MODELS[kind]()
    explainer = MC3G(model, KNOWLEDGE if knowledge else None, desired_class="yes", k=1).fit(TRAIN)
    refused = TRAIN[model(TRAIN) == "no"].drop_duplicates().iloc[:PEOPLE]
    optimal = 0
    for _, person in refused.iterrows():
        answer = explainer.explain(person)
        least = _least(explainer, model, person.to_dict())
        if not answer.counterfactuals:
            assert answer.status == "no_counterfactual" or least is None
            optimal += least is None
            continue
        best = answer.counterfactuals[0]
        assert model(pd.DataFrame([best.values], columns=list(DOMAIN)))[0] == "yes"  # every answer flips the real model
        assert least is not None and best.cost >= least - 1e-9  # brute force is the least: nothing is cheaper
        optimal += best.cost <= least + 1e-9
    share = optimal / len(refused)
    print(f"\n{kind}, {'a constraint' if knowledge else 'no knowledge'}: the first answer is optimal for {optimal} of {len(refused)} ({share:.0%})")
    assert optimal >= FLOOR[kind, knowledge]


SHORT = {  # of the 25 people at K = 3, when measured (issue 51), they may only fall: those given fewer options than the
    # domain holds (options unlike every past applicant aside), and later options dearer than the domain's at their place
    "random forest": (0, 0), "boosting": (0, 0), "mlp": (0, 0), "logistic regression": (0, 0), "non-monotone": (0, 0),
}  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("kind", list(MODELS))
def test_k_options_are_as_many_and_as_cheap_as_the_domain_holds_for_most_people(kind: str) -> None:
    """K = 3 under the causal constraint: each answer's options against the three least-cost
    distinct options of the whole domain.  Counted: people given fewer than the domain holds
    (but for options left out as unlike every past applicant, which the domain does not know),
    and later options dearer than the domain's option at their place."""
    model = MODELS[kind]()
    explainer = MC3G(model, KNOWLEDGE, desired_class="yes", k=3).fit(TRAIN)
    refused = TRAIN[model(TRAIN) == "no"].drop_duplicates().iloc[:PEOPLE]
    short = dearer = 0
    for _, person in refused.iterrows():
        answer = explainer.explain(person)
        truth = _options(explainer, model, person.to_dict(), 3)
        costs = [cf.cost for cf in answer.counterfactuals]
        assert not costs or costs[0] >= truth[0] - 1e-9  # nothing is cheaper than the domain's least
        short += len(costs) < len(truth) and not answer.unlike
        dearer += sum(c > t + 1e-9 for c, t in list(zip(costs, truth))[1:])
    print(f"\n{kind}, K = 3: {short} of {len(refused)} people given fewer options than the domain holds, {dearer} later options dearer")
    most_short, most_dearer = SHORT[kind]
    assert short <= most_short and dearer <= most_dearer


SIX = {"income": range(13), "savings": range(13), "score": range(13), "debt": ("no", "low", "high"), "job": ("full", "part", "self"), "region": tuple("nsew")}
SIX_RNG = np.random.default_rng(11)
SIX_TRAIN = pd.DataFrame({n: SIX_RNG.choice(list(values), 500) for n, values in SIX.items()})


def _six_truth(frame: pd.DataFrame) -> np.ndarray:
    return np.where(frame["income"] + frame["savings"] + 2 * frame["score"] + 4 * (frame["job"] == "full") - 3 * (frame["debt"] == "high") >= 34, "yes", "no")


def _six_box(frame: pd.DataFrame) -> np.ndarray:
    """Issue 51's box: income 8 to 10 with savings 7 to 9, self-employed and no high debt; or
    income and savings both at their top; or a score and income high enough together."""
    band = frame["income"].between(8, 10) & frame["savings"].between(7, 9) & (frame["job"] == "self") & (frame["debt"] != "high")
    return np.where(band | ((frame["income"] == 12) & (frame["savings"] == 12)) | (frame["score"] + frame["income"] >= 20), "yes", "no")


def _six_forest():
    encode = make_column_transformer((OneHotEncoder(), ["debt", "job", "region"]), (StandardScaler(), ["income", "savings", "score"]))
    return make_pipeline(encode, RandomForestClassifier(n_estimators=40, min_samples_leaf=3, random_state=0)).fit(SIX_TRAIN, _six_truth(SIX_TRAIN)).predict


# of 20 people, those given fewer options than the domain holds, measured (issue 51; before its wider draw for fewer than K: 1 and 2)
SIX_SHORT = {"box": 0, "random forest": 0}


@pytest.mark.slow
@pytest.mark.parametrize("kind", list(SIX_SHORT))
def test_k_options_on_six_features_are_as_many_as_the_domain_holds(kind: str) -> None:
    """Six features, a region that may not change, K = 3 (issue 51's brute force: 13 people got
    fewer than 3 options while another existed).  Counted against the whole domain: people given
    fewer options than it holds (options unlike every past applicant aside); the later options
    dearer than the domain's at their place are printed (issue 51 leaves them open)."""
    model = _six_box if kind == "box" else _six_forest()
    every = pd.DataFrame(list(itertools.product(*SIX.values())), columns=list(SIX))
    accepted = every[model(every) == "yes"]
    explainer = MC3G(model, CausalModel(features={"region": {"immutable": True}}), desired_class="yes", k=3).fit(SIX_TRAIN)
    refused = SIX_TRAIN[model(SIX_TRAIN) == "no"].drop_duplicates().iloc[:20]
    short = dearer = 0
    for _, person in refused.iterrows():
        answer = explainer.explain(person)
        truth = _options(explainer, model, person.to_dict(), 3, SIX, accepted)
        costs = [cf.cost for cf in answer.counterfactuals]
        short += len(costs) < len(truth) and not answer.unlike
        dearer += sum(c > t + 1e-9 for c, t in list(zip(costs, truth))[1:])
    print(f"\n{kind}, six features, K = 3: {short} of {len(refused)} people given fewer options than the domain holds, {dearer} later options dearer")
    assert short <= SIX_SHORT[kind]
