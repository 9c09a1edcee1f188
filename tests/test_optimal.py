"""How often a black box's first answer is the true optimum: against brute force over every state
of a small domain (the least-cost state the model accepts and the knowledge allows, priced as
mc3g prices it), for a random forest, boosting, an MLP, a logistic regression and a hand-written
non-monotone model, with and without a causal constraint.  The share is printed (``-s``) and
may not fall below what was measured."""

from __future__ import annotations

import itertools
import json
from types import SimpleNamespace

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
from mc3g.bench.oracle import CASES, Box, domain_options
from mc3g.causal import CausalModel

RNG = np.random.default_rng(7)
TRAIN = pd.DataFrame({"x": RNG.integers(0, 21, 400), "y": RNG.integers(0, 11, 400), "c": RNG.choice(["a", "b", "c"], 400)})
DOMAIN = CASES["three"].domain  # mc3g bench oracle's three features, its diagonal boundary and knowledge (choosing a lifts y to 6)
PEOPLE = 25  # refused training rows explained per model
KNOWLEDGE = CASES["three"].knowledge
_truth = CASES["three"].truth


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
    accepts: ``accepted``, judged here when not given): :func:`mc3g.bench.oracle.domain_options`."""
    if accepted is None:
        rows = pd.DataFrame(list(itertools.product(*domain.values())), columns=list(domain))
        accepted = rows[model(rows) == "yes"]
    return domain_options(explainer, person, k, accepted, domain)


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


SIX = CASES["six"].domain  # issue 51's six features (mc3g bench oracle's)
SIX_TRAIN = CASES["six"].train()


def _six_forest():
    encode = make_column_transformer((OneHotEncoder(), ["debt", "job", "region"]), (StandardScaler(), ["income", "savings", "score"]))
    return (
        make_pipeline(encode, RandomForestClassifier(n_estimators=40, min_samples_leaf=3, random_state=0)).fit(SIX_TRAIN, CASES["six"].truth(SIX_TRAIN)).predict
    )


# of 20 people, those given fewer options than the domain holds, measured (issue 51; before its wider draw for fewer than K: 1 and 2)
SIX_SHORT = {"box": 0, "random forest": 0}


@pytest.mark.slow
@pytest.mark.parametrize("kind", list(SIX_SHORT))
def test_k_options_on_six_features_are_as_many_as_the_domain_holds(kind: str) -> None:
    """Six features, a region that may not change, K = 3 (issue 51's brute force: 13 people got
    fewer than 3 options while another existed).  Counted against the whole domain: people given
    fewer options than it holds (options unlike every past applicant aside); the later options
    dearer than the domain's at their place are printed (issue 51 leaves them open)."""
    model = Box().predict if kind == "box" else _six_forest()
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


# of 25 people, K = 1, those whose first answer was the domain's least, measured by mc3g bench oracle (issue 51;
# before the merge traded actions and the corners were asked: svm 22, knn 21, boosting 23, logistic 24, box 22; svm 23
# before a category was taken in place of an action; box 24 while an option unlike every past applicant took a place): they may only rise
SIX_FIRST = {"svm": 24, "knn": 22, "boosting": 24, "logistic": 25, "box": 25}


@pytest.mark.slow
@pytest.mark.parametrize("kind", list(SIX_FIRST))
def test_first_answers_on_six_features_are_the_domain_s_least(kind: str) -> None:
    """``mc3g bench oracle``'s six features, K = 1: the first answers that cost no more than the
    domain's least, counted by the benchmark itself.  The misses were an action traded for
    another (a category for a few steps of a number, or the other way) and two numbers at the
    top of their range together (issue 51's box)."""
    from mc3g.bench.oracle import oracle_benchmark

    (run,) = oracle_benchmark(["six"], [kind], [1])
    print(f"\n{kind}, six features, K = 1: {run.first_optimal} of {run.people} first answers the domain's least")
    assert run.false_none == 0 and run.first_optimal >= SIX_FIRST[kind]


def test_the_last_draw_is_made_where_the_sharpening_leaves_fewer_than_k() -> None:
    """Issue 51: 13 people got fewer than K options while another existed.  This one knew three
    at the last draw, so none was made; sectioning then made {income, score} cheaper than the
    two others, which make its actions and more, and it ended with two.  The third is the
    domain's third, found by the last draw made after the merge."""
    from mc3g.bench.oracle import domain_options, fitted

    case = CASES["six"]
    model = fitted(case, "svm", SIX_TRAIN)
    person = {"income": 1, "savings": 4, "score": 3, "debt": "no", "job": "self", "region": "w"}
    explainer = MC3G(model, case.knowledge, desired_class="yes", k=3, read_model="never").fit(SIX_TRAIN)
    answer = explainer.explain(person)
    every = case.every()
    truth = domain_options(explainer, person, 3, every[model.predict(every) == "yes"], case.domain)
    assert len(truth) == 3 and [cf.cost for cf in answer.counterfactuals] == pytest.approx(truth)
    assert not answer.fewer


def test_a_category_is_taken_in_place_of_an_action() -> None:
    """Issue 51's SVM on six features: income 11 → 12 with score 0 → 11 was the answer (3.135),
    where full-time work with score 8 costs 3.091: the merge's trade takes the category in place
    of the income and moves the score back under the answer's cost."""
    from mc3g.bench.oracle import fitted

    case = CASES["six"]
    person = {"income": 11, "savings": 2, "score": 0, "debt": "low", "job": "part", "region": "w"}
    explainer = MC3G(fitted(case, "svm", SIX_TRAIN), case.knowledge, desired_class="yes", k=1, read_model="never").fit(SIX_TRAIN)
    (option,) = explainer.explain(person)
    assert {n: v for n, v in option.values.items() if v != person[n]} == {"score": 8, "job": "full"}


@pytest.mark.parametrize(
    ("kind", "person", "option"),
    [  # the option the trades now reach, where the merge left a dearer one
        # full-time taken too, the income moved back from 7 to 3: dearer than the third option, so not moved back before
        ("logistic", {"income": 1, "savings": 4, "score": 3, "debt": "no", "job": "self", "region": "w"}, {"income": 3, "score": 12, "job": "full"}),
        # full-time in place of no debt, asked when two options were known (before, only with three)
        ("boosting", {"income": 1, "savings": 2, "score": 2, "debt": "high", "job": "self", "region": "e"}, {"income": 6, "score": 12, "job": "full"}),
        # full-time taken too, income and savings both moved back by their shares (each alone moved back too far)
        ("boosting", {"income": 7, "savings": 0, "score": 10, "debt": "high", "job": "self", "region": "s"}, {"income": 8, "savings": 3, "job": "full"}),
    ],
)
def test_trades_are_brought_under_the_option_they_could_replace(kind: str, person: dict, option: dict) -> None:
    """Issue 51's later options (six features, K = 3): a trade that makes every action of an
    option and more is brought under that option's cost, and trades are asked with fewer than K
    options known; the answer's options are then the domain's, each at its place."""
    from mc3g.bench.oracle import domain_options, fitted

    case = CASES["six"]
    model = fitted(case, kind, SIX_TRAIN)
    explainer = MC3G(model, case.knowledge, desired_class="yes", k=3, read_model="never").fit(SIX_TRAIN)
    answer = explainer.explain(person)
    every = case.every()
    truth = domain_options(explainer, person, 3, every[model.predict(every) == "yes"], case.domain)
    assert [cf.cost for cf in answer.counterfactuals] == pytest.approx(truth)
    assert option in [{n: v for n, v in cf.values.items() if v != person[n]} for cf in answer.counterfactuals]


def test_two_numbers_both_at_the_top_of_their_range_are_asked_together() -> None:
    """Issue 51's box accepts income and savings both at 12 (their top), else a band far from
    this person or a score they cannot reach cheaply: no rule, single change or draw reached the
    corner (the answer cost 1.54 where both at their top cost 1.05)."""
    person = {"income": 9, "savings": 11, "score": 1, "debt": "high", "job": "self", "region": "w"}
    explainer = MC3G(Box().fit(SIX_TRAIN), CASES["six"].knowledge, desired_class="yes", k=1, read_model="never").fit(SIX_TRAIN)
    (option,) = explainer.explain(person)
    assert {n: v for n, v in option.values.items() if v != person[n]} == {"income": 12, "savings": 12}


def test_bench_oracle_counts_each_answer_against_the_domain() -> None:
    """``mc3g bench oracle``'s counts, on answers made up against a domain's options: a first
    answer dearer than the domain's least, a later option dearer than the domain's at its place,
    a person given fewer than the domain holds, a false and a true "no option"; an answer cheaper
    than the domain's least, or one the model refuses, stops the run."""
    from mc3g.bench.oracle import _counted

    model = SimpleNamespace(predict=lambda frame: np.where(frame["x"] >= 5, "yes", "no"))

    def answer(*costs: float, x: int = 5) -> SimpleNamespace:
        return SimpleNamespace(
            counterfactuals=[SimpleNamespace(cost=c, values={"x": x}) for c in costs], instance={"x": 0}, unlike=0, run=SimpleNamespace(search_seconds=0.01)
        )

    answers = [answer(1.0, 2.0, 3.0), answer(1.5, 2.0), answer(), answer()]
    truths = [[1.0, 1.5, 3.0], [1.0, 2.0, 2.5], [1.0], []]
    run = _counted("three", "made up", 3, model, answers, truths, 10, 4)
    assert (run.people, run.first_optimal, run.worst_first, run.later, run.later_optimal) == (4, 2, 0.5, 3, 2)
    assert (run.short, run.false_none, run.true_none, run.accepted) == (2, 1, 1, 0.4)
    with pytest.raises(AssertionError, match="cheaper than every state"):
        _counted("three", "made up", 1, model, [answer(0.5)], [[1.0]], 10, 4)
    with pytest.raises(AssertionError, match="the model refuses"):
        _counted("three", "made up", 1, model, [answer(1.0, x=2)], [[1.0]], 10, 4)


def test_bench_oracle_runs_and_refuses_a_domain_it_does_not_have() -> None:
    from typer.testing import CliRunner

    from mc3g.cli import app

    runner = CliRunner()
    result = runner.invoke(app, ["bench", "oracle", "--people", "3", "--domain", "three", "--model", "forest", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [(r["domain"], r["model"], r["k"], r["states"]) for r in rows] == [("three", "forest", 1, 693), ("three", "forest", 3, 693)]
    assert all(r["first_optimal"] <= r["people"] == 3 and r["later_optimal"] <= r["later"] and r["false_none"] <= r["short"] for r in rows)
    result = runner.invoke(app, ["bench", "oracle", "--domain", "nine"])
    assert result.exit_code == 2 and "'nine' is none of three, six" in result.output
