"""A fitted explainer saved as JSON and loaded back gives the same answers, and never unpickles."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pandas as pd
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder
from sklearn.tree import DecisionTreeClassifier

from mc3g import MC3G, load_model
from mc3g.datasets import load
from mc3g.datasets.loan import JOHN
from mc3g.exceptions import InputError, ModelFileError
from mc3g.reference import reference


def _answers(explainer: MC3G, rows: pd.DataFrame) -> list[dict]:
    return [answer.to_dict(timing=False) for answer in explainer.explain(rows)]


@pytest.fixture(scope="module")
def loan():
    ds = load("loan")
    return ds, reference("loan").causal(ds)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["derived", "explained", "none"])
def test_rules_explainer_round_trips(tmp_path: Path, loan, mode: str) -> None:
    ds, causal = loan
    ref = reference("loan")
    explainer = MC3G(ref.rules, causal, schema=ds.schema, mode=mode, k=3).fit(ds.X_train)
    explainer.save(tmp_path / "loan.json")
    loaded = MC3G.load(tmp_path / "loan.json")
    rows = pd.concat([pd.DataFrame([JOHN]), ds.X_test.iloc[:30]], ignore_index=True)
    assert _answers(loaded, rows) == _answers(explainer, rows)
    assert loaded.get_params() == {**explainer.get_params(), "causal": None, "schema": None}
    assert loaded.schema_ == explainer.schema_ and loaded.rules_ == explainer.rules_


@pytest.mark.slow
def test_adult_paper_setting_round_trips(tmp_path: Path, adult_paper) -> None:
    ds = adult_paper
    ref = reference("adult")
    explainer = MC3G(ref.rules, ref.causal(ds), schema=ds.schema, k=2, norm="l2").fit(ds.X_train)
    explainer.save(tmp_path / "adult.json")
    loaded = MC3G.load(tmp_path / "adult.json")
    refused = ds.X_test[explainer.refuses(ds.X_test)].iloc[:15]
    assert len(refused) == 15
    assert _answers(loaded, refused) == _answers(explainer, refused)


@pytest.mark.slow
def test_black_box_is_referenced_not_embedded(tmp_path: Path, loan) -> None:
    ds, causal = loan
    encode = ColumnTransformer([("debt", OneHotEncoder(handle_unknown="ignore"), ["debt"])], remainder="passthrough")
    model = make_pipeline(encode, GradientBoostingClassifier(random_state=0)).fit(ds.X_train, ds.y_train)
    model_file = tmp_path / "model.pkl"
    model_file.write_bytes(pickle.dumps(model))
    explainer = MC3G(model, causal, schema=ds.schema, k=2).fit(ds.X_train)
    explainer.save(tmp_path / "bb.json", model_file=model_file)

    document = json.loads((tmp_path / "bb.json").read_text())
    assert document["black_box"]["file"] == str(model_file.resolve())
    assert len(document["black_box"]["sha256"]) == 64
    assert "GradientBoosting" not in json.dumps(document["rules"])  # the rules, not the model

    with pytest.raises(InputError, match="give its model"):
        MC3G.load(tmp_path / "bb.json")
    loaded = MC3G.load(tmp_path / "bb.json", model=model)
    refused = ds.X_test[model.predict(ds.X_test) == "rejected"].iloc[:6]
    assert _answers(loaded, refused) == _answers(explainer, refused)
    assert loaded.fidelity_ == explainer.fidelity_ and loaded.surrogate_ == explainer.surrogate_  # refinement's figures too

    assert MC3G.load(tmp_path / "bb.json", model=load_model(model_file, trust_model=True)).fidelity_ == explainer.fidelity_


def test_the_model_loaded_is_checked_wherever_it_comes_from(tmp_path: Path, loan) -> None:
    """The bytes a model was read from must be those saved with the explainer: a changed file at
    the saved path, or another file when the saved path is gone (a deployment), is refused; the
    same bytes elsewhere are the same model."""
    ds, causal = loan

    def tree(depth: int):
        encode = ColumnTransformer([("debt", OneHotEncoder(handle_unknown="ignore"), ["debt"])], remainder="passthrough")
        return make_pipeline(encode, DecisionTreeClassifier(max_depth=depth, random_state=0)).fit(ds.X_train, ds.y_train)

    model, other = tree(3), tree(2)
    saved_with = tmp_path / "built" / "model.pkl"
    saved_with.parent.mkdir()
    saved_with.write_bytes(pickle.dumps(model))
    MC3G(model, causal, schema=ds.schema, refine=0).fit(ds.X_train).save(tmp_path / "bb.json", model_file=saved_with)

    deployed = tmp_path / "deployed" / "model.pkl"  # the saved path is still there, unchanged
    deployed.parent.mkdir()
    deployed.write_bytes(pickle.dumps(other))
    with pytest.raises(ModelFileError, match=r"model.pkl: is not the model .*bb.json was saved with: its SHA-256 is [0-9a-f]{64}"):
        MC3G.load(tmp_path / "bb.json", model=load_model(deployed, trust_model=True))
    saved_with.unlink()  # and now it is gone, as on a machine the explainer was copied to
    with pytest.raises(ModelFileError, match="is not the model"):
        MC3G.load(tmp_path / "bb.json", model=load_model(deployed, trust_model=True))
    deployed.write_bytes(pickle.dumps(model))
    assert MC3G.load(tmp_path / "bb.json", model=load_model(deployed, trust_model=True)).black_box_ is not None


def test_foreign_documents_are_refused(tmp_path: Path) -> None:
    (tmp_path / "rules.json").write_text(json.dumps({"format": "mc3g.ruleset", "version": 1}))
    with pytest.raises(InputError, match="not an mc3g saved explainer"):
        MC3G.load(tmp_path / "rules.json")
    (tmp_path / "junk.json").write_text("{not json")
    with pytest.raises(InputError, match="not JSON"):
        MC3G.load(tmp_path / "junk.json")


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"\xff\xfe{}", "not UTF-8 text"),
        (b"[1, 2]", "not an mc3g saved explainer .*: the document is a JSON list, not an object"),
        (b'{"format": "mc3g.explainer", "version": 1}', r"a damaged saved explainer \(KeyError: 'rules'\); save the explainer again"),
        (b'{"format": "mc3g.explainer", "version": 1, "rules": {"format": "mc3g.ruleset", "version": 1, "rules": [], "target": "y", "default": "n"},'
         b' "black_box": null, "params": {}, "columns": "ab", "schema": 5}', "a damaged saved explainer"),
    ],
)  # fmt: skip
def test_a_damaged_document_names_its_file(tmp_path: Path, content: bytes, problem: str) -> None:
    (tmp_path / "saved.json").write_bytes(content)
    with pytest.raises(InputError, match=problem) as refused:
        MC3G.load(tmp_path / "saved.json")
    assert str(tmp_path / "saved.json") in str(refused.value)


def test_unfitted_explainer_cannot_be_saved(tmp_path: Path) -> None:
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        MC3G(reference("loan").rules).save(tmp_path / "x.json")
    assert not (tmp_path / "x.json").exists()
