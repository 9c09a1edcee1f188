"""The command line, as a user runs it."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from mc3g.cli import app
from mc3g.rules import RuleSet

runner = CliRunner()


def test_learn_loan_recovers_the_bank_rule() -> None:
    result = runner.invoke(app, ["learn", "loan"])
    assert result.exit_code == 0, result.output
    assert "loan(X,'rejected') :- bank_balance(X,N1), N1=<59900.0." in result.output
    assert "loan(X,'rejected') :- credit_score(X,N1), N1=<619.0." in result.output
    assert "2 / 0 / 2" in result.output


def test_learn_json_has_the_documented_fields() -> None:
    result = runner.invoke(app, ["learn", "adult", "--split", "paper", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    for key in ("dataset", "accuracy", "precision", "recall", "n_rules", "n_exceptions", "n_literals", "train_seconds", "program"):
        assert key in data
    assert data["dataset"] == "adult" and data["n_rules"] == 2 and data["n_literals"] == 5
    assert data["accuracy"] >= 0.84
    assert RuleSet.from_dict(data["rules"]).to_asp() == data["program"]


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


def test_bench_learn_prints_a_row_per_learner_and_data_set() -> None:
    result = runner.invoke(app, ["bench", "learn", "--no-foldrpp", "--replicas", "1", "--repeat", "1", "--no-memory", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert {(r["dataset"], r["learner"].split("(")[0]) for r in rows} == {
        (d, learner) for d in ("adult", "german", "cars", "loan") for learner in ("FOLD-SE", "DecisionTree")
    }
    adult = {r["learner"].split("(")[0]: r for r in rows if r["dataset"] == "adult"}
    assert adult["DecisionTree"]["accuracy"] >= adult["FOLD-SE"]["accuracy"] - 1e-9 or adult["DecisionTree"]["learner"].endswith("=16)")
