"""What ``mc3g serve`` serves, set at start-up only: the embedded loan example, a TOML file naming
a data set with rules or a model file and knowledge, or a saved explainer; and the errors that
name the file, the table and the key."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from mc3g.cli import app
from mc3g.datasets import JOHN, load
from mc3g.exceptions import InputError
from mc3g.reference import decision_rules, fitted_explainer
from mc3g.serve import LOOPBACK, create_app, embedded, load_config


def write(folder: Path, text: str, name: str = "service.toml") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def plan(service, person=JOHN) -> list[tuple[str, object]]:
    best = service.explainer.explain(person, k=service.k).best
    return [(a.feature, a.after) for a in best.direct_actions] if best else []


def test_the_embedded_example_is_john_s_loan_on_loopback() -> None:
    service = embedded()
    assert (service.host, service.port, service.title, service.k) == (LOOPBACK, 8000, "loan", 3)
    assert service.example == JOHN and plan(service) == [("debt", "none"), ("bank_balance", 60000)]


def test_a_file_names_the_data_rules_knowledge_defaults_and_limits(tmp_path: Path) -> None:
    (tmp_path / "rules.json").write_text(decision_rules(load("loan", split="default")).to_json(), encoding="utf-8")
    (tmp_path / "plain.causal").write_text("credit_score: numeric [300, 850], consequence-only\n", encoding="utf-8")  # no way to lift the score
    config = write(
        tmp_path,
        '[explainer]\ndataset = "loan"\nrules = "rules.json"\ncausal_only = "plain.causal"\nnorm = "l2"\nk = 2\n'
        '[service]\ntitle = "Loans"\nmax_k = 4\ntimeout_seconds = 2.5\nthreads = 3\nport = 8123\n'
        '[example]\ndebt = "none"\nbank_balance = 1000\ncredit_score = 700\n',
    )
    service = load_config(config)
    assert (service.title, service.k, service.port, service.host) == ("Loans", 2, 8123, LOOPBACK)
    assert (service.limits.max_k, service.limits.timeout_seconds, service.limits.threads) == (4, 2.5, 3)
    assert service.example == {"debt": "none", "bank_balance": 1000, "credit_score": 700}
    assert service.explainer.run_record().norm == "l2"
    assert service.explainer.explain(JOHN).status == "no_counterfactual"  # the file's knowledge, not the shipped one
    added = load_config(write(tmp_path, '[explainer]\ndataset = "loan"\nrules = "rules.json"\ncausal = "plain.causal"\n'))
    assert added.explainer.explain(JOHN).status == "refused"  # the file joins the shipped knowledge, whose rule lifts the score


def test_a_saved_explainer_serves_the_same_answers(tmp_path: Path) -> None:
    _, fitted = fitted_explainer("loan")
    fitted.save(tmp_path / "loan.json")
    service = load_config(write(tmp_path, '[explainer]\nsaved = "loan.json"\nk = 1\n[example]\ndebt = "over_10000"\nbank_balance = 1\ncredit_score = 300\n'))
    assert service.title == "loan" and service.explainer.explain(JOHN).to_dict(timing=False) == fitted.explain(JOHN).to_dict(timing=False)
    create_app(service)


def test_serve_explainer_takes_a_title_for_the_page(tmp_path: Path) -> None:
    """Issue 50, item 4: ``mc3g serve --explainer FILE --title T``; the title goes with a saved
    explainer only (a service file has its [service] title)."""
    from mc3g.cli.serve import _source
    from mc3g.serve import service_of

    _, fitted = fitted_explainer("loan")
    fitted.save(tmp_path / "loan.json")
    assert service_of(_source(None, str(tmp_path / "loan.json"), None, None, "Our bank's loans")).title == "Our bank's loans"
    assert service_of(_source(None, str(tmp_path / "loan.json"), None, None)).title == "loan"
    with pytest.raises(InputError, match="--title go with --explainer"):
        _source(None, None, None, None, "Our bank's loans")
    fitted.set_params(k=2).save(tmp_path / "two.json")
    assert service_of(_source(None, str(tmp_path / "two.json"), None, None)).k == 2  # the K it was saved with, not the page's own 3


@pytest.mark.slow
def test_a_black_box_from_a_skops_file(tmp_path: Path) -> None:
    skops_io = pytest.importorskip("skops.io")
    from sklearn.compose import make_column_transformer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder
    from sklearn.tree import DecisionTreeClassifier

    ds = load("loan", split="default")
    encode = make_column_transformer((OneHotEncoder(), ["debt"]), remainder="passthrough")
    model = make_pipeline(encode, DecisionTreeClassifier(max_depth=3, random_state=0)).fit(ds.X_train, ds.y_train)
    skops_io.dump(model, tmp_path / "tree.skops")
    hunt = "[explainer.hunt]\nlast_draw = 200\n"  # the search's own settings, kept by the saved explainer below
    service = load_config(write(tmp_path, '[explainer]\ndataset = "loan"\nmodel = "tree.skops"\ntrusted_types = ["sklearn.tree._tree.Tree"]\n' + hunt))
    assert service.explainer.black_box_ is not None and service.explainer.explain(JOHN).status == "refused"
    assert service.explainer.hunt_.last_draw == 200
    schema = create_app(service).openapi()["components"]["schemas"]["Applicant"]
    assert set(schema["required"]) == set(JOHN)  # a black box reads every column
    service.explainer.save(tmp_path / "explainer.json", model_file=tmp_path / "tree.skops")  # one's own model, as the README serves it
    saved = load_config(write(tmp_path, '[explainer]\nsaved = "explainer.json"\nmodel = "tree.skops"\ntrusted_types = ["sklearn.tree._tree.Tree"]\n'))
    assert saved.explainer.explain(JOHN).to_dict(timing=False) == service.explainer.explain(JOHN).to_dict(timing=False)
    assert saved.explainer.hunt_ == service.explainer.hunt_


@pytest.mark.slow
def test_a_saved_explainer_refuses_a_model_other_than_its_own(tmp_path: Path) -> None:
    """A deployment: the document and a model file copied to a new folder, the path recorded at
    save time absent there.  The bytes the service loads are checked, not that path."""
    import pickle

    from sklearn.compose import make_column_transformer
    from sklearn.pipeline import make_pipeline
    from sklearn.tree import DecisionTreeClassifier

    ds = load("loan", split="default")

    def tree(depth: int):
        numbers = make_column_transformer(("passthrough", ["bank_balance", "credit_score"]))
        return make_pipeline(numbers, DecisionTreeClassifier(max_depth=depth, random_state=0)).fit(ds.X_train, ds.y_train)

    built, deployed = tmp_path / "built", tmp_path / "deployed"
    built.mkdir(), deployed.mkdir()
    model, retrained = tree(2), tree(1)
    (built / "model.pkl").write_bytes(pickle.dumps(model))
    fitted_explainer("loan", model_file=built / "model.pkl", trust_model=True)[1].save(deployed / "explainer.json", model_file=built / "model.pkl")
    (built / "model.pkl").unlink()
    (deployed / "model.pkl").write_bytes(pickle.dumps(retrained))
    config = write(deployed, '[explainer]\nsaved = "explainer.json"\nmodel = "model.pkl"\ntrust_model = true\n')
    with pytest.raises(InputError, match=r"model.pkl: is not the model .*explainer.json was saved with"):
        load_config(config)
    result = CliRunner().invoke(app, ["serve", "--config", str(config)])
    assert result.exit_code == 2 and "is not the model" in result.output and "Serving" not in result.output
    (deployed / "model.pkl").write_bytes(pickle.dumps(model))  # the model it was saved with, wherever it now is
    assert load_config(config).explainer.black_box_ is not None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[explainer]\ndataset = "loan"\n[server]\nport = 1\n', "unknown table(s) ['server']"),
        ('[explainer]\ndataset = "loan"\nmodle = "m.skops"\n', "[explainer] has an unknown key 'modle'; the keys are ['candidates', 'causal', "),
        ('[explainer]\ndataset = "loan"\nk = "3"\n', "[explainer] k must be a whole number, not '3' (a str)"),
        ('[explainer]\ndataset = "loan"\nk = 11\n', "[explainer] k must be a whole number from 1 to 10 (max_k = 10: the most options a request may ask for"),
        ('[explainer]\ndataset = "loan"\nmode = "magic"\n', "[explainer] mode must be one of 'derived', 'explained' or 'none', not 'magic'"),
        ('[explainer]\ndataset = "loan"\nfavourable = "yes"\n', "[explainer] favourable (--favourable) names a label of a model's answers"),
        ('[explainer]\ndataset = "loan"\n[service]\ntimeout_seconds = 0\n', "[service] timeout_seconds must be a number of seconds in (0, 3600], not 0"),
        ('[explainer]\ndataset = "loan"\n[service]\nthreads = true\n', "[service] threads must be a whole number at least 1, not True (a bool)"),
        ('[explainer]\ndataset = "loan"\n[service]\nport = 0\n', "[service] port must be a whole number from 1 to 65535, not 0"),
        ("explainer = 3\n", "[explainer] must be a table"),
        ('example = 3\n[explainer]\ndataset = "loan"\n', "[example] must be a table of feature = value"),
        ("[explainer]\n", "needs either dataset = NAME"),
        ('[explainer]\ndataset = "loan"\nsaved = "x.json"\n', "not both"),
        ('[explainer]\nsaved = "x.json"\nmode = "none"\n', "['mode'] are fixed in the saved explainer"),
        ('[explainer]\ndataset = "loan"\nmodel = "missing.skops"\n', "missing.skops: no such model file"),
        ('[explainer]\ndataset = "loan"\ntrusted_types = [1]\n', "[explainer] trusted_types must be a list of type names, not [1] (a list)"),
        ('[explainer]\ndataset = "loan"\nmodel = "m.pkl"\nrules = "r.json"\n', "not both"),
        ('[explainer]\ndataset = "loan"\ncausal = "a.causal"\ncausal_only = "b.causal"\n', "causal_only (--causal-only) uses a file instead of it: give one"),
        ('[explainer]\nsaved = "x.json"\ncausal_only = "b.causal"\n', "['causal_only'] are fixed in the saved explainer"),
        ('[explainer]\nsaved = "x.json"\nhunt = "measured"\n', "['hunt'] are fixed in the saved explainer"),
        ('[explainer]\ndataset = "loan"\nhunt = "fast"\n', "[explainer] hunt must be one of 'measured' or a mapping"),
        ('[explainer]\ndataset = "loan"\n[explainer.hunt]\nlastdraw = 5\n', "hunt has no setting ['lastdraw']"),
        ("[explainer\n", "not TOML"),
    ],
)
def test_a_bad_file_is_named_with_its_table_and_key(tmp_path: Path, text: str, message: str) -> None:
    config = write(tmp_path, text)
    with pytest.raises(InputError) as refused:
        load_config(config)
    assert str(refused.value).startswith(str(config)) and message in str(refused.value)


def test_an_unknown_key_is_one_error_naming_it_and_the_keys_the_table_accepts(tmp_path: Path) -> None:
    """The tables are pydantic models closed to unknown keys; the error lists the declared ones."""
    from mc3g.serve.config import ExplainerTable, ServiceTable

    for table, model in (("explainer", ExplainerTable), ("service", ServiceTable)):
        tables = '[explainer]\ndataset = "loan"\nthreads_ = 2\n' if table == "explainer" else '[explainer]\ndataset = "loan"\n[service]\nthreads_ = 2\n'
        config = write(tmp_path, tables)
        with pytest.raises(InputError) as refused:
            load_config(config)
        keys = sorted(model.model_fields)
        assert str(refused.value).startswith(f"{config}: [{table}] has an unknown key 'threads_'; the keys are {keys}")
    assert "did you mean 'threads'?" in str(refused.value)


@pytest.mark.parametrize(
    ("example", "message"),
    [
        ('debt = "lots"\nbank_balance = 1\ncredit_score = 600', "debt: Input should be 'none'"),
        ('debt = "none"\nbank_balance = 1\ncredit_score = 600\nsalary = 3', "salary: Extra inputs are not permitted"),
        ('debt = "none"\nbank_balance = [1]\ncredit_score = 600', "bank_balance: Input should be a valid number"),
    ],
)
def test_a_bad_example_stops_the_start_naming_the_file(tmp_path: Path, example: str, message: str) -> None:
    config = write(tmp_path, f'[explainer]\ndataset = "loan"\n[example]\n{example}\n')
    with pytest.raises(InputError) as refused:
        load_config(config)
    assert str(refused.value).startswith(f"{config}: [example] is not an applicant this explainer takes: ") and message in str(refused.value)
    result = CliRunner().invoke(app, ["serve", "--config", str(config), "--port", "1"])  # refused before any socket is bound
    assert result.exit_code == 2 and f"{config}: [example] is not an applicant" in result.output and result.exception.__class__ is SystemExit


def test_the_command_says_what_is_wrong_and_exits_2(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["serve", "--config", str(write(tmp_path, '[explainer]\ndataset = "loan"\nk = 0\n'))])
    assert result.exit_code == 2 and "[explainer] k must be a whole number from 1 to 10 (max_k = 10" in result.output
    result = CliRunner().invoke(app, ["serve", "--config", str(write(tmp_path, '[explainer]\ndataset = "loan"\nmodle = "m.skops"\n[server]\n'))])
    assert result.exit_code == 2 and "the tables are [explainer], [service] and [example]" in result.output  # not read as markup
    result = CliRunner().invoke(app, ["serve", "--config", str(write(tmp_path, '[explainer]\ndataset = "loan"\nmodle = "m.skops"\n'))])
    assert result.exit_code == 2 and "[explainer] has an unknown key 'modle'" in result.output
    assert CliRunner().invoke(app, ["serve", "--config", str(tmp_path / "none.toml")]).exit_code == 2
