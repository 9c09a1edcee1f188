"""FOLD-SE: the vectorised literal search, the learner's contract, and bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import tiered
from hypothesis import strategies as st
from sklearn.base import clone

from mc3g import FoldSE
from mc3g.exceptions import InputError, UnknownNameError
from mc3g.foldse import described
from mc3g.foldse.covering import Search
from mc3g.foldse.heuristics import HEURISTICS
from mc3g.rules import Column, Literal, Table


def _brute_force_best(frame: pd.DataFrame, numeric: set[str], pos, neg, path, heuristic: str) -> Literal | None:
    """Score every literal one by one, in the documented scan order; keep the first maximum."""
    table = Table.from_frame(frame)
    used = {(lit.feature, lit.value) for lit in path}
    best, best_score = None, -np.inf
    for name in frame.columns:
        col = frame[name]
        candidates = []
        rows = frame.iloc[np.concatenate([pos, neg])][name]
        if name in numeric:
            nums = pd.to_numeric(rows, errors="coerce")
            for v in sorted(nums.dropna().unique()):
                candidates += [Literal(name, "<=", float(v)), Literal(name, ">", float(v))]
            tokens = sorted({str(x) for x in rows[nums.isna()]})
        else:
            tokens = sorted({str(x) for x in rows})
        for t in tokens:
            candidates += [Literal(name, "==", t), Literal(name, "!=", t)]
        for lit in candidates:
            if (lit.feature, lit.value) in used:
                continue
            mask = lit.mask(table[name])
            tp, fp = float(mask[pos].sum()), float(mask[neg].sum())
            fn, tn = len(pos) - tp, len(neg) - fp
            if tp == 0 or tp + tn < fp + fn:
                continue
            with np.errstate(divide="ignore", invalid="ignore"):
                score = float(HEURISTICS[heuristic](*(np.array([x]) for x in (tp, fp, tn, fn)))[0])
            if score > best_score:
                best, best_score = lit, score
        del col
    return best


small_frames = st.integers(4, 30).flatmap(
    lambda n: st.tuples(
        st.lists(st.one_of(st.integers(0, 6), st.just("?")), min_size=n, max_size=n),
        st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n),
        st.lists(st.integers(0, 3), min_size=n, max_size=n),
        st.lists(st.booleans(), min_size=n, max_size=n),
    )
)


@pytest.mark.slow
@tiered(40, 150, small_frames, st.sampled_from(sorted(HEURISTICS)), st.data())
def test_vectorised_search_finds_the_brute_force_best_literal(cols, heuristic, data) -> None:
    num, cat, small, label = cols
    frame = pd.DataFrame({"num": pd.Series(num, dtype=object), "cat": cat, "small": small})
    y = np.array(label)
    pos, neg = np.flatnonzero(y), np.flatnonzero(~y)
    numeric = {"num", "small"}
    path = data.draw(st.lists(st.sampled_from([Literal("small", "<=", 1.0), Literal("cat", "==", "a"), Literal("num", ">", 3.0)]), max_size=2))
    search = Search(Table.from_frame(frame), numeric, list(frame.columns), 0.5, 0.0, heuristic)
    assert search.best_literal(pos, neg, path) == _brute_force_best(frame, numeric, pos, neg, path, heuristic)


@tiered(25, 150, small_frames, st.booleans())
def test_rules_learned_from_a_table_are_those_fit_learns_from_its_frame(cols, numbers_as_objects) -> None:
    """The learning local rules use (``described``, on a table the package builds) is what
    ``fit`` learns once it has checked the same rows as a frame: same rules, default and classes."""
    num, cat, small, label = cols
    y = np.where(label, "no", "yes")
    if len(set(y)) < 2 or all(v == "?" for v in num):
        return  # fit refuses one class, and a numeric column without a number
    frame = pd.DataFrame({"num": pd.Series(num, dtype=object), "cat": cat, "small": small})
    kind = object if numbers_as_objects else np.float64
    table = Table({"num": Column(np.asarray(num, dtype=object)), "cat": Column(np.asarray(cat, dtype=object)), "small": Column(np.asarray(small, dtype=kind))})
    fitted = FoldSE(tail=0.0, target="no", numeric=["num", "small"]).fit(frame, y).rules_
    assert described(table, ["num", "small"], np.asarray(label), "no", ["no", "yes"], tail=0.0) == fitted


def _xor_like() -> tuple[pd.DataFrame, pd.Series]:
    rng = np.random.default_rng(7)
    n = 400
    frame = pd.DataFrame(
        {
            "age": rng.integers(18, 70, n),
            "colour": rng.choice(["red", "green", "blue"], n),
            "score": np.round(rng.normal(50, 15, n), 1),
        }
    )
    y = ((frame.age > 40) & (frame.colour != "red")) | (frame.score < 30)
    return frame, pd.Series(np.where(y, "bad", "good"), name="risk")


def test_learns_a_clean_concept_exactly() -> None:
    X, y = _xor_like()
    model = FoldSE(target="bad", tail=0).fit(X, y)
    assert model.score(X, y) == 1.0
    assert model.rules_.label == "risk" and model.rules_.default == "good"
    assert model.target_ == "bad" and list(model.classes_) == ["bad", "good"]


def test_is_deterministic_and_independent_of_row_identity() -> None:
    X, y = _xor_like()
    a = FoldSE().fit(X, y).rules_
    b = FoldSE().fit(X.reset_index(drop=True).set_axis(range(1000, 1000 + len(X))), y.set_axis(range(1000, 1000 + len(X)))).rules_
    assert a == b


def test_default_target_is_the_majority_or_the_one_of_a_binary_target() -> None:
    X, y = _xor_like()
    majority = y.value_counts().idxmax()
    assert FoldSE().fit(X, y).target_ == majority
    assert FoldSE().fit(X, (y == "bad").astype(int)).target_ == 1
    assert FoldSE().fit(X, y == "bad").target_ is True or FoldSE().fit(X, y == "bad").target_ == True  # noqa: E712


def test_predict_returns_the_labels_given() -> None:
    X, y = _xor_like()
    yi = (y == "bad").astype(int)
    pred = FoldSE(target=1).fit(X, yi).predict(X)
    assert set(pred.tolist()) <= {0, 1}
    assert (pred == yi.to_numpy()).mean() > 0.95


def test_multiclass_learns_an_ordered_decision_list() -> None:
    rng = np.random.default_rng(3)
    x = rng.uniform(0, 30, 600)
    frame = pd.DataFrame({"x": x, "noise": rng.choice(["p", "q"], 600)})
    y = pd.Series(np.select([x < 10, x < 20], ["low", "mid"], "high"), name="band")
    model = FoldSE(tail=0).fit(frame, y)
    assert model.score(frame, y) == 1.0
    heads = [r.head.value for r in model.rules_]
    assert len(set(heads)) >= 2 and model.rules_.default in {"low", "mid", "high"}
    with pytest.raises(ValueError, match="needs a binary y"):
        FoldSE(target="low").fit(frame, y)


def test_missing_values_are_tokens_the_learner_can_use() -> None:
    n = 200
    gain = pd.Series([("?" if i % 4 == 0 else i % 50) for i in range(n)], dtype=object)
    y = pd.Series(["bad" if i % 4 == 0 else "good" for i in range(n)], name="y")
    model = FoldSE(numeric=["gain"], target="bad", tail=0).fit(pd.DataFrame({"gain": gain}), y)
    assert model.score(pd.DataFrame({"gain": gain}), y) == 1.0
    # '?' is above every threshold (FOLD-SE's refined '>'), so 'gain > 49' and 'gain == ?' tie.
    assert model.predict(pd.DataFrame({"gain": pd.Series(["?", 3, 49], dtype=object)})).tolist() == ["bad", "good", "good"]
    nan_gain = pd.DataFrame({"gain": [np.nan if i % 4 == 0 else float(i % 50) for i in range(n)]})
    assert FoldSE(target="bad", tail=0).fit(nan_gain, y).score(nan_gain, y) == 1.0


def test_ratio_and_tail_shape_the_program() -> None:
    X, y = _xor_like()
    flip = y.copy()
    flip.iloc[::17] = np.where(flip.iloc[::17] == "bad", "good", "bad")
    loose = FoldSE(target="bad", tail=0).fit(X, flip).rules_
    strict = FoldSE(target="bad", tail=0.05).fit(X, flip).rules_
    assert strict.n_rules <= loose.n_rules
    assert strict.n_literals < loose.n_literals


def test_scikit_learn_protocol() -> None:
    X, y = _xor_like()
    model = FoldSE(ratio=0.3, tail=0.01, heuristic="ig")
    assert clone(model).get_params() == model.get_params()
    assert model.fit(X, y) is model
    assert model.n_features_in_ == 3 and list(model.feature_names_in_) == ["age", "colour", "score"]


@pytest.mark.parametrize(
    "make, error, message",
    [
        (lambda X, y: FoldSE().fit(X.iloc[:0], y.iloc[:0]), ValueError, r"0 sample\(s\) \(shape=\(0, 3\)\)"),
        (lambda X, y: FoldSE().fit(X, y.iloc[:10]), InputError, "y has 10 labels but X has 400 rows"),
        (lambda X, y: FoldSE().fit(X, pd.Series(["a"] * len(X))), InputError, r"1 class \('a'\)"),
        (lambda X, y: FoldSE(numeric=["height"]).fit(X, y), UnknownNameError, r"\['height'\] that X does not have"),
        (lambda X, y: FoldSE(numeric=["colour"]).fit(X, y), InputError, "'colour' is declared numeric but none"),
        (lambda X, y: FoldSE(target="ugly").fit(X, y), InputError, "target 'ugly' is not a class"),
        (lambda X, y: FoldSE(heuristic="entropy").fit(X, y), InputError, "^heuristic must be one of 'mgi', 'ig' or 'gini', not 'entropy'$"),
        (lambda X, y: FoldSE(ratio=2).fit(X, y), InputError, r"^ratio must be a number in \[0, 1\], not 2$"),
        (lambda X, y: FoldSE(tail=1).fit(X, y), InputError, r"^tail must be a number in \[0, 1\), not 1$"),
        (lambda X, y: FoldSE(numeric=3).fit(X, y), InputError, r"^numeric must be a column name or a list of column names, or None, not 3 \(an int\)$"),
        (lambda X, y: FoldSE().fit(X, y.where(y.index > 3)), InputError, "4 missing label"),
        (lambda X, y: FoldSE().fit("not a table", y), ValueError, "Expected 2D array"),
        (lambda X, y: FoldSE().fit(X.set_axis(["age", "age", "score"], axis=1), y), InputError, r"duplicate column names \['age'\]"),
        (lambda X, y: FoldSE().fit(X, y).predict(X.drop(columns="age")), ValueError, "Feature names seen at fit time, yet now missing:\n- age"),
        (lambda X, y: FoldSE().fit(X, y).predict(X.assign(extra=1)), ValueError, "Feature names unseen at fit time:\n- extra"),
        (lambda X, y: FoldSE().fit(X, y).predict(X[["score", "age", "colour"]]), ValueError, "must be in the same order"),
    ],
)
def test_bad_input_gets_a_clear_error(make, error, message) -> None:
    X, y = _xor_like()
    with pytest.raises(error, match=message):
        make(X, y)


def test_predict_before_fit_is_refused() -> None:
    from sklearn.exceptions import NotFittedError

    X, _ = _xor_like()
    with pytest.raises(NotFittedError):
        FoldSE().predict(X)
