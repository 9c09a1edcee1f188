"""What a refused person receives under each profile, side by side on the same people.

A model (a black box of Table 1's kind, or the profile's decision rules) refuses test rows; each
refused person is explained under ``paper`` and under ``product`` with K options, and every
option is checked with the independent checker (:func:`mc3g.explain.violations`) against the
causal knowledge and the data set's own metadata, not the explainer's schema: a protected attribute
changed (sex, race, native country; German's personal status and foreign worker), an
increase-only feature lowered (age, education), a value outside the training range; and, for
both profiles, a number moved further than ``product`` lets one person move it (adult's age by
more than a decade).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import pandas as pd

from ..causal import CausalModel
from ..datasets import Dataset, load
from ..explain import MC3G, Recourse, violations
from ..profiles import Profile
from ..reference import decision_rules, knowledge
from ..schema import Schema
from .table1 import SURROGATE_TAIL, black_box

PROFILE_NAMES = (Profile.PAPER, Profile.PRODUCT)


@dataclass(frozen=True)
class ProfileAudit:
    dataset: str
    split: str
    model: str  # "rules" or the black box's class
    profile: str
    refusal: str  # the class the explainer treats as the refusal
    people: int  # refused test rows explained
    answered: int  # people with at least one option
    options: int
    protected: int  # options that change a feature the data declare immutable
    one_way: int  # options that move an increase-only (or decrease-only) feature the wrong way
    out_of_range: int  # options with a value outside the training range
    other: int  # options that break the causal knowledge (expected 0 under both profiles)
    too_far: int  # options that move a number further than product's max-change allows
    first_harmful: int  # people whose first option does one of the first three
    features_touched: float  # mean over answered people of the distinct features their options change
    seconds: float  # explaining all the people, in one call

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


_KINDS = {"protected": "is immutable", "one_way": "may only", "out_of_range": "is outside"}


def profile_audit(
    dataset: str = "adult",
    split: str = "paper",
    model: str = "gbm",
    k: int = 3,
    every: int = 1,
    limit: int | None = None,
    n_jobs: int = 1,
    profiles: tuple[str, ...] = PROFILE_NAMES,
    progress: Callable[[str], None] | None = None,
) -> list[ProfileAudit]:
    """Per profile, the counts above over the test rows the model refuses (every ``every``-th,
    at most ``limit``).  ``model`` is ``rules`` (the profile's decision rules) or a black-box kind
    of Table 1 (``gbm``, ``rf``, ``mlp``), fitted once and shared by both profiles."""
    ds = load(dataset, split=split)
    judge = None if model == "rules" else black_box(ds, model)
    X_test = ds.test.drop(columns=[ds.schema.label])
    bounded = (knowledge(ds) or CausalModel()).schema(ds.schema.under(Profile.PRODUCT))  # the data's metadata with product's settings
    out = []
    for name in profiles:
        if progress:
            progress(f"{dataset}: {name}")
        explainer = _explainer(ds, judge, name, tail=SURROGATE_TAIL.get(dataset, 0.005), k=k, n_jobs=n_jobs)
        rows = X_test[list(explainer.feature_names_in_)]
        rows = rows[explainer.refuses(rows)].iloc[::every]
        rows = rows if limit is None else rows.iloc[:limit]
        start = time.perf_counter()
        answers = explainer.explain(rows)
        seconds = time.perf_counter() - start
        t = _tally(rows, answers, explainer.causal_, ds.schema, bounded)
        label = "rules" if judge is None else type(judge[-1]).__name__
        out.append(
            ProfileAudit(
                dataset,
                split,
                label,
                name,
                explainer.unfavourable_,
                len(rows),
                t.answered,
                t.options,
                t.counts["protected"],
                t.counts["one_way"],
                t.counts["out_of_range"],
                t.counts["other"],
                t.too_far,
                t.first_harmful,
                t.touched / t.answered if t.answered else 0.0,
                seconds,
            )
        )
    return out


def _explainer(ds: Dataset, judge: Any, profile: str, tail: float, k: int, n_jobs: int) -> MC3G:
    """MC3G under ``profile``, on its decision rules (``judge`` None) or on the black box ``judge``."""
    causal = knowledge(ds) or CausalModel()  # the profile's settings come with ds.schema
    options: dict[str, Any] = {"k": k, "n_jobs": n_jobs, "profile": profile, "schema": ds.schema}
    if judge is None:
        return MC3G(decision_rules(ds, profile), causal, **options).fit(ds.X_train)
    return MC3G(judge, causal, tail=tail, **options).fit(ds.train.drop(columns=[ds.schema.label]))


@dataclass
class _Tally:
    """What one profile's options do, counted as :class:`ProfileAudit` reports it."""

    counts: dict[str, int]  # options per kind of harm in _KINDS, and "other"
    answered: int = 0
    options: int = 0
    first_harmful: int = 0
    too_far: int = 0
    touched: int = 0  # the features each answered person's options change, summed


def _tally(rows: pd.DataFrame, answers: list[Recourse], causal: CausalModel, schema: Schema, bounded: Schema) -> _Tally:
    """Each option checked against the knowledge over the data's own metadata (``schema``), and
    against ``bounded`` (that metadata under product's settings) for a number moved too far."""
    tally = _Tally(dict.fromkeys((*_KINDS, "other"), 0))
    for (_, row), answer in zip(rows.iterrows(), answers):
        person = dict(row.items())
        for i, cf in enumerate(answer.counterfactuals):
            problems = violations(cf, person, [], causal, schema)
            found = {kind for kind, words in _KINDS.items() if any(words in p for p in problems)}
            for kind in found:
                tally.counts[kind] += 1
            tally.counts["other"] += len(problems) > sum(any(words in p for words in _KINDS.values()) for p in problems)
            tally.first_harmful += i == 0 and bool(found)
            tally.too_far += any("max-change" in p for p in violations(cf, person, [], CausalModel(), bounded))
        tally.options += len(answer.counterfactuals)
        if answer.counterfactuals:
            tally.answered += 1
            tally.touched += answer.features_touched
    return tally
