"""The estimators whose decision can be read, each read into trees or weights over the columns it
takes in, with the score it decides by.

Every estimator here scores a row toward its second class (``classes_[1]``): a forest by the sum
of its trees' probabilities of that class (``mean`` link: the probability is that sum over the
trees), a booster by its raw score (``logistic``: the probability is the logistic of it), a
linear classifier by its decision function (``logistic`` where its probability is the logistic
of that, else ``identity``).  Trees test one input column each node, ``column <= threshold`` (or
``<`` for xgboost, whose inputs and thresholds are float32, as are scikit-learn trees' inputs).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from .opaque import Opaque

SINGLE_EPSILON, DOUBLE_EPSILON = 2.0**-23, 2.0**-52


@dataclass(frozen=True, eq=False)
class InputTrees:
    """Trees over the estimator's input columns, node by node: the column tested (-1 at a leaf),
    its threshold, the children when the test holds (``yes``) and not (``no``), the leaves'
    values toward the second class; ``strict``: ``<`` rather than ``<=``; ``single``: the
    column is cast to float32 first; ``epsilon``: the precision the model sums its leaves in."""

    column: np.ndarray
    threshold: np.ndarray
    yes: np.ndarray
    no: np.ndarray
    value: np.ndarray
    roots: np.ndarray
    strict: bool = False
    single: bool = True
    epsilon: float = DOUBLE_EPSILON

    def scores(self, Z: np.ndarray) -> np.ndarray:
        """The sum of the leaves each row of the input matrix ``Z`` reaches (no bias)."""
        node = np.tile(self.roots, (len(Z), 1))
        while True:
            row, tree = np.nonzero(self.column[node] >= 0)
            if not len(row):
                return self.value[node].sum(axis=1)
            nodes = node[row, tree]
            seen = Z[row, self.column[nodes]]
            seen = seen.astype(np.float32).astype(np.float64) if self.single else seen
            holds = seen < self.threshold[nodes] if self.strict else seen <= self.threshold[nodes]
            node[row, tree] = np.where(holds, self.yes[nodes], self.no[nodes])


@dataclass(frozen=True, eq=False)
class Read:
    """An estimator read: its trees or its weights (``coef``, ``intercept``) over its input
    columns, how its probability follows from its score (``link``: ``mean``, ``logistic`` or
    ``identity``), how many trees a ``mean`` averages, and ``raw``: its own score of an input
    matrix, to find and check a booster's bias."""

    kind: str
    link: str
    trees: InputTrees | None = None
    coef: np.ndarray | None = None
    intercept: float = 0.0
    count: int = 1
    raw: Any = None


def read_estimator(estimator: Any) -> Read:
    """The estimator read (:class:`Read`), or :class:`Opaque` with the reason it cannot be."""
    kind = type(estimator).__name__
    module = type(estimator).__module__.split(".")[0]
    readers = {
        "DecisionTreeClassifier": _forest, "RandomForestClassifier": _forest, "ExtraTreesClassifier": _forest,
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


def _stacked(parts: list[tuple[np.ndarray, ...]], **flags: Any) -> InputTrees:
    """Trees given one by one (column, threshold, yes, no, value; children by their place in
    their own tree) in one set of arrays."""
    offsets = np.cumsum([0] + [len(p[0]) for p in parts[:-1]])
    column, threshold, yes, no, value = (np.concatenate([p[i] for p in parts]) for i in range(5))
    shift = np.concatenate([np.full(len(p[0]), o) for p, o in zip(parts, offsets)])
    inner = column >= 0
    yes, no = np.where(inner, yes + shift, -1), np.where(inner, no + shift, -1)
    return InputTrees(column.astype(np.int64), threshold, yes.astype(np.int64), no.astype(np.int64), value, offsets.astype(np.int64), **flags)


def _forest(model: Any) -> Read:
    _binary(model)
    trees = getattr(model, "estimators_", [model])
    parts = []
    for tree in trees:
        counts = tree.tree_.value[:, 0, :]
        parts.append(_sklearn_tree(tree, counts[:, 1] / counts.sum(axis=1)))
    return Read(type(model).__name__, "mean", _stacked(parts), count=len(trees))


def _gradient_boosting(model: Any) -> Read:
    _binary(model)
    if model.loss != "log_loss":
        raise Opaque(f"the GradientBoostingClassifier's loss is {model.loss!r}; mc3g reads log_loss")
    parts = [_sklearn_tree(tree, model.learning_rate * tree.tree_.value[:, 0, 0]) for tree in model.estimators_[:, 0]]
    return Read("GradientBoostingClassifier", "logistic", _stacked(parts), raw=model.decision_function)


def _histogram_boosting(model: Any) -> Read:
    _binary(model)
    parts = []
    for (predictor,) in model._predictors:
        nodes = predictor.nodes
        if np.any(nodes["is_categorical"]):
            raise Opaque("the HistGradientBoostingClassifier splits categories natively; mc3g reads its numeric splits")
        leaf = nodes["is_leaf"].astype(bool)
        column = np.where(leaf, -1, nodes["feature_idx"]).astype(np.int64)
        parts.append((column, nodes["num_threshold"].astype(np.float64), nodes["left"], nodes["right"], np.where(leaf, nodes["value"], 0.0)))
    return Read("HistGradientBoostingClassifier", "logistic", _stacked(parts, single=False), raw=model.decision_function)


def _xgboost(model: Any) -> Read:
    booster = model.get_booster() if hasattr(model, "get_booster") else model
    _binary(model)
    learner = json.loads(bytes(booster.save_raw("json")))["learner"]
    objective, trees = learner["objective"]["name"], learner["gradient_booster"]
    if trees["name"] != "gbtree" or objective not in ("binary:logistic", "binary:logitraw"):
        raise Opaque(f"mc3g reads XGBoost's gbtree with binary:logistic, not {trees['name']} with {objective}")
    parts = []
    for tree in trees["model"]["trees"]:
        if any(tree["split_type"]):
            raise Opaque("the XGBoost model splits categories natively; mc3g reads its numeric splits")
        left, right = np.array(tree["left_children"]), np.array(tree["right_children"])
        cond = np.array(tree["split_conditions"], dtype=np.float32).astype(np.float64)
        leaf = left < 0
        parts.append((np.where(leaf, -1, tree["split_indices"]), cond, left, right, np.where(leaf, cond, 0.0)))
    import xgboost

    def raw(Z: np.ndarray) -> np.ndarray:
        return booster.predict(xgboost.DMatrix(Z, feature_names=booster.feature_names), output_margin=True)

    return Read("XGBoost", "logistic", _stacked(parts, strict=True, epsilon=SINGLE_EPSILON), raw=raw)


def _lightgbm(model: Any) -> Read:
    booster = model.booster_ if hasattr(model, "booster_") else model
    _binary(model)
    dump = booster.dump_model()
    if dump["objective"].split()[0] != "binary" or dump["num_tree_per_iteration"] != 1:
        raise Opaque(f"mc3g reads LightGBM's binary objective, not {dump['objective']!r}")
    parts = [_lightgbm_tree(info["tree_structure"]) for info in dump["tree_info"]]
    return Read("LightGBM", "logistic", _stacked(parts, single=False), raw=lambda Z: booster.predict(Z, raw_score=True))


def _lightgbm_tree(root: dict[str, Any]) -> tuple[np.ndarray, ...]:
    """One of LightGBM's nested trees in arrays, its nodes numbered in the order met."""
    rows: list[list[Any]] = []  # column, threshold, yes, no, value
    stack: list[tuple[dict[str, Any], int, int]] = [(root, -1, 2)]
    while stack:
        node, parent, branch = stack.pop()
        if parent >= 0:
            rows[parent][branch] = len(rows)
        if "leaf_value" in node:
            rows.append([-1, 0.0, -1, -1, float(node["leaf_value"])])
            continue
        if node["decision_type"] != "<=" or node["missing_type"] == "Zero":
            raise Opaque("the LightGBM model splits categories natively or takes zero as missing; mc3g reads its numeric splits")
        stack += [(node["right_child"], len(rows), 3), (node["left_child"], len(rows), 2)]
        rows.append([int(node["split_feature"]), float(node["threshold"]), -1, -1, 0.0])
    return tuple(np.array(column) for column in zip(*rows))


def _linear(estimator: Any) -> bool:
    from sklearn.linear_model._base import LinearClassifierMixin

    return isinstance(estimator, LinearClassifierMixin) and np.ndim(getattr(estimator, "coef_", None)) == 2


def _linear_classifier(model: Any) -> Read:
    _binary(model)
    if model.coef_.shape[0] != 1:
        raise Opaque(f"the {type(model).__name__} has {model.coef_.shape[0]} rows of weights; mc3g reads one")
    logistic = type(model).__name__ == "LogisticRegression" or getattr(model, "loss", None) == "log_loss"
    intercept = float(np.ravel(model.intercept_)[0]) if np.size(model.intercept_) else 0.0
    return Read(type(model).__name__, "logistic" if logistic else "identity", coef=model.coef_[0].astype(np.float64), intercept=intercept)
