"""The black-box search against every state of a small domain (``mc3g bench oracle``, issue 51).

A black box's search is exact only for what it reads: the states its rules let through and the
rows the model judged (docs/semantics.md).  On a domain small enough to enumerate, the model
judges every state, each accepted state the knowledge allows is priced as mc3g prices it
(:meth:`~mc3g.engine.Engine.open`: every changeable feature in play, no decision rule), and each
answer is set against the domain's own K least-cost options (distinct action sets under the
``product`` profile, the default).  Counted per model and K: first answers that are the domain's
least (or a true "no option"), later options no dearer than the domain's at their place, people
given fewer options than the domain holds, and false "no option" (the domain's options, as the
answers', none unlike every past applicant under ``product``); an answer cheaper than the
domain's least, or one the model refuses, is an error and stops the run.

Two domains, each with causal knowledge: three features (two numbers and a category, 693
states; choosing category ``a`` lifts ``y`` to 6 at least), and six (three numbers, three
categories, 79,092 states; ``region`` immutable, ``score`` only raised).  The models, fitted on
500 rows behind one-hot categories and scaled numbers and searched as black boxes
(``read_model="never"``): an MLP, an RBF SVM, nearest neighbours, a random forest, gradient
boosting and a logistic regression; on six features also issue 51's box, a hand-written rule
of bands that rules of one feature at a time cut badly.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.compose import make_column_transformer
from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import KNeighborsClassifier
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from sklearn.svm import SVC

from ..causal import CausalModel, CausalRule
from ..explain import MC3G, Recourse
from ..rules import Literal
from ..search import ActionSets

EPSILON = 1e-9
Domain = Mapping[str, Sequence[Any]]


def _three_truth(frame: pd.DataFrame) -> np.ndarray:
    """A diagonal boundary, which rules of one feature at a time cut into steps."""
    return np.where(frame["x"] + 2 * frame["y"] + 6 * (frame["c"] == "b") >= 28, "yes", "no")


def _six_truth(frame: pd.DataFrame) -> np.ndarray:
    score = frame["income"] + frame["savings"] + 2 * frame["score"] + 4 * (frame["job"] == "full") - 3 * (frame["debt"] == "high")
    return np.where(score >= 34, "yes", "no")


class Box(ClassifierMixin, BaseEstimator):
    """Issue 51's box: income 8 to 10 with savings 7 to 9, self-employed and no high debt; or
    income and savings both at their top; or a score and income high enough together."""

    def fit(self, X: pd.DataFrame, y: Any = None) -> Box:
        self.classes_ = np.array(["no", "yes"])
        return self

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        band = X["income"].between(8, 10) & X["savings"].between(7, 9) & (X["job"] == "self") & (X["debt"] != "high")
        return np.where(band | ((X["income"] == 12) & (X["savings"] == 12)) | (X["score"] + X["income"] >= 20), "yes", "no")


@dataclass(frozen=True)
class Case:
    """A small domain: its values, the labels that train the models, and its causal knowledge."""

    domain: dict[str, Sequence[Any]]
    truth: Callable[[pd.DataFrame], np.ndarray]
    knowledge: CausalModel
    seed: int

    def train(self, rows: int = 500) -> pd.DataFrame:
        rng = np.random.default_rng(self.seed)
        return pd.DataFrame({n: rng.choice(np.array(list(v), dtype=object if isinstance(v, tuple) else None), rows) for n, v in self.domain.items()})

    def every(self) -> pd.DataFrame:
        """Every state of the domain, one row each."""
        frame = pd.DataFrame(list(itertools.product(*self.domain.values())), columns=list(self.domain))
        return frame.astype({n: "int64" for n, values in self.domain.items() if isinstance(values, range)})


CASES = {
    "three": Case(
        {"x": range(21), "y": range(11), "c": ("a", "b", "c")}, _three_truth,
        CausalModel(rules=(CausalRule(Literal("y", ">=", 6), (Literal("c", "==", "a"),)),)), 7,
    ),
    "six": Case(
        {"income": range(13), "savings": range(13), "score": range(13), "debt": ("no", "low", "high"), "job": ("full", "part", "self"),
         "region": tuple("nsew")},
        _six_truth, CausalModel(features={"region": {"immutable": True}, "score": {"direction": "increase"}}), 11,
    ),
}  # fmt: skip
KINDS = ("mlp", "svm", "knn", "forest", "boosting", "logistic", "box")
ESTIMATORS: dict[str, Callable[[], Any]] = {
    "mlp": lambda: MLPClassifier((16,), max_iter=2000, random_state=0),
    "svm": lambda: SVC(kernel="rbf", random_state=0),
    "knn": lambda: KNeighborsClassifier(n_neighbors=5),
    "forest": lambda: RandomForestClassifier(n_estimators=50, min_samples_leaf=3, random_state=0),
    "boosting": lambda: GradientBoostingClassifier(random_state=0),
    "logistic": lambda: LogisticRegression(),
}


def fitted(case: Case, kind: str, train: pd.DataFrame) -> Any:
    """The black box of ``kind`` fitted on ``train``'s labels (the box: the rule itself)."""
    if kind == "box":
        return Box().fit(train)
    categories = [n for n, values in case.domain.items() if isinstance(values, tuple)]
    numbers = [n for n in case.domain if n not in categories]
    encode = make_column_transformer((OneHotEncoder(handle_unknown="ignore"), categories), (StandardScaler(), numbers))
    return make_pipeline(encode, ESTIMATORS[kind]()).fit(train, case.truth(train))


def domain_options(explainer: MC3G, person: Mapping[str, Any], k: int, accepted: pd.DataFrame, domain: Domain) -> list[float]:
    """The costs of the ``k`` least-cost options among ``accepted`` (rows of ``domain`` the model
    accepts) that the knowledge allows, priced with every changeable feature in play and no
    decision rule, of distinct action sets where the explainer's settings say so, none unlike
    every past applicant where its profile leaves those out (as the answers': docs/semantics.md):
    the person's own value kept where a feature may not change, a row with a value no advice may
    reach left out."""
    engine = explainer.engine_.open()
    numbers = {n: list(values) for n, values in domain.items() if isinstance(values, range)}
    instance = engine.instance(dict(person))
    problem = engine.problem(instance, 1, [], numbers, observed=False)
    still = [n for n in domain if n not in problem.names]
    if still:
        accepted = accepted[(accepted[still] == pd.Series({n: person[n] for n in still})).all(axis=1)]
    states = []
    for row in accepted[list(problem.names)].itertuples(index=False):
        state = tuple(problem.space[n].position(v) for n, v in zip(problem.names, row))
        if None not in state and (a := problem.assess(state)) is not None:  # type: ignore[arg-type]
            states.append(a)
    kept, sets, distinct = [], ActionSets(), engine.settings.distinct
    past = engine.observed.past if engine.settings.profile.typical else None
    for a in sorted(states, key=lambda a: round(a.cost, 9)):
        if len(kept) == k:
            break
        if distinct and not sets.open(a):
            continue
        if past is not None and past.unlike({**person, **instance}, [{**person, **problem.describe(a.state)}])[0]:
            continue
        sets.admit(a)
        kept.append(a.cost)
    return kept


@dataclass(frozen=True)
class OracleRun:
    domain: str
    model: str
    k: int
    people: int  # refused training rows explained (distinct)
    states: int  # the domain's states
    accepted: float  # the share of them the model accepts
    first_optimal: int  # first answers that are the domain's least, or a true "no option"
    worst_first: float | None  # the most a first answer costs over the domain's least, as a share of it
    later: int  # options after each person's first
    later_optimal: int  # of those, no dearer than the domain's option at their place
    short: int  # people given fewer options than the domain holds, none among them
    false_none: int  # "no option" where the domain holds one
    true_none: int  # "no option" where the domain holds none
    own_ms: float  # the search's own work per person, median (run record: the model's calls left out)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def oracle_benchmark(
    domains: Sequence[str] = tuple(CASES),
    kinds: Sequence[str] = KINDS,
    ks: Sequence[int] = (1, 3),
    people: int = 25,
    progress: Callable[[str], None] | None = None,
) -> list[OracleRun]:
    """One :class:`OracleRun` per domain, model and K (the box on the six features only)."""
    from threadpoolctl import threadpool_limits

    out = []
    with threadpool_limits(limits=1):
        for name in domains:
            case = CASES[name]
            train, every = case.train(), case.every()
            for kind in kinds:
                if kind == "box" and name != "six":
                    continue
                model = fitted(case, kind, train)
                accepted = every[model.predict(every) == "yes"]
                refused = train[model.predict(train) == "no"].drop_duplicates().iloc[:people]
                explainers = {k: MC3G(model, case.knowledge, desired_class="yes", k=k, read_model="never").fit(train) for k in ks}
                truths = [domain_options(explainers[max(ks)], person, max(ks), accepted, case.domain) for _, person in refused.iterrows()]
                for k in ks:
                    if progress:
                        progress(f"{name}: {kind}, K = {k}")
                    answers = [explainers[k].explain(person) for _, person in refused.iterrows()]
                    out.append(_counted(name, kind, k, model, answers, [t[:k] for t in truths], len(every), len(accepted)))
    return out


def _counted(name: str, kind: str, k: int, model: Any, answers: list[Recourse], truths: list[list[float]], states: int, accepted: int) -> OracleRun:
    first = later = later_optimal = short = false_none = true_none = 0
    gaps = []
    for answer, truth in zip(answers, truths):
        costs = [cf.cost for cf in answer.counterfactuals]
        if costs and (not truth or costs[0] < truth[0] - EPSILON):
            raise AssertionError(f"{name}, {kind}: an answer cheaper than every state of the domain the model accepts: {answer.counterfactuals[0].values}")
        if costs and (model.predict(pd.DataFrame([{**answer.instance, **cf.values} for cf in answer.counterfactuals])) != "yes").any():
            raise AssertionError(f"{name}, {kind}: an option the model refuses")
        if not costs:
            false_none += bool(truth)
            true_none += not truth
            first += not truth
        else:
            first += costs[0] <= truth[0] + EPSILON
            gaps.append((costs[0] - truth[0]) / truth[0] if truth[0] > 0 else 0.0)
        later += max(len(costs) - 1, 0)
        later_optimal += sum(c <= t + EPSILON for c, t in list(zip(costs, truth))[1:])
        short += len(costs) < len(truth)
    own = [1000 * (a.run.search_seconds or 0.0) for a in answers]
    return OracleRun(
        name, kind, k, len(answers), states, accepted / states, first, max(gaps, default=None), later, later_optimal, short, false_none, true_none,
        statistics.median(own) if own else float("nan"),
    )  # fmt: skip
