"""Rules with exceptions (default logic): ``head :- body, not exception_1, not exception_2``.

A rule covers a row when every body literal holds and no exception covers it, recursively.  A
decision rule's head is ``label == class``; a causal rule's head is its effect; an exception has
no head of its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .literal import Literal
from .table import Table


@dataclass(frozen=True)
class Rule:
    head: Literal | None
    body: tuple[Literal, ...]
    exceptions: tuple[Rule, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "body", tuple(self.body))
        object.__setattr__(self, "exceptions", tuple(self.exceptions))

    def covers(self, data: Table) -> np.ndarray:
        """Rows of ``data`` on which the body holds and no exception applies."""
        hit = np.ones(data.n_rows, dtype=bool)
        for lit in self.body:
            hit &= lit.mask(data[lit.feature])
        if self.exceptions and hit.any():
            rows = np.flatnonzero(hit)
            sub = data.take(rows)
            blocked = np.zeros(len(rows), dtype=bool)
            for exc in self.exceptions:
                blocked |= exc.covers(sub)
            hit[rows[blocked]] = False
        return hit

    @property
    def features(self) -> list[str]:
        """Features the rule reads, exceptions included, in order of first use."""
        seen: dict[str, None] = {}
        for lit in self.body:
            seen.setdefault(lit.feature)
        for exc in self.exceptions:
            for f in exc.features:
                seen.setdefault(f)
        return list(seen)

    def literals(self) -> Iterable[Literal]:
        """Every literal of the rule and its exceptions, depth first."""
        yield from self.body
        for exc in self.exceptions:
            yield from exc.literals()

    def count_exceptions(self) -> int:
        return sum(1 + e.count_exceptions() for e in self.exceptions)

    def flattened(self) -> Rule:
        """An equivalent rule in the form FOLD-SE prints.

        An exception of one literal and no exceptions is inlined as that literal's negation; bounds
        on one numeric feature merge to the tightest pair; several ``!=`` on a feature become one
        ``not in``.
        """
        kept: list[Rule] = []
        body = list(self.body)
        for exc in (e.flattened() for e in self.exceptions):
            if len(exc.body) == 1 and not exc.exceptions:
                body.append(exc.body[0].negated())
            elif exc not in kept:
                kept.append(exc)
        return Rule(self.head, tuple(merge_literals(body)), tuple(kept))

    def trace(self, values: Mapping[str, Any]) -> RuleTrace:
        """How the rule and its exceptions fare on one row (feature -> value)."""
        checks = tuple(LiteralCheck(lit, values[lit.feature], lit.holds(values[lit.feature])) for lit in self.body)
        return RuleTrace(self, checks, tuple(e.trace(values) for e in self.exceptions))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.head is not None:
            out["head"] = self.head.to_dict()
        out["body"] = [lit.to_dict() for lit in self.body]
        if self.exceptions:
            out["exceptions"] = [e.to_dict() for e in self.exceptions]
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rule:
        head = Literal.from_dict(data["head"]) if data.get("head") is not None else None
        return cls(
            head,
            tuple(Literal.from_dict(d) for d in data.get("body", ())),
            tuple(cls.from_dict(d) for d in data.get("exceptions", ())),
        )


@dataclass(frozen=True)
class LiteralCheck:
    """One body literal of a rule and the value it was checked against."""

    literal: Literal
    value: Any
    holds: bool


@dataclass(frozen=True)
class RuleTrace:
    """How one rule (or exception) fared on one row."""

    rule: Rule
    checks: tuple[LiteralCheck, ...]
    exceptions: tuple[RuleTrace, ...]

    @property
    def body_holds(self) -> bool:
        return all(c.holds for c in self.checks)

    @property
    def covered(self) -> bool:
        return self.body_holds and not any(e.covered for e in self.exceptions)

    @property
    def failed(self) -> list[LiteralCheck]:
        return [c for c in self.checks if not c.holds]


def merge_literals(body: Iterable[Literal]) -> list[Literal]:
    """Merge literals on the same feature without changing their conjunction's meaning.

    Upper bounds (``<``, ``<=``) keep the tightest, so do lower bounds (``>``, ``>=``); tokens
    excluded by ``!=`` / ``not in`` gather into one literal.  Features keep their first position.
    """
    order: list[str] = []
    groups: dict[str, list[Literal]] = {}
    for lit in body:
        if lit.feature not in groups:
            order.append(lit.feature)
            groups[lit.feature] = []
        if lit not in groups[lit.feature]:
            groups[lit.feature].append(lit)
    merged: list[Literal] = []
    for feature in order:
        lits = groups[feature]
        upper = [lit for lit in lits if lit.op in ("<", "<=")]
        lower = [lit for lit in lits if lit.op in (">", ">=")]
        excluded = [lit for lit in lits if lit.op in ("!=", "not in") and not lit.is_numeric]
        required = {lit.value for lit in lits if lit.op == "==" and not lit.is_numeric}
        if len(required) == 1:
            # 'b == med' already implies 'b != vhigh'; keep only exclusions that contradict it.
            (value,) = required
            excluded = [lit for lit in excluded if value in (lit.value if lit.op == "not in" else (lit.value,))]  # type: ignore[operator]
            lits = [lit for lit in lits if lit.op not in ("!=", "not in") or lit.is_numeric or lit in excluded]
        rest = [lit for lit in lits if lit not in upper and lit not in lower and lit not in excluded]
        out: list[Literal] = list(rest)
        if lower:
            # The tightest lower bound: the largest value; '>' beats '>=' at equal values.
            out.append(max(lower, key=lambda lit: (lit.value, lit.op == ">")))
        if upper:
            out.append(min(upper, key=lambda lit: (lit.value, lit.op == "<=")))
        if excluded:
            tokens: set[Any] = set()
            for lit in excluded:
                tokens.update(lit.value if lit.op == "not in" else (lit.value,))  # type: ignore[arg-type]
            out.append(Literal(feature, "!=", next(iter(tokens))) if len(tokens) == 1 else Literal(feature, "not in", tuple(tokens)))
        # Keep the first-seen order of the surviving literals for readable output.
        position = {id(lit): i for i, lit in enumerate(lits)}
        out.sort(key=lambda lit: position.get(id(lit), len(lits)))
        merged.extend(out)
    return merged
