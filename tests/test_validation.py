"""What mc3g refuses at each entrance, and that the refusal names the place, the feature and the
value: a person's row, training data, causal knowledge, rules, parameters and the command line.
One test per class of defect; tests/test_fuzz.py throws random input at the same entrances."""

from __future__ import annotations

import math
from fractions import Fraction

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from mc3g import MC3G, CausalModel, FoldSE
from mc3g.cli import app
from mc3g.datasets import JOHN, load
from mc3g.exceptions import CausalSyntaxError, InputError
from mc3g.explain import explain_chunk
from mc3g.reference import reference
from mc3g.rules import Literal, Rule, RuleSet
from mc3g.schema import Feature, Schema


@pytest.fixture(scope="module")
def loan():
    ds = load("loan", split="default")
    ref = reference("loan")
    return ds, ref, MC3G(ref.rules, ref.causal(ds), schema=ds.schema).fit(ds.X_train)


@pytest.fixture(scope="module")
def cars():
    ds = load("cars", split="paper")
    ref = reference("cars")
    return ds, MC3G(ref.rules, ref.causal(ds), schema=ds.schema).fit(ds.X_train)


# -- a person's row ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "why"),
    [
        (math.inf, "inf, not a finite number"),
        (-math.inf, "-inf, not a finite number"),
        (math.nan, r"missing \(nan\)"),
        (None, r"missing \(None\)"),
        ("abc", "'abc', not a number"),
        (True, "True, a truth value, not a number"),
        (10**400, "a whole number of 401 digits, beyond ±1e\\+15"),
        (1e308, "1e\\+308, beyond ±1e\\+15"),
        ([40000], r"\[40000\] \(a list\), not a number"),
    ],
)
def test_a_bad_number_in_a_row_is_refused_with_its_feature_and_value(loan, value, why) -> None:
    _, _, explainer = loan
    with pytest.raises(InputError, match=f"the row: feature 'bank_balance' is {why}"):
        explainer.explain({**JOHN, "bank_balance": value})


def test_a_number_beyond_the_training_range_is_the_persons_own(loan) -> None:
    _, _, explainer = loan
    rich = explainer.explain({**JOHN, "bank_balance": 10**12, "annual_income": "42000"})
    assert rich.status == "refused" and rich.instance["bank_balance"] == 10**12  # refused for the score alone


@pytest.mark.parametrize(("value", "why"), [("Klingon", "'Klingon', not one of its values"), (None, r"missing \(None\)"), (math.nan, r"missing \(nan\)")])
def test_an_unknown_or_missing_category_is_refused(loan, value, why) -> None:
    _, _, explainer = loan
    with pytest.raises(InputError, match=f"the row: feature 'debt' is {why}.*'none', 'over_10000', 'up_to_10000'"):
        explainer.explain({**JOHN, "debt": value})


def test_cars_persons_seven_is_not_a_value(cars) -> None:
    ds, explainer = cars
    row = ds.X_test.iloc[2].copy()
    row["persons"] = "seven"
    with pytest.raises(InputError, match=rf"row {row.name}: feature 'persons' is 'seven', not one of its values \('2', '4', 'more'\)"):
        explainer.explain(row)


def test_adult_marital_status_is_checked_against_its_domain(adult_paper) -> None:
    ds = adult_paper
    ref = reference("adult")
    explainer = MC3G(ref.rules, ref.causal(ds), schema=ds.schema, profile="paper").fit(ds.X_train)  # a capital gain may rise
    person = ds.X_test.iloc[1]
    for value, why in (("Klingon", "'Klingon', not one of its values"), (None, "missing")):
        changed = person.astype(object).copy()
        changed["marital_status"] = value
        with pytest.raises(InputError, match=f"row {person.name}: feature 'marital_status' is {why}"):
            explainer.explain(changed)
    assert explainer.explain(person).best.cost == pytest.approx(0.9495, abs=1e-4)


def entrances(explainer: MC3G, bad: dict) -> list:
    """Every way a person's row comes in; an error names it "the row" (or "row 1" among rows)."""
    return [
        lambda: explainer.explain(bad),
        lambda: explainer.session(bad),
        lambda: explainer.problem(bad),
        lambda: explainer.program(bad),
        lambda: explainer.whatif(bad, {"debt": "none"}),
        lambda: explainer.refuses_rows([JOHN, bad]),
    ]


def test_every_entrance_of_a_row_checks_it(loan) -> None:
    _, _, explainer = loan
    for call in entrances(explainer, {**JOHN, "credit_score": math.inf}):
        with pytest.raises(InputError, match="(the row|row 1): feature 'credit_score' is inf"):
            call()
    with pytest.raises(InputError, match="the row lacks feature\\(s\\) \\['debt'\\]"):
        explainer.explain({k: v for k, v in JOHN.items() if k != "debt"})
    with pytest.raises(InputError, match="the row with the changes: feature 'bank_balance' is -inf, not a finite number"):
        explainer.whatif(JOHN, {"bank_balance": -math.inf})
    with pytest.raises(InputError, match="a person's row is a mapping"):
        explainer.explain([1, 2, 3])
    with pytest.raises(InputError, match="the rows to explain are a DataFrame, not dict"):
        list(explainer.explain_each(JOHN))


@pytest.mark.parametrize(
    ("feature", "value", "span"), [("age", -5, "from 0 to 120"), ("credit_score", 900, "from 300 to 850"), ("annual_income", -1, "at least 0")]
)
def test_a_value_no_person_may_have_is_refused_on_every_route(loan, feature, value, span) -> None:
    """The schema's valid values bound what a person may be, in play or not (annual_income is
    read by no rule); the training range bounds only where advice may go."""
    _, _, explainer = loan
    bad = {**JOHN, feature: value}
    why = f"feature '{feature}' is {value}, not a value a person may have \\({feature} is {span}\\)"
    for call in entrances(explainer, bad):
        with pytest.raises(InputError, match=f"(the row|row 1): {why}"):
            call()
    answers = explain_chunk(explainer, [JOHN, bad], 1, ["a", "b"])  # what a batch's worker does
    assert [a.status for a in answers] == ["refused", "error"] and answers[1].reasons[0] == f"InputError: row b: {why}".replace("\\", "")


def test_a_plan_to_an_impossible_value_is_refused(loan) -> None:
    _, _, explainer = loan
    with pytest.raises(InputError, match=r"the row with the changes: feature 'credit_score' is 851, not a value a person may have"):
        explainer.whatif(JOHN, {"credit_score": 851})


def test_a_bad_row_in_a_frame_gets_its_own_error_answer(loan) -> None:
    _, _, explainer = loan
    rows = pd.DataFrame([JOHN, {**JOHN, "bank_balance": math.inf}, {**JOHN, "debt": "Klingon"}], index=["a", "b", "c"])
    answers = dict(explainer.explain_each(rows))
    assert [answers[i].status for i in "abc"] == ["refused", "error", "error"]
    assert answers["b"].reasons[0] == "InputError: row b: feature 'bank_balance' is inf, not a finite number"
    assert answers["c"].reasons[0].startswith("InputError: row c: feature 'debt' is 'Klingon', not one of its values")
    assert explainer.explain(rows.iloc[:0]) == []


def test_the_frame_entrance_refuses_bad_cells_with_their_row(loan) -> None:
    ds, _, explainer = loan
    X = ds.X_test.iloc[:5].astype({"bank_balance": object})
    X.loc[X.index[3], "bank_balance"] = "lots"
    with pytest.raises(InputError, match=rf"row {X.index[3]}, column 'bank_balance' is 'lots', not a number"):
        explainer.refuses(X)
    X = ds.X_test.iloc[:5].copy()
    X.loc[X.index[2], "credit_score"] = 900
    with pytest.raises(
        InputError, match=rf"^X, row {X.index[2]}, column 'credit_score' is 900, not a value a person may have \(credit_score is from 300 to 850\)"
    ):
        explainer.refuses(X)


# -- parameters -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"k": 2.5}, r"^k must be a whole number from 1 to 2000 \(max_states = 2000: .*\), not 2.5 \(a float\)$"),
        ({"k": "3"}, r"^k must be a whole number from 1 to 2000 \(.*\), not '3' \(a str\)$"),
        ({"k": True}, r"^k must be a whole number from 1 to 2000 \(.*\), not True \(a bool\)$"),
        ({"k": 0}, r"^k must be a whole number from 1 to 2000 \(.*\), not 0$"),
        ({"k": 10000}, r"^k must be a whole number from 1 to 2000 \(max_states = 2000: the search hands out at most that many states.*\), not 10000$"),
        ({"total_CFs": 2.5}, r"^total_CFs must be a whole number from 1 to 2000 \(.*\), or None, not 2.5 \(a float\)$"),
        ({"max_states": 0}, r"^max_states must be a whole number at least 1, not 0$"),
        ({"data_k": "20"}, r"^data_k must be a whole number at least 1, not '20' \(a str\)$"),
        ({"n_jobs": 0}, r"^n_jobs must be a whole number at least 1 \(processes\) or a whole number at most -1 \(every core\), not 0$"),
        ({"holdout": 2}, r"^holdout must be a number in \[0, 1\), not 2$"),
        ({"distinct": "yes"}, r"^distinct must be True or False, or None, not 'yes' \(a str\)$"),
        ({"norm": "l3"}, r"^norm must be one of 'l0', 'l1' or 'l2', not 'l3'$"),
        ({"mode": "derive"}, r"^mode must be one of 'derived', 'explained' or 'none', not 'derive'; did you mean 'derived'\?$"),
        ({"ratio": 2}, r"^ratio must be a number in \[0, 1\], not 2$"),
        ({"features_to_vary": [1]}, r"^features_to_vary must be 'all' or a feature's name or a list of feature names, not \[1\] \(a list\)$"),
    ],
)
def test_a_wrong_parameter_is_named_with_its_value(loan, params, message) -> None:
    """One error from the declared table, naming the parameter, what it accepts and the value."""
    ds, ref, _ = loan
    with pytest.raises(InputError, match=message):
        MC3G(ref.rules, ref.causal(ds), schema=ds.schema, **params).fit(ds.X_train)


@pytest.mark.slow
def test_k_at_explain_time_is_checked_against_its_bound(loan) -> None:
    ds, ref, explainer = loan
    for k, message in ((2.5, "not 2.5"), ("3", "not '3'"), (2001, "\\(max_states = 2000: .*\\), not 2001")):
        with pytest.raises(InputError, match=f"k must be .*{message}"):
            explainer.explain(JOHN, k=k)
    near = MC3G(ref.rules, ref.causal(ds), schema=ds.schema, distinct=False).fit(ds.X_train)
    assert len(near.explain(JOHN, k=2000)) == 2000  # the bound itself is allowed


# -- training data --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("cell", "why"), [(math.inf, "inf, not a finite number"), (1e308, "1e\\+308, beyond"), ("abc", "'abc', not a number"), (None, "missing")]
)
def test_training_data_with_a_bad_number_is_refused(loan, cell, why) -> None:
    ds, ref, _ = loan
    X = ds.X_train.astype({"bank_balance": object})
    X.loc[X.index[7], "bank_balance"] = cell
    with pytest.raises(InputError, match=f"the training data \\(X\\), row {X.index[7]}, column 'bank_balance' is {why}"):
        MC3G(ref.rules, ref.causal(ds), schema=ds.schema).fit(X)


def test_training_data_outside_a_declared_domain_is_refused(loan) -> None:
    ds, ref, _ = loan
    X = ds.X_train.copy()
    X.loc[X.index[3], "debt"] = "some"
    with pytest.raises(InputError, match=f"row {X.index[3]}, column 'debt' is 'some', not one of its values"):
        MC3G(ref.rules, ref.causal(ds), schema=ds.schema).fit(X)


def test_training_data_no_person_may_have_is_refused(loan) -> None:
    ds, ref, _ = loan
    X = ds.X_train.copy()
    X.loc[X.index[4], "age"] = -40
    with pytest.raises(
        InputError, match=rf"the training data \(X\), row {X.index[4]}, column 'age' is -40, not a value a person may have \(age is from 0 to 120\)"
    ):
        MC3G(ref.rules, ref.causal(ds), schema=ds.schema).fit(X)


def test_knowledge_may_narrow_the_valid_values_but_not_widen_them_under_product(loan) -> None:
    ds, ref, _ = loan
    narrowed = ref.causal(ds).combined(CausalModel.parse("age: valid [18, 100]", schema=ds.schema))
    explainer = MC3G(ref.rules, narrowed, schema=ds.schema).fit(ds.X_train)
    assert explainer.schema_.feature("age").valid == (18, 100)
    with pytest.raises(InputError, match=r"feature 'age' is 17, not a value a person may have \(age is from 18 to 100\)"):
        explainer.explain({**JOHN, "age": 17})
    widened = ref.causal(ds).combined(CausalModel.parse("age: valid [-10, 200]", file="wide.causal", schema=ds.schema))
    with pytest.raises(InputError, match=r"wide.causal:1:1: the data declare 'age' valid only from 0 to 120, and the product profile keeps it so"):
        MC3G(ref.rules, widened, schema=ds.schema).fit(ds.X_train)
    paper = MC3G(ref.rules, widened, schema=ds.schema, profile="paper").fit(ds.X_train)
    assert paper.explain({**JOHN, "age": 150}).instance["age"] == 150


def test_advice_never_leaves_the_valid_values() -> None:
    """A range wider than the valid values (a DiCE permitted_range) bounds advice only inside them."""
    schema = Schema("s", (Feature("x", "numeric", valid=(0, 10), step=1),), "y", ("no", "yes"), "no")
    X = pd.DataFrame({"x": [0, 4, 10]})
    for threshold, expected in ((8, 8), (50, None)):
        rules = RuleSet((Rule(Literal("y", "==", "no"), (Literal("x", "<", threshold),)),), "y", "yes")
        explainer = MC3G(rules, schema=schema, permitted_range={"x": (0, 100)}).fit(X)
        best = explainer.explain({"x": 4}).best
        assert (best.values["x"] if best else None) == expected


def test_a_column_of_numbers_with_a_text_cell_is_not_read_as_text(loan) -> None:
    ds, ref, _ = loan
    X = ds.X_train.astype({"bank_balance": object})
    X.loc[X.index[5], "bank_balance"] = "abc"
    with pytest.raises(InputError, match=f"column 'bank_balance' holds numbers and text \\(row {X.index[5]}: 'abc'\\)"):
        MC3G(ref.rules).fit(X)  # no schema: the kind would be read off the column
    with pytest.raises(InputError, match=f"column 'bank_balance' holds numbers and text \\(row {X.index[5]}: 'abc'\\)"):
        FoldSE().fit(X, ds.y_train)


def test_foldse_refuses_text_in_a_numeric_feature_but_keeps_missing_marks() -> None:
    X = pd.DataFrame({"gain": pd.Series([1, 2, "?", None, 5, 6] * 5, dtype=object)})
    y = ["a", "b"] * 15
    FoldSE(numeric=["gain"]).fit(X, y)
    for cell, why in (("abc", "'abc', not a number"), (1e308, "1e\\+308, beyond"), (-math.inf, "-inf, not a finite")):
        bad = X.copy()
        bad.loc[4, "gain"] = cell
        with pytest.raises(InputError, match=f"feature 'gain' is numeric, but row 4 is {why}"):
            FoldSE(numeric=["gain"]).fit(bad, y)


# -- causal knowledge -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        ("bank_balance: weight 1e400", "k.causal:1:22", "the number 1e400 is beyond ±1e\\+15"),
        ("bank_balance: numeric [0, 1e16]", "k.causal:1:27", "the number 1e16 is beyond"),
        ("credit_score >= 1e999 <- debt == none", "k.causal:1:17", "the number 1e999 is beyond"),
        ("bank_balance: step 0", "k.causal:1:1", "step must be > 0, not 0.0"),
        ("bank_balance: weight -1", "k.causal:1:1", "weight must be >= 0"),
        ("bank_balance: numeric [0, 1000000], step 1e-300", "k.causal:1:1", "step 1e-300 is too fine for values as large as 1e\\+06"),
        ("debt: targets {none, Klingon}", "k.causal:1:22", "'Klingon' is not a value of debt"),
        ("salary >= 5 <- debt == none", "k.causal:1:1", "unknown feature 'salary'"),
    ],
)
def test_causal_numbers_and_names_are_refused_at_file_line_and_column(loan, text, where, message) -> None:
    ds, _, _ = loan
    with pytest.raises(CausalSyntaxError, match=f"^{where}: .*{message}"):
        CausalModel.parse(text, file="k.causal", schema=ds.schema)


def test_a_step_too_fine_for_the_data_is_refused_not_answered_wrongly(adult_paper) -> None:
    """Capital gain runs to 99,999: a step of 1e-300 (or 1e-12) cannot be held apart by a
    float, and once gave 1.9494 where the optimum is 0.9495.  It is refused, saying why."""
    ds = adult_paper
    ref = reference("adult")
    with_step = ref.causal(ds).to_text() + "\ncapital_gain: step "
    for step in ("1e-300", "1e-12"):
        with pytest.raises(CausalSyntaxError, match=f"feature 'capital_gain': step {step} is too fine for values as large as 99999: a float cannot keep"):
            CausalModel.parse(with_step + step, file="adult.causal", schema=ds.schema)
    fine = MC3G(ref.rules, CausalModel.parse(with_step + "1e-9", schema=ds.schema), schema=ds.schema, profile="paper").fit(ds.X_train)
    assert fine.explain(ds.X_test.iloc[1]).best.values["capital_gain"] == 6849.000000001


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(
    step=st.sampled_from([1, 0.1, 0.01, 0.001, 0.25, 0.3, 1e-5, 1e-6, 1e-7]),
    top=st.sampled_from([1e3, 1e6, 1e8]),
    digits=st.integers(0, 9),
    share=st.floats(0.01, 0.5),
    op=st.sampled_from(["<=", "<"]),
)
def test_the_grid_is_exact_for_any_step_it_accepts(step, top, digits, share, op) -> None:
    """The counterfactual of ``x op t`` from 0 is the first grid point past t, computed on the
    decimals as written (once a step of 1e-5 past 391.828 found nothing at all)."""
    threshold = round(top * share, digits)
    schema = Schema("s", (Feature("x", "numeric", range=(0.0, top), step=step),), "y", ("bad", "good"), "bad")
    rules = RuleSet((Rule(Literal("y", "==", "bad"), (Literal("x", op, threshold),)),), "y", "good")
    answer = MC3G(rules, schema=schema).fit(pd.DataFrame({"x": [0.0, top]})).explain({"x": 0.0})
    units = Fraction(repr(threshold)) / Fraction(repr(float(step)))
    first = (math.floor(units) + 1) if op == "<=" else math.ceil(units)
    assert answer.best.values["x"] == float(first * Fraction(repr(float(step))))


# -- rules ----------------------------------------------------------------------------------------
RULES_WITH = (
    '{{"format": "mc3g.ruleset", "version": 1, "label": "y", "default": "n", '
    '"rules": [{{"head": null, "body": [{{"feature": "x", "op": "<=", "value": {}}}]}}]}}'
)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "the rule set is not JSON"),
        ("[1, 2]", "a rule set document is a JSON object, not list"),
        ('{"format": "mc3g.ruleset", "version": 1, "label": "y", "default": "n"}', "a rule set document has 'rules'"),
        ('{"format": "mc3g.ruleset", "version": 1, "label": "y", "default": "n", "rules": [{"body": 3}]}', "a rule set document has 'rules'"),
        (RULES_WITH.format("Infinity"), "literal on 'x' \\(<=\\): the number is inf, not a finite number"),
        (RULES_WITH.format("1e400"), "the number is inf"),
        (RULES_WITH.format("2e15"), "the number is 2e\\+15, beyond ±1e\\+15"),
    ],
)
def test_a_broken_rule_set_document_is_refused(text, message) -> None:
    with pytest.raises(InputError, match=message):
        RuleSet.from_json(text)


# -- the command line -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["explain", "loan", "--row", "0", "-k", "10000"], "k must be a whole number from 1 to 2000 (max_states = 2000"),
        (["whatif", "loan", "--row", "0", "--set", "bank_balance=inf"], "row 0 of the default test split with the changes: feature 'bank_balance' is 'inf'"),
        (["whatif", "loan", "--row", "0", "--set", "debt=Klingon"], "feature 'debt' is 'Klingon', not one of its values"),
        (["explain", "loan", "--row", "0", "--rules", "pyproject.toml"], "the rule set is not JSON"),
        (["explain", "loan", "--row", "0", "--model", "pyproject.toml"], "pyproject.toml: unknown kind of model file .toml"),
        (["explain", "loan", "--row", "0", "--n-jobs", "0"], "--n-jobs must be a whole number from 1 to"),
        (["explain", "loan", "--row", "0", "--trust-model"], "trust_model and trusted_types (--trust-model, --trust-type) say how to read a model file"),
        (["explain", "loan", "--row", "0", "--causal", "a.causal", "--causal-only", "b.causal"], "give one of them"),
        (["explain", "loan", "--row", "0", "--mode", "magic"], "mode must be one of 'derived', 'explained' or 'none', not 'magic'"),
    ],
)
def test_the_cli_names_a_refused_option_and_exits_2(args, message) -> None:
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.output.split())


def test_the_cli_bounds_its_counts() -> None:
    result = CliRunner().invoke(app, ["reproduce", "table1", "--rows", "-5"])
    assert result.exit_code == 2 and "--rows" in result.output
