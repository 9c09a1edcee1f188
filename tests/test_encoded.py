"""A pipeline's estimator input built in arrays (``mc3g.glassbox.Encoded``): for rows around
people, number for number the input the pipeline's own preprocessing gives their frame, and the
estimator's labels of it the pipeline's ``predict``; a pipeline of another kind is asked with
frames, as any model."""

from __future__ import annotations

import pickle
import time
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
import pytest
from conftest import tiered
from hypothesis import event
from hypothesis import strategies as st
from sklearn.compose import ColumnTransformer, make_column_selector
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.impute import SimpleImputer
from sklearn.neighbors import KNeighborsClassifier
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, MinMaxScaler, OneHotEncoder, OrdinalEncoder, PolynomialFeatures, RobustScaler, StandardScaler
from sklearn.svm import SVC

from mc3g import MC3G
from mc3g.exceptions import InputError
from mc3g.glassbox import Encoded, Opaque
from mc3g.hunt.local import Drawn, Moves
from mc3g.models import ChangedRows, typed_frame

DTYPES = {"x": np.dtype("int64"), "y": np.dtype("float64"), "c": np.dtype("O"), "d": np.dtype("O")}
SEEN = {"x": list(range(9)), "y": [v / 2 for v in range(7)], "c": ["a", "b", "c"], "d": ["p", "q"]}
UNSEEN = {"x": [-4, 30], "y": [-3.25, 11.5], "c": ["z"], "d": ["r"]}  # values no training row has


def _frame(seed: int, n: int = 200) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({name: rng.choice(np.array(values, dtype=object if name in "cd" else None), n) for name, values in SEEN.items()})
    score = frame["x"] / 4 - frame["y"] / 1.5 + (frame["c"] == "b") + rng.normal(scale=0.5, size=n)
    return frame, np.where(score > np.median(score), "yes", "no")


@st.composite
def pipelines(draw):
    """An opaque estimator behind a drawn column-wise preprocessing, fitted; rows to ask about."""
    seed = draw(st.integers(0, 10_000))
    frame, labels = _frame(seed)
    categories = draw(st.sampled_from(["onehot", "sparse onehot", "ordinal"]))
    encoder = (
        OneHotEncoder(sparse_output=categories == "sparse onehot", handle_unknown="ignore")
        if categories != "ordinal"
        else OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1)
    )
    scaler = draw(st.sampled_from(["standard", "minmax", "robust", "imputed", "passthrough"]))
    numbers = {
        "standard": StandardScaler(), "minmax": MinMaxScaler(), "robust": RobustScaler(),
        "imputed": make_pipeline(SimpleImputer(), StandardScaler()), "passthrough": "passthrough",
    }[scaler]  # fmt: skip
    by_kind = draw(st.booleans())  # columns chosen by make_column_selector, or named with one dropped
    steps = (
        [("categories", encoder, make_column_selector(dtype_include=object)), ("numbers", numbers, make_column_selector(dtype_include="number"))]
        if by_kind
        else [("categories", encoder, ["c"]), ("numbers", numbers, ["x", "y"])]
    )
    kind = draw(st.sampled_from(["mlp", "svm", "neighbours"]))
    estimator = {"mlp": MLPClassifier((6,), max_iter=300, random_state=seed), "svm": SVC(), "neighbours": KNeighborsClassifier(5)}[kind]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = make_pipeline(ColumnTransformer(steps, remainder="drop", sparse_threshold=1.0), estimator).fit(frame, labels)  # one-hot's CSR kept
    event(f"{kind}, {categories}, {scaler}" + (", by kind" if by_kind else ", d dropped"))
    rng = np.random.default_rng(seed + 1)
    pools = {name: SEEN[name] + UNSEEN[name] for name in SEEN}
    if scaler == "imputed":  # a missing number, imputed
        pools["y"].append(float("nan"))
    bases = [frame.iloc[i].to_dict() for i in rng.integers(len(frame), size=3)]

    def change() -> tuple:
        return tuple((name, pools[name][rng.integers(len(pools[name]))]) for name in sorted(rng.choice(list(SEEN), rng.integers(0, 4), replace=False)))

    changes = [[change() for _ in range(40)] for _ in bases]
    moves = Moves({name: pools[name] for name in sorted(rng.choice(list(SEEN), rng.integers(1, 5), replace=False))})
    codes = np.stack([rng.integers(0, len(pool) + 1, size=40) * (rng.random(40) < 0.5) for pool in moves.pools], axis=1)
    drawn = Drawn(codes, moves)  # a draw's rows kept as codes, read whole
    return model, frame, ChangedRows([*zip(bases, changes), (bases[0], drawn), (bases[1], changes[0][:5])])


def _encoded(model, frame: pd.DataFrame) -> Encoded:
    baseline = frame.iloc[0].to_dict()
    return Encoded(model, DTYPES, baseline, {c: SEEN[c] for c in "cd"}, {n: np.asarray(SEEN[n], dtype=float) for n in "xy"})


@tiered(6, 60, pipelines())
def test_the_input_built_is_the_preprocessing_s_own_and_the_labels_the_pipeline_s(drawn) -> None:
    model, frame, rows = drawn
    encoded = _encoded(model, frame)
    built = encoded.matrix(rows)
    own = model[:-1].transform(typed_frame(rows, DTYPES))
    assert built is not None and type(built) is type(own) and built.dtype == own.dtype
    if isinstance(own, np.ndarray):
        assert np.array_equal(built, own, equal_nan=True)
    else:  # a CSR matrix: the same nonzeros, in the same order
        assert all(np.array_equal(getattr(built, a), getattr(own, a), equal_nan=True) for a in ("indptr", "indices", "data"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert (encoded.estimator.predict(built) == model.predict(typed_frame(rows, DTYPES))).all()


@pytest.mark.parametrize("unknown", ["ignore", "infrequent_if_exist"])  # ignored: an unknown category has no nonzero in its run
def test_no_rows_and_rows_looked_up_a_few_at_a_time_are_the_preprocessing_s_own(unknown, monkeypatch) -> None:
    """A pooled call's rows are looked up a block at a time (``_ROWS_AT_ONCE``, here 7): every
    block's, and a call of no rows, as the pipeline's own preprocessing gives them."""
    import mc3g.glassbox.encoded as encoded_module

    frame, labels = _frame(3)
    encoder = OneHotEncoder(handle_unknown=unknown, min_frequency=None if unknown == "ignore" else 1)
    preprocessing = ColumnTransformer([("categories", encoder, ["c", "d"]), ("numbers", StandardScaler(), ["x", "y"])], sparse_threshold=1.0)
    model = make_pipeline(preprocessing, MLPClassifier((4,), max_iter=50, random_state=0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(frame, labels)
    encoded = _encoded(model, frame)
    monkeypatch.setattr(encoded_module, "_ROWS_AT_ONCE", 7)
    base = frame.iloc[1].to_dict()
    changes = [((("c", value),) if i % 3 else ()) + ((("x", i % 9),) if i % 2 else ()) for i, value in enumerate(["a", "z", "b", "c"] * 8)]
    none = encoded.matrix(ChangedRows([(base, [])]))  # before any value without a nonzero is seen; the preprocessing takes no empty frame
    rows = ChangedRows([(base, changes)])
    built, own = encoded.matrix(rows), model[:-1].transform(typed_frame(rows, DTYPES))
    assert built is not None and built.shape == own.shape
    assert all(np.array_equal(getattr(built, a), getattr(own, a)) for a in ("indptr", "indices", "data"))
    assert none is not None and none.shape == (0, own.shape[1]) and none.nnz == 0


@pytest.mark.parametrize(
    "preprocessing",
    [
        ColumnTransformer([("numbers", PolynomialFeatures(2), ["x", "y"])]),  # a column of two features
        ColumnTransformer([("numbers", FunctionTransformer(np.log1p), ["x"])]),  # a function of the user's
        ColumnTransformer([("numbers", StandardScaler(), ["x", "y"])]).set_output(transform="pandas"),  # a frame, not an array
    ],
    ids=["two features in a column", "a function", "a frame out"],
)
def test_a_pipeline_of_another_kind_is_not_taken_apart(preprocessing) -> None:
    frame, labels = _frame(0)
    model = make_pipeline(preprocessing, KNeighborsClassifier(3)).fit(frame, labels)
    with pytest.raises(Opaque):
        _encoded(model, frame)
    with pytest.raises(Opaque, match="not a pipeline"):
        _encoded(KNeighborsClassifier(3).fit(frame[["x", "y"]], labels), frame)


def _mlp() -> tuple[MC3G, pd.DataFrame]:
    frame, labels = _frame(4, 300)
    encode = ColumnTransformer([("c", OneHotEncoder(sparse_output=False, handle_unknown="ignore"), ["c", "d"]), ("n", StandardScaler(), ["x", "y"])])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = make_pipeline(encode, MLPClassifier((8,), max_iter=400, random_state=0)).fit(frame, labels)
    return MC3G(model, desired_class="yes", refine=0).fit(frame), frame


def test_a_fitted_explainer_asks_an_opaque_pipeline_with_arrays_as_it_would_with_frames() -> None:
    explainer, frame = _mlp()
    box = explainer.engine_.black_box
    assert box.encoded is not None and explainer.engine_.glass is None
    person = frame.iloc[0].to_dict()
    pairs = [(("x", x), ("c", c)) for x in range(-2, 12) for c in ["a", "b", "c", "z"]]
    rows = ChangedRows.around(person, pairs + [(("y", y),) for y in np.arange(-2, 6, 0.25)])
    with_arrays = box.refuses(rows)
    box.encoded = None
    assert with_arrays == box.refuses(rows)
    box.encoded = _encoded(explainer.model, frame)
    with pytest.raises(InputError, match=r"unknown \['w'\]"):
        box.refuses(ChangedRows.around(person, [(("w", 1),)]))


def test_a_value_that_reaches_a_column_no_probe_showed_turns_the_arrays_off_and_frames_answer() -> None:
    explainer, frame = _mlp()
    box = explainer.engine_.black_box
    person = frame.iloc[0].to_dict()
    rows = ChangedRows.around(person, [(("c", c),) for c in ["a", "b", "c"]])
    right = box.refuses(rows)
    box.encoded = encoded = _encoded(explainer.model, frame)
    c = encoded.names.index("c")
    encoded.columns[c] = encoded.columns[c][1:]  # as if one of c's columns had never moved when probed
    encoded._blocks[c] = encoded._blocks[c][:, 1:]
    with pytest.raises(Opaque, match="'c' at 'a' changes an input column no probe showed it change"):
        encoded._probed([("c", "a")])
    assert box.encoded.matrix(rows) is None and not box.encoded.usable
    assert box.refuses(rows) == right


def test_searches_in_threads_build_inputs_side_by_side_and_a_copy_builds_its_own() -> None:
    """A service searches in threads: each thread's rows, with values no call has seen yet, get
    the verdicts the pipeline's own frames give; a pickled copy (a Dask worker's) builds alike."""
    explainer, frame = _mlp()
    box = explainer.engine_.black_box
    box.encoded = encoded = _encoded(explainer.model, frame)
    people = [frame.iloc[i].to_dict() for i in range(8)]
    batches = [ChangedRows.around(p, [(("x", x + i / 8), ("y", y / 3 + i)) for x in range(-3, 15) for y in range(12)]) for i, p in enumerate(people)]
    with ThreadPoolExecutor(4) as pool:
        with_arrays = list(pool.map(box.refuses, batches))
    copy = pickle.loads(pickle.dumps(encoded))
    box.encoded = None
    assert with_arrays == [box.refuses(rows) for rows in batches]
    assert np.array_equal(copy.matrix(batches[0]), encoded.matrix(batches[0]))


def test_a_model_read_exactly_is_confirmed_with_arrays_and_its_time_is_not_the_search_s_own() -> None:
    frame, labels = _frame(5, 300)
    encode = ColumnTransformer([("c", OneHotEncoder(sparse_output=False, handle_unknown="ignore"), ["c", "d"]), ("n", StandardScaler(), ["x", "y"])])
    model = make_pipeline(encode, HistGradientBoostingClassifier(max_iter=20, random_state=0)).fit(frame, labels)
    explainer = MC3G(model, desired_class="yes", k=2).fit(frame)
    box = explainer.engine_.black_box
    assert explainer.engine_.glass is not None and box.encoded is not None
    estimator = model[-1]
    estimator.predict = lambda X, predict=estimator.predict: time.sleep(0.2) or predict(X)  # every call waits: the model's time
    person = frame[model.predict(frame) == "no"].iloc[0]
    built = []
    box.frame = lambda rows: pytest.fail("a model read exactly was asked with a frame")
    box.encoded.matrix = lambda rows, matrix=box.encoded.matrix: built.append(len(rows)) or matrix(rows)
    answer = explainer.explain(person)
    assert answer.run.guarantee == "exact" and answer.run.model_rounds == len(built) == 1
    assert answer.run.search_seconds < 0.2  # the call waited 0.2 s


def test_a_probe_runs_the_transformer_of_its_feature_alone_once_it_gave_the_whole_preprocessing_s_columns() -> None:
    """One ColumnTransformer of named columns: a number's probe runs its scaler alone, the other
    input columns the baseline's, once the first probe of that scaler was set against the whole
    preprocessing's; a part whose probe differs from it is never taken alone again."""
    frame, labels = _frame(3)
    steps = [("categories", OneHotEncoder(handle_unknown="ignore"), ["c", "d"]), ("numbers", StandardScaler(), ["x", "y"])]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = make_pipeline(ColumnTransformer(steps), MLPClassifier((4,), max_iter=200, random_state=0)).fit(frame, labels)
    inputs = _encoded(model, frame).inputs
    pairs = [("x", 30), ("y", -3.25), ("x", 4), ("c", "z")]
    whole = model[:-1].transform(typed_frame([{**inputs.baseline, name: v} for name, v in pairs], DTYPES))
    assert np.array_equal(inputs.at(pairs), whole) and inputs._own is not None and set(inputs._own.checked.values()) == {True}
    scaler = model[0].named_transformers_["numbers"]
    inputs._own.parts[1] = (_Shifted(scaler), *inputs._own.parts[1][1:])  # its probes alone no longer the preprocessing's
    inputs._own.checked.clear()
    assert np.array_equal(inputs.at(pairs[:2]), whole[:2]) and inputs._own.checked == {1: False}
    assert np.array_equal(inputs.at(pairs[:2]), whole[:2])  # the whole preprocessing from now on


@pytest.mark.parametrize("scaler", [StandardScaler(), MinMaxScaler(), RobustScaler()])
def test_a_scaler_s_probe_is_an_array_of_doubles_and_gives_the_preprocessing_s_own_columns(scaler) -> None:
    """A scaler of integer and double columns is probed with an array (a frame costs it eight
    times as much), and what it writes is the whole preprocessing's, number for number: whole
    numbers, numbers never seen, a large integer, a missing value; a truth value goes in a frame."""
    frame, labels = _frame(5)
    steps = [("categories", OneHotEncoder(handle_unknown="ignore"), ["c", "d"]), ("numbers", scaler, ["x", "y"])]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = make_pipeline(ColumnTransformer(steps), MLPClassifier((4,), max_iter=200, random_state=0)).fit(frame, labels)
    inputs = _encoded(model, frame).inputs
    given = []
    fitted = model[0].named_transformers_["numbers"]
    inputs._own.parts[1] = (_Seen(fitted, given), *inputs._own.parts[1][1:])
    pairs = [("x", 3), ("x", 2**40 + 1), ("y", -3.25), ("y", float("nan")), ("x", np.int64(-4)), ("y", np.float64(11.5))]
    whole = model[:-1].transform(typed_frame([{**inputs.baseline, name: v} for name, v in pairs], DTYPES))
    assert np.array_equal(inputs.at(pairs), whole, equal_nan=True) and inputs._own.checked[1] is True
    assert np.array_equal(inputs.at(pairs[::-1]), whole[::-1], equal_nan=True)
    assert [type(x).__name__ for x in given] == ["ndarray", "ndarray"] and all(x.dtype == np.float64 for x in given)
    inputs.at([("x", True)])
    assert isinstance(given[-1], pd.DataFrame)


class _Seen:
    """A transformer that keeps what it is given."""

    def __init__(self, transformer, given: list) -> None:
        self.transformer, self.given = transformer, given

    def transform(self, X):
        self.given.append(X)
        return self.transformer.transform(X)


class _Shifted:
    """A transformer's output moved by one."""

    def __init__(self, transformer) -> None:
        self.transformer = transformer

    def transform(self, X):
        return self.transformer.transform(X) + 1.0
