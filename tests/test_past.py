"""Advice leads where people have been (issue 49, item 3): every option carries how unlike past
applicants its state is, and under ``product`` one unlike them all is not offered."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from conftest import tiered
from hypothesis import assume, event
from hypothesis import strategies as st
from sklearn.compose import ColumnTransformer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder
from sklearn.tree import DecisionTreeClassifier

from mc3g import MC3G
from mc3g.causal import CausalModel
from mc3g.schema import Feature
from mc3g.search import PastApplicants

# Past applicants whose savings always equal their income: a state that breaks that is unlike them.
LINE = pd.DataFrame({"income": np.tile(np.arange(11.0), 20), "savings": np.tile(np.arange(11.0), 20)})
NUMBERS = [Feature("income", "numeric"), Feature("savings", "numeric")]


def _lender(frame: pd.DataFrame) -> np.ndarray:
    """Refuses an income below 9, whatever the savings."""
    return np.where(frame["income"] < 9, "refused", "approved")


def test_a_state_among_past_applicants_is_like_them_and_one_off_their_line_is_not() -> None:
    past = PastApplicants.of(LINE, NUMBERS, {"income": 3.0, "savings": 3.0})
    assert past is not None and past.typical == 1.0  # every past applicant has a twin: the floor holds
    person = {"income": 2.0, "savings": 2.0}
    near, on_line, off_line = past.remoteness(person, [{"income": 2.5, "savings": 2.0}, {"income": 9.0, "savings": 9.0}, {"income": 9.0, "savings": 2.0}])
    assert near < 1 and on_line == 0 and off_line > 2  # (9, 2) lies 7 from the nearest, 7 / 3 spreads
    again = PastApplicants.from_dict(past.to_dict())
    assert np.array_equal(again.remoteness(person, [{"income": 9.0, "savings": 2.0}]), [off_line])


def test_an_unusual_person_is_measured_against_their_own_distance() -> None:
    past = PastApplicants.of(LINE, NUMBERS, {"income": 3.0, "savings": 3.0})
    person = {"income": 2.0, "savings": 10.0}  # 8 from the nearest: far off the line already
    (step,) = past.remoteness(person, [{"income": 9.0, "savings": 10.0}])
    assert step <= 1  # no farther than the person is now: not unlike for that


def test_under_product_an_option_unlike_every_past_applicant_is_not_offered_and_the_person_is_told(tmp_path) -> None:
    person = {"income": 2.0, "savings": 2.0}
    still = CausalModel(features={"savings": {"immutable": True}})  # income alone: every way out is off the line
    product = MC3G(_lender, still, desired_class="approved", refine=0).fit(LINE)
    answer = product.explain(person)
    assert answer.status == "no_counterfactual" and answer.unlike == 1
    assert answer.plainly == ("The only ways out found are unlike anything past applicants have done, so none is offered.",)
    assert "left out: farther from every past applicant than 99% of past applicants lie from theirs" in answer.reasons[0]
    paper = MC3G(_lender, still, desired_class="approved", refine=0, profile="paper").fit(LINE).explain(person)
    assert paper.counterfactuals and paper.best.values["income"] == 9 and paper.best.remoteness > 1  # offered, with its figure
    product.save(tmp_path / "explainer.json")
    loaded = MC3G.load(tmp_path / "explainer.json", model=_lender)
    assert loaded.explain(person).unlike == 1  # the past applicants travel with a saved explainer


def test_a_cheaper_option_unlike_every_past_applicant_takes_no_place_from_one_like_them() -> None:
    """Past applicants' y lies within 1 of their x; the model accepts x from 10 whatever y.
    x = 10 alone is the cheapest way out and unlike every past applicant: it is passed over
    (counted), and the answer is the cheapest like them, y raised too (before, x = 10 alone took
    the one place of K = 1 and was then left out: no option at all)."""
    rng = np.random.default_rng(0)
    x = rng.integers(0, 21, 300)
    train = pd.DataFrame({"x": x, "y": np.clip(x + rng.integers(-1, 2, 300), 0, 20)})
    answer = MC3G(lambda f: np.where(f["x"] >= 10, "yes", "no"), desired_class="yes", k=1).fit(train).explain({"x": 0, "y": 0})
    (option,) = answer
    assert option.values["x"] == 10 and option.values["y"] > 0 and option.remoteness <= 1
    assert answer.unlike == 1 and not answer.fewer  # counted; with its K options the answer says no more


def test_against_a_model_read_exactly_a_cheaper_option_unlike_every_past_applicant_takes_no_place() -> None:
    """The same against a decision tree read exactly, which accepts x or y from 10: x = 10 alone
    and y = 10 alone are the cheapest ways out and unlike every past applicant, passed over as
    the reading meets them (counted); the option is both raised, like them (before, the cheapest
    state was chosen and then left out: no option, and nothing proved)."""
    rng = np.random.default_rng(0)
    x = rng.integers(0, 21, 300)
    train = pd.DataFrame({"x": x, "y": np.clip(x + rng.integers(-1, 2, 300), 0, 20)})
    tree = DecisionTreeClassifier(max_depth=3).fit(train, np.where((train["x"] >= 10) | (train["y"] >= 10), "yes", "no"))
    answer = MC3G(tree, desired_class="yes", k=1).fit(train).explain({"x": 0, "y": 0})
    assert answer.run.guarantee == "exact" and answer.run.rules == "model"  # read exactly, not searched through imitating rules
    assert answer.best.values == {"x": 10, "y": 10} and answer.best.remoteness <= 1
    assert answer.unlike == 2 and not answer.fewer
    paper = MC3G(tree, desired_class="yes", k=2, profile="paper").fit(train).explain({"x": 0, "y": 0})
    assert sorted(tuple(option.values.values()) for option in paper) == [(0, 10), (10, 0)] and paper.unlike == 0  # the paper's settings keep them


def _typical_options(explainer: MC3G, person: dict, k: int) -> tuple[list[float], int]:
    """By enumeration: the costs of the K options the exact reading must give over its own
    candidate values (every state of its problem the knowledge allows and the model accepts, in
    cost order, distinct action sets, those unlike every past applicant passed over), and how
    many action sets it passes over so."""
    engine = explainer.engine_
    instance = engine.instance(person)
    problem = engine.read_problem(instance, k)
    states = [a for s in itertools.product(*(range(len(f.values)) for f in problem.space.features)) if (a := problem.assess(s)) is not None]
    rows = pd.DataFrame([{**person, **problem.describe(a.state)} for a in states], columns=list(person))
    accepted = [a for a, label in zip(states, explainer.model.predict(rows) if states else []) if label == "yes"]
    far = engine.observed.past.unlike({**person, **instance}, [{**person, **problem.describe(a.state)} for a in accepted]) if accepted else []
    kept, passed = [], []
    for a, unlike in sorted(zip(accepted, far), key=lambda pair: pair[0].cost):
        actions = frozenset(a.direct)
        if len(kept) == k or any(actions >= earlier for earlier, _ in kept):
            continue
        if unlike:
            passed += [actions] if not any(actions >= earlier for earlier in passed) else []
        else:
            kept.append((actions, a.cost))
    return [cost for _, cost in kept], len(passed)


@tiered(3, 40, st.integers(0, 10_000), st.integers(1, 4), st.integers(1, 3))
def test_against_a_tree_read_exactly_the_options_like_past_applicants_are_those_enumeration_finds(seed: int, depth: int, k: int) -> None:
    """Past applicants whose y follows their x, a tree of the given depth over x, y and a
    category, product profile: the options are the K least-cost distinct states of the exact
    reading's candidates that the tree accepts and that are like past applicants, as an
    enumeration of every one of those states finds them."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 21, 300)
    train = pd.DataFrame({"x": x, "y": np.clip(x + rng.integers(-2, 3, 300), 0, 20), "c": rng.choice(["a", "b", "c"], 300)})
    score = train["x"] + rng.uniform(0, 1) * train["y"] + 6 * (train["c"] == rng.choice(["a", "b"]))
    labels = np.where(score >= np.quantile(score, rng.uniform(0.5, 0.9)), "yes", "no")
    tree = DecisionTreeClassifier(max_depth=depth, random_state=seed)
    model = make_pipeline(ColumnTransformer([("c", OneHotEncoder(), ["c"])], remainder="passthrough"), tree).fit(train, labels)
    assume(len(set(model.predict(train))) == 2)
    explainer = MC3G(model, desired_class="yes", k=k, read_model="always", refine=0).fit(train)
    refused = train[model.predict(train) == "no"].drop_duplicates().iloc[:3]
    for _, person in refused.iterrows():
        answer = explainer.explain(person)
        costs, passed = _typical_options(explainer, person.to_dict(), k)
        event("passed over" if passed else "none passed over")
        assert [round(cf.cost, 9) for cf in answer] == [round(cost, 9) for cost in costs]
        assert all(cf.remoteness is not None and cf.remoteness <= 1 for cf in answer)
        if not costs:
            assert answer.status == "no_counterfactual"


def test_the_nearest_past_applicant_is_found_as_a_row_by_row_reading_finds_it() -> None:
    """The distance to the nearest past applicant, read a column at a time over blocks of
    states, is a row-by-row reading's to the last bit: the numbers' differences in spreads
    added in column order, then the categories that differ, and a row left out where it is the
    state's own."""
    rng = np.random.default_rng(7)
    train = pd.DataFrame({
        "age": rng.integers(18, 70, 300).astype(float), "job": rng.choice(["a", "b", "c"], 300),
        "income": rng.normal(40.0, 9.0, 300).round(1), "region": rng.choice(["n", "s"], 300),
    })  # fmt: skip
    features = [Feature("age", "numeric"), Feature("job", "categorical"), Feature("income", "numeric"), Feature("region", "categorical")]
    past = PastApplicants.of(train, features, {"age": 7.0, "income": 9.0})
    assert past is not None
    states = train.sample(150, random_state=1).to_dict("records")
    states = [{**s, "age": s["age"] + rng.integers(-3, 4), "income": s["income"] + rng.normal(0, 2)} for s in states]
    points = past._encoded(states)

    def nearest(point: np.ndarray, skip: int | None = None) -> float:
        best = np.inf
        for r, row in enumerate(past.rows):
            if r != skip:
                numbers = 0.0
                for j in np.flatnonzero(past.numeric):
                    numbers += abs(point[j] - row[j])
                best = min(best, numbers + int(sum(point[j] != row[j] for j in np.flatnonzero(~np.array(past.numeric)))))
        return best

    assert past._nearest(points).tolist() == [nearest(p) for p in points]
    own = np.arange(70)
    assert past._nearest(past.rows[:70], own=own).tolist() == [nearest(p, skip=i) for i, p in enumerate(past.rows[:70])]


@tiered(20, 100, st.integers(0, 2**32 - 1), st.integers(1, 3))
def test_states_near_a_base_row_are_as_far_from_past_applicants_as_read_whole(seed: int, most: int) -> None:
    """States that change a base row (the person's) in a few features, numbers or categories,
    are as far from every past applicant to the last bit when the base's distances are carried
    over as when each state is read whole (more states than one block of them)."""
    rng = np.random.default_rng(seed)
    train = pd.DataFrame({
        "age": rng.integers(18, 70, 200).astype(float), "job": rng.choice(["a", "b", "c"], 200),
        "income": rng.normal(40.0, 9.0, 200).round(1), "region": rng.choice(["n", "s", "w"], 200),
    })  # fmt: skip
    features = [Feature("age", "numeric"), Feature("job", "categorical"), Feature("income", "numeric"), Feature("region", "categorical")]
    past = PastApplicants.of(train, features, {"age": 7.0, "income": 9.0})
    assert past is not None
    base = {"age": 30.0, "job": "a", "income": 35.5, "region": "n"}
    choices = {"age": [25.0, 31.0, 60.0], "job": ["b", "c", "unseen"], "income": [12.25, 35.5, 80.0], "region": ["s", "w"]}
    states = []
    for _ in range(150):
        changed = rng.choice(list(choices), size=rng.integers(0, most + 1), replace=False)
        states.append({**base, **{name: choices[name][rng.integers(len(choices[name]))] for name in changed}})
    whole = past.remoteness(base, states)
    assert past.remoteness(base, states, base=base).tolist() == whole.tolist()
