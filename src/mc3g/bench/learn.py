"""Train-and-score runs for FOLD-SE and its baselines, shared by ``mc3g learn`` and the benchmark."""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.metrics import accuracy_score, precision_score, recall_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder
from sklearn.tree import DecisionTreeClassifier

from ..datasets import Dataset
from ..foldse import FoldSE
from ..rules import RuleSet


@dataclass(frozen=True)
class LearnResult:
    """How one learner did on one data set.  ``precision`` and ``recall`` are for the class the
    rules describe (macro averages over the classes of a multi-class problem)."""

    dataset: str
    split: str
    learner: str
    target: str | None
    n_train: int
    n_test: int
    accuracy: float
    precision: float
    recall: float
    n_rules: int
    n_exceptions: int
    n_literals: int
    train_seconds: float
    program: str
    peak_mib: float | None = None
    rules: RuleSet | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """The figures as plain JSON values (the rule set as its own JSON form)."""
        data = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "rules"}
        if self.rules is not None:
            data["rules"] = self.rules.to_dict()
        return data


def target_class(ds: Dataset) -> str | None:
    """The class the rules describe: the unfavourable one of a binary data set."""
    return ds.schema.unfavourable if len(ds.schema.classes) == 2 else None


def foldse_for(ds: Dataset, **params: Any) -> FoldSE:
    return FoldSE(target=target_class(ds), numeric=ds.schema.numeric, **params)


def _scores(ds: Dataset, predicted: np.ndarray) -> tuple[float, float, float]:
    truth = ds.y_test.astype(str).to_numpy()
    predicted = predicted.astype(str)
    target = target_class(ds)
    kwargs: dict[str, Any] = {"pos_label": target} if target is not None else {"average": "macro"}
    return (
        float(accuracy_score(truth, predicted)),
        float(precision_score(truth, predicted, zero_division=0, **kwargs)),
        float(recall_score(truth, predicted, zero_division=0, **kwargs)),
    )


def timed_fit(fit: Callable[[], Any], repeat: int = 1) -> tuple[Any, float]:
    """The fitted model and the best wall-clock time of ``repeat`` fits."""
    best = np.inf
    model = None
    for _ in range(max(1, repeat)):
        start = time.perf_counter()
        model = fit()
        best = min(best, time.perf_counter() - start)
    return model, float(best)


def peak_memory_mib(fit: Callable[[], Any]) -> float:
    """Peak memory allocated during one fit (Python and numpy allocations, via tracemalloc)."""
    tracemalloc.start()
    try:
        fit()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def run_foldse(ds: Dataset, learner: str = "FOLD-SE", repeat: int = 1, memory: bool = False, **params: Any) -> LearnResult:
    def fit() -> FoldSE:
        return foldse_for(ds, **params).fit(ds.X_train, ds.y_train)

    model, seconds = timed_fit(fit, repeat)
    rules = model.rules_
    return LearnResult(
        ds.name,
        ds.split,
        learner,
        target_class(ds),
        len(ds.train),
        len(ds.test),
        *_scores(ds, model.predict(ds.X_test)),
        rules.n_rules,
        rules.n_exceptions,
        rules.n_literals,
        seconds,
        rules.to_asp(),
        peak_memory_mib(fit) if memory else None,
        rules,
    )


def _tree(ds: Dataset, depth: int) -> Any:
    encode = ColumnTransformer(
        [("categories", OneHotEncoder(handle_unknown="ignore"), ds.schema.categorical)],
        remainder="passthrough",
    )
    return make_pipeline(encode, DecisionTreeClassifier(max_depth=depth, random_state=0))


def _numeric_frame(ds: Dataset, X: pd.DataFrame) -> pd.DataFrame:
    """Numeric columns with non-numbers replaced by -1, so a tree can read them."""
    out = X.copy()
    for c in ds.schema.numeric:
        out[c] = pd.to_numeric(out[c], errors="coerce").fillna(-1.0)
    for c in ds.schema.categorical:
        out[c] = out[c].astype(str)
    return out


def _tree_size(model: Any, target: str | None) -> tuple[int, int]:
    """Leaves that predict the target class, and the conditions on their paths."""
    tree = model[-1].tree_
    classes = [str(c) for c in model[-1].classes_]
    leaves = literals = 0
    stack = [(0, 0)]
    while stack:
        node, depth = stack.pop()
        left, right = tree.children_left[node], tree.children_right[node]
        if left < 0:
            label = classes[int(np.argmax(tree.value[node][0]))]
            if target is None or label == target:
                leaves += 1
                literals += depth
            continue
        stack += [(left, depth + 1), (right, depth + 1)]
    return leaves, literals


def run_tree(ds: Dataset, accuracy_to_match: float, repeat: int = 1, memory: bool = False, max_depth: int = 16) -> LearnResult:
    """A decision tree at the smallest depth that matches ``accuracy_to_match`` on the test set
    (the most accurate depth when none does)."""
    X_train, X_test = _numeric_frame(ds, ds.X_train), _numeric_frame(ds, ds.X_test)
    y_train = ds.y_train.astype(str)
    best: tuple[float, int] | None = None
    chosen = max_depth
    for depth in range(1, max_depth + 1):
        acc = float(accuracy_score(ds.y_test.astype(str), _tree(ds, depth).fit(X_train, y_train).predict(X_test)))
        if best is None or acc > best[0] + 1e-12:
            best = (acc, depth)
        if acc >= accuracy_to_match - 1e-9:
            chosen = depth
            break
    else:
        chosen = best[1]  # type: ignore[index]

    def fit() -> Any:
        return _tree(ds, chosen).fit(X_train, y_train)

    model, seconds = timed_fit(fit, repeat)
    leaves, literals = _tree_size(model, target_class(ds))
    return LearnResult(
        ds.name,
        ds.split,
        f"DecisionTree(depth={chosen})",
        target_class(ds),
        len(ds.train),
        len(ds.test),
        *_scores(ds, model.predict(X_test)),
        leaves,
        0,
        literals,
        seconds,
        "",
        peak_memory_mib(fit) if memory else None,
    )


def replicate(ds: Dataset, times: int) -> Dataset:
    """The training set stacked ``times`` times (same rules, ``times`` x the rows): a scaling test."""
    train = pd.concat([ds.train] * times, ignore_index=True)
    return Dataset(f"{ds.name} x{times}", ds.split, train, ds.test, ds.schema)


BENCH_SETS = (("adult", "paper"), ("german", "paper"), ("cars", "paper"), ("loan", "default"))


def learn_benchmark(
    repeat: int = 3,
    memory: bool = True,
    replicas: int = 4,
    foldrpp: bool = True,
    on_result: Callable[[LearnResult], None] | None = None,
) -> list[LearnResult]:
    """FOLD-SE, FOLD-R++ mode (information gain, no tail) and a decision tree of comparable
    accuracy on the paper's splits, the loan example and adult's training set replicated."""
    from ..datasets import load

    sets = [load(name, split=split) for name, split in BENCH_SETS]
    if replicas > 1:
        sets.append(replicate(sets[0], replicas))
    results: list[LearnResult] = []

    def keep(result: LearnResult) -> None:
        results.append(result)
        if on_result is not None:
            on_result(result)

    for ds in sets:
        fold = run_foldse(ds, repeat=repeat, memory=memory)
        keep(fold)
        if foldrpp:
            keep(run_foldse(ds, "FOLD-R++ mode", repeat=1, memory=False, heuristic="ig", tail=0.0))
        keep(run_tree(ds, fold.accuracy, repeat=repeat, memory=memory))
    return results
