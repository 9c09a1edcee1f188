"""The command line, as a user runs it."""

from __future__ import annotations

import importlib.util
import json
import re

import pytest
from typer.testing import CliRunner

from mc3g import MC3G
from mc3g.cli import app
from mc3g.exceptions import BlackBoxError, InputError, SearchError
from mc3g.explain import ASKING
from mc3g.rules import RuleSet

runner = CliRunner()


def test_learn_loan_recovers_the_bank_rule() -> None:
    result = runner.invoke(app, ["learn", "loan"])
    assert result.exit_code == 0, result.output
    assert "loan(X,'rejected') :- bank_balance(X,N1), N1=<59900.0." in result.output
    assert "loan(X,'rejected') :- credit_score(X,N1), N1=<619.0." in result.output
    assert "2 / 0 / 2" in result.output


@pytest.mark.slow
def test_learn_json_has_the_documented_fields() -> None:
    result = runner.invoke(app, ["learn", "adult", "--split", "paper", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    for key in ("dataset", "accuracy", "precision", "recall", "n_rules", "n_exceptions", "n_literals", "train_seconds", "program"):
        assert key in data
    assert data["dataset"] == "adult" and data["n_rules"] == 2 and data["n_literals"] == 5
    assert data["accuracy"] >= 0.84
    assert RuleSet.from_dict(data["rules"]).to_asp() == data["program"]


@pytest.mark.slow
def test_learn_passes_the_hyper_parameters_on() -> None:
    loose = json.loads(runner.invoke(app, ["learn", "german", "--split", "paper", "--tail", "0", "--json"]).stdout)
    strict = json.loads(runner.invoke(app, ["learn", "german", "--split", "paper", "--json"]).stdout)
    assert loose["n_literals"] > strict["n_literals"]


def test_unknown_data_set_is_a_clear_error() -> None:
    result = runner.invoke(app, ["learn", "titanic"])
    assert result.exit_code == 2
    assert "unknown data set 'titanic'" in result.output and "adult" in result.output


def test_missing_files_say_where_and_how(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("MC3G_DATA_DIR", str(tmp_path))
    result = runner.invoke(app, ["learn", "adult"])
    assert result.exit_code == 2
    assert str(tmp_path / "adult" / "adult.data") in result.output
    assert "mc3g data download" in result.output
    assert "Traceback" not in result.output


def test_data_list_names_every_data_set() -> None:
    result = runner.invoke(app, ["data", "list"])
    assert result.exit_code == 0
    for name in ("adult", "german", "cars", "cars4", "loan"):
        assert name in result.output


@pytest.mark.slow
def test_bench_learn_prints_a_row_per_learner_and_data_set() -> None:
    result = runner.invoke(app, ["bench", "learn", "--no-foldrpp", "--replicas", "1", "--repeat", "1", "--no-memory", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert {(r["dataset"], r["learner"].split("(")[0]) for r in rows} == {
        (d, learner) for d in ("adult", "german", "cars", "loan") for learner in ("FOLD-SE", "DecisionTree")
    }
    adult = {r["learner"].split("(")[0]: r for r in rows if r["dataset"] == "adult"}
    assert adult["DecisionTree"]["accuracy"] >= adult["FOLD-SE"]["accuracy"] - 1e-9 or adult["DecisionTree"]["learner"].endswith("=16)")


def test_demo_tells_john_what_to_do_and_compares_the_modes() -> None:
    result = runner.invoke(app, ["demo"])
    assert result.exit_code == 0, result.output
    assert "Change your debt from over 10,000 to none. Raise your bank balance from 40,000 to 60,000." in result.output
    assert "As a consequence, your credit score rises from 599 to 620." in result.output
    for mode in ("derived (MC3G)", "none (C3G"):
        assert mode in result.output


@pytest.mark.slow
def test_demo_and_explain_json_share_one_shape() -> None:
    demo = json.loads(runner.invoke(app, ["demo", "--json"]).stdout)
    explained = json.loads(runner.invoke(app, ["explain", "adult", "--row", "1", "-k", "3", "--json"]).stdout)
    for data in (demo, explained):
        assert {"instance", "counterfactuals"} <= set(data)
        for cf in data["counterfactuals"]:
            assert {"values", "cost", "direct", "caused", "plan"} <= set(cf)
            assert all({"feature", "from", "to", "cost"} <= set(d) for d in cf["direct"])
            assert all({"feature", "from", "to", "rule"} <= set(c) for c in cf["caused"])
    # Adult's row 1 is divorced, with no capital gain: under product neither marrying nor realising a gain is advice, so the
    # published rules leave no way out, and the answer says why
    assert explained["status"] == "no_counterfactual" and explained["counterfactuals"] == [] and "cannot be escaped" in explained["reasons"][0]
    paper = json.loads(runner.invoke(app, ["explain", "adult", "--row", "1", "-k", "3", "--profile", "paper", "--json"]).stdout)
    costs = [cf["cost"] for cf in paper["counterfactuals"]]
    assert costs == sorted(costs) and len(costs) == 3  # the paper's setting: marriage and a gain may change
    assert demo["cost_by_mode"]["none"] > demo["cost_by_mode"]["derived"]


def test_explain_takes_rules_and_causal_files(tmp_path) -> None:
    learned = json.loads(runner.invoke(app, ["learn", "loan", "--json"]).stdout)
    rules = tmp_path / "loan.rules.json"
    rules.write_text(json.dumps(learned["rules"]))
    causal = tmp_path / "loan.causal"
    causal.write_text("credit_score: consequence-only\ncredit_score >= 620 <- debt == none\n")
    result = runner.invoke(app, ["explain", "loan", "--row", "3", "--rules", str(rules), "--causal", str(causal), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["status"] in {"refused", "not_refused"}
    bad = tmp_path / "bad.causal"
    bad.write_text("credit_score >= 620 <- debt == nothing\n")
    result = runner.invoke(app, ["explain", "loan", "--row", "3", "--causal", str(bad)])
    assert result.exit_code == 2 and f"{bad}:1:32:" in result.output and "'nothing' is not a value of debt" in result.output


@pytest.mark.parametrize(("content", "problem"), [(b"\xff\xfe rules", "line 1: not UTF-8 text"), (b'{"rules": 5}', "not an mc3g rule set")])
def test_a_bad_rules_file_is_named(tmp_path, content: bytes, problem: str) -> None:
    path = tmp_path / "rules.json"
    path.write_bytes(content)
    result = runner.invoke(app, ["explain", "loan", "--row", "0", "--rules", str(path)])
    assert result.exit_code == 2 and f"error: {path}: {problem}" in result.output and result.exception.__class__ is SystemExit


def test_hunt_takes_measured_or_the_search_settings_by_name() -> None:
    """--hunt of fit, explain, applicants and bench blackbox: the settings MC3G(hunt=...) takes."""
    from mc3g.cli.explain import hunt_given

    assert hunt_given(None) is None and hunt_given("measured") == "measured"
    assert hunt_given("section_points=4096, draw_ahead=False,patience=0") == {"section_points": 4096, "draw_ahead": False, "patience": 0}
    for bad in ["fast", "section_points", "=4", "section_points=4k", "batch=1,", "read=1.5"]:
        with pytest.raises(InputError, match="is no NAME=VALUE"):
            hunt_given(bad)


@pytest.mark.slow
def test_explain_errors_are_clear() -> None:
    result = runner.invoke(app, ["explain", "adult", "--row", "999999"])
    assert result.exit_code == 2 and "row 999999 is out of range" in result.output


@pytest.mark.parametrize(
    "command", [["explain", "loan", "--row", "0"], ["whatif", "loan", "--row", "0", "--set", "debt=none"], ["export", "loan", "--row", "0"]]
)
def test_an_empty_test_split_says_so(monkeypatch, command: list[str]) -> None:
    from dataclasses import replace

    import mc3g.cli.explain as cli_explain

    fitted = cli_explain.fitted_explainer

    def without_test_rows(*args, **kwargs):
        ds, explainer = fitted(*args, **kwargs)
        return replace(ds, test=ds.test.iloc[:0]), explainer

    monkeypatch.setattr(cli_explain, "fitted_explainer", without_test_rows)
    result = runner.invoke(app, command)
    assert result.exit_code == 2 and "the loan default test split has no rows: there is no row 0 to explain" in result.output
    assert "0 to -1" not in result.output


@pytest.mark.parametrize("command", [["explain", "loan", "--row", "1"], ["whatif", "loan", "--row", "1", "--set", "debt=none"]])
def test_a_model_and_rules_together_are_refused(tmp_path, command: list[str]) -> None:
    """--rules is not ignored beside --model (even a rules file that does not exist)."""
    model = tmp_path / "m.pkl"
    model.write_bytes(b"never read")
    result = runner.invoke(app, [*command, "--model", str(model), "--rules", "/nonexistent.json"])
    assert result.exit_code == 2 and f"give a model file ({model}) or a rules file (/nonexistent.json), not both" in result.output
    result = runner.invoke(app, ["explain", "cars4", "--row", "0"])
    assert result.exit_code == 2 and "no decision rules for cars4" in result.output


@pytest.mark.parametrize(
    ("raised", "exit_code", "message"),
    [
        (InputError("the row is bad"), 2, "the row is bad"),
        (BlackBoxError("the model is down"), 2, "the model is down"),
        (InputError("cfg.toml: [explainer] has an unknown key [bold]'x'[/]"), 2, "cfg.toml: [explainer] has an unknown key [bold]'x'[/]"),  # no markup
        (PermissionError(13, "Permission denied", "/srv/answers.jsonl"), 2, "/srv/answers.jsonl: Permission denied"),  # the system refused
        (OSError(28, "No space left on device"), 2, "No space left on device"),
        (RuntimeError("a bug"), 1, None),
        (SearchError("a bug caught"), 1, None),
    ],
)
def test_only_deliberate_errors_become_a_message(monkeypatch, raised: Exception, exit_code: int, message: str | None) -> None:
    """An MC3GError is the user's to fix, and an OSError the system's refusal: a message, as it
    is, and exit 2.  Anything else, and a failed self-check, is a bug and shows as one (the
    exception reaches the caller)."""

    def explain(self, rows, k=None, progress=False):
        raise raised

    monkeypatch.setattr(MC3G, "explain", explain)
    result = runner.invoke(app, ["explain", "loan", "--row", "1"])
    assert result.exit_code == exit_code
    if exit_code == 2:
        assert f"error: {message}" in result.output and result.exception.__class__ is SystemExit
        assert "Traceback" not in result.output
    else:
        assert result.exception is raised


def test_the_consoles_print_brackets_as_they_are() -> None:
    """User text in a line, a table or a spinner is never read as rich markup."""
    from rich.table import Table

    from mc3g.cli.app import out, styled

    table = Table("group")
    table.add_row("age [25, 35)")
    with out.capture() as captured:
        out.print("the tables are [explainer], [service] and [example]")
        out.print(table)
        out.print(styled(("[bold]", "bold"), " [/]"))
    assert "the tables are [explainer], [service] and [example]" in captured.get()
    assert "age [25, 35)" in captured.get() and "[bold] [/]" in captured.get()


def test_export_prints_a_program_clingo_runs() -> None:
    import clingo

    result = runner.invoke(app, ["export", "german", "--row", "11", "--format", "asp", "--profile", "paper"])
    assert result.exit_code == 0, result.output
    ctl = clingo.Control(["--opt-mode=opt", "--warn=none"])
    ctl.add("base", [], result.stdout)
    ctl.ground([("base", [])])
    costs = []
    ctl.solve(on_model=lambda m: costs.append(m.cost[0]))
    # Each value's cost times the scale the header names, rounded down: less than one off per
    # feature (seven here), never above.
    scale = 2.0 ** int(re.search(r"cost x 2\^(-?\d+), rounded down", result.stdout)[1])
    assert costs and costs[-1] <= 2.334208489 * scale and 2.334208488 * scale < costs[-1] + 7


@pytest.mark.slow
def test_reproduce_table2_json_shape() -> None:
    result = runner.invoke(app, ["reproduce", "table2", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data) == {"adult", "german", "cars"}
    for modes in data.values():
        assert set(modes) == {"none", "explained", "derived"}
        for norms in modes.values():
            assert set(norms) == {"l1", "l2", "l0"}
            assert all({"nearest", "furthest", "average"} <= set(cell) for cell in norms.values())
    assert round(data["adult"]["explained"]["l1"]["nearest"], 3) == 0.701


@pytest.mark.slow
def test_bench_persist_loads_explainers_that_answer_the_same() -> None:
    result = runner.invoke(app, ["bench", "persist", "--people", "3", "--repeat", "1", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [(r["dataset"], r["model"]) for r in rows] == [
        ("adult", "paper rules"),
        ("adult", "GradientBoostingClassifier"),
        ("german", "RandomForestClassifier"),
    ]
    assert all(r["same_answers"] and r["people"] == 3 and r["size_kib"] > 0 for r in rows)


@pytest.mark.slow
def test_bench_notice_tallies_the_notices_of_each_data_set() -> None:
    result = runner.invoke(app, ["bench", "notice", "--rows", "20", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [r["dataset"] for r in rows] == ["adult", "german", "taiwan"]
    for r in rows:
        assert r["written"] + r["lender_reasons"] + r["refused_otherwise"] == r["refused"] > 0 and r["refused_otherwise"] == 0
        assert r["written"] == 0 or 1 <= r["reasons_mean"] <= 4
    assert rows[2]["written"] == rows[2]["refused"]  # every refused card client has a way out, so reasons to give


@pytest.mark.slow
def test_bench_portfolio_summarises_each_data_set_exactly_and_finds_the_planted_subgroup() -> None:
    facts = importlib.util.find_spec("aif360") is not None and importlib.util.find_spec("mlxtend") is not None
    result = runner.invoke(app, ["bench", "portfolio", "--rows", "40", "--json", *(["--facts"] if facts else [])])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    rows = document["cases"]
    if facts:  # FACTS beside mc3g on the held-out model's people: its subgroup measured by mc3g's answers, by sex
        (beside,) = document["facts"]
        assert beside["case"] == "adult (hgb)" and beside["people"] >= 40 and ("Female" in beside["mc3g"] or beside["subgroup"] == "-")
    assert [r["case"] for r in rows] == ["adult (rules)", "adult (hgb)", "german (rules)", "taiwan (rules)", "planted book"]
    assert all(r["exact"] and r["rules"] <= 10 and r["covered"] <= r["with_option"] <= r["refused"] for r in rows)
    assert rows[-1]["weakest"].startswith("people with region = north (0% within the budget)")


@pytest.mark.slow
def test_bench_blackbox_compares_mc3g_and_dice_on_the_same_rows() -> None:
    pytest.importorskip("dice_ml")
    pytest.importorskip("cfnow")
    result = runner.invoke(app, ["bench", "blackbox", "--rows", "3", "--data", "german", "--model", "lr", "--cfnow-rows", "2", "--cfnow-tuning", "1", "--json"])
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.stdout)
    # CFNOW's greedy search on the first two rows, interleaved: its seconds against MC3G's on the same rows
    cfnow = row["cfnow"]
    assert cfnow["rows"] == 2 and 0 <= cfnow["answered"] <= 2 and cfnow["calls"] >= 1 and 0 < cfnow["greedy_seconds"] <= cfnow["seconds"]
    assert cfnow["ratio"] == pytest.approx(cfnow["greedy_seconds"] / cfnow["mc3g_seconds"]) and cfnow["mc3g_seconds"] > 0
    assert (row["dataset"], row["model"], row["profile"], row["rows"]) == ("german", "LogisticRegression", "product", 3)
    assert row["mc3g_validity"] == 100.0 and row["mc3g_consistency"] == 100.0 and row["missed"] == 0
    assert row["ratio"] > 0 and row["mc3g_pooled_seconds"] > 0 and row["fidelity"] is not None
    # every query asks the model at least once (MC3G: is the person refused?); the bound is the
    # ratio with MC3G's calls alone, so it is above the ratio measured; a logistic regression's
    # row more can measure as nothing beside the call's own cost on a busy machine (CI, stop 57)
    assert row["mc3g_calls"] >= 1 and row["dice_calls"] >= 1 and row["call_seconds"] > 0 and row["row_seconds"] >= 0 and row["bound"] > row["ratio"]
    # one person per call, MC3G's rounds are its calls: each round is one call
    assert 1 <= row["rounds_median"] <= row["rounds_most"] and row["rows_per_round"] >= 1
    assert row["rounds_by_phase"]["first question"] == 1  # every person's first round is the first question
    # MC3G's own work per person: its search with the model's calls left out, by the clock and in CPU time
    assert row["own_ms"] > 0 and row["own_cpu_ms"] > 0
    assert row["ms_by_phase"]["first question"] > 0 and list(row["ms_by_phase"]) == [p for p in ASKING if p in row["ms_by_phase"]]  # where it went
    assert row["hunt"] == {}  # the defaults: no --hunt


@pytest.mark.slow
@pytest.mark.parametrize(("kind", "model"), [("lgbm", "LGBMClassifier"), ("et", "ExtraTreesClassifier"), ("svc", "SVC"), ("knn", "KNeighborsClassifier")])
def test_bench_blackbox_runs_on_black_boxes_held_out_of_the_tuning(kind: str, model: str) -> None:
    """The settings were chosen by measuring five black boxes; these four check them."""
    pytest.importorskip("dice_ml")
    result = runner.invoke(app, ["bench", "blackbox", "--rows", "2", "--data", "german", "--model", kind, "--cfnow-rows", "0", "--json"])
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.stdout)
    assert row["model"] == model and row["mc3g_validity"] == 100.0 and row["mc3g_consistency"] == 100.0 and row["missed"] == 0 and row["cfnow"] is None


@pytest.mark.slow
def test_bench_advice_judges_every_option_by_the_lenders_checklist() -> None:
    """German's and Taiwan's refused people under held-out gradient boosting, product: every
    option passes the checklist (nothing protected, no worse category, no "get older"), and every
    person short of K options is told why."""
    result = runner.invoke(app, ["bench", "advice", "--rows", "10", "--data", "german", "--data", "taiwan", "--json"])
    assert result.exit_code == 0, result.output
    german, taiwan = json.loads(result.stdout)
    for row, name in ((german, "german"), (taiwan, "taiwan")):
        assert (row["dataset"], row["model"], row["profile"], row["people"]) == (name, "gb", "product", 10) and row["options"] > 0
        assert row["passing"] == row["options"] and set(row["failing"].values()) == {0} and row["none_naming_protected"] == 0
        assert row["sendable"] + row["none"] == row["people"]
        assert all(why.startswith(("fewer: ", "none: ")) and "not said" not in why for why in row["fewer"])


@pytest.mark.slow
def test_mc3g_init_s_draft_used_unedited_advises_no_worse_category_and_no_time_as_an_action() -> None:
    """Issue 49: German credit and the Taiwan card clients as a lender's own CSV, ``mc3g init``'s
    draft used as it is, held-out gradient boosting: no option moves to a worse category or makes
    time an action (before the draft guessed ways, German's 138 options had 8 and 6)."""
    result = runner.invoke(app, ["bench", "advice", "--rows", "30", "--data", "german", "--data", "taiwan", "--drafted", "--json"])
    assert result.exit_code == 0, result.output
    for row in json.loads(result.stdout):
        assert row["knowledge"] == "drafted" and row["options"] > 30
        assert row["failing"]["worse"] == 0 and row["failing"]["older"] == 0, row


@pytest.mark.slow
def test_bench_exact_reads_a_held_out_model_and_its_surrogate_is_never_cheaper() -> None:
    """The command raises where the surrogate's first option is cheaper than the model's own."""
    pytest.importorskip("dice_ml")
    result = runner.invoke(app, ["bench", "exact", "--rows", "3", "--model", "hgb", "-k", "1", "--json"])
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.stdout)
    assert (row["model"], row["k"], row["rows"]) == ("hgb", 1, 3) and "read exactly" in row["reading"]
    assert row["exact_answered"] + row["proved_none"] == 3 and row["exact_calls"] == 1.0  # one call a person: the confirmation
    assert row["surrogate_answered"] + row["false_none"] == row["exact_answered"] and row["ratio"] > 0  # whom it answers, the model's reading answers


@pytest.mark.slow
def test_bench_robust_judges_the_same_people_s_options_by_fresh_retrained_models() -> None:
    result = runner.invoke(app, ["bench", "robust", "--rows", "3", "--model", "hgb", "--data", "german", "--margin", "0.1", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [r["setting"] for r in rows] == ["today", "retrained", "retrained + margin 0.1"]
    assert {r["refused"] for r in rows} == {3} and all(r["answered"] <= 3 for r in rows)
    assert [r["exact"] for r in rows] == [True, True, True]  # a histogram boosting and its retrained ones: trees read exactly
    assert all(0 <= r["survival"] <= 1 for r in rows if r["answered"]) and rows[0]["extra_cost"] == pytest.approx(1.0)


@pytest.mark.slow
def test_bench_models_compares_candidate_models_on_the_same_people() -> None:
    result = runner.invoke(app, ["bench", "models", "--rows", "25", "--model", "hgb", "--model", "lr", "--model", "mlp", "-k", "1", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [r["model"] for r in rows] == ["hgb", "lr", "mlp"] and all(r["people"] == 25 for r in rows)
    for r in rows:
        assert 0.7 < r["accuracy"] < 1 and r["answered"] + r["precluded"] + r["not_proved"] == r["refused"]
        assert set(r["precluded_by"]) == {"sex", "marital_status"} and set(r["precluded_by"]["sex"]) <= {"Female", "Male"}
        assert all(0 <= share <= 1 for shares in r["precluded_by"].values() for share in shares.values())
    read, opaque = rows[:2], rows[2]
    assert all(r["not_proved"] == 0 and r["turned"] == 0 and r["turning"] == "" for r in read)  # read exactly: every "no option" proved
    assert opaque["precluded"] == 0 and opaque["not_proved"] > 0 and 0 <= opaque["turned"] <= opaque["not_proved"]  # not read: none proved


@pytest.mark.slow
def test_bench_reading_reads_small_forests_and_refuses_bad_sizes() -> None:
    result = runner.invoke(app, ["bench", "reading", "--sizes", "5x4,3x6", "--rows", "2", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [(r["trees"], r["depth"]) for r in rows] == [(5, 4), (3, 6)] and all("read exactly" in r["reading"] and r["nodes"] > 0 for r in rows)
    assert all(r["answered"] + r["proved_none"] == r["rows"] == 2 for r in rows)
    bad = runner.invoke(app, ["bench", "reading", "--sizes", "five"])
    assert bad.exit_code == 2 and "TREESxDEPTH" in bad.output


@pytest.mark.slow
def test_bench_pipelines_says_which_of_a_lender_s_models_are_read_exactly() -> None:
    names = ["xgb", "tree-bins", "lr-grid", "lr-calibrated-3", "mlp"]
    result = runner.invoke(app, ["bench", "pipelines", *(f"--pipeline={name}" for name in names), "--train", "1500", "--rows", "2", "--json"])
    assert result.exit_code == 0, result.output
    rows = {r["name"]: r for r in json.loads(result.stdout)}
    assert [rows[name]["exact"] for name in names] == [True, True, True, False, False]
    assert "averages 3 calibrated models" in rows["lr-calibrated-3"]["reading"] and "not a MLPClassifier" in rows["mlp"]["reading"]
    assert all(r["answered"] + r["proved_none"] == r["refused"] for name, r in rows.items() if r["exact"])  # read: every "no option" proved
    bad = runner.invoke(app, ["bench", "pipelines", "--pipeline", "catboost"])
    assert bad.exit_code == 2 and "none of" in bad.output
