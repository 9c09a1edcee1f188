"""FoldSE against scikit-learn's estimator contract, and the kinds of target it takes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import cross_val_score
from sklearn.utils.estimator_checks import parametrize_with_checks

from mc3g import FoldSE
from mc3g.exceptions import InputError

EXPECTED_FAILED_CHECKS = {
    # FoldSE declares categorical input, so the check rounds its blobs to a few integers per
    # feature; on the binary problem of that grid FOLD-SE's greedy covering (kept as published)
    # reaches 0.775 training accuracy, below the check's 0.83.  On the check's unrounded blobs
    # it scores 1.0 (binary) and 0.98 (three classes); see test_blobs_are_learned_well.
    "check_classifiers_train": "FOLD-SE scores 0.775 (< 0.83) on the rounded blobs the check makes for categorical estimators",
}


@parametrize_with_checks([FoldSE()], expected_failed_checks=lambda estimator: EXPECTED_FAILED_CHECKS)
def test_scikit_learn_check(estimator, check) -> None:
    check(estimator)


def test_blobs_are_learned_well() -> None:
    from sklearn.datasets import make_blobs

    X, y = make_blobs(n_samples=300, random_state=0)
    assert FoldSE().fit(X, y).score(X, y) > 0.95
    two = y != 2
    assert FoldSE().fit(X[two].tolist(), y[two].tolist()).score(X[two], y[two]) > 0.95


def _frame(n: int = 300) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(11)
    X = pd.DataFrame({"age": rng.integers(18, 70, n), "colour": rng.choice(["red", "green", "blue"], n)})
    concept = ((X.age > 40) & (X.colour != "red")).to_numpy()
    return X, concept


@pytest.mark.parametrize(
    "make_y, target",
    [
        (lambda c: c.astype(np.int64), 1),
        (lambda c: c.astype(np.int32) * 5 + 2, 2),  # the majority class: y is not 0/1
        (lambda c: c.copy(), True),
        (lambda c: np.where(c, "bad", "good").astype(object), "good"),
        (lambda c: np.where(c, "bad", "good"), "good"),  # a fixed-width numpy string array
    ],
    ids=["int 0/1", "int 2/7", "bool", "str object", "str unicode"],
)
def test_integer_boolean_and_string_targets(make_y, target) -> None:
    X, concept = _frame()
    y = make_y(concept)
    model = FoldSE(tail=0).fit(X, y)
    assert model.classes_.dtype == y.dtype
    assert model.classes_.tolist() == sorted(set(y.tolist()))
    assert model.target_ == target
    pred = model.predict(X)
    assert pred.dtype == y.dtype and pred.shape == y.shape
    assert model.score(X, y) == 1.0
    assert model.score(X, pd.Series(y)) == 1.0
    assert cross_val_score(FoldSE(), X, y, cv=3).min() > 0.9


def test_target_given_in_the_dtype_of_y_or_as_text() -> None:
    X, concept = _frame()
    y = concept.astype(int)
    assert FoldSE(target=0).fit(X, y).target_ == 0
    assert FoldSE(target="0").fit(X, y).target_ == 0
    assert FoldSE(target=False).fit(X, concept).rules_.rules[0].head.value == "False"


def test_numpy_input_names_the_columns_by_position() -> None:
    X, concept = _frame()
    arr = X.to_numpy()  # an object array: numbers and strings
    model = FoldSE(tail=0).fit(arr, concept)
    assert model.n_features_in_ == 2 and not hasattr(model, "feature_names_in_")
    assert model.numeric_ == ["x0"] and set(model.rules_.features) <= {"x0", "x1"}
    assert model.score(arr, concept) == 1.0


@pytest.mark.parametrize(
    "y, message",
    [
        (np.linspace(0, 1, 300), "Unknown label type: continuous"),
        (np.array(["a", 1] * 150, dtype=object), r"mixes labels of types \['int', 'str'\]"),
        (None, "requires y to be passed"),
    ],
)
def test_targets_that_are_not_classes_are_refused(y, message) -> None:
    X, _ = _frame()
    with pytest.raises(ValueError, match=message):
        FoldSE().fit(X, y)


def test_infinity_in_a_numeric_feature_is_refused_nan_is_a_token() -> None:
    X, concept = _frame()
    X = X.astype({"age": float})
    with_nan = X.assign(age=X.age.where(X.index % 10 != 0))
    assert FoldSE().fit(with_nan, concept).predict(with_nan).shape == (len(X),)
    with_inf = X.assign(age=X.age.where(X.index % 10 != 0, np.inf))
    with pytest.raises(InputError, match=r"feature 'age' is numeric, but row 0 is inf, not a finite number"):
        FoldSE().fit(with_inf, concept)
    model = FoldSE().fit(X, concept)
    with pytest.raises(InputError, match="not a finite number"):
        model.predict(with_inf)
