"""What a lender would send (``mc3g bench advice``): every refused test row of black boxes the
project never tuned for, explained under a profile, and every option judged by the lender's
checklist (docs/checklist.md, :mod:`.checklist`).

The black boxes are fitted on the training split behind one-hot categories and scaled numbers
(:func:`mc3g.reference.encoded`): extremely randomised trees (100 trees, 5 rows a leaf), a
histogram gradient boosting (90 iterations, 24 leaves) and scikit-learn's gradient boosting
(its defaults), none tuned for mc3g.  An option fails a line of the checklist by what it
changes and how it reads; it also fails ``implausible`` when its state lies farther from the
nearest past applicant than 99 % of past applicants lie from theirs, and ``knowledge`` when it
breaks the product profile's own knowledge (checked by :func:`mc3g.explain.violations`: a
sign of a defect, never expected).  A person is *sendable* with at least one option that
passes every line; a person with no option is told why, and the run counts those whose reasons
name a protected feature.
"""

from __future__ import annotations

import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from sklearn.ensemble import GradientBoostingClassifier

from ..causal import CausalModel
from ..datasets import load
from ..explain import MC3G, Recourse, violations
from ..profiles import Profile
from ..reference import encoded, knowledge
from ..rules import Words
from ..schema import Schema
from .checklist import LINES, Checklist, plausibility
from .exact import fitted, held_out
from .table1 import SETTINGS

MODELS = ("et", "hgb", "gb", "ada", "card", "hgb-cat", "lgbm-cat")  # a scorecard (card); the last two split the categories' ordinal codes themselves
"""The black boxes a run may fit: see the module's docstring."""
DEFAULT_MODELS = {"adult": ("et", "hgb"), "german": ("gb",), "taiwan": ("gb",)}
DATASETS = {**SETTINGS, "taiwan": ("taiwan", "uci")}  # data set -> (name, split)


@dataclass(frozen=True)
class AdviceRun:
    dataset: str
    split: str
    model: str
    profile: str
    knowledge: str  # shipped: the data set's own; drafted: mc3g init's draft of the training rows, used as it is
    people: int  # refused test rows explained
    answered: int  # people with at least one option
    options: int
    passing: int  # options that pass every line of the checklist
    failing: dict[str, int]  # line -> options that fail it
    sendable: int  # people with at least one option that passes
    none: int  # people told they have no option, each with the reasons why
    none_naming_protected: int  # of them, those whose reasons name a protected feature
    fewer: dict[str, int] = field(default_factory=dict)  # why -> people with fewer than K options
    seconds: float = 0.0  # explaining all the people, in one call
    accuracy: float = 0.0  # the model's on the whole test split

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def black_box(kind: str) -> Any:
    """An unfitted held-out classifier (see :data:`MODELS`)."""
    return GradientBoostingClassifier(random_state=0) if kind == "gb" else held_out(kind)


def advice_benchmark(
    dataset: str = "adult",
    model: str = "et",
    profile: str = Profile.PRODUCT,
    k: int = 3,
    rows: int | None = None,
    progress: Callable[[str], None] | None = None,
    drafted: bool = False,
) -> AdviceRun:
    """The checklist's counts over the test rows ``model`` refuses (the first ``rows`` of them,
    or all), with one thread per native thread pool (histogram boosting's OpenMP threads spin on
    a busy 2-core machine: see :func:`mc3g.bench.blackbox.blackbox_benchmark`).  ``drafted``: the
    knowledge is what ``mc3g init`` drafts from the training rows as a lender's own CSV, used as
    it is (:func:`_drafted`), not the data set's own."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        return _run(dataset, model, profile, k, rows, progress, drafted)


def _drafted(ds: Any, model: Any, profile: str, k: int) -> tuple[MC3G, CausalModel, Schema]:
    """The explainer a lender gets from the training rows as their own CSV: ``mc3g init``'s draft
    used unedited (the decision's favourable value named), then ``mc3g fit`` with ``model``; with
    its knowledge and schema."""
    from ..applicants import draft, fit_file

    label = ds.schema.label
    favourable = next(c for c in ds.schema.classes if c != ds.schema.unfavourable)
    with tempfile.TemporaryDirectory() as folder:
        data, causal = Path(folder) / f"{ds.name}.csv", Path(folder) / f"{ds.name}.causal"
        ds.train.to_csv(data, index=False)
        causal.write_text(draft(ds.train, label, favourable=favourable, source=str(data)).to_text())
        explainer = fit_file(data, label, causal=causal, model=model, favourable=favourable, k=k, profile=profile).explainer
    return explainer, explainer.causal_, explainer.schema_


def _run(dataset: str, kind: str, profile: str, k: int, rows: int | None, progress: Callable[[str], None] | None, drafted: bool = False) -> AdviceRun:
    name, split = DATASETS[dataset]
    ds = load(name, split=split)
    label = ds.schema.label
    X_train, X_test = ds.train.drop(columns=[label]), ds.test.drop(columns=[label])
    if progress:
        progress(f"{dataset}: fitting {kind}")
    labels, numeric = ds.train[label].astype(str), list(ds.schema.numeric)
    model = encoded(black_box(kind), X_train, numeric).fit(X_train, labels) if kind == "gb" else fitted(kind, X_train, labels, numeric)[0]
    accuracy = float((model.predict(X_test).astype(str) == ds.test[label].astype(str).to_numpy()).mean())
    if drafted:
        explainer, causal, judge = _drafted(ds, model, profile, k)
    else:
        causal = knowledge(ds) or CausalModel()
        explainer = MC3G(model, causal, schema=ds.schema, k=k, profile=profile).fit(X_train)
        judge = causal.schema(ds.schema.under(Profile.PRODUCT))  # the product profile's own knowledge
    refused = X_test[explainer.refuses(X_test)]
    refused = refused if rows is None else refused.iloc[:rows]
    if progress:
        progress(f"{dataset}, {kind}: explaining {len(refused)} refused people")
    start = time.perf_counter()
    answers = explainer.explain(refused)
    seconds = time.perf_counter() - start
    checklist = Checklist.shipped(dataset)
    past = plausibility(X_train.drop(columns=sorted(checklist.record)), list(ds.schema.numeric))
    immutable = frozenset(f.name for f in ds.schema.features if f.immutable)  # the data's own metadata
    people = [dict(row.items()) for _, row in refused.iterrows()]
    options = [(i, cf) for i, answer in enumerate(answers) for cf in answer.counterfactuals]
    far = [past.remoteness(people[i], [{**people[i], **cf.values}])[0] for i, cf in options]
    plausible = [r <= 1 for r in far]
    failing: Counter[str] = Counter()
    passed: list[int] = []  # the person of each option that passes
    for (i, cf), fine in zip(options, plausible):
        lines = checklist.failed(cf, people[i], immutable)
        lines |= {"implausible"} if not fine else set()
        lines |= {"knowledge"} if violations(cf, people[i], [], causal, judge, Words()) else set()
        failing.update(lines)
        passed += [] if lines else [i]
    words = ds.schema.words()
    protected = [words.feature(n) for n in sorted(checklist.protected | checklist.household | immutable)]
    told_none = [a for a in answers if a.status == "no_counterfactual"]
    return AdviceRun(
        dataset, split, kind, profile, "drafted" if drafted else "shipped", len(refused), sum(bool(a.counterfactuals) for a in answers), len(options),
        len(passed), {line: failing[line] for line in LINES}, len(set(passed)), len(told_none),
        sum(any(p in " ".join(a.reasons) for p in protected) for a in told_none), dict(_fewer(answers, k)), seconds, accuracy,
    )  # fmt: skip


def _fewer(answers: list[Recourse], k: int) -> Counter[str]:
    """Why people have fewer than K options, in a few words, read off each answer's ``fewer``
    (some options) or its ``reasons`` (none)."""
    out: Counter[str] = Counter()
    for answer in answers:
        if len(answer.counterfactuals) >= k:
            continue
        said = answer.fewer if answer.counterfactuals else " ".join(answer.reasons)
        lead = "fewer" if answer.counterfactuals else "none"
        if answer.status == "error":
            out[f"none: error ({said})"] += 1
        elif not said:
            out[f"{lead}: not said"] += 1
        elif answer.unlike:
            out[f"{lead}: unlike every past applicant"] += 1
        elif answer.run.guarantee == "exact" and ("proved" in said or "accepts no state" in said):  # a surrogate's reasons say "not proved"
            out[f"{lead}: proved on the model"] += 1
        elif "it stopped" in said:
            out[f"{lead}: the search stopped at a bound"] += 1
        elif "the model refused" in said or "left no other" in said:
            out[f"{lead}: the model refused every other state the rules let through"] += 1
        else:
            out[f"{lead}: no other state escapes within the knowledge"] += 1
    return out
