"""The estimators whose decision can be read, each read into trees or weights over the columns it
takes in, with the score it decides by.

Every estimator here scores a row toward its second class (``classes_[1]``): a forest by the sum
of its trees' probabilities of that class (``mean`` link: the probability is that sum over the
trees), a booster by its raw score (``logistic``: the probability is the logistic of it), a
linear classifier by its decision function (``logistic`` where its probability is the logistic
of that, else ``identity``).  Trees test one input column each node, ``column <= threshold`` (or
``<`` for xgboost, whose inputs and thresholds are float32, as are scikit-learn trees' inputs),
or, where a booster splits a category natively, whether the column's code is in a set.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from ..models import fitted_categories
from .opaque import Opaque

SINGLE_EPSILON, DOUBLE_EPSILON = 2.0**-23, 2.0**-52
CODES = 256  # a category's codes a set test reads (a booster's own categories are fewer)
MISSING, INVALID = CODES, CODES + 1  # a set's columns past the codes: a missing code, and a negative one or one past the codes


@dataclass(frozen=True, eq=False)
class InputTrees:
    """Trees over the estimator's input columns, node by node: the column tested (-1 at a leaf),
    its threshold, the children when the test holds (``yes``) and not (``no``), the leaves'
    values toward the second class; ``strict``: ``<`` rather than ``<=``; ``single``: the
    column is cast to float32 first; ``epsilon``: the precision the model sums its leaves in.
    A node that tests a category natively has a row of ``sets`` (``set_of``, -1 elsewhere):
    whether each code 0 to 255 takes ``yes``, then whether a missing code does (``MISSING``)
    and a negative one or one past them (``INVALID``), as the booster's own prediction sends them.
    ``missing_yes``: where a node sends a missing value (None: a missing value is read as
    none); ``absent``: the value besides NaN the booster reads as missing (an entry a sparse
    matrix leaves out, 0: XGBoost fed a sparse matrix)."""

    column: np.ndarray
    threshold: np.ndarray
    yes: np.ndarray
    no: np.ndarray
    value: np.ndarray
    roots: np.ndarray
    strict: bool = False
    single: bool = True
    epsilon: float = DOUBLE_EPSILON
    set_of: np.ndarray | None = None
    sets: np.ndarray | None = None
    missing_yes: np.ndarray | None = None
    absent: float | None = None

    def missing(self, seen: np.ndarray) -> np.ndarray:
        """Whether the booster reads each value as missing."""
        return np.isnan(seen) | (seen == self.absent) if self.absent is not None else np.isnan(seen)

    def holds(self, seen: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        """Whether each node's test holds for the column's value ``seen`` (broadcast together)."""
        cast = seen.astype(np.float32).astype(np.float64) if self.single else seen
        by_threshold = cast < self.threshold[nodes] if self.strict else cast <= self.threshold[nodes]
        if self.missing_yes is not None:
            by_threshold = np.where(self.missing(seen), self.missing_yes[nodes], by_threshold)
        if self.sets is None or self.set_of is None:
            return by_threshold
        row = self.set_of[nodes]
        with np.errstate(invalid="ignore"):
            code = np.where(self.missing(seen), MISSING, np.where((seen < 0) | (seen >= CODES), INVALID, np.nan_to_num(seen))).astype(np.int64)
        return np.where(row >= 0, self.sets[np.maximum(row, 0), code], by_threshold)

    def scores(self, Z: np.ndarray) -> np.ndarray:
        """The sum of the leaves each row of the input matrix ``Z`` reaches (no bias)."""
        node = np.tile(self.roots, (len(Z), 1))
        while True:
            row, tree = np.nonzero(self.column[node] >= 0)
            if not len(row):
                return self.value[node].sum(axis=1)
            nodes = node[row, tree]
            node[row, tree] = np.where(self.holds(Z[row, self.column[nodes]], nodes), self.yes[nodes], self.no[nodes])


@dataclass(frozen=True, eq=False)
class Read:
    """An estimator read: its trees or its weights (``coef``, ``intercept``) over its input
    columns, how its probability follows from its score (``link``: ``mean``, ``logistic`` or
    ``identity``), how many trees a ``mean`` averages, and ``raw``: its own score of an input
    matrix, to find and check a booster's bias (None: the ``bias`` is known)."""

    kind: str
    link: str
    trees: InputTrees | None = None
    coef: np.ndarray | None = None
    intercept: float = 0.0
    count: int = 1
    raw: Any = None
    bias: float = 0.0


def read_estimator(estimator: Any) -> Read:
    """The estimator read (:class:`Read`), or :class:`Opaque` with the reason it cannot be."""
    kind = type(estimator).__name__
    module = type(estimator).__module__.split(".")[0]
    readers = {
        "DecisionTreeClassifier": _forest, "RandomForestClassifier": _forest, "ExtraTreesClassifier": _forest,
        "BaggingClassifier": _bagging, "AdaBoostClassifier": _adaboost,
        "GradientBoostingClassifier": _gradient_boosting, "HistGradientBoostingClassifier": _histogram_boosting,
        "XGBClassifier": _xgboost, "Booster": _xgboost if module == "xgboost" else _lightgbm, "LGBMClassifier": _lightgbm,
    }  # fmt: skip
    if kind in readers and module in ("sklearn", "xgboost", "lightgbm"):
        return readers[kind](estimator)
    if module == "sklearn" and _linear(estimator):
        return _linear_classifier(estimator)
    raise Opaque(f"mc3g reads tree ensembles and linear classifiers of scikit-learn, XGBoost and LightGBM, not a {kind}")


def _binary(estimator: Any) -> None:
    classes = getattr(estimator, "classes_", None)
    if classes is not None and len(classes) != 2:
        raise Opaque(f"the {type(estimator).__name__} has {len(classes)} classes; mc3g reads decisions between two")


def _sklearn_tree(tree: Any, leaf: np.ndarray) -> tuple[np.ndarray, ...]:
    t = tree.tree_
    inner = t.children_left >= 0
    return np.where(inner, t.feature, -1), t.threshold.astype(np.float64), t.children_left, t.children_right, np.where(inner, 0.0, leaf)


def _stacked(parts: list[tuple[np.ndarray, ...]], sets: list[tuple[np.ndarray, np.ndarray]] | None = None, **flags: Any) -> InputTrees:
    """Trees given one by one (column, threshold, yes, no, value; children by their place in
    their own tree) in one set of arrays; ``sets``, each tree's set tests (a node's row among
    the tree's own, -1 elsewhere, and the rows) where a booster splits categories natively."""
    offsets = np.cumsum([0] + [len(p[0]) for p in parts[:-1]])
    column, threshold, yes, no, value = (np.concatenate([p[i] for p in parts]) for i in range(5))
    shift = np.concatenate([np.full(len(p[0]), o) for p, o in zip(parts, offsets)])
    inner = column >= 0
    yes, no = np.where(inner, yes + shift, -1), np.where(inner, no + shift, -1)
    if sets is not None and any(len(rows) for _, rows in sets):
        firsts = np.cumsum([0] + [len(rows) for _, rows in sets[:-1]])
        flags["set_of"] = np.concatenate([np.where(of >= 0, of + first, -1) for (of, _), first in zip(sets, firsts)]).astype(np.int64)
        flags["sets"] = np.concatenate([rows for _, rows in sets])
    return InputTrees(column.astype(np.int64), threshold, yes.astype(np.int64), no.astype(np.int64), value, offsets.astype(np.int64), **flags)


def _bits(words: np.ndarray) -> np.ndarray:
    """Bitsets of 32-bit words, bit ``c`` of a row in word ``c // 32``, as rows of :data:`CODES` booleans."""
    words = np.asarray(words, dtype=np.uint32).reshape(len(words), -1)
    bits = (words[:, :, None] >> np.arange(32, dtype=np.uint32)) & 1
    out = np.zeros((len(words), CODES), dtype=bool)
    width = min(CODES, words.shape[1] * 32)
    out[:, :width] = bits.reshape(len(words), -1)[:, :width].astype(bool)
    return out


def _forest(model: Any) -> Read:
    _binary(model)
    trees = getattr(model, "estimators_", [model])
    return Read(type(model).__name__, "mean", _stacked([_sklearn_tree(tree, _second_share(tree)) for tree in trees]), count=len(trees))


def _second_share(tree: Any) -> np.ndarray:
    """Each node's share of the second class, the probability a leaf gives it."""
    counts = tree.tree_.value[:, 0, :]
    return counts[:, 1] / counts.sum(axis=1)


TREES = ("DecisionTreeClassifier", "ExtraTreeClassifier")  # the trees an ensemble of any estimator is read with


def _of_trees(model: Any) -> list[Any]:
    """An ensemble's estimators, where each is a tree of scikit-learn's; :class:`Opaque` otherwise."""
    kinds = {type(e).__name__ for e in model.estimators_}
    if not kinds <= set(TREES):
        raise Opaque(f"the {type(model).__name__} combines {', '.join(sorted(kinds - set(TREES)))}; mc3g reads one of trees")
    if any(e.tree_.value.shape[2] != 2 for e in model.estimators_):
        raise Opaque(f"a tree of the {type(model).__name__} saw one class only")
    return list(model.estimators_)


def _bagging(model: Any) -> Read:
    """Its trees' probabilities averaged, as a forest's, each tree on the columns it was drawn."""
    _binary(model)
    parts = []
    for tree, columns in zip(_of_trees(model), model.estimators_features_):
        column, *rest = _sklearn_tree(tree, _second_share(tree))
        parts.append((np.where(column >= 0, np.asarray(columns)[np.maximum(column, 0)], -1), *rest))
    return Read("BaggingClassifier", "mean", _stacked(parts), count=len(parts))


def _adaboost(model: Any) -> Read:
    """SAMME's vote: each tree adds its weight toward the class its leaf predicts (the likelier,
    the first on a tie), over the weights' sum, twice; its probability is the logistic of that."""
    _binary(model)
    trees = _of_trees(model)
    total = float(np.sum(model.estimator_weights_))
    parts = []
    for tree, weight in zip(trees, model.estimator_weights_):
        second = np.argmax(tree.tree_.value[:, 0, :], axis=1) == 1
        parts.append(_sklearn_tree(tree, np.where(second, 2.0, -2.0) * float(weight) / total))
    return Read("AdaBoostClassifier", "logistic", _stacked(parts))


def _gradient_boosting(model: Any) -> Read:
    _binary(model)
    if model.loss != "log_loss":
        raise Opaque(f"the GradientBoostingClassifier's loss is {model.loss!r}; mc3g reads log_loss")
    parts = [_sklearn_tree(tree, model.learning_rate * tree.tree_.value[:, 0, 0]) for tree in model.estimators_[:, 0]]
    return Read("GradientBoostingClassifier", "logistic", _stacked(parts), raw=model.decision_function)


def _histogram_boosting(model: Any) -> Read:
    """Its trees, a category split natively as its own prediction reads it: a code in the
    node's bitset goes left, another known code right, an unknown, negative or missing one the
    way missing values go.  Fitted on a frame of pandas categories, it codes them itself first
    (:func:`own_coding`): its bias is then its baseline, as its score of a frame would code it again."""
    _binary(model)
    parts, sets = [], []
    known, index = model._bin_mapper.make_known_categories_bitsets()
    for (predictor,) in model._predictors:
        nodes = predictor.nodes
        leaf = nodes["is_leaf"].astype(bool)
        column = np.where(leaf, -1, nodes["feature_idx"]).astype(np.int64)
        parts.append((column, nodes["num_threshold"].astype(np.float64), nodes["left"], nodes["right"], np.where(leaf, nodes["value"], 0.0)))
        native = np.flatnonzero(nodes["is_categorical"].astype(bool) & ~leaf)
        rows = np.zeros((len(native), CODES + 2), dtype=bool)
        if len(native):
            left, missing = _bits(predictor.raw_left_cat_bitsets[nodes["bitset_idx"][native]]), nodes["missing_go_to_left"][native].astype(bool)
            seen = _bits(known[index[nodes["feature_idx"][native]]])
            rows[:, :CODES] = left | (~seen & missing[:, None])
            rows[:, MISSING] = rows[:, INVALID] = missing
        of = np.full(len(nodes), -1, dtype=np.int64)
        of[native] = np.arange(len(native))
        sets.append((of, rows))
    coded = getattr(model, "_preprocessor", None) is not None
    scored = {"bias": float(np.ravel(model._baseline_prediction)[0])} if coded else {"raw": model.decision_function}
    return Read("HistGradientBoostingClassifier", "logistic", _stacked(parts, sets, single=False), **scored)


def _xgboost(model: Any) -> Read:
    booster = model.get_booster() if hasattr(model, "get_booster") else model
    _binary(model)
    learner = json.loads(bytes(booster.save_raw("json")))["learner"]
    objective, trees = learner["objective"]["name"], learner["gradient_booster"]
    if trees["name"] != "gbtree" or objective not in ("binary:logistic", "binary:logitraw"):
        raise Opaque(f"mc3g reads XGBoost's gbtree with binary:logistic, not {trees['name']} with {objective}")
    missing = getattr(model, "missing", None)
    if missing is not None and not np.isnan(missing):
        raise Opaque(f"the XGBoost model reads {missing!r} as missing; mc3g reads one whose missing value is NaN (its default)")
    parts, sets, default = [], [], []
    for tree in trees["model"]["trees"]:
        left, right = np.array(tree["left_children"]), np.array(tree["right_children"])
        cond = np.array(tree["split_conditions"], dtype=np.float32).astype(np.float64)
        leaf = left < 0
        parts.append((np.where(leaf, -1, tree["split_indices"]), cond, left, right, np.where(leaf, cond, 0.0)))
        sets.append(_xgboost_sets(tree))
        default.append(np.asarray(tree["default_left"], dtype=bool))
    import xgboost

    def raw(Z: Any) -> np.ndarray:
        data = xgboost.DMatrix(Z, feature_names=booster.feature_names, feature_types=booster.feature_types, enable_categorical=True)
        return booster.predict(data, output_margin=True)

    stacked = replace(_stacked(parts, sets, strict=True, epsilon=SINGLE_EPSILON), missing_yes=np.concatenate(default))
    return Read("XGBoost", "logistic", stacked, raw=raw)


def _xgboost_sets(tree: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """A tree's categorical splits as its prediction reads them: a code in the node's set goes
    right, any other left (a negative one, or one past the set's codes, too), a missing one the
    default way."""
    nodes = np.asarray(tree.get("categories_nodes", []), dtype=np.int64)
    of = np.full(len(tree["left_children"]), -1, dtype=np.int64)
    of[nodes] = np.arange(len(nodes))
    rows = np.ones((len(nodes), CODES + 2), dtype=bool)
    codes = np.asarray(tree.get("categories", []), dtype=np.int64)
    for row, (start, size) in enumerate(zip(tree.get("categories_segments", []), tree.get("categories_sizes", []))):
        chosen = codes[start : start + size]
        if len(chosen) and chosen.max() >= CODES:
            raise Opaque(f"the XGBoost model splits a category of more than {CODES} codes natively")
        rows[row, chosen] = False
    rows[:, MISSING] = np.asarray(tree["default_left"], dtype=bool)[nodes]
    return of, rows


def _lightgbm(model: Any) -> Read:
    booster = model.booster_ if hasattr(model, "booster_") else model
    _binary(model)
    dump = booster.dump_model()
    if dump["objective"].split()[0] != "binary" or dump["num_tree_per_iteration"] != 1:
        raise Opaque(f"mc3g reads LightGBM's binary objective, not {dump['objective']!r}")
    trees = [_lightgbm_tree(info["tree_structure"]) for info in dump["tree_info"]]
    stacked = _stacked([tree[:5] for tree in trees], [tree[5:] for tree in trees], single=False)  # type: ignore[misc]
    return Read("LightGBM", "logistic", stacked, raw=lambda Z: booster.predict(Z, raw_score=True))


def own_coding(estimator: Any) -> Callable[[pd.DataFrame], np.ndarray] | None:
    """How an estimator fitted on a frame of pandas categories codes them before its trees read
    them (None: it reads its columns as they are): a histogram boosting by its own ordinal
    encoder; LightGBM and XGBoost by each value's place among the categories it was fitted on
    (:func:`~mc3g.models.fitted_categories`; one it was not: missing)."""
    if type(estimator).__name__ == "HistGradientBoostingClassifier":
        own = getattr(estimator, "_preprocessor", None)
        return None if own is None else own.transform
    booster = estimator.get_booster() if hasattr(estimator, "get_booster") else estimator
    if type(booster).__module__.split(".")[0] == "xgboost" and "c" in (booster.feature_types or ()) and not hasattr(booster, "get_categories"):
        raise Opaque("this XGBoost keeps no categories of its own to read (XGBoost 3.1 and later do)")
    try:
        fitted = fitted_categories(estimator)
    except ImportError as exc:
        raise Opaque(f"reading the XGBoost model's categories needs pyarrow ({exc})") from exc
    return functools.partial(_coded, fitted=fitted) if fitted else None


def _coded(frame: pd.DataFrame, fitted: dict[str, list[Any]]) -> np.ndarray:
    """``frame`` with each column ``fitted`` names coded by its value's place among its
    categories, -1 (not among them) missing."""
    missing = sorted(set(fitted) - set(frame.columns))
    if missing:
        raise Opaque(f"the model was fitted on the categories of {missing}, which the rows lack")
    out = frame.copy()
    for column, categories in fitted.items():
        codes = pd.Categorical(frame[column].astype(object), categories=categories).codes
        out[column] = np.where(codes < 0, np.nan, codes)
    return out.to_numpy(dtype=np.float64)


def _lightgbm_tree(root: dict[str, Any]) -> tuple[np.ndarray, ...]:
    """One of LightGBM's nested trees in arrays, its nodes numbered in the order met."""
    rows: list[list[Any]] = []  # column, threshold, yes, no, value, the codes a set test sends left (None: no set test)
    stack: list[tuple[dict[str, Any], int, int]] = [(root, -1, 2)]
    while stack:
        node, parent, branch = stack.pop()
        if parent >= 0:
            rows[parent][branch] = len(rows)
        if "leaf_value" in node:
            rows.append([-1, 0.0, -1, -1, float(node["leaf_value"]), None])
            continue
        if node["missing_type"] == "Zero" or node["decision_type"] not in ("<=", "=="):
            raise Opaque(
                f"the LightGBM model splits by {node['decision_type']!r}, {node['missing_type']!r} missing; mc3g reads '<=' and '==', zero not missing"
            )
        stack += [(node["right_child"], len(rows), 3), (node["left_child"], len(rows), 2)]
        native = node["decision_type"] == "=="
        rows.append(
            [int(node["split_feature"]), 0.0 if native else float(node["threshold"]), -1, -1, 0.0, _lightgbm_set(node["threshold"]) if native else None]
        )
    columns = [np.array(column) for column in zip(*[row[:5] for row in rows])]
    native = [i for i, row in enumerate(rows) if row[5] is not None]
    of = np.full(len(rows), -1, dtype=np.int64)
    of[native] = np.arange(len(native))
    return (*columns, of, np.array([rows[i][5] for i in native], dtype=bool).reshape(len(native), CODES + 2))


def _lightgbm_set(threshold: str) -> np.ndarray:
    """A categorical split's codes that go left (``"0||3||7"``); a missing or negative code goes right."""
    codes = [int(c) for c in str(threshold).split("||")]
    if max(codes) >= CODES:
        raise Opaque(f"the LightGBM model splits a category of more than {CODES} codes natively")
    row = np.zeros(CODES + 2, dtype=bool)
    row[codes] = True
    return row


def _linear(estimator: Any) -> bool:
    from sklearn.linear_model._base import LinearClassifierMixin

    return isinstance(estimator, LinearClassifierMixin) and np.ndim(getattr(estimator, "coef_", None)) in (1, 2)


def _linear_classifier(model: Any) -> Read:
    """Its decision function; a logistic probability where it gives one (a logistic regression,
    its cross-validated kind too, or a log loss)."""
    from sklearn.linear_model import LogisticRegression

    _binary(model)
    coef = np.atleast_2d(model.coef_)  # a ridge classifier of two classes keeps one row flat
    if coef.shape[0] != 1:
        raise Opaque(f"the {type(model).__name__} has {coef.shape[0]} rows of weights; mc3g reads one")
    logistic = isinstance(model, LogisticRegression) or getattr(model, "loss", None) == "log_loss"
    intercept = float(np.ravel(model.intercept_)[0]) if np.size(model.intercept_) else 0.0
    return Read(type(model).__name__, "logistic" if logistic else "identity", coef=coef[0].astype(np.float64), intercept=intercept)
