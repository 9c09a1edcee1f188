"""Feature metadata as the explainer assembles it: read off the training data, laid over with
the user's schema, causal knowledge and DiCE-style settings, bounded by what the data shows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from os import PathLike
from typing import Any

import pandas as pd

from ..causal import CausalModel
from ..exceptions import InputError
from ..models import label_text
from ..rules import RuleSet, token
from ..schema import Feature, Schema, infer_schema, observed_feature


def with_dice_settings(
    schema: Schema, features_to_vary: str | list[str], permitted_range: Mapping[str, Sequence[Any]] | None, feature_weights: Mapping[str, float] | None
) -> Schema:
    """DiCE's features_to_vary, permitted_range and feature_weights as feature metadata."""
    changes: dict[str, dict[str, Any]] = {}
    if features_to_vary != "all":
        vary = [features_to_vary] if isinstance(features_to_vary, str) else list(features_to_vary)
        unknown = [f for f in vary if f not in schema]
        if unknown:
            raise InputError(f"features_to_vary names unknown feature(s) {unknown}")
        for f in schema.features:
            if f.name not in vary:
                changes.setdefault(f.name, {})["immutable"] = True
    for name, allowed in (permitted_range or {}).items():
        if name not in schema:
            raise InputError(f"permitted_range names unknown feature {name!r}")
        if schema.feature(name).is_numeric:
            low, high = allowed
            changes.setdefault(name, {})["range"] = (float(low), float(high))
        else:
            changes.setdefault(name, {})["targets"] = tuple(token(v) for v in allowed)
    for name, weight in (feature_weights or {}).items():
        if name not in schema:
            raise InputError(f"feature_weights names unknown feature {name!r}")
        changes.setdefault(name, {})["weight"] = float(weight)
    return schema.updated(changes)


def schema_of_rules(X: pd.DataFrame, rules: RuleSet) -> Schema:
    """Kinds read off the data (numeric dtypes are numeric), labelled as the rules are."""
    unfavourable = str(rules.rules[0].head.value) if rules.rules else rules.default  # type: ignore[union-attr]
    frame = X.drop(columns=[rules.label], errors="ignore").assign(**{rules.label: unfavourable})
    return infer_schema(frame, rules.label, unfavourable, "data")


def covering(schema: Schema | None, X: pd.DataFrame) -> Schema:
    """A schema for every column a black box sees: the given one, plus the columns it lacks as
    the data show them (a paper schema restricts the features; a model reads them all)."""
    inferred = infer_schema(X.assign(__label__="?"), "__label__", "?", "data")
    if schema is None:
        return inferred
    extra = tuple(f for f in inferred.features if f.name not in schema)
    return replace(schema, features=schema.features + extra)


def check_frame(schema: Schema, X: pd.DataFrame, what: str = "the training data (X)") -> None:
    """Refuse a frame (``what`` names it) with a cell its feature cannot take
    (:meth:`~mc3g.schema.Feature.first_refused`): the message names the row, the column and
    the value; spreads and domains are never read off such data."""
    for f in schema.features:
        bad = f.first_refused(X[f.name]) if f.name in X.columns else None
        if bad is not None:
            raise InputError(f"{what}, row {bad[0]}, column {f.name!r} is {bad[1]}")


def with_data_bounds(schema: Schema, X: pd.DataFrame) -> Schema:
    """Numeric features without a range get the training [min, max]; categorical features
    without a domain get the training values.  The data is checked first (:func:`check_frame`)."""
    check_frame(schema, X)
    features: list[Feature] = []
    for f in schema.features:
        if f.name in X.columns and (f.range if f.is_numeric else f.domain) is None:
            seen = observed_feature(f.name, X[f.name], f.is_numeric)
            f = replace(f, range=seen.range, step=f.step or seen.step) if f.is_numeric else replace(f, domain=seen.domain)
        features.append(f)
    return replace(schema, features=tuple(features))


def unfavourable_class(rules: RuleSet, schema: Schema, *, guarded: bool) -> str:
    """The class the rules describe, the one a counterfactual leaves.  ``guarded`` (the product
    profile) refuses rules that describe another of the schema's classes than its refusal: the
    paper's German rules describe 'good' credit, and leaving them means losing it."""
    heads = {str(r.head.value) for r in rules.rules}  # type: ignore[union-attr]
    known = sorted(h for h in heads if h in schema.classes)
    if guarded and known and schema.unfavourable not in known:
        raise InputError(
            f"the decision rules describe {known}, but the refusal in the schema {schema.name!r} is {schema.unfavourable!r}, so the "
            "counterfactuals would lead away from the favourable class. Give rules of the refusal, or profile='paper' to reproduce the paper."
        )
    if len(heads) == 1:
        return heads.pop()
    if schema.unfavourable in heads:
        return schema.unfavourable
    raise InputError(f"the rules describe several classes {sorted(heads)}; say which is unfavourable in the schema")


def unfavourable_label(desired_class: Any, classes: list[str], base: Schema) -> str:
    """The label the surrogate learns as the refusal: the one not ``desired_class``, or the schema's."""
    if desired_class != "opposite":
        desired = label_text(desired_class)
        if desired not in classes:
            raise InputError(f"desired_class {desired_class!r} is not a class the model predicts {classes} (--favourable on the command line)")
        return next(c for c in classes if c != desired)
    if base.unfavourable in classes:
        return base.unfavourable
    raise InputError(
        f"the model predicts {classes} and the schema names neither as unfavourable: say which label is favourable with desired_class=LABEL "
        "(--favourable LABEL on the command line), or pass a schema= whose unfavourable class is one of them"
    )


def causal_model(causal: CausalModel | str | PathLike | None, schema: Schema | None) -> CausalModel:
    """The causal knowledge given to MC3G: none, a model, or a file read against ``schema``."""
    if causal is None:
        return CausalModel()
    if isinstance(causal, CausalModel):
        return causal
    return CausalModel.load(causal, schema=schema)
