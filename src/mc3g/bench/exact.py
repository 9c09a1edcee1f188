"""A lender's own model searched as it is, against the search through rules that imitate it and
DiCE random (``mc3g bench exact``).

For each held-out black box of adult (the paper's split: a histogram gradient boosting of 90
iterations and 24 leaves, XGBoost of 200 trees of depth 4, a logistic regression, a random forest
of 80 trees of depth 12, extremely randomised trees of 100 trees and 5 rows a leaf, none of them
tuned for mc3g), fitted on the training split behind one-hot categories and scaled numbers, the
first ``rows`` refused test rows are explained three ways with K options, interleaved row by row:
MC3G with the model's decision read exactly (``read_model="auto"``), MC3G through its surrogate
(``read_model="never"``, the search before), and DiCE random.  The exact search's answers are
the least-cost options the model itself accepts, so the surrogate's first option is never
cheaper (a row where it is would be an error, and stops the run); the table counts the rows
where it is dearer, its "no option" where the model has one, and the exact search's proofs of
none.  Time is the search's own (the run record's, the model's calls left out) and each query's
whole, DiCE's included, with the model's calls per query.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd
from sklearn.ensemble import AdaBoostClassifier, ExtraTreesClassifier, HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.neural_network import MLPClassifier
from sklearn.tree import DecisionTreeClassifier

from ..datasets import load
from ..explain import MC3G, Recourse
from ..methods import explainer
from ..profiles import Profile
from ..reference import encoded, knowledge
from .blackbox import Counted

HELD_OUT = ("hgb", "xgb", "lr", "rf", "et")
EPSILON = 1e-9


def held_out(kind: str) -> Any:
    """A held-out classifier of the issue that asked for this benchmark (issue 48), or an MLP
    (``mlp``), which mc3g cannot read: for ``mc3g bench models``, what a model searched through
    imitating rules leaves unproved."""
    if kind == "xgb":
        from xgboost import XGBClassifier  # the bench extra

        return XGBClassifier(n_estimators=200, max_depth=4, n_jobs=1, random_state=0)
    return {
        "hgb": lambda: HistGradientBoostingClassifier(max_iter=90, max_leaf_nodes=24, random_state=0),
        "lr": lambda: LogisticRegression(max_iter=1000),
        "rf": lambda: RandomForestClassifier(n_estimators=80, max_depth=12, random_state=0, n_jobs=1),
        "et": lambda: ExtraTreesClassifier(n_estimators=100, min_samples_leaf=5, random_state=0, n_jobs=1),
        "ada": lambda: AdaBoostClassifier(DecisionTreeClassifier(max_depth=3), n_estimators=100, random_state=0),  # the enumeration's
        "mlp": lambda: MLPClassifier((16,), max_iter=1000, random_state=0),
    }[kind]()


NATIVE = ("hgb-cat", "lgbm-cat", "xgb-cat")
"""Boosters that split the categories themselves, on their ordinal codes: a lender's histogram
boosting (as ``hgb``), LightGBM (as many trees and leaves) or XGBoost (as ``xgb``)."""


def fitted(kind: str, X: pd.DataFrame, labels: pd.Series, numeric: list[str]) -> tuple[Any, str]:
    """The black box fitted behind dense one-hot categories and scaled numbers (one of
    :data:`NATIVE`: behind ordinal codes it splits as categories), and its favourable label
    (XGBoost learns class numbers: 1 is ">50K")."""
    target, favourable = ((labels == ">50K").astype(int), "1") if kind.startswith("xgb") else (labels, ">50K")
    if kind in NATIVE:
        return _splitting_categories(kind, X, numeric, target), favourable
    if kind == "card":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a number mostly zero (capital gain) has quantile bins too narrow, which the discretizer drops
            return _scorecard(X, numeric).fit(X, target), favourable
    return encoded(held_out(kind), X, numeric).fit(X, target), favourable


def _scorecard(X: pd.DataFrame, numeric: list[str]) -> Any:
    """A lender's scorecard: a logistic regression over one-hot categories and each number's ten quantile bins."""
    from sklearn.preprocessing import KBinsDiscretizer

    return encoded(LogisticRegression(max_iter=1000), X, numeric, numbers=KBinsDiscretizer(n_bins=10, encode="onehot-dense", strategy="quantile"))


def _splitting_categories(kind: str, X: pd.DataFrame, numeric: list[str], target: pd.Series) -> Any:
    """One of :data:`NATIVE`, fitted behind an ordinal encoder of the categories, told their codes are categories."""
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OrdinalEncoder

    categories = [c for c in X.columns if c not in numeric]
    codes = list(range(len(categories)))  # the ordinal codes come first
    encode = ColumnTransformer(
        [("categories", OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1), categories), ("numbers", "passthrough", numeric)]
    )
    if kind == "hgb-cat":
        return make_pipeline(encode, HistGradientBoostingClassifier(max_iter=90, max_leaf_nodes=24, categorical_features=codes, random_state=0)).fit(X, target)
    if kind == "xgb-cat":
        types = ["c"] * len(categories) + ["q"] * len(numeric)
        return make_pipeline(encode, held_out("xgb").set_params(enable_categorical=True, feature_types=types)).fit(X, target)
    from lightgbm import LGBMClassifier  # the bench extra

    model = make_pipeline(encode, LGBMClassifier(n_estimators=90, num_leaves=24, n_jobs=1, random_state=0, verbose=-1))
    return model.fit(X, target, lgbmclassifier__categorical_feature=codes)


@dataclass(frozen=True)
class ExactRun:
    model: str
    reading: str  # what was read, or why not
    k: int
    rows: int
    exact_answered: int
    surrogate_answered: int
    dice_answered: int
    proved_none: int  # rows with no option, proved on the model read exactly
    false_none: int  # rows the surrogate's search leaves with none, where the model has an option
    dearer: int  # rows where the surrogate's first option costs more than the exact one
    worst_gap: float | None  # the most it costs more, as a share of the exact first option's cost
    exact_ms: float  # the exact search's own work per person, median (run record), in ms
    surrogate_ms: float
    exact_seconds: float  # per query, the model's calls and all, mean
    surrogate_seconds: float
    dice_seconds: float
    exact_calls: float  # the model's calls per query, mean
    surrogate_calls: float
    dice_calls: float
    ratio: float  # DiCE's seconds per query / the exact search's
    surrogate_ratio: float
    fit_seconds: float  # the exact explainer's fit, the reading included

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def exact_benchmark(kinds: tuple[str, ...] = HELD_OUT, rows: int = 30, k: int = 3, progress: Callable[[str], None] | None = None) -> list[ExactRun]:
    """One :class:`ExactRun` per held-out model, under the product profile, one thread per
    native thread pool (scikit-learn's threads spin on a busy 2-core machine)."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        return [_run(kind, rows, k, progress) for kind in kinds]


def _run(kind: str, n_rows: int, k: int, progress: Callable[[str], None] | None) -> ExactRun:
    ds = load("adult", split="paper")
    X, X_test = ds.train.drop(columns=[ds.schema.label]), ds.test.drop(columns=[ds.schema.label])
    numeric = [c for c in X.columns if c in ds.schema.numeric]
    model, favourable = fitted(kind, X, ds.train[ds.schema.label].astype(str), numeric)
    causal = knowledge(ds)
    start = time.perf_counter()
    exact = MC3G(model, causal, schema=ds.schema, k=k, desired_class=favourable, profile=Profile.PRODUCT).fit(X)
    fit_seconds = time.perf_counter() - start
    surrogate = MC3G(model, causal, schema=ds.schema, k=k, desired_class=favourable, profile=Profile.PRODUCT, read_model="never").fit(X)
    schema = causal.schema(ds.schema.under(Profile.PRODUCT))
    box = Counted(model)
    vary = [c for c in X.columns if not schema.feature(c).immutable]
    dice = explainer("dice", box, causal, k=k, method="random", timeout=60, continuous=numeric, features_to_vary=vary).fit(X)
    refused = X_test[model.predict(X_test).astype(str) != favourable].iloc[:n_rows]
    answers: dict[str, list[Recourse]] = {"exact": [], "surrogate": [], "dice": []}
    seconds: dict[str, list[float]] = {name: [] for name in answers}
    for i, (_, row) in enumerate(refused.iterrows()):
        if progress:
            progress(f"{kind}, K = {k}: row {i + 1} of {len(refused)}")
        for name, method in (("exact", exact), ("surrogate", surrogate), ("dice", dice)):
            start = time.perf_counter()
            answers[name].append(method.explain(row))
            seconds[name].append(time.perf_counter() - start)
    return _figures(kind, exact, answers, seconds, box.calls / max(len(refused), 1), k, fit_seconds)


Answers = dict[str, list[Recourse]]  # each method's answers, by name


def _figures(kind: str, exact: MC3G, answers: Answers, seconds: dict[str, list[float]], dice_calls: float, k: int, fit_seconds: float) -> ExactRun:
    gaps, false_none = [], 0
    for ours, theirs in zip(answers["exact"], answers["surrogate"]):
        if theirs.best is not None and (ours.best is None or theirs.best.cost < ours.best.cost - EPSILON):
            raise AssertionError(f"{kind}: the surrogate's search found a cheaper option than the model read exactly: {theirs.best.plan}")
        if ours.best is not None and theirs.best is None:
            false_none += 1
        if ours.best is not None and theirs.best is not None:
            gaps.append((theirs.best.cost - ours.best.cost) / ours.best.cost if ours.best.cost > 0 else 0.0)
    mean = {name: float(np.mean(times)) if times else math.nan for name, times in seconds.items()}
    first = answers["exact"][0].run if answers["exact"] else None
    return ExactRun(
        kind, first.reading if first is not None and first.reading else "", k, len(answers["exact"]),
        *(sum(bool(a.counterfactuals) for a in answers[name]) for name in ("exact", "surrogate", "dice")),
        sum(a.status == "no_counterfactual" and a.run.guarantee == "exact" for a in answers["exact"]), false_none,
        sum(g > EPSILON for g in gaps), max(gaps, default=None),
        _median_ms(answers["exact"]), _median_ms(answers["surrogate"]), mean["exact"], mean["surrogate"], mean["dice"],
        _calls(answers["exact"]), _calls(answers["surrogate"]), dice_calls,
        mean["dice"] / mean["exact"], mean["dice"] / mean["surrogate"], fit_seconds,
    )  # fmt: skip


def _median_ms(answers: list[Recourse]) -> float:
    return 1000 * float(np.median([a.run.search_seconds or 0.0 for a in answers])) if answers else math.nan


def _calls(answers: list[Recourse]) -> float:
    return float(np.mean([a.run.model_rounds or 0 for a in answers])) if answers else math.nan


@dataclass(frozen=True)
class ReadingRun:
    trees: int
    depth: int | None
    nodes: int  # the forest's nodes, as scikit-learn counts them
    reading: str  # what was read, or why not
    fit_seconds: float  # the explainer's fit, the reading and its check included
    own_ms: float  # the search's own work per person, median
    most_ms: float  # and the most
    answered: int
    proved_none: int
    rows: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def reading_benchmark(sizes: list[tuple[int, int | None]], rows: int = 5, k: int = 1, progress: Callable[[str], None] | None = None) -> list[ReadingRun]:
    """Where reading stops: random forests of adult of growing size (trees, depth), each read
    and searched exactly on the same first ``rows`` refused test rows, or, past
    :data:`~mc3g.explain.readable.READ_LIMIT` nodes, searched through its surrogate (and saying so)."""
    from threadpoolctl import threadpool_limits

    ds = load("adult", split="paper")
    X, X_test = ds.train.drop(columns=[ds.schema.label]), ds.test.drop(columns=[ds.schema.label])
    numeric = [c for c in X.columns if c in ds.schema.numeric]
    out = []
    with threadpool_limits(limits=1):
        for trees, depth in sizes:
            if progress:
                progress(f"a forest of {trees} trees of depth {depth or 'any'}")
            forest = RandomForestClassifier(n_estimators=trees, max_depth=depth, random_state=0, n_jobs=1)
            model = encoded(forest, X, numeric).fit(X, ds.train[ds.schema.label].astype(str))
            start = time.perf_counter()
            explainer = MC3G(model, knowledge(ds), schema=ds.schema, k=k, desired_class=">50K", profile=Profile.PRODUCT).fit(X)
            fit_seconds = time.perf_counter() - start
            answers = [explainer.explain(row) for _, row in X_test[model.predict(X_test) != ">50K"].iloc[:rows].iterrows()]
            own = [1000 * (a.run.search_seconds or 0.0) for a in answers]
            nodes = sum(e.tree_.node_count for e in forest.estimators_)
            proved = sum(a.status == "no_counterfactual" and a.run.guarantee == "exact" for a in answers)
            answered = sum(bool(a.counterfactuals) for a in answers)
            read = answers[0].run.reading or ""
            out.append(ReadingRun(trees, depth, nodes, read, fit_seconds, float(np.median(own)), max(own), answered, proved, len(answers)))
    return out
