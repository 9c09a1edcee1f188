"""Model files: .skops and .onnx load without running code, a pickle only when trusted, and a
bad file is an error that names it."""

from __future__ import annotations

import collections
import json
import pickle
import sys
from pathlib import Path

import joblib
import numpy as np
import onnx
import pandas as pd
import pytest
import skops.io
from onnx import TensorProto, helper
from skl2onnx import to_onnx
from skl2onnx.common.data_types import FloatTensorType
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from typer.testing import CliRunner

from mc3g import MC3G, load_model
from mc3g.cli import app
from mc3g.datasets import load
from mc3g.exceptions import InputError, ModelFileError
from mc3g.models import OnnxModel
from mc3g.reference import reference

TREE = "sklearn.tree._tree.Tree"  # skops does not trust tree storage by default
runner = CliRunner()


@pytest.fixture(scope="module")
def loan():
    ds = load("loan")
    return ds, reference("loan").causal(ds)


def _encoded(classifier, remainder="passthrough"):
    return make_pipeline(ColumnTransformer([("debt", OneHotEncoder(handle_unknown="ignore"), ["debt"])], remainder=remainder), classifier)


@pytest.fixture(scope="module")
def logistic(loan):
    """A pipeline made only of types skops trusts by default."""
    ds, _ = loan
    return _encoded(LogisticRegression(max_iter=1000), StandardScaler()).fit(ds.X_train, ds.y_train)


@pytest.fixture(scope="module")
def boosted(loan):
    ds, _ = loan
    return _encoded(GradientBoostingClassifier(n_estimators=50, random_state=0)).fit(ds.X_train, ds.y_train)


@pytest.fixture(scope="module")
def files(tmp_path_factory, logistic, boosted, loan) -> dict[str, Path]:
    """The models as files, and one whose labels are 1 (approved) and 0 instead of the data set's."""
    ds, _ = loan
    folder = tmp_path_factory.mktemp("models")
    paths = {name: folder / name for name in ("logistic.skops", "boosted.skops", "logistic.pkl", "numbers.skops")}
    skops.io.dump(logistic, paths["logistic.skops"])
    skops.io.dump(boosted, paths["boosted.skops"])
    joblib.dump(logistic, paths["logistic.pkl"])
    numbers = _encoded(LogisticRegression(max_iter=1000), StandardScaler()).fit(ds.X_train, (ds.y_train == "approved").astype(int))
    skops.io.dump(numbers, paths["numbers.skops"])
    return paths


def _answers(explainer: MC3G, rows: pd.DataFrame) -> list[dict]:
    return [answer.to_dict(timing=False) for answer in explainer.explain(rows)]


# -- pickles ------------------------------------------------------------------------------------
class _Marks:
    """Unpickling this creates ``marker``: what a hostile pickle's shell command would do."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


@pytest.mark.parametrize("suffix", [".pkl", ".pickle", ".joblib"])
def test_a_pickle_runs_no_code_unless_trusted(tmp_path: Path, suffix: str) -> None:
    marker = tmp_path / "ran"
    file = tmp_path / f"model{suffix}"
    file.write_bytes(pickle.dumps(_Marks(marker)))
    with pytest.raises(ModelFileError) as refused:
        load_model(file)
    assert not marker.exists()
    message = str(refused.value)
    assert str(file) in message and "runs code from the file" in message
    assert "--trust-model" in message and 'skops.io.dump(model, "model.skops")' in message
    # Trusted, it runs: the marker appears, and what it gave back is no model.
    with pytest.raises(ModelFileError, match="has no predict method"):
        load_model(file, trust_model=True)
    assert marker.exists()


@pytest.mark.slow
def test_a_trusted_pickle_is_the_model(files, logistic, loan) -> None:
    ds, _ = loan
    model = load_model(files["logistic.pkl"], trust_model=True)
    assert (model.predict(ds.X_test) == logistic.predict(ds.X_test)).all()


# -- skops --------------------------------------------------------------------------------------
@pytest.mark.slow
def test_skops_round_trip_gives_the_same_predictions_and_answers(files, logistic, loan) -> None:
    """Slow (18 s at a load of 5); in the fast tier test_a_saved_explainer_names_its_skops_model
    answers with the model read from its skops file as with the one in memory."""
    ds, causal = loan
    model = load_model(files["logistic.skops"])
    assert model is not logistic and (model.predict(ds.X_test) == logistic.predict(ds.X_test)).all()
    refused = ds.X_test[logistic.predict(ds.X_test) == "rejected"].iloc[:15]
    assert len(refused) == 15
    in_memory = MC3G(logistic, causal, schema=ds.schema, k=2).fit(ds.X_train)
    from_file = MC3G(model, causal, schema=ds.schema, k=2).fit(ds.X_train)
    assert from_file.rules_ == in_memory.rules_
    answers = _answers(from_file, refused)
    assert answers == _answers(in_memory, refused)
    assert sum(bool(a["counterfactuals"]) for a in answers) >= 10


@pytest.mark.slow
def test_types_skops_does_not_trust_are_refused_and_listed(files, boosted, loan, tmp_path: Path) -> None:
    ds, _ = loan
    with pytest.raises(ModelFileError) as refused:
        load_model(files["boosted.skops"])
    message = str(refused.value)
    assert str(files["boosted.skops"]) in message and TREE in message
    assert f"add --trust-type {TREE} " in message and f"trusted_types=['{TREE}']" in message  # the exact flags to add
    model = load_model(files["boosted.skops"], trusted_types=[TREE])
    assert (model.predict(ds.X_test) == boosted.predict(ds.X_test)).all()
    # Naming one type allows that one only.
    odd = _encoded(LogisticRegression(max_iter=1000), StandardScaler()).fit(ds.X_train, ds.y_train)
    odd.counts_ = collections.Counter(ds.y_train)
    skops.io.dump(odd, tmp_path / "odd.skops")
    with pytest.raises(ModelFileError, match="collections.Counter") as still:
        load_model(tmp_path / "odd.skops", trusted_types=[TREE])
    assert TREE not in str(still.value)
    assert load_model(tmp_path / "odd.skops", trusted_types=["collections.Counter"]).counts_ == odd.counts_


@pytest.mark.slow
def test_a_saved_explainer_names_its_skops_model(files, logistic, loan, tmp_path: Path) -> None:
    ds, causal = loan
    explainer = MC3G(logistic, causal, schema=ds.schema, k=2, refine=0).fit(ds.X_train)
    explainer.save(tmp_path / "explainer.json", model_file=files["logistic.skops"])
    loaded = MC3G.load(tmp_path / "explainer.json", model=load_model(files["logistic.skops"]))
    refused = ds.X_test[logistic.predict(ds.X_test) == "rejected"].iloc[:4]  # fifteen in the slow test_skops_round_trip_gives_the_same_predictions_and_answers
    assert _answers(loaded, refused) == _answers(explainer, refused)


# -- ONNX ---------------------------------------------------------------------------------------
def _flips(model, answers, columns: list[str], dtypes, favourable: str) -> int:
    """How many counterfactuals there are; each one must be favourable to ``model`` itself."""
    values = [cf.values for answer in answers for cf in answer]
    if values:
        frame = pd.DataFrame(values, columns=columns).astype(dtypes)
        assert (model.predict(frame) == favourable).all()
    return len(values)


@pytest.mark.slow
def test_onnx_export_of_an_adult_pipeline_labels_and_explains_as_the_pipeline(tmp_path: Path, adult_paper) -> None:
    ds = adult_paper
    encode = ColumnTransformer([("c", OneHotEncoder(handle_unknown="ignore"), ds.schema.categorical)], remainder="passthrough")
    pipeline = make_pipeline(encode, GradientBoostingClassifier(n_estimators=30, max_depth=3, random_state=0)).fit(ds.X_train, ds.y_train)
    file = tmp_path / "adult.onnx"
    file.write_bytes(to_onnx(pipeline, ds.X_train[:1]).SerializeToString())
    model = load_model(file)
    assert isinstance(model, OnnxModel) and model.label_output == "output_label"
    assert [name for name, _, _ in model.inputs] == list(ds.X_train.columns)  # one input per column
    assert (model.predict(ds.X_test) == pipeline.predict(ds.X_test)).all()
    # the paper's setting, where a capital gain is advice: options enough to see each flip both models
    explainer = MC3G(model, reference("adult").causal(ds), schema=ds.schema, refine=0, profile="paper").fit(ds.X_train)
    assert explainer.fidelity_ >= 0.9
    refused = ds.X_test[model.predict(ds.X_test) == "<=50K"].iloc[:6]
    answers = explainer.explain(refused)
    assert _flips(model, answers, list(ds.X_train.columns), ds.X_train.dtypes, ">50K") >= 5
    assert _flips(pipeline, answers, list(ds.X_train.columns), ds.X_train.dtypes, ">50K") >= 5
    copy = pickle.loads(pickle.dumps(model))  # how it reaches worker processes (n_jobs)
    assert (copy.predict(ds.X_test.iloc[:50]) == model.predict(ds.X_test.iloc[:50])).all()


@pytest.mark.slow
def test_onnx_with_one_tensor_input_takes_every_column_in_order(tmp_path: Path, loan) -> None:
    ds, _ = loan
    X_train, X_test = ds.X_train.drop(columns=["debt"]), ds.X_test.drop(columns=["debt"])
    pipeline = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(X_train, ds.y_train)
    graph = to_onnx(pipeline, initial_types=[("features", FloatTensorType([None, X_train.shape[1]]))])
    (tmp_path / "numbers.onnx").write_bytes(graph.SerializeToString())
    model = load_model(tmp_path / "numbers.onnx")
    assert [name for name, _, _ in model.inputs] == ["features"]
    assert (model.predict(X_test) == pipeline.predict(X_test)).all()
    explainer = MC3G(model, None, k=2, desired_class="approved", refine=0).fit(X_train)
    answers = explainer.explain(X_test[model.predict(X_test) == "rejected"].iloc[:5])
    assert _flips(model, answers, list(X_train.columns), X_train.dtypes, "approved") >= 5
    with pytest.raises(InputError, match="takes 5 values per row"):
        model.predict(X_test.iloc[:, :4])


def _graph(tmp_path: Path, *outputs: str) -> Path:
    """A hand-made ONNX classifier of two scores per row: ``scores`` passes them on, ``label``
    is the index of the larger one."""
    nodes = {"scores": helper.make_node("Identity", ["X"], ["scores"]), "label": helper.make_node("ArgMax", ["X"], ["label"], axis=1, keepdims=0)}
    types = {
        "scores": helper.make_tensor_value_info("scores", TensorProto.FLOAT, [None, 2]),
        "label": helper.make_tensor_value_info("label", TensorProto.INT64, [None]),
    }
    graph = helper.make_graph(
        [nodes[o] for o in outputs], "scores", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [None, 2])], [types[o] for o in outputs]
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    path = tmp_path / ("_".join(outputs) + ".onnx")
    path.write_bytes(model.SerializeToString())
    return path


def test_the_label_output_is_read_and_scores_are_not(tmp_path: Path) -> None:
    model = load_model(_graph(tmp_path, "scores", "label"))
    assert model.label_output == "label"
    assert model.predict(pd.DataFrame({"a": [0.2, 0.9], "b": [0.8, 0.1]})).tolist() == [1, 0]
    with pytest.raises(ModelFileError, match="'scores' gives 2 values per row"):
        load_model(_graph(tmp_path, "scores"))


def test_a_model_with_labels_of_its_own_is_explained_with_desired_class(tmp_path: Path) -> None:
    model = load_model(_graph(tmp_path, "scores", "label"))
    grid = np.linspace(0, 1, 11)
    X = pd.DataFrame({"a": np.repeat(grid, len(grid)), "b": np.tile(grid, len(grid))})  # past applicants everywhere: any option is like some
    with pytest.raises(InputError, match="desired_class=LABEL") as unknown:
        MC3G(model).fit(X)
    assert "--favourable LABEL" in str(unknown.value) and "['0', '1']" in str(unknown.value)
    explainer = MC3G(model, desired_class=1).fit(X)
    assert explainer.unfavourable_ == "0"
    answer = explainer.explain({"a": 0.9, "b": 0.1})
    assert answer.counterfactuals and all(model.predict(pd.DataFrame([cf.values]))[0] == 1 for cf in answer)


# -- bad files ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "content", "problem"),
    [
        ("missing.skops", None, "no such model file"),
        ("empty.onnx", b"", "the file is empty"),
        ("empty.pkl", b"", "the file is empty"),
        ("corrupt.skops", b"not a zip archive", "not a readable skops file (BadZipFile"),
        ("corrupt.onnx", b"\x08\x07garbage", "not a readable ONNX model"),
        ("corrupt.joblib", b"\x80\x04garbage", "could not be unpickled"),
        ("model.h5", b"weights", "unknown kind of model file .h5: mc3g reads .skops and .onnx"),
        ("model", b"weights", "unknown kind of model file (no extension)"),
        ("folder.skops", "dir", "not a file"),
    ],
)
def test_bad_files_are_named_errors(tmp_path: Path, name: str, content, problem: str) -> None:
    path = tmp_path / name
    if content == "dir":
        path.mkdir()
    elif content is not None:
        path.write_bytes(content)
    with pytest.raises(ModelFileError) as bad:
        load_model(path, trust_model=True)
    assert isinstance(bad.value, InputError) and bad.value.path == path
    assert str(bad.value).startswith(f"{path}: ") and problem in str(bad.value)
    assert "\n" not in str(bad.value)


def test_a_skops_file_without_a_model_is_refused(tmp_path: Path) -> None:
    skops.io.dump({"weights": [1, 2]}, tmp_path / "dict.skops")
    with pytest.raises(ModelFileError, match="holds a dict, which has no predict method"):
        load_model(tmp_path / "dict.skops")


@pytest.mark.parametrize(("name", "module"), [("model.skops", "skops.io"), ("model.onnx", "onnxruntime")])
def test_a_missing_loader_says_how_to_install_it(tmp_path: Path, monkeypatch, name: str, module: str) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # what an install without the models extra sees
    (tmp_path / name).write_bytes(b"anything")
    with pytest.raises(ModelFileError, match=r"needs (skops|onnxruntime): pip install 'mc3g\[models\]'"):
        load_model(tmp_path / name)


# -- the command line ---------------------------------------------------------------------------
def _error_line(result) -> str:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and result.output.strip().count("\n") == 0
    assert result.output.startswith("error: ")
    return result.output


@pytest.mark.slow
def test_cli_explains_with_a_skops_model(files) -> None:
    result = runner.invoke(app, ["explain", "loan", "--model", str(files["logistic.skops"]), "--row", "1"])
    assert result.exit_code == 0, result.output
    assert "loan test row 1" in result.output and "One way out, least effort first" in result.output
    refused = _error_line(runner.invoke(app, ["explain", "loan", "--model", str(files["boosted.skops"]), "--row", "1"]))
    assert TREE in refused and "--trust-type" in refused
    allowed = runner.invoke(app, ["explain", "loan", "--model", str(files["boosted.skops"]), "--trust-type", TREE, "--row", "1", "--json"])
    assert allowed.exit_code == 0, allowed.output


@pytest.mark.slow
def test_cli_loads_a_pickle_only_with_trust_model(files, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    hostile = tmp_path / "hostile.pkl"
    hostile.write_bytes(pickle.dumps(_Marks(marker)))
    message = _error_line(runner.invoke(app, ["explain", "loan", "--model", str(hostile), "--row", "1"]))
    assert "runs code from the file" in message and "--trust-model" in message and not marker.exists()
    message = _error_line(runner.invoke(app, ["explain", "loan", "--model", str(files["logistic.pkl"]), "--row", "1"]))
    assert str(files["logistic.pkl"]) in message
    trusted = runner.invoke(app, ["explain", "loan", "--model", str(files["logistic.pkl"]), "--trust-model", "--row", "1"])
    assert trusted.exit_code == 0, trusted.output
    assert "One way out, least effort first" in trusted.output


@pytest.mark.slow
def test_cli_maps_a_model_s_own_labels_with_favourable(files) -> None:
    numbers = str(files["numbers.skops"])
    message = _error_line(runner.invoke(app, ["explain", "loan", "--model", numbers, "--row", "1"]))
    assert "--favourable LABEL" in message and "desired_class=" in message and "['0', '1']" in message
    message = _error_line(runner.invoke(app, ["explain", "loan", "--model", numbers, "--favourable", "yes", "--row", "1"]))
    assert "'yes'" in message and "--favourable" in message
    result = runner.invoke(app, ["explain", "loan", "--model", numbers, "--favourable", "1", "--row", "1"])
    assert result.exit_code == 0, result.output
    assert "One way out, least effort first" in result.output
    whatif = runner.invoke(app, ["whatif", "loan", "--model", numbers, "--favourable", "1", "--row", "1", "--set", "bank_balance=200000"])
    assert whatif.exit_code == 0, whatif.output
    assert "no longer refused" in whatif.output
    assert "give it with --model" in _error_line(runner.invoke(app, ["explain", "loan", "--favourable", "1", "--row", "1"]))


@pytest.mark.parametrize("name", ["absent.onnx", "model.h5"])
def test_cli_names_a_bad_model_file(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    if name.endswith(".h5"):
        path.write_bytes(b"weights")
    message = _error_line(runner.invoke(app, ["explain", "loan", "--model", str(path), "--row", "1"]))
    assert str(path) in message


def test_a_model_fitted_on_another_split_s_columns_is_refused_with_the_split_that_has_them(tmp_path: Path) -> None:
    """Issue 50, item 4: Python's ``load("adult")`` is the UCI split, the command line's the
    paper's, which lacks two of its columns: the error names them and says ``--split uci``,
    instead of scikit-learn's "columns are missing" from inside the model."""
    from sklearn.tree import DecisionTreeClassifier

    from mc3g.cli import app
    from mc3g.datasets import load
    from mc3g.reference import encoded

    ds = load("adult")
    X = ds.train.drop(columns=[ds.schema.label])
    model = encoded(DecisionTreeClassifier(max_depth=3, random_state=0), X, list(ds.schema.numeric)).fit(X, ds.train[ds.schema.label])
    skops.io.dump(model, tmp_path / "tree.skops")
    result = CliRunner().invoke(app, ["explain", "adult", "--row", "0", "--model", str(tmp_path / "tree.skops"), "--trust-type", "sklearn.tree._tree.Tree"])
    assert result.exit_code == 2
    assert "fitted on columns the adult paper split lacks: ['education', 'capital_loss']; its uci split has them: give --split uci" in result.output


@pytest.mark.slow
def test_cli_and_service_retrain_the_model_file_s_own_recipe_and_keep_a_margin(files, tmp_path: Path) -> None:
    """--margin and --retrains (and the service's [explainer] margin and retrains): options judged
    beyond the model, the run record saying what held; retrains need a model file."""
    from mc3g.serve import load_config

    result = runner.invoke(app, ["explain", "loan", "--model", str(files["logistic.skops"]), "--row", "1", "--margin", "0.1", "--retrains", "3", "--json"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    assert answer["run"]["robust"] == {"margin": 0.1, "retrains": 3, "survive": 1.0, "exact": False}  # a linear score's retrained boundaries: not candidates
    assert all(option["survival"] == 1.0 for option in answer["counterfactuals"])
    no_file = runner.invoke(app, ["explain", "loan", "--row", "1", "--retrains", "2"])
    assert "retrains fits the model again on resampled data: give the model's file" in _error_line(no_file)
    (tmp_path / "m.skops").write_bytes(files["logistic.skops"].read_bytes())
    (tmp_path / "s.toml").write_text('[explainer]\ndataset = "loan"\nmodel = "m.skops"\nmargin = 0.2\nretrains = 2\n', encoding="utf-8")
    service = load_config(tmp_path / "s.toml")
    assert service.explainer.run_record().robust == {"margin": 0.2, "retrains": 2, "survive": 1.0, "exact": False}
