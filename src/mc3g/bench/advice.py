"""What a lender would hand out (``mc3g bench advice``): every refused test row of a black box the
project never tuned for, explained under a profile, and every option sorted by what a lender
should not hand out.

The black box is scikit-learn's histogram gradient boosting fitted on the training split, as a
lender would fit one (categories ordinal-coded and read as categories).  Each option is judged
on its values alone, against the data's own metadata and the knowledge of the ``product``
profile, with the independent checker (:func:`mc3g.explain.violations`):

- *protected*: it changes a feature the data declare immutable (sex, race, country of birth;
  German's personal status, foreign worker);
- *household*: it changes marital status or the household relationship (adult), or German's
  personal status, which codes sex and marital status together;
- *unknown*: it moves a feature to a value that means unknown (adult's '?');
- *moves*: it makes a move product's knowledge does not allow (a category's ``moves`` or
  ``targets``: adult's Never-worked, Without-pay or Armed-Forces; German's closed account);
- *hours*: it asks for more than 60 hours a week;
- *max-change*: it moves a number further than product's ``max-change`` for it, per feature;
- *other*: any other way it breaks product's knowledge or metadata (a raised credit amount, a
  forbidden combination).

It also counts the first options that are a single change of capital gain (advice to realise
gains, which presumes assets), and the people who get fewer than K options, by why (the
answer's ``fewer``: the search stopped at a bound, or no other state escapes within the knowledge).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import OrdinalEncoder

from ..causal import CausalModel
from ..datasets import Dataset, load
from ..explain import MC3G, Recourse, violations
from ..profiles import Profile
from ..reference import knowledge
from ..rules import Words, token
from ..schema import Schema
from .table1 import SETTINGS, SURROGATE_TAIL

HOUSEHOLD = ("marital_status", "relationship", "personal_status")
"""Features that say whom a person lives with or is married to: no lender's advice."""
MOST_HOURS = 60.0


@dataclass(frozen=True)
class AdviceAudit:
    dataset: str
    split: str
    profile: str
    people: int  # refused test rows explained
    answered: int  # people with at least one option
    options: int
    protected: int  # options per category (see the module's docstring)
    household: int
    unknown: int
    moves: int
    hours: int
    past_max_change: dict[str, int]  # feature -> options that move it past product's max-change
    other: int
    first_single_gain: int  # people whose first option is a single change of capital gain
    fewer: dict[str, int] = field(default_factory=dict)  # why -> people with fewer than K options
    seconds: float = 0.0  # explaining all the people, in one call

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def lender_model(ds: Dataset) -> Pipeline:
    """A histogram gradient-boosted classifier of the label, fitted on the training split: its
    categories ordinal-coded and read as categories (an unseen one as missing), its numbers raw."""
    X = ds.train.drop(columns=[ds.schema.label])
    categorical = [c for c in X.columns if c not in ds.schema.numeric]
    encode = ColumnTransformer(
        [("categories", OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1, encoded_missing_value=-1), categorical)],
        remainder="passthrough",
    )
    boost = HistGradientBoostingClassifier(categorical_features=list(range(len(categorical))), random_state=0)
    return make_pipeline(encode, boost).fit(X, ds.train[ds.schema.label].astype(str))


def advice_audit(
    dataset: str = "adult", profile: str = Profile.PRODUCT, k: int = 3, rows: int | None = None, n_jobs: int = 1, progress: Callable[[str], None] | None = None
) -> AdviceAudit:
    """The counts above over the test rows the model refuses (the first ``rows`` of them, or
    all), with one thread per native thread pool: histogram boosting's OpenMP threads spin on a
    busy 2-core machine (see :func:`mc3g.bench.blackbox.blackbox_benchmark`)."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        return _audit(dataset, profile, k, rows, n_jobs, progress)


def _audit(dataset: str, profile: str, k: int, rows: int | None, n_jobs: int, progress: Callable[[str], None] | None) -> AdviceAudit:
    name, split = SETTINGS[dataset]
    ds = load(name, split=split)
    if progress:
        progress(f"{dataset}: fitting the black box")
    model = lender_model(ds)
    causal = knowledge(ds) or CausalModel()
    X_train, X_test = ds.train.drop(columns=[ds.schema.label]), ds.test.drop(columns=[ds.schema.label])
    explainer = MC3G(model, causal, schema=ds.schema, k=k, tail=SURROGATE_TAIL[dataset], profile=profile, n_jobs=n_jobs).fit(X_train)
    refused = X_test[explainer.refuses(X_test)]
    refused = refused if rows is None else refused.iloc[:rows]
    if progress:
        progress(f"{dataset}: explaining {len(refused)} refused people")
    start = time.perf_counter()
    answers = explainer.explain(refused)
    seconds = time.perf_counter() - start
    judge = causal.schema(ds.schema.under(Profile.PRODUCT))  # what a lender may hand out: product's knowledge
    names = Words({n: n for n in judge.feature_names})  # the checker's problems name the features as they are, to be sorted
    counts: Counter[str] = Counter()
    past: Counter[str] = Counter()
    fewer: Counter[str] = Counter()
    first_gain = 0
    for (_, row), answer in zip(refused.iterrows(), answers):
        person = dict(row.items())
        for cf in answer.counterfactuals:
            found, features = _judged(cf.values, person, violations(cf, person, [], causal, judge, names), ds.schema, judge)
            counts.update(found)
            past.update(features)
        first = answer.counterfactuals[0] if answer.counterfactuals else None
        first_gain += first is not None and [a.feature for a in first.direct_actions] == ["capital_gain"] and not first.caused_changes
        if len(answer.counterfactuals) < k:
            fewer[_why_fewer(answer)] += 1
    return AdviceAudit(
        dataset, split, profile, len(refused), sum(bool(a.counterfactuals) for a in answers), sum(len(a.counterfactuals) for a in answers),
        counts["protected"], counts["household"], counts["unknown"], counts["moves"], counts["hours"],
        {f.name: past[f.name] for f in judge.features if f.max_change is not None}, counts["other"], first_gain, dict(fewer), seconds,
    )  # fmt: skip


def _judged(values: dict[str, Any], person: dict[str, Any], problems: list[str], data: Schema, judge: Schema) -> tuple[set[str], set[str]]:
    """The categories an option falls in, and the features it moves past product's max-change:
    what it changes is read off its values against the data's metadata (``data``) and product's
    (``judge``); the moves product's knowledge does not allow, and anything else it breaks, off
    the checker's ``problems`` (written with the features' names as they are)."""
    changed = {name for name, before in person.items() if name in values and name in data and token(values[name]) != token(before)}
    found = {
        kind
        for kind, features in (
            ("protected", {n for n in changed if data.feature(n).immutable}),
            ("household", changed & set(HOUSEHOLD)),
            ("unknown", {n for n in changed if token(values[n]) in data.feature(n).unknown}),
            ("hours", {n for n in changed & {"hours_per_week"} if float(values[n]) > MOST_HOURS}),
        )
        if features
    }
    past = {
        f.name for f in judge.features if f.name in changed and f.max_change is not None and abs(float(values[f.name]) - float(person[f.name])) > f.max_change
    }
    if any(MOVES in p or TARGETS in p for p in problems):
        found.add("moves")
    counted = {n for n in changed if data.feature(n).immutable} | (changed & set(HOUSEHOLD)) | past | ({"hours_per_week"} if "hours" in found else set())
    if any(not (MOVES in p or TARGETS in p or "means unknown" in p or any(p.startswith(n + " ") for n in counted)) for p in problems):
        found.add("other")
    return found, past


MOVES, TARGETS = "a move the knowledge does not allow", "is not one of the allowed targets"


def _why_fewer(answer: Recourse) -> str:
    """Why an answer has fewer than K options, in a few words, read off its ``fewer`` (some
    options) or its ``reasons`` (none)."""
    said = answer.fewer if answer.counterfactuals else " ".join(answer.reasons)
    lead = "fewer" if answer.counterfactuals else "none"
    if answer.status == "error":
        return f"none: error ({said})"
    drawn = ", nor any row drawn around them" if "rows drawn around them" in said else ""
    if "it stopped" in said:
        return f"{lead}: the search stopped at a bound{drawn}"
    if "the model refused" in said:
        return f"{lead}: the model refused every other state the rules let through{drawn}"
    return f"{lead}: no other state escapes within the knowledge{drawn}"
