"""Candidate models compared on the same people (``mc3g bench models``): what each would
preclude before a lender picks one.

Each held-out black box of :mod:`.exact` is fitted on adult's training split and explained,
model read exactly, on the same first ``rows`` test rows under the product profile; the audit's
own table (:func:`mc3g.audit.group_table`) gives, for each grouping, the share of each group's
refused people with a proved "no option" (precluded), and :func:`mc3g.audit.preclusions` the
protections that keep one group out more than another.  Beside them: the model's accuracy on
the whole test split, the share it refuses, the share of refused people with an option and the
mean cost of their best one, and the protections blocking the precluded most often.  A model
mc3g cannot read (``mlp``) proves no "no option": for it, the refused people left with none whom
the model accepts with a protected characteristic alone changed (``turned``,
:mod:`mc3g.explain.turning`), and the characteristics that do it most often.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import pandas as pd

from ..audit import Audit, characteristics, group_label, group_table, precluded, preclusions, turned
from ..batch import audited_columns
from ..datasets import load
from ..explain import MC3G
from ..profiles import Profile
from ..reference import knowledge
from .exact import HELD_OUT, fitted

GROUPINGS = ("sex", "marital_status")
TOP_BLOCKING = 3


@dataclass(frozen=True)
class ModelRun:
    model: str
    accuracy: float  # on the whole test split
    people: int
    refused: int
    answered: int  # refused people with an option
    precluded: int  # refused people with a proved "no option"
    not_proved: int  # refused people with no option and no proof (a model not read exactly)
    mean_cost: float  # of the best option, over the refused people with one
    precluded_by: dict[str, dict[str, float]]  # grouping -> group -> share of its refused people precluded
    gaps: dict[str, float]  # grouping -> the largest precluded share less the smallest
    blocking: str  # the protections blocking the precluded most often, with their shares
    turned: int  # refused people with no option, not proved, whom a protected characteristic alone turns (asked of the model)
    turning: str  # those characteristics most often, with their shares of the people turned
    warnings: tuple[str, ...]  # the audit's: a protection keeping one group out, or a characteristic turning its refusals, more than another's
    seconds: float  # per person explained, the reading and fit left out

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def models_benchmark(
    kinds: Sequence[str] = HELD_OUT, rows: int = 300, k: int = 3, groupings: Sequence[str] = GROUPINGS, progress: Callable[[str], None] | None = None
) -> list[ModelRun]:
    """One :class:`ModelRun` per held-out model, each on the same people."""
    ds = load("adult", split="paper")
    X, X_test = ds.train.drop(columns=[ds.schema.label]), ds.test.drop(columns=[ds.schema.label])
    truth = ds.test[ds.schema.label].astype(str)
    people = X_test.iloc[:rows]
    numeric = [c for c in X.columns if c in ds.schema.numeric]
    out = []
    for kind in kinds:
        if progress:
            progress(f"{kind}: fitting and reading the model")
        model, favourable = fitted(kind, X, ds.train[ds.schema.label].astype(str), numeric)
        said = model.predict(X_test).astype(str)
        accuracy = float(((said == favourable) == (truth == ">50K").to_numpy()).mean())
        explainer = MC3G(model, knowledge(ds), schema=ds.schema, k=k, desired_class=favourable, profile=Profile.PRODUCT).fit(X)
        if progress:
            progress(f"{kind}: explaining {len(people)} people")
        start = time.perf_counter()
        answers = explainer.explain(people)
        seconds = (time.perf_counter() - start) / max(len(people), 1)
        out.append(_figures(kind, accuracy, answers, people, list(groupings), seconds))
    return out


def _figures(kind: str, accuracy: float, answers: list[Any], people: pd.DataFrame, groupings: list[str], seconds: float) -> ModelRun:
    frame = pd.DataFrame(audited_columns(answers)).assign(**{g: people[g].to_numpy() for g in groupings})
    tables = {g: group_table(frame, [g]) for g in groupings}
    audit = Audit("bench", len(frame), len(frame), "", tables, frame)
    refused = frame["refused"].fillna(False).astype(bool)
    none, proved = frame["status"] == "no_counterfactual", precluded(frame)
    blocking = _most(frame.loc[proved, "blocking"])
    turning = turned(frame)
    shares = {g: {group_label(group): float(v) for group, v in t["precluded"].dropna().items()} for g, t in tables.items()}
    return ModelRun(
        kind, accuracy, len(frame), int(refused.sum()), int((frame["status"] == "refused").sum()), int(proved.sum()), int((none & ~proved).sum()),
        float(frame["cost"].dropna().mean()) if frame["cost"].notna().any() else float("nan"), shares,
        {g: max(s.values()) - min(s.values()) if s else 0.0 for g, s in shares.items()}, blocking,
        int(turning.sum()), _most(frame.loc[turning, "turns_on"].map(characteristics)), tuple(preclusions(audit)), seconds,
    )  # fmt: skip


def _most(keys: pd.Series) -> str:
    """The keys held most often among people's lists, each with the share of those people holding it."""
    counts = Counter(key for held in keys for key in held)
    return ", ".join(f"{key} {n / max(len(keys), 1):.0%}" for key, n in counts.most_common(TOP_BLOCKING))
