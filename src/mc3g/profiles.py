"""Profiles: the settings a run starts from.

``product`` is what a user gets by default: advice a lender could hand to an applicant.  The
data's protections hold (a feature the schema declares immutable stays so, an increase-only
feature only grows), and so do the product's own settings for a shipped data set (adult's
capital gain only rises), decision rules must describe the schema's refusal, and the K answers
are options whose actions truly differ.  ``paper`` reproduces the MC3G paper's experiments: causal
knowledge may lift the data's protections (the paper lets sex change), rules may describe the
favourable class (the paper's German rules describe ``good``), and the K answers are the K
nearest states, as in its Table 2.

A profile's settings for a data set travel with the data's schema
(:attr:`~mc3g.schema.Schema.profiles`); :meth:`MC3G.fit <mc3g.explain.MC3G.fit>` lays the chosen
profile's over the data's metadata before the causal knowledge, whatever route the schema came by.
"""

from __future__ import annotations

from enum import StrEnum

from .causal import CausalModel
from .exceptions import InputError
from .params import OneOf, validate
from .schema import Schema


class Profile(StrEnum):
    """The profiles, the one registry of their names: a member is its name as text
    (``Profile.PRODUCT == "product"``), so a profile reads and prints as the word a user types."""

    PRODUCT = "product"
    PAPER = "paper"

    @property
    def distinct(self) -> bool:
        """The default of :class:`~mc3g.explain.MC3G`'s ``distinct``: options whose actions
        truly differ (product), or the K nearest states (the paper's Table 2)."""
        return self is Profile.PRODUCT

    @property
    def typical(self) -> bool:
        """Whether an option unlike every past applicant is left out (:mod:`mc3g.search.past`):
        advice leads where people have been (product); the paper offers every state."""
        return self is Profile.PRODUCT

    @property
    def survive(self) -> float:
        """The share of retrained models an option must satisfy when an explainer has them
        (:class:`~mc3g.models.Robustness`): every one for advice a person acts on (product); the
        paper's options are only measured against them."""
        return 1.0 if self is Profile.PRODUCT else 0.0

    @property
    def guarded(self) -> bool:
        """Whether the protections of the data and of the profile's settings, and the data's
        refusal, hold whatever the knowledge or rules say."""
        return self is Profile.PRODUCT

    @property
    def description(self) -> str:
        return _DESCRIPTIONS[self]

    @classmethod
    def named(cls, name: str | Profile) -> Profile:
        """The profile called ``name``; any other name is refused, as a ``profile`` parameter is."""
        validate({"profile": name}, {"profile": [OneOf(tuple(cls))]})
        return cls(name)


_DESCRIPTIONS = {
    Profile.PRODUCT: "advice for an applicant: the data's and the product's protections hold, options truly differ",
    Profile.PAPER: "the MC3G paper's settings, to reproduce its tables",
}

def check_protections(data: Schema, schema: Schema, causal: CausalModel, profile: Profile = Profile.PRODUCT) -> None:
    """Refuse knowledge that lifts a protection ``profile`` keeps: one of ``data`` (the data's
    own metadata: an immutable feature made mutable, a one-way feature freed, valid values
    widened, so that a person the data's schema calls impossible is let in) or of the profile's
    settings for the data set (adult's capital gain only rises, its age by a decade at most).
    ``schema`` is what the knowledge made of ``data`` under the profile; knowledge may tighten a
    protection (a smaller max-change, fewer targets), never loosen it (see
    :data:`~mc3g.protections.PROTECTIONS`)."""
    laid = data.profiles.get(profile)
    for before in data.under(profile).features:
        if before.name not in schema:
            continue
        lifted = before.lifted(schema.feature(before.name))
        if lifted is None:
            continue
        setting, protection = lifted
        where = causal.sources.get(before.name)
        prefix = f"{where}: " if where is not None else ""
        by = "the data declare"
        if laid is not None and setting in laid.features.get(before.name, {}):
            by = f"the {profile} profile's settings for {data.name} ({laid.where.get(before.name, 'shipped')}) declare"
        raise InputError(
            f"{prefix}{by} {before.name!r} {protection}, and the {profile} profile keeps it so; the causal knowledge "
            f"{causal.name!r} lifts that. Reproducing the paper's settings is profile='paper' (--profile paper); "
            "otherwise change the schema itself."
        )
