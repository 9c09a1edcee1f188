"""The algebra of escaping rules: the s(CASP) dual of a rule set as a union of disjoint boxes.

A box is a conjunction of literals.  A rule is escaped by failing one of its body literals (the
earlier ones holding) or by one of its exceptions covering; a rule set by escaping every rule, so
the boxes of the rules are multiplied out and the contradictory products dropped.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from .literal import Literal
from .rule import Rule, merge_literals


def escape_boxes(rules: Sequence[Rule]) -> list[tuple[Literal, ...]]:
    """Disjoint conjunctions whose union is "no rule covers the state": each rule's s(CASP) dual
    (``not l1``, or ``l1 and not l2``, ...; or the body with an exception that covers), multiplied
    out across the rules, with contradictory conjunctions dropped."""
    boxes: list[tuple[Literal, ...]] = [()]
    for rule in rules:
        boxes = [merged for a in boxes for b in _escapes(rule) if (merged := _conjoin(a, b)) is not None]
    return boxes


def _escapes(rule: Rule) -> list[tuple[Literal, ...]]:
    out: list[tuple[Literal, ...]] = []
    for j, lit in enumerate(rule.body):
        out.append(tuple(rule.body[:j]) + (lit.negated(),))
    prior: list[tuple[Literal, ...]] = [tuple(rule.body)]
    for exc in rule.exceptions:
        out += [c for p in prior for cov in _covers(exc) if (c := _conjoin(p, cov)) is not None]
        prior = [c for p in prior for esc in _escapes(exc) if (c := _conjoin(p, esc)) is not None]
    return out


def _covers(rule: Rule) -> list[tuple[Literal, ...]]:
    boxes: list[tuple[Literal, ...]] = [tuple(rule.body)]
    for exc in rule.exceptions:
        boxes = [c for b in boxes for esc in _escapes(exc) if (c := _conjoin(b, esc)) is not None]
    return boxes


def _conjoin(a: tuple[Literal, ...], b: tuple[Literal, ...]) -> tuple[Literal, ...] | None:
    """The merged conjunction, or None when it is clearly empty."""
    merged = tuple(merge_literals(a + b))
    for feature in {lit.feature for lit in merged}:
        lits = [lit for lit in merged if lit.feature == feature]
        if _empty(lits):
            return None
    return merged


def _empty(lits: list[Literal]) -> bool:
    """Whether literals on one feature contradict each other (over the reals / all tokens)."""
    lower, upper = -math.inf, math.inf
    lower_open = upper_open = False
    for lit in lits:
        if lit.op in (">", ">="):
            v = float(lit.value)  # type: ignore[arg-type]
            if v > lower or (v == lower and lit.op == ">"):
                lower, lower_open = v, lit.op == ">"
        elif lit.op in ("<", "<="):
            v = float(lit.value)  # type: ignore[arg-type]
            if v < upper or (v == upper and lit.op == "<"):
                upper, upper_open = v, lit.op == "<"
    if lower > upper or (lower == upper and (lower_open or upper_open)):
        return True
    required = [set(lit.value if lit.op == "in" else (lit.value,)) for lit in lits if lit.op in ("==", "in")]  # type: ignore[arg-type]
    excluded: set[Any] = set()
    for lit in lits:
        if lit.op in ("!=", "not in"):
            excluded |= set(lit.value if lit.op == "not in" else (lit.value,))  # type: ignore[arg-type]
    if required:
        allowed = set.intersection(*required) - excluded
        return not allowed
    return False
