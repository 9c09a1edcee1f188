"""A portfolio at a glance on the shipped data sets (``mc3g bench portfolio``): how much of the
refused people's recourse a summary of at most ten rules covers, whether each rule's coverage and
cost come back exactly from the people's own answers, the weakest subgroup found, and whether a
planted subgroup with no recourse is reported first."""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..audit import Summary, action_of, recourse_summary, weakest_subgroups
from ..batch import audited_columns
from ..datasets import load
from ..explain import MC3G
from ..profiles import Profile
from ..reference import fitted_explainer, knowledge
from ..schema import Feature, Schema
from .exact import fitted

CASES = (("adult", None, None), ("adult", "paper", "hgb"), ("german", "uci", None), ("taiwan", None, None))
"""Each data set with its split and model: the product explainer's decision rules (None), or a
held-out model read exactly (issue 48's histogram gradient boosting of adult)."""


@dataclass(frozen=True)
class PortfolioRun:
    case: str
    refused: int  # refused test rows explained
    with_option: int  # of them, with an option: what a summary is drawn from
    rules: int
    covered: int  # people with an option the rules cover together
    exact: bool  # every rule's people and cost recomputed from the answers themselves
    weakest: str  # the weakest subgroup found, with the share of its refused people within the budget
    seconds: float  # the summary and the subgroups, the answers given

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def portfolio_benchmark(rows: int = 300, k: int = 3, facts: bool = False) -> tuple[list[PortfolioRun], list[Any]]:
    """The first ``rows`` refused test rows of each of :data:`CASES`, product profile, then the
    planted book; with ``facts``, FACTS beside the weakest subgroups on the held-out model's
    people (:mod:`.facts`, sex protected)."""
    runs, beside = [], []
    for name, split, kind in CASES:
        if kind is None:
            ds, explainer = fitted_explainer(name, split, k=k)
        else:
            ds = load(name, split=split)
            train = ds.train.drop(columns=[ds.schema.label])
            model, favourable = fitted(kind, train, ds.train[ds.schema.label].astype(str), [c for c in train.columns if c in ds.schema.numeric])
            explainer = MC3G(model, knowledge(ds), schema=ds.schema, k=k, desired_class=favourable, profile=Profile.PRODUCT).fit(train)
        X = ds.test.drop(columns=[ds.schema.label])
        refusing = explainer.refuses(X)
        refused = X[refusing].iloc[:rows]
        run, frame = _run(f"{name} ({kind or 'rules'})", explainer.explain(refused), refused)
        runs.append(run)
        if facts and kind is not None:
            from .facts import facts_run

            everyone = X.iloc[: int(np.flatnonzero(refusing)[len(refused) - 1]) + 1]  # everyone up to the last refused person explained
            fixed = [f.name for f in explainer.schema_.features if f.immutable or f.protected]
            budget = float(frame.loc[frame["status"] == "refused", "cost"].median())
            beside.append(facts_run(run.case, model, favourable, everyone, frame, "sex", fixed, budget))
    runs.append(_run("planted book", *planted_book(k))[0])
    return runs, beside


def _run(case: str, answers: list[Any], people: pd.DataFrame) -> tuple[PortfolioRun, pd.DataFrame]:
    columns = list(people.columns)
    frame = pd.DataFrame(audited_columns(answers)).assign(position=range(len(people)), **{c: people[c].to_numpy() for c in columns})
    start = time.perf_counter()
    summary = recourse_summary(frame, columns)
    weakest = weakest_subgroups(frame, columns)
    seconds = time.perf_counter() - start
    worst = "-" if weakest.empty else f"{weakest['subgroup'].iloc[0]} ({weakest['within_budget'].iloc[0]:.0%} within the budget)"
    return PortfolioRun(case, len(people), summary.people, len(summary.rules), summary.covered, _exact(summary, answers), worst, seconds), frame


def _exact(summary: Summary, answers: list[Any]) -> bool:
    """Each rule's people and mean cost, recomputed from the answers' own options: the people it
    covers each have an option that is its action, and its cost is the mean of their least."""
    for rule in summary.rules:
        least = [min((cf.cost for cf in answers[p] if action_of(cf.to_dict()) == rule.action), default=math.nan) for p in rule.positions]
        if not rule.positions or not math.isclose(float(np.mean(least)), rule.cost):
            return False
    return True


REGIONS = ("east", "north", "south", "west")


def planted_book(k: int, people: int = 600) -> tuple[list[Any], pd.DataFrame]:
    """A book of ``people`` applicants whose model (a decision tree, read exactly) refuses
    everyone of the north, whose region may not change (the planted subgroup with no recourse),
    and anyone else short of income and savings of 20 together; their age is the model's no
    concern.  The refused people's answers, and the refused people."""
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder
    from sklearn.tree import DecisionTreeClassifier

    every = pd.DataFrame(list(itertools.product(REGIONS, range(0, 21, 2), range(0, 21, 2))), columns=["region", "income", "savings"])
    labels = np.where((every["region"] != "north") & (every["income"] + every["savings"] >= 20), "yes", "no")
    encode = ColumnTransformer([("c", OneHotEncoder(sparse_output=False), ["region"])], remainder="passthrough")
    model = make_pipeline(encode, DecisionTreeClassifier(random_state=0)).fit(every, labels)
    region = Feature("region", "categorical", domain=REGIONS, immutable=True)
    numbers = (Feature("income", "numeric", range=(0, 20), step=2), Feature("savings", "numeric", range=(0, 20), step=2, weight=1.5))
    explainer = MC3G(model, schema=Schema("book", (region, *numbers), "label", ("no", "yes"), "no"), desired_class="yes", k=k, refine=0).fit(every)
    book = every.sample(people, replace=True, random_state=3).reset_index(drop=True)
    book["age"] = np.random.default_rng(11).integers(20, 70, len(book))
    refused = book[model.predict(book[["region", "income", "savings"]]) == "no"].reset_index(drop=True)
    return explainer.explain(refused[["region", "income", "savings"]]), refused
