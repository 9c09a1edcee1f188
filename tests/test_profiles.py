"""The two profiles: ``product`` (the default: advice a lender could hand to an applicant) and
``paper`` (the MC3G paper's settings, to reproduce its tables)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from mc3g import MC3G, CausalModel
from mc3g.cli import app
from mc3g.datasets import JOHN, load
from mc3g.exceptions import InputError, UnknownNameError
from mc3g.explain import violations
from mc3g.reference import decision_rules, knowledge, reference
from mc3g.schema import Feature

runner = CliRunner()


@pytest.fixture(scope="module")
def adult(adult_paper):
    return adult_paper


@pytest.fixture(scope="module")
def german():
    return load("german", split="paper")


@pytest.mark.parametrize(("setting", "lifted"), [("sex: not immutable", "'sex' immutable"), ("education_num: any-direction", "'education_num' increase-only")])
def test_product_keeps_the_datas_protections_whatever_the_knowledge_says(adult, setting: str, lifted: str) -> None:
    causal = CausalModel.parse(f"# mine\n{setting}\n", file="mine.causal", schema=adult.schema)
    rules = reference("adult").rules
    with pytest.raises(InputError) as refused:
        MC3G(rules, causal, schema=adult.schema).fit(adult.X_train)
    message = str(refused.value)
    assert message.startswith("mine.causal:2:1: ") and lifted in message and "profile='paper'" in message
    paper = MC3G(rules, causal, schema=adult.schema, profile="paper").fit(adult.X_train)
    feature = setting.split(":")[0]
    assert not paper.schema_.feature(feature).immutable and paper.schema_.feature(feature).direction is None


@pytest.mark.parametrize(
    ("before", "after", "lifted"),
    [
        ({"immutable": True}, {"immutable": False}, ("immutable", "immutable")),
        ({"consequence_only": True}, {"consequence_only": False}, ("consequence_only", "consequence-only")),
        ({"direction": "increase"}, {"direction": "any"}, ("direction", "increase-only")),
        ({"direction": "increase"}, {"direction": "decrease"}, ("direction", "increase-only")),
        ({"direction": "increase"}, {"immutable": True, "direction": "any"}, None),  # immutable keeps every protection
        ({"max_change": 10.0}, {"max_change": 20.0}, ("max_change", "max-change 10")),
        ({"max_change": 10.0}, {"max_change": 5.0}, None),
        ({"targets": ("a", "b")}, {"targets": ("a", "c")}, ("targets", "targets {a, b}")),
        ({"targets": ("a", "b")}, {"targets": None}, ("targets", "targets {a, b}")),
        ({"targets": ("a", "b")}, {"targets": ("a",)}, None),
        ({"valid": (0.0, 120.0)}, {"valid": (18.0, 100.0)}, None),
        ({"valid": (0.0, 120.0)}, {"valid": (-5.0, 120.0)}, ("valid", "valid only from 0 to 120")),
        ({"valid": (0.0, 120.0)}, {"immutable": True, "valid": None}, ("valid", "valid only from 0 to 120")),  # who may be a person at all
        ({"weight": 2.0, "range": (0.0, 5.0)}, {"weight": 0.0, "range": (-9.0, 9.0)}, None),  # not protections
    ],
)
def test_a_protection_may_be_tightened_never_loosened(before: dict, after: dict, lifted) -> None:
    kind = "categorical" if "targets" in before else "numeric"
    base = Feature("f", kind, domain=("a", "b", "c") if kind == "categorical" else None).updated(**before)
    assert base.lifted(base.updated(**after)) == lifted
    assert set(base.protections()) == set(before) - {"weight", "range", "valid"}  # valid is who may be a person, not where advice goes


def test_a_schema_of_ones_own_decides_what_is_protected(adult) -> None:
    """The protections are the schema's: a user who declares sex mutable there gets it so."""
    mine = adult.schema.updated({"sex": {"immutable": False}})
    explainer = MC3G(reference("adult").rules, knowledge(adult), schema=mine).fit(adult.X_train)
    assert not explainer.schema_.feature("sex").immutable


def test_product_refuses_rules_that_describe_the_favourable_class(german) -> None:
    published = reference("german").rules  # the paper's rules describe 'good' credit
    with pytest.raises(InputError, match=r"describe \['good'\], but the refusal in the schema 'german' is 'bad'"):
        MC3G(published, knowledge(german), schema=german.schema).fit(german.X_train)
    paper = MC3G(published, knowledge(german), schema=german.schema, profile="paper").fit(german.X_train)
    assert paper.unfavourable_ == "good"


def test_the_profile_decides_distinct_options_unless_told(adult) -> None:
    ref = reference("loan")
    ds = ref.data()
    for profile, distinct, expected in (("product", None, True), ("paper", None, False), ("product", False, False), ("paper", True, True)):
        answer = ref.explainer(ds, profile=profile, distinct=distinct, k=2).explain(JOHN)
        assert (answer.run.profile, answer.run.distinct, answer.run.unfavourable) == (profile, expected, "rejected")
        assert json.loads(answer.to_json())["run"]["profile"] == profile
    with pytest.raises(UnknownNameError, match="^profile must be one of 'product' or 'paper', not 'lender'$"):
        MC3G(ref.rules, profile="lender").fit(ds.X_train)


def test_each_profiles_feature_settings_come_with_the_data_sets_schema(adult) -> None:
    """The shipped knowledge holds no profile's settings; the data set's schema carries each
    profile's, and ``under`` lays one over the data's metadata."""
    product, paper = adult.schema.profiles["product"], adult.schema.profiles["paper"]
    # No advice to realise a capital gain, nor to change the census's sampling weight; age is a
    # wait of a decade at most.
    assert {name: product.features[name] for name in ("capital_gain", "fnlwgt", "age", "marital_status", "relationship")} == {
        "capital_gain": {"immutable": True}, "fnlwgt": {"immutable": True}, "age": {"direction": "increase", "waits": "years", "max_change": 10.0},
        "marital_status": {"immutable": True}, "relationship": {"immutable": True},
    }  # fmt: skip
    assert product.where["age"].startswith("mc3g/resources/adult.product.causal:")
    assert paper.features == {"sex": {"immutable": False}, "education_num": {"direction": "any"}}
    assert not knowledge(adult).features and knowledge(adult).rules and knowledge(adult).constraints
    under = adult.schema.under("product")
    assert under.feature("capital_gain").immutable and under.feature("age").max_change == 10 and under.feature("age").waits == "years" and not under.profiles
    assert under.under("product") == under and adult.schema.under(None).features == adult.schema.features
    assert not adult.schema.under("paper").feature("sex").immutable and adult.schema.feature("sex").immutable
    loan = load("loan")  # knowledge, not an experimental setting: it holds in both profiles
    assert knowledge(loan).features["credit_score"]["consequence_only"] is True and not loan.schema.profiles


@pytest.mark.slow
def test_product_tells_no_one_to_wait_more_than_a_decade(adult) -> None:
    """A model that approves only people of 60 or more: under paper a person of 24 is told to
    be 60; under product, where age may move by at most 10 years, nobody is told to wait more,
    and the checker flags the paper's option against the product's knowledge."""

    def only_the_old(X: pd.DataFrame) -> np.ndarray:
        return np.where(X["age"] >= 60, ">50K", "<=50K")

    X = adult.X_train.iloc[:3000]
    young = dict(X[X["age"] == 24].iloc[0].items())
    nearly = {**young, "age": 52}
    product = MC3G(only_the_old, knowledge(adult), schema=adult.schema, k=1, refine=0).fit(X)
    paper = MC3G(only_the_old, knowledge(adult), schema=adult.schema, k=1, profile="paper", refine=0).fit(X)
    far = paper.explain(young)
    assert [cf.values["age"] for cf in far] == [60]
    assert not product.explain(young).counterfactuals
    assert [cf.values["age"] for cf in product.explain(nearly)] == [60]
    assert violations(far.counterfactuals[0], young, [], product.causal_, product.schema_) == ["age moves by 36, more than its max-change of 10"]


NOT_ADVICE = {"workclass": {"?", "Never-worked", "Without-pay"}, "occupation": {"?", "Armed-Forces"}}


def not_advice(person: dict, values: dict) -> list[str]:
    """What an option tells a person that no lender may: to marry, divorce or leave a household,
    to have an unknown class of work or occupation, to stop being paid, to enlist, or to work more
    than 60 hours a week."""
    found = [name for name in ("marital_status", "relationship") if values[name] != person[name]]
    found += [f"{name} {values[name]}" for name, bad in NOT_ADVICE.items() if values[name] != person[name] and values[name] in bad]
    return found + (["hours over 60"] if values["hours_per_week"] > 60 and values["hours_per_week"] != person["hours_per_week"] else [])


@pytest.mark.slow
def test_product_tells_no_one_to_marry_enlist_stop_being_paid_or_work_over_60_hours(adult) -> None:
    """A model that approves exactly the advice no lender may give: under paper the refused are
    told to marry, become a husband or enlist; under product
    (marital status and relationship immutable, work moving only between paid classes and
    civilian occupations, hours at most 60) none of it, and they are told why nothing is left."""

    def tempted(X: pd.DataFrame) -> np.ndarray:
        bad = X["marital_status"].isin(["Married-civ-spouse", "Married-AF-spouse"]) | X["relationship"].isin(["Husband", "Wife"])
        bad |= X["hours_per_week"] > 60
        for name, values in NOT_ADVICE.items():
            bad |= X[name].isin(values)
        return np.where(bad, ">50K", "<=50K")

    X = adult.X_train.iloc[:1500]
    refused = adult.X_test[(tempted(adult.X_test) == "<=50K") & (adult.X_test["hours_per_week"] <= 40)].iloc[:3]
    people = [dict(row.items()) for _, row in refused.iterrows()]
    paper = MC3G(tempted, knowledge(adult), schema=adult.schema, k=3, profile="paper").fit(X).explain(refused)
    product = MC3G(tempted, knowledge(adult), schema=adult.schema, k=3).fit(X).explain(refused)
    told = {what.split(" ")[0] for person, answer in zip(people, paper) for cf in answer for what in not_advice(person, cf.values)}
    assert told >= {"marital_status", "relationship", "occupation"} and all(answer.counterfactuals for answer in paper)
    assert [not_advice(person, cf.values) for person, answer in zip(people, product) for cf in answer] == []
    assert all(answer.reasons for answer in product if not answer.counterfactuals)


@pytest.mark.slow
def test_decision_rules_describe_the_datas_refusal_under_product(adult, german) -> None:
    assert decision_rules(adult) == reference("adult").rules  # the published rules describe <=50K
    learned = decision_rules(german)
    assert {r.head.value for r in learned.rules} == {"bad"} and learned.default == "good"
    assert decision_rules(german, "paper") == reference("german").rules
    with pytest.raises(InputError, match="cars4 .* has 4 classes"):
        decision_rules(load("cars4"))
    with pytest.raises(InputError, match="the paper published no decision rules for adult \\(uci split\\)"):
        decision_rules(load("adult", split="uci"), "paper")


def test_germans_refused_have_bad_credit_unless_the_paper_is_reproduced(german) -> None:
    row = int(decision_rules(german).covers(german.X_test).argmax())  # the first person the 'bad' rules refuse
    product = json.loads(runner.invoke(app, ["explain", "german", "--row", str(row), "--json"]).stdout)
    assert product["status"] == "refused" and product["run"]["unfavourable"] == "bad" and product["run"]["profile"] == "product"
    paper = json.loads(runner.invoke(app, ["explain", "german", "--row", "11", "--profile", "paper", "--json"]).stdout)
    assert paper["run"]["unfavourable"] == "good" and paper["run"]["profile"] == "paper"
    assert paper["counterfactuals"] and all(cf["values"]["job"] != paper["instance"]["job"] for cf in paper["counterfactuals"])  # must change
    result = runner.invoke(app, ["explain", "german", "--row", "0", "--profile", "lender"])
    assert result.exit_code == 2 and "profile must be one of 'product' or 'paper', not 'lender'" in result.output


def test_reproducing_the_paper_needs_its_profile(adult) -> None:
    """The published Table 2 setting lets sex change; the product profile does not."""
    ref = reference("adult")
    person = ref.person_row(adult)
    paper = ref.explainer(adult, profile="paper", mode="explained", candidates="data", k=20).explain(person)
    product = ref.explainer(adult, mode="explained", candidates="data", k=20, distinct=False).explain(person)
    assert paper.run.profile == "paper" and product.run.profile == "product"
    assert all(cf.values["sex"] == person["sex"] for cf in product)
    assert all(cf.values["education_num"] >= person["education_num"] for cf in product)


@pytest.mark.slow
def test_no_product_answer_breaks_the_datas_metadata_for_a_black_box() -> None:
    """A gradient-boosted black box on adult: under product no option changes a protected
    attribute, lowers age or education, moves past a max-change or leaves the training range (checked against the data's
    own metadata); under paper the published rules let sex change, so the check can fail; and
    German's refusal is 'bad'."""
    from mc3g.bench.profiles import profile_audit

    paper, product = profile_audit("adult", every=16)
    # Under product marrying, a capital gain and the like are no way out (issues 22 and 49), so many have none, proved on the
    # model read exactly: 103 of 335 answered when measured (329 while a capital gain was advice)
    assert product.profile == "product" and product.people == paper.people and product.answered >= 0.25 * product.people
    assert (product.protected, product.one_way, product.out_of_range, product.other, product.too_far) == (0, 0, 0, 0, 0)
    assert paper.profile == "paper" and paper.other == 0
    (rules,) = profile_audit("adult", model="rules", every=16, profiles=("paper",))
    assert rules.protected > 0
    german_paper, german_product = profile_audit("german", model="rules")
    assert (german_paper.refusal, german_product.refusal) == ("good", "bad")
    assert german_product.answered == german_product.people > 0

