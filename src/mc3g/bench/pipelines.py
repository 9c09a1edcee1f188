"""Which of a lender's models mc3g reads exactly (``mc3g bench pipelines``).

A catalogue of the pipelines a lender builds with scikit-learn, XGBoost and LightGBM on adult:
their encoders (one-hot dense or sparse, ordinal, target, with imputers and any scaler), feature
selections, a scorecard's bins, the estimators, and what is wrapped around them (a lender's
threshold, a calibration, a search of settings), with a few that cannot be read (an MLP, a
kernel SVM, nearest neighbours, a nonlinear transform before a linear score, an average of
calibrations, a vote).  Each is fitted on the first training rows, explained by MC3G under the
product profile (``read_model="auto"``), and its first refused test rows are explained: whether
it was read exactly (what was read, or why not), the people answered and those whose "no
option" is proved, and the search's own work.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from sklearn import ensemble
from sklearn.calibration import CalibratedClassifierCV
from sklearn.compose import ColumnTransformer
from sklearn.feature_selection import SelectKBest, VarianceThreshold
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression, LogisticRegressionCV, Perceptron, RidgeClassifier, SGDClassifier
from sklearn.model_selection import FixedThresholdClassifier, GridSearchCV, TunedThresholdClassifierCV
from sklearn.neighbors import KNeighborsClassifier
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import KBinsDiscretizer, OneHotEncoder, OrdinalEncoder, QuantileTransformer, RobustScaler, StandardScaler, TargetEncoder
from sklearn.svm import SVC, LinearSVC
from sklearn.tree import DecisionTreeClassifier

from ..datasets import load
from ..explain import MC3G
from ..profiles import Profile
from ..reference import knowledge

Build = Callable[[list[str], list[str]], Any]  # the unfitted model from the numbers' and the categories' columns
Catalogue = dict[str, tuple[str, Build]]  # each pipeline's name, what it is, and how it is built


def _behind(estimator: Any, numbers: Any = None, categories: Any = None, *selected: Any) -> Build:
    """``estimator`` behind the numbers scaled (or ``numbers``) and the categories one-hot, sparse
    (or ``categories``), then the ``selected`` steps."""

    def build(numeric: list[str], categorical: list[str]) -> Any:
        numbers_step = StandardScaler() if numbers is None else numbers
        categories_step = OneHotEncoder(handle_unknown="ignore") if categories is None else categories
        encode = ColumnTransformer([("numbers", numbers_step, numeric), ("categories", categories_step, categorical)])
        return make_pipeline(encode, *selected, estimator)

    return build


def _around(wrap: Callable[[Any], Any], inner: Build) -> Build:
    return lambda numeric, categorical: wrap(inner(numeric, categorical))


def _dense() -> OneHotEncoder:
    return OneHotEncoder(handle_unknown="ignore", sparse_output=False)


def _codes() -> OrdinalEncoder:
    return OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1)


def _linear() -> Catalogue:
    """Linear scores, their encoders and what is wrapped around them."""
    lr = LogisticRegression(max_iter=1000)
    imputed = make_pipeline(SimpleImputer(), StandardScaler()), make_pipeline(SimpleImputer(strategy="most_frequent"), OneHotEncoder(handle_unknown="ignore"))
    lr_cv = LogisticRegressionCV(l1_ratios=(0.0,), scoring="neg_log_loss", use_legacy_attributes=False)
    return {
        "lr": ("logistic regression, one-hot (sparse) and scaled", _behind(lr)),
        "lr-imputed": ("the same, imputers before the encoder and the scaler", _behind(lr, *imputed)),
        "lr-robust": ("the same, numbers robustly scaled", _behind(lr, RobustScaler())),
        "lr-ordinal": ("the same, categories' ordinal codes", _behind(lr, None, _codes())),
        "lr-target": ("the same, categories target-encoded", _behind(lr, None, TargetEncoder())),
        "lr-kbest": ("the same, the 40 best columns kept", _behind(lr, None, None, SelectKBest(k=40))),
        "lr-cv": ("a cross-validated logistic regression", _behind(lr_cv)),
        "lr-threshold": ("behind a lender's threshold of 0.35", _around(lambda m: FixedThresholdClassifier(m, threshold=0.35), _behind(lr))),
        "lr-tuned": ("behind a tuned threshold", _around(lambda m: TunedThresholdClassifierCV(m, cv=3), _behind(lr))),
        "lr-grid": ("a search of its settings", _around(lambda m: GridSearchCV(m, {"logisticregression__C": [0.1, 1.0]}, cv=3), _behind(lr))),
        "lr-calibrated": ("calibrated by one isotonic fit", _around(lambda m: CalibratedClassifierCV(m, method="isotonic", ensemble=False, cv=3), _behind(lr))),
        "lr-calibrated-3": ("calibrated by three, averaged (the default)", _around(lambda m: CalibratedClassifierCV(m, cv=3), _behind(lr))),
        "scorecard": ("a scorecard: ten quantile bins of each number", _behind(lr, KBinsDiscretizer(n_bins=10, encode="onehot-dense"), _dense())),
        "sgd": ("a linear SVM by stochastic gradient", _behind(SGDClassifier(random_state=0))),
        "linear-svm": ("a linear SVM", _behind(LinearSVC())),
        "ridge": ("a ridge classifier", _behind(RidgeClassifier())),
        "perceptron": ("a perceptron", _behind(Perceptron(random_state=0))),
        "lr-quantile": ("a logistic regression over quantile-transformed numbers", _behind(lr, QuantileTransformer())),
    }  # fmt: skip


def _trees() -> Catalogue:
    """Trees and their ensembles, the boosters of XGBoost and LightGBM among them (the bench extra)."""
    import lightgbm
    import xgboost

    tree = DecisionTreeClassifier(max_depth=8, random_state=0)
    forest = ensemble.RandomForestClassifier(n_estimators=60, max_depth=10, random_state=0)
    hgb = ensemble.HistGradientBoostingClassifier(max_iter=60, random_state=0)
    xgb = xgboost.XGBClassifier(n_estimators=100, max_depth=4, n_jobs=1, random_state=0)
    lgbm = lightgbm.LGBMClassifier(n_estimators=60, n_jobs=1, random_state=0, verbose=-1)

    def codes_split(numeric: list[str], categorical: list[str]) -> Any:
        coded = list(range(len(numeric), len(numeric) + len(categorical)))  # the codes come after the numbers
        encode = ColumnTransformer([("numbers", "passthrough", numeric), ("categories", _codes(), categorical)])
        return make_pipeline(encode, ensemble.HistGradientBoostingClassifier(max_iter=60, categorical_features=coded, random_state=0))

    return {
        "tree": ("a decision tree", _behind(tree)),
        "tree-bins": ("a decision tree over one-hot bins of the numbers", _behind(tree, KBinsDiscretizer(n_bins=8, encode="onehot-dense"), _dense())),
        "forest": ("a random forest, the numbers passed through", _behind(forest, "passthrough")),
        "extra-trees": ("extremely randomised trees", _behind(ensemble.ExtraTreesClassifier(n_estimators=60, min_samples_leaf=5, random_state=0))),
        "bagging": ("bagged trees", _behind(ensemble.BaggingClassifier(DecisionTreeClassifier(max_depth=6), n_estimators=20, random_state=0))),
        "adaboost": ("AdaBoost of depth-3 trees", _behind(ensemble.AdaBoostClassifier(DecisionTreeClassifier(max_depth=3), n_estimators=60, random_state=0))),
        "boosting": ("gradient boosting", _behind(ensemble.GradientBoostingClassifier(n_estimators=60, random_state=0))),
        "hgb": ("histogram boosting, one-hot (dense)", _behind(hgb, None, _dense())),
        "hgb-codes": ("histogram boosting splitting the categories' codes itself", codes_split),
        "hgb-threshold": ("the same, a threshold of 0.4", _around(lambda m: FixedThresholdClassifier(m, threshold=0.4), _behind(hgb, None, _dense()))),
        "hgb-selected": ("histogram boosting, constant columns dropped", _behind(hgb, None, _dense(), VarianceThreshold(0.001))),
        "xgb": ("XGBoost, one-hot (sparse): its zeros read as missing", _behind(xgb, "passthrough")),
        "xgb-dense": ("XGBoost, one-hot (dense) and scaled", _behind(xgb, None, _dense())),
        "lgbm": ("LightGBM, one-hot (sparse)", _behind(lgbm, "passthrough")),
    }  # fmt: skip


def _opaque() -> Catalogue:
    """Models mc3g does not read."""
    vote = ensemble.VotingClassifier([("lr", LogisticRegression(max_iter=1000)), ("tree", DecisionTreeClassifier(max_depth=5))], voting="soft")
    return {
        "mlp": ("an MLP", _behind(MLPClassifier((16,), max_iter=300, random_state=0))),
        "svm": ("an RBF SVM", _behind(SVC(random_state=0))),
        "knn": ("15 nearest neighbours", _behind(KNeighborsClassifier(15))),
        "vote": ("a soft vote of a logistic regression and a tree", _behind(vote)),
    }


NAMES = ("lr", "lr-imputed", "lr-robust", "lr-ordinal", "lr-target", "lr-kbest", "lr-cv", "lr-threshold", "lr-tuned", "lr-grid", "lr-calibrated",
         "lr-calibrated-3", "scorecard", "sgd", "linear-svm", "ridge", "perceptron", "lr-quantile", "tree", "tree-bins", "forest", "extra-trees",
         "bagging", "adaboost", "boosting", "hgb", "hgb-codes", "hgb-threshold", "hgb-selected", "xgb", "xgb-dense", "lgbm", "mlp", "svm", "knn",
         "vote")  # fmt: skip
"""The catalogue's pipelines, in the table's order."""


@dataclass(frozen=True)
class PipelineRun:
    name: str
    what: str
    exact: bool  # read exactly
    reading: str  # what was read, or why not
    fit_seconds: float  # the model's MC3G fit (the reading and its check, or the surrogate)
    refused: int  # of the first test rows explained
    answered: int
    proved_none: int  # a "no option" proved on the model read exactly
    own_ms: float  # the search's own work per person, median

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def pipelines_benchmark(names: tuple[str, ...] = NAMES, train: int = 4000, rows: int = 10, progress: Callable[[str], None] | None = None) -> list[PipelineRun]:
    """Each named pipeline fitted on the first ``train`` adult training rows and explained on its
    first ``rows`` refused test rows (K = 1, product profile)."""
    from threadpoolctl import threadpool_limits

    catalogue = {**_linear(), **_trees(), **_opaque()}
    unknown = [name for name in names if name not in catalogue]
    if unknown:
        raise ValueError(f"no pipeline {unknown[0]!r}; the catalogue's are {', '.join(NAMES)}")
    ds = load("adult", split="paper")
    X, X_test = ds.train.drop(columns=[ds.schema.label]).iloc[:train], ds.test.drop(columns=[ds.schema.label])
    numeric = [c for c in X.columns if c in ds.schema.numeric]
    categorical = [c for c in X.columns if c not in numeric]
    out = []
    with threadpool_limits(limits=1), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence and the like: the lender's model as they fit it
        for name in names:
            if progress:
                progress(name)
            what, build = catalogue[name]
            boosted = name.startswith(("xgb", "lgbm"))  # they learn class numbers: 1 is ">50K"
            labels = ds.train[ds.schema.label].iloc[:train]
            model = build(numeric, categorical).fit(X, (labels == ">50K").astype(int) if boosted else labels)
            favourable = "1" if boosted else ">50K"
            start = time.perf_counter()
            explainer = MC3G(model, knowledge(ds), schema=ds.schema, k=1, desired_class=favourable, profile=Profile.PRODUCT).fit(X)
            fit_seconds = time.perf_counter() - start
            asked = X_test.iloc[: 20 * rows]
            refused = asked[explainer.refuses(asked)].iloc[:rows]
            answers = [explainer.explain(row) for _, row in refused.iterrows()]
            answered = sum(bool(a.counterfactuals) for a in answers)
            proved = sum(a.status == "no_counterfactual" and a.run.guarantee == "exact" for a in answers)
            own = float(np.median([1000 * (a.run.search_seconds or 0.0) for a in answers])) if answers else float("nan")
            exact = explainer.engine_.glass is not None
            reading = (answers[0].run.reading or "") if answers else ""
            out.append(PipelineRun(name, what, exact, reading, fit_seconds, len(answers), answered, proved, own))
    return out
