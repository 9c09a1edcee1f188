"""What-if: the person's own changes, what they force, what they break, the decision and the cost."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from mc3g import MC3G
from mc3g.causal import CausalModel
from mc3g.cli import app
from mc3g.datasets import JOHN
from mc3g.exceptions import InputError
from mc3g.reference import reference
from mc3g.rules import Literal, Rule, RuleSet


@pytest.fixture(scope="module")
def john():
    ref = reference("loan")
    ds = ref.data()
    return ref.explainer(ds), ds


def test_clearing_the_debt_forces_the_score_but_the_balance_still_refuses(john) -> None:
    explainer, _ = john
    result = explainer.whatif(JOHN, {"debt": "none"})
    assert result.values["credit_score"] == 620 and [c.feature for c in result.caused_changes] == ["credit_score"]
    assert result.refused and result.firing == ("bank balance is below 60,000",) and result.judged_by == "the decision rules"
    assert result.refusing == (explainer.decision_rules_[0],)
    assert result.cost == pytest.approx(1.0) and result.broken == ()
    assert "As a consequence, your credit score rises from 599 to 620." in result.plan


def test_the_best_plan_tried_by_hand_costs_what_the_search_found(john) -> None:
    explainer, _ = john
    best = explainer.explain(JOHN).best
    mine = explainer.whatif(JOHN, {a.feature: a.after for a in best.direct_actions})
    assert not mine.refused and mine.firing == ()
    assert mine.values == best.values and mine.cost == pytest.approx(best.cost)


def test_a_change_that_is_not_the_persons_to_make_has_no_cost_and_says_why(john) -> None:
    explainer, _ = john
    result = explainer.whatif(JOHN, {"credit_score": 700, "bank_balance": "60000"})
    assert result.cost is None and result.values["bank_balance"] == 60000
    assert result.broken == ("credit score changes only as a consequence, but is a direct action",)
    assert "not yours to make" in str(result)


def test_bad_changes_are_named(john) -> None:
    explainer, _ = john
    with pytest.raises(InputError, match=r"feature 'debt' is 'nothing', not one of its values"):
        explainer.whatif(JOHN, {"debt": "nothing"})
    with pytest.raises(InputError, match=r"age may not be changed here: neither the decision rules nor the causal knowledge read it"):
        explainer.whatif(JOHN, {"age": 50})
    with pytest.raises(InputError, match=r"there is no feature \['agee'\]; the features are \['age', "):
        explainer.whatif(JOHN, {"agee": 50})
    with pytest.raises(InputError, match="the row with the changes: feature 'bank_balance' is 'lots', not a number"):
        explainer.whatif(JOHN, {"bank_balance": "lots"})


def test_a_change_to_ones_own_value_is_no_what_if(john) -> None:
    explainer, _ = john
    with pytest.raises(InputError, match="nothing changes for the row: bank balance is already 40,000, debt is already over 10,000; a what-if takes"):
        explainer.whatif(JOHN, {"debt": "over_10000", "bank_balance": "40000"})
    assert explainer.whatif(JOHN, {"debt": "over_10000", "bank_balance": 60000}).direct_actions[0].feature == "bank_balance"  # one real change
    result = CliRunner().invoke(app, ["whatif", "loan", "--row", "0", "--set", f"debt={john[1].test['debt'].iloc[0]}"])
    assert result.exit_code == 2 and "nothing changes" in result.output and "No change is needed" not in result.output


@pytest.mark.slow
def test_every_feature_outside_play_says_why_it_may_not_change() -> None:
    """Adult under product: race, native_country, fnlwgt and hours per week are read by no rule
    (sex is, and its what-if answers that the change is not the person's to make)."""
    from mc3g.reference import fitted_explainer

    ds, explainer = fitted_explainer("adult")
    person = ds.test[list(explainer.feature_names_in_)].iloc[1]
    unread = "hours_per_week may not be changed here: neither the decision rules nor the causal knowledge read it"
    for change, why in [({"race": "Black"}, "race may not be changed: it is immutable"), ({"fnlwgt": 1000}, "fnlwgt may not be changed: it is immutable"),
                        ({"native_country": "Cuba"}, "native_country may not be changed: it is immutable"), ({"hours_per_week": 50}, unread)]:  # fmt: skip
        with pytest.raises(InputError) as refused:
            explainer.whatif(person, change)
        assert str(refused.value).startswith(why)
    assert "not yours to make" in str(explainer.whatif(person, {"sex": "Female" if person["sex"] == "Male" else "Male"}))


def test_every_feature_a_black_box_s_advice_may_change_can_be_tried() -> None:
    """Issue 50, item 6: a black box reading the annual income, which its surrogate rules do not:
    the income is tried in Python and through the service, and the model judges the state."""
    from fastapi.testclient import TestClient

    from mc3g.serve import Service, create_app

    ds = reference("loan").data()

    def lender(frame: pd.DataFrame) -> np.ndarray:
        rich = frame["annual_income"] >= 200_000
        return np.where(rich | ((frame["bank_balance"] >= 60000) & (frame["credit_score"] >= 620)), "approved", "rejected")

    explainer = MC3G(lender, reference("loan").causal(ds), schema=ds.schema, desired_class="approved", k=2, refine=0).fit(ds.X_train)
    assert "annual_income" in explainer.engine_.triable
    tried = explainer.whatif(JOHN, {"annual_income": 250_000})
    assert not tried.refused and tried.judged_by == "the model" and tried.direct_actions[0].feature == "annual_income"
    client = TestClient(create_app(Service(explainer, "loan", 2, example=JOHN)))
    response = client.post("/v1/whatif", json={"applicant": JOHN, "changes": {"annual_income": 250_000}})
    assert response.status_code == 200, response.text
    assert 'name="change:annual_income"' in client.get("/").text  # the page offers it too


@pytest.mark.parametrize(("rule", "y_after"), [("y >= 5 <- x >= 3", 5), ("cause y >= 5 <- x >= 3", 2)])
def test_only_a_constraint_rule_forces_its_effect(rule: str, y_after: int) -> None:
    causal = CausalModel.parse(f"x: numeric [0, 6]\ny: numeric [0, 6]\n{rule}")
    rules = RuleSet((Rule(Literal("out", "==", "bad"), (Literal("y", "<", 5),)),), "out", "good")
    explainer = MC3G(rules, causal).fit(pd.DataFrame({"x": range(7), "y": range(7)}))
    result = explainer.whatif({"x": 2, "y": 2}, {"x": 3})
    assert result.values == {"x": 3, "y": y_after} and result.refused == (y_after < 5)


def test_a_black_box_decides(john) -> None:
    _, ds = john

    def bank(frame: pd.DataFrame) -> np.ndarray:
        return np.where((frame["bank_balance"] < 60000) | (frame["credit_score"] < 620), "rejected", "approved")

    explainer = MC3G(bank, reference("loan").causal(ds), schema=ds.schema, refine=0).fit(ds.X_train)
    assert explainer.whatif(JOHN, {"debt": "none", "bank_balance": 60000}).judged_by == "the model"
    assert not explainer.whatif(JOHN, {"debt": "none", "bank_balance": 60000}).refused
    assert explainer.whatif(JOHN, {"bank_balance": 60000}).refused


def test_the_command_line_tries_a_plan() -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["whatif", "loan", "--row", "0", "--set", "bank_balance=90000", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["format"] == "mc3g.whatif" and data["values"]["bank_balance"] == 90000
    assert set(data) >= {"direct", "caused", "plan", "cost", "broken", "firing", "refused", "judged_by"}
    bad = runner.invoke(app, ["whatif", "loan", "--row", "0", "--set", "bank_balance"])
    assert bad.exit_code == 2 and "--set takes FEATURE=VALUE" in bad.output


def test_a_move_the_knowledge_does_not_allow_is_never_advice_and_a_what_if_says_it_breaks_the_knowledge() -> None:
    """Single may become married and married divorced, but single not divorced, and nobody
    becomes '?' (unknown): the search offers only the allowed move, the checker flags the others
    and the what-if reports them as breaking the knowledge, as it does a target."""
    causal = CausalModel.parse("m: categorical {single, married, divorced, '?'}, moves {single -> {married, divorced}, married -> divorced}, unknown {'?'}")
    causal = causal.combined(CausalModel.parse("m: moves {single -> married, married -> divorced}"))
    rules = RuleSet((Rule(Literal("out", "==", "bad"), (Literal("m", "in", ("single", "?")),)),), "out", "good")
    explainer = MC3G(rules, causal, k=3).fit(pd.DataFrame({"m": ["single", "married", "divorced", "?"]}))
    assert [o.values["m"] for o in explainer.explain({"m": "single"}).counterfactuals] == ["married"]
    assert not explainer.explain({"m": "?"}).counterfactuals  # '?' may make no move
    result = explainer.whatif({"m": "single"}, {"m": "divorced"})
    assert result.broken == ("m moves from single to divorced, a move the knowledge does not allow",) and not result.refused
    unknown = explainer.whatif({"m": "married"}, {"m": "?"})
    assert unknown.broken == ("m = ? means unknown, which is never advice", "m moves from married to ?, a move the knowledge does not allow")
