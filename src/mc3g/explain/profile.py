"""Profiles: the settings a run starts from.

``product`` is what a user gets by default: advice a lender could hand to an applicant.  The
data's protections hold (a feature the schema declares immutable stays so, an increase-only
feature only grows), decision rules must describe the schema's refusal, and the K answers are
options whose actions truly differ.  ``paper`` reproduces the MC3G paper's experiments: causal
knowledge may lift the data's protections (the paper lets sex change), rules may describe the
favourable class (the paper's German rules describe ``good``), and the K answers are the K
nearest states, as in its Table 2.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..causal import CausalModel
from ..exceptions import InputError, UnknownNameError
from ..schema import Schema


@dataclass(frozen=True)
class Profile:
    """``distinct`` is the default for :class:`~mc3g.explain.MC3G`'s ``distinct``; ``guarded``
    means the data's protections and refusal hold whatever the knowledge or rules say."""

    name: str
    distinct: bool
    guarded: bool
    description: str


PROFILES: dict[str, Profile] = {
    "product": Profile(
        "product",
        distinct=True,
        guarded=True,
        description="advice for an applicant: the data's protected and one-way features hold, options truly differ",
    ),
    "paper": Profile(
        "paper",
        distinct=False,
        guarded=False,
        description="the MC3G paper's experimental settings, to reproduce its tables",
    ),
}


def profile(name: str) -> Profile:
    try:
        return PROFILES[name]
    except (KeyError, TypeError):
        raise UnknownNameError(f"no profile {name!r}; the profiles are {list(PROFILES)}") from None


def check_protections(base: Schema, schema: Schema, causal: CausalModel) -> None:
    """Refuse knowledge that lifts a protection of ``base`` (the data's own metadata): an
    immutable feature made mutable, an increase-only or decrease-only feature freed, or valid
    values widened (a person the data's schema calls impossible let in)."""
    for before in base.features:
        if before.name not in schema:
            continue
        after = schema.feature(before.name)
        lifted = None
        if before.immutable and not after.immutable:
            lifted = "immutable"
        elif before.direction is not None and after.direction != before.direction:
            lifted = f"{before.direction}-only"
        elif before.valid is not None and (after.valid is None or after.valid[0] < before.valid[0] or after.valid[1] > before.valid[1]):
            lifted = f"valid only {before.valid_words}"
        if lifted is None:
            continue
        where = causal.sources.get(before.name)
        prefix = f"{where}: " if where is not None else ""
        raise InputError(
            f"{prefix}the data declare {before.name!r} {lifted}, and the product profile keeps it so; the causal knowledge "
            f"{causal.name!r} lifts that. Reproducing the paper's settings is profile='paper' (--profile paper); "
            "otherwise change the schema itself."
        )
