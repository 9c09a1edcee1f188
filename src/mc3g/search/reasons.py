"""Why a person has no counterfactual, in words: a rule no allowed change escapes, or what makes
the rules and the knowledge impossible to satisfy together."""

from __future__ import annotations

from collections.abc import Iterable

from ..rules import PLAIN, Words
from .problem import Problem


def why_none(problem: Problem, words: Words = PLAIN, imitated: bool = False) -> list[str]:
    """Why no counterfactual exists: a rule that no allowed change escapes; else what makes the
    rules and the knowledge impossible to satisfy together (features and values in ``words``).
    With ``imitated``, the rules were learned to imitate a model that cannot be read, and a rule
    is said to be theirs: what they cannot escape, the model itself may allow."""
    original = problem.original_state()
    reasons = []
    whose = " of the rules learned to imitate the model" if imitated else ""
    for i, rule in enumerate(problem.decision, 1):
        if problem.covers(rule, original) and not rule.exceptions and all(problem.truth(lit).all() for lit in rule.body):
            names = sorted({lit.feature for lit in rule.body})
            said = ", ".join(words.feature(n) for n in names)
            locks = _locks(problem, names, words)
            reasons.append(f"rule {i}{whose} ({words.rule(rule)}) cannot be escaped: its features ({said}) cannot change ({locks}).")
    if reasons:
        return reasons
    for combo in problem.causal.forbidden:
        if problem.in_play(combo) and all(problem.holds(lit, original) for lit in combo):
            reasons.append(
                "the person's own values break the causal knowledge (forbidden: "
                + " and ".join(words.literal(lit) for lit in combo)
                + "), so a counterfactual must repair that too."
            )
    must = [words.feature(f.name) for f in problem.space.features if f.feature.must_change]
    if must:
        reasons.append(f"{', '.join(must)} must change, and only to the allowed values.")
    locked = [words.feature(f.name) for f in problem.space.features if len(f.values) == 1]
    reasons.append(
        "No state escapes every decision rule while satisfying the causal knowledge and the feature metadata"
        + (f" (features that cannot change: {', '.join(locked)})" if locked else "")
        + "."
    )
    return reasons


def _locks(problem: Problem, names: Iterable[str], words: Words) -> str:
    parts = []
    for name in names:
        f = problem.space[name].feature
        why = (
            "immutable" if f.immutable
            else "changes only as a consequence, and no causal rule can cause it" if f.consequence_only
            else f"{f.direction}-only" if f.direction
            else "no other value is allowed"
        )  # fmt: skip
        parts.append(f"{words.feature(name)}: {why}")
    return "; ".join(parts)
