"""A black box's search settings from outside: ``MC3G(hunt=...)``, laid over the defaults or
priced by what the model charges for rows (issue 24, item 1), recorded in each answer and kept
by a saved explainer."""

from __future__ import annotations

import json
import pickle
from dataclasses import asdict
from pathlib import Path

import pandas as pd
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder
from sklearn.tree import DecisionTreeClassifier

from mc3g import MC3G
from mc3g.datasets import load
from mc3g.engine import DEFAULT, HuntSettings
from mc3g.exceptions import InputError, ResultsFileError
from mc3g.models import BlackBox
from mc3g.records import batch_settings, check_settings
from mc3g.reference import reference

DEAR_ROWS = (0.005, 5e-4)  # seconds of a call of one row, and of each row more: a kernel machine's or nearest neighbours'


@pytest.fixture(scope="module")
def loan():
    ds = load("loan")
    encode = ColumnTransformer([("debt", OneHotEncoder(handle_unknown="ignore"), ["debt"])], remainder="passthrough")
    model = make_pipeline(encode, DecisionTreeClassifier(max_depth=3, random_state=0)).fit(ds.X_train, ds.y_train)
    refused = ds.X_test[model.predict(ds.X_test) == "rejected"].iloc[:3]
    return ds, reference("loan").causal(ds), model, refused


def test_fields_are_laid_over_the_defaults_and_checked() -> None:
    assert asdict(HuntSettings.of({"last_draw": 100, "draw_ahead": False})) == asdict(DEFAULT) | {"last_draw": 100, "draw_ahead": False}
    with pytest.raises(InputError, match=r"hunt has no setting \['lastdraw'\]; its settings are \['batch', 'first_states'"):
        HuntSettings.of({"lastdraw": 100})
    with pytest.raises(InputError, match="hunt: batch must be"):
        HuntSettings.of({"batch": 0})
    with pytest.raises(InputError, match="hunt: draw_ahead must be"):
        HuntSettings.of({"draw_ahead": "yes"})


def test_a_model_priced_by_the_call_keeps_the_defaults() -> None:
    """A scikit-learn pipeline: about 5 ms a call, a few µs a row (docs/benchmarks.md)."""
    assert DEFAULT.priced(0.005, 3e-6) is DEFAULT
    assert DEFAULT.priced(0.009, 14e-6) is DEFAULT  # a random forest's rows, dearer still


def test_dear_rows_split_the_search_in_more_rounds_and_keep_the_draws_that_find_options() -> None:
    dear, dearer, dearest = DEFAULT.priced(*DEAR_ROWS), DEFAULT.priced(0.005, 3e-3), DEFAULT.priced(0.005, 10.0)
    cut = {"section_points": 16, "batch": 64, "widest_draw": DEFAULT.last_draw}  # each with its floor
    for name, floor in cut.items():
        assert floor <= getattr(dearest, name) <= getattr(dearer, name) <= getattr(dear, name) < getattr(DEFAULT, name)
        assert getattr(dearest, name) == max(floor, getattr(DEFAULT, name) // 128)
    assert {n: v for n, v in asdict(dear).items() if n not in cut} == {n: v for n, v in asdict(DEFAULT).items() if n not in cut}


def test_the_cost_is_a_call_and_a_row(monkeypatch: pytest.MonkeyPatch) -> None:
    """Timed on a clock the model moves: 4 ms a call and 1 ms a row, whatever the machine."""
    clock = [0.0]

    def model(frame: pd.DataFrame) -> list[str]:
        clock[0] += 0.004 + 0.001 * len(frame)
        return ["no"] * len(frame)

    monkeypatch.setattr("mc3g.models.blackbox.time.perf_counter", lambda: clock[0])
    call, row = BlackBox.of(model, pd.DataFrame({"x": [1, 2, 3]})).cost(pd.DataFrame({"x": [1, 2, 3]}), rows=64)
    assert call == pytest.approx(0.005) and row == pytest.approx(0.001)


def test_measured_settings_are_recorded_and_saved_not_measured_again(tmp_path: Path, loan, monkeypatch: pytest.MonkeyPatch) -> None:
    ds, causal, model, refused = loan
    monkeypatch.setattr(BlackBox, "cost", lambda self, X: DEAR_ROWS)
    explainer = MC3G(model, causal, schema=ds.schema, k=2, refine=0, hunt="measured").fit(ds.X_train)
    assert explainer.hunt_ == DEFAULT.priced(*DEAR_ROWS)
    answers = explainer.explain(refused)
    assert all(a.run.hunt == explainer.hunt_.changed() != {} for a in answers)

    model_file = tmp_path / "model.pkl"
    model_file.write_bytes(pickle.dumps(model))
    explainer.save(tmp_path / "bb.json", model_file=model_file)
    monkeypatch.setattr(BlackBox, "cost", lambda self, X: pytest.fail("a saved explainer's settings are measured again"))
    loaded = MC3G.load(tmp_path / "bb.json", model=model)
    assert loaded.hunt_ == explainer.hunt_
    assert [a.to_dict(timing=False) for a in loaded.explain(refused)] == [a.to_dict(timing=False) for a in answers]
    document = json.loads((tmp_path / "bb.json").read_text())
    del document["black_box"]["hunt"], document["content_sha256"]  # as saved before the settings (and the digest) were kept: the defaults
    (tmp_path / "old.json").write_text(json.dumps(document))
    assert MC3G.load(tmp_path / "old.json", model=model).hunt_ == DEFAULT


def test_decision_rules_take_no_search_settings() -> None:
    """Their search asks no model, so settings of one would be silently unused: refused."""
    ds, shipped = load("loan"), reference("loan")
    for hunt in ("measured", {"last_draw": 100}):
        with pytest.raises(InputError, match=r"hunt=.* sizes the search with a black box, and the model is decision rules"):
            MC3G(shipped.rules, shipped.causal(ds), schema=ds.schema, hunt=hunt).fit(ds.X_train)


def test_given_settings_tell_answers_apart(loan) -> None:
    """A batch's results made with other settings are not added to: the run record names them."""
    ds, causal, model, refused = loan
    default = MC3G(model, causal, schema=ds.schema, refine=0).fit(ds.X_train)
    fewer = MC3G(model, causal, schema=ds.schema, refine=0, hunt={"last_draw": 100}).fit(ds.X_train)
    assert default.explain(refused.iloc[0]).run.hunt == {} and fewer.explain(refused.iloc[0]).run.hunt == {"last_draw": 100}
    with pytest.raises(ResultsFileError, match=r"run\.hunt\.last_draw: \(absent\) in the file, 100 now"):
        check_settings("results.jsonl", batch_settings(default, {}), batch_settings(fewer, {}))
    with pytest.raises(InputError, match="hunt must be one of 'measured' or a mapping .*, not 'fast'"):
        MC3G(model, causal, schema=ds.schema, hunt="fast").fit(ds.X_train)
    rules = MC3G(reference("loan").rules, causal, schema=ds.schema).fit(ds.X_train)
    assert rules.explain(refused.iloc[0]).run.hunt is None


def test_the_command_line_checks_hunt_where_it_fits_an_explainer() -> None:
    from typer.testing import CliRunner

    from mc3g.cli import app

    result = CliRunner().invoke(app, ["explain", "loan", "--row", "0", "--hunt", "fast"])
    assert result.exit_code == 2 and "'fast' is no NAME=VALUE" in result.output and "Traceback" not in result.output
    result = CliRunner().invoke(app, ["explain", "loan", "--row", "0", "--hunt", "last_draw=200"])  # loan's model is decision rules
    assert result.exit_code == 2 and "hunt={'last_draw': 200} sizes the search with a black box" in result.output and "Traceback" not in result.output
