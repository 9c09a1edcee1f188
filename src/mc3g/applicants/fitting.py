"""An explainer fitted on a file of applicants (``mc3g fit``): the decision column, the knowledge
file checked against the data, and either a model of one's own (a black box, explained through
its FOLD-SE surrogate, with the surrogate's held-out fidelity) or FOLD-SE rules of the refusal
learned from the file (with their held-out accuracy).

Which value of the decision is favourable is never guessed from numbers or truth values: a
``1`` is a default as often as an approval.  It is taken from ``favourable``, or read off words
that say it (``approved``/``rejected``, ``yes``/``no``, ``good``/``bad``, ...), or asked for.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..causal import CausalModel, parse, read_file
from ..exceptions import InputError
from ..explain import MC3G
from ..foldse import FoldSE
from ..models import BlackBox
from ..profiles import Profile
from ..rules import RuleSet, token
from ..schema import Schema, infer_schema
from .files import DataFile, decision_classes, read_data
from .protections import protection

GOOD = frozenset({"yes", "y", "approved", "approve", "accepted", "accept", "granted", "good", "paid", "repaid", "hired", "pass", "passed"})
BAD = frozenset({"no", "n", "rejected", "reject", "refused", "denied", "declined", "bad", "default", "defaulted", "not hired", "fail", "failed"})
TEXT_HINT = " (a category some of whose values look like numbers: declare it `NAME: categorical` in the knowledge file)"


@dataclass(frozen=True)
class Fitted:
    """A fitted explainer and what a person wants to know of it: the data it was fitted on, the
    favourable and unfavourable labels (``guessed``: read off their words), and how well the
    rules describe the decision (``score``: the surrogate's held-out fidelity to the model, or
    the learned rules' held-out accuracy)."""

    explainer: MC3G
    data: DataFile
    target: str
    favourable: str
    unfavourable: str
    guessed: bool
    score: float | None

    @property
    def rules(self) -> RuleSet:
        return self.explainer.rules_

    @property
    def unprotected(self) -> list[str]:
        """Features advice may change that look like what :func:`~.protections.protection` would
        protect (a characteristic fair-lending law protects, age, a row's identifier or weight):
        the knowledge left them free, perhaps on purpose, perhaps for want of ``mc3g init``."""
        schema, frame = self.explainer.schema_, self.data.frame
        out = []
        for name in self.explainer.features_in_play_:
            f = schema.feature(name)
            if not f.immutable and not f.consequence_only and f.direction is None:
                if protection(name, frame[name], f.is_numeric, len(frame)) is not None:
                    out.append(name)
        return out


def fit_file(
    data: str | Path,
    target: str,
    *,
    causal: str | Path | None = None,
    model: Any = None,
    favourable: Any = None,
    ignore: Sequence[str] = (),
    profile: str = Profile.PRODUCT,
    **params: Any,
) -> Fitted:
    """Fit an MC3G explainer on the rows of the data file ``data`` whose decision is the column
    ``target``, with the knowledge file ``causal`` (checked against the data's columns and
    values) and a black box ``model`` (labels: the target's values, or ``favourable`` names the
    good one of its own) or, without one, FOLD-SE rules of the refusal learned from the file.
    The columns named in ``ignore`` are no features (an identifier: a new applicant brings a new
    value, which a feature's categories would refuse).  ``params`` go to :class:`~mc3g.explain.MC3G`."""
    declared = CausalModel.parse(read_file(causal), str(causal)) if causal is not None else CausalModel()
    categorical = [name for name, settings in declared.features.items() if settings.get("kind") == "categorical"]
    rows = read_data(data, categorical=categorical, hint=TEXT_HINT)
    classes = list(decision_classes(rows.frame, target, str(rows.path)))
    X = _model_columns(model, rows, target, ignore)
    base = infer_schema(rows.frame[[*X.columns, target]], target, classes[0], Path(data).stem)
    knowledge = parse(read_file(causal), str(causal), base) if causal is not None else CausalModel()  # a name the data lacks is refused here
    rows.check(knowledge.schema(base).features)
    if model is None:
        good, guessed = favourable_value(classes, favourable, target)
        bad = next(c for c in classes if c != good)
        schema = _decided(base, classes, bad)
        rules, score = _rules(X, rows.frame[target], schema, bad, params)
        explainer = MC3G(rules, knowledge, schema=schema, profile=profile, **params).fit(X)
        return Fitted(explainer, rows, target, good, bad, guessed, score)
    labels = sorted(set(BlackBox.of(model, X).labels_of(X)))
    good, guessed = _model_favourable(labels, classes, favourable, target)
    bad = next((c for c in labels if c != good), None)
    if len(labels) != 2 or bad is None:
        raise InputError(f"the model answers {labels} on {rows.path}; MC3G explains a decision between two labels")
    schema = _decided(base, labels, bad)
    explainer = MC3G(model, knowledge, schema=schema, desired_class=good, profile=profile, **params).fit(X)
    return Fitted(explainer, rows, target, good, bad, guessed, explainer.fidelity_)


def favourable_value(values: list[str], favourable: Any, target: str) -> tuple[str, bool]:
    """The favourable one of a decision's two ``values`` and whether it was read off their words:
    ``favourable`` when given (it must be one of them), else the one a word such as ``approved``
    or ``yes`` names while the other's word says the opposite."""
    if len(values) != 2:
        raise InputError(f"the decision {target!r} has {len(values)} values {values}; MC3G explains a decision between two outcomes")
    if favourable is not None:
        if token(favourable) not in values:
            raise InputError(f"--favourable {favourable!r} is not a value of the decision {target!r}: its values are {values}")
        return token(favourable), False
    words = [v.strip().lower() for v in values]
    for good, bad in ((0, 1), (1, 0)):
        if words[good] in GOOD and words[bad] in BAD:
            return values[good], True
    raise InputError(
        f"which value of the decision {target!r} is favourable, {values[0]!r} or {values[1]!r}? Name it with --favourable "
        "(mc3g reads it off words such as approved/rejected or yes/no, never off numbers or truth values)"
    )


def _model_favourable(labels: list[str], values: list[str], favourable: Any, target: str) -> tuple[str, bool]:
    """The model's favourable label: read as for the decision's values when the model answers
    them; a model with labels of its own (1/0 for yes/no) must be told which is favourable."""
    if set(labels) <= set(values):
        return favourable_value(values, favourable, target)
    if favourable is None or token(favourable) not in labels:
        named = f"--favourable {favourable!r} is not one of them" if favourable is not None else "name its favourable label with --favourable"
        raise InputError(f"the model answers {labels}, which are not the values of the decision {target!r} {values}: {named}")
    return token(favourable), False


def _decided(schema: Schema, labels: list[str], unfavourable: str) -> Schema:
    """``schema`` with the decision's labels and the one that is a refusal."""
    return Schema(schema.name, schema.features, schema.label, tuple(labels), unfavourable, schema.notes)


def _rules(X: pd.DataFrame, y: pd.Series, schema: Schema, unfavourable: str, params: dict[str, Any]) -> tuple[RuleSet, float]:
    """FOLD-SE rules of the refusal learned from every row, and the accuracy of rules learned
    the same way from 80 % of them on the other 20 % (the rows drawn by ``random_state``)."""
    from sklearn.model_selection import train_test_split

    labels = y.map(token).rename(schema.label)
    settings = {"target": unfavourable, "numeric": schema.numeric, "ratio": params.get("ratio", 0.5), "tail": params.get("tail", 0.005)}
    counts = labels.value_counts()
    stratify = labels if counts.min() >= 2 else None
    X_fit, X_held, y_fit, y_held = train_test_split(
        X, labels, test_size=params.get("holdout", 0.2), random_state=params.get("random_state", 0), stratify=stratify
    )
    held = FoldSE(**settings).fit(X_fit, y_fit)
    accuracy = float(np.mean(held.predict(X_held) == y_held.to_numpy()))
    return FoldSE(**settings).fit(X, labels).rules_, accuracy


def _model_columns(model: Any, rows: DataFile, target: str, ignore: Sequence[str]) -> pd.DataFrame:
    """The columns the explainer reads: those a model was fitted on (``feature_names_in_``), else
    every column but the decision and those to ``ignore``."""
    rows.require(ignore, "--ignore names")
    if target in ignore:
        raise InputError(f"--ignore names the decision {target!r}: it is no feature anyway")
    names = getattr(model, "feature_names_in_", None) if model is not None else None
    if names is None:
        return rows.frame.drop(columns=[target, *ignore])
    names = [str(n) for n in names]
    if target in names:
        raise InputError(f"the model reads the decision {target!r} itself: it was fitted with its own answer among its inputs")
    read = [c for c in ignore if c in names]
    if read:
        raise InputError(f"--ignore names {read}, which the model reads: it cannot be left out")
    rows.require(names, "the model reads")
    return rows.frame[names]
