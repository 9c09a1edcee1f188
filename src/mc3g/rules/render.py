"""Rule sets as text: a logic program (s(CASP) syntax, as FOLD-SE prints it) and English.

:class:`Words` is the one place a literal, a rule or a causal rule is written in English, with
the labels of the features and their values (:meth:`mc3g.schema.Schema.words`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..values import show
from .literal import NUMERIC_OPS, Literal
from .rule import Rule, RuleTrace
from .table import token


def predicate(name: str) -> str:
    """A feature name as a logic-program predicate: lower case, letters, digits and '_'."""
    p = re.sub(r"[^0-9a-zA-Z_]+", "_", name).strip("_").lower() or "feature"
    return p if p[0].isalpha() else "f_" + p


def atom(value: object) -> str:
    """A value as a logic-program term: numbers as floats, everything else single-quoted."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return repr(float(value))
    return "'" + str(value).replace("\\", "\\\\").replace("'", "\\'") + "'"


class ProgramWriter:
    """Collects the clauses of one program.  Names exceptions ``ab1, ab2, ...`` depth first
    (identical ones share a name) and the token sets ``in_set1, ...`` of ``in`` literals, whose
    facts it writes before the first clause that uses them; so one writer serves one program."""

    def __init__(self) -> None:
        self.clauses: list[str] = []
        self.exception_names: dict[Rule, str] = {}
        self.set_names: dict[tuple, str] = {}

    def body(self, literals: Iterable[Literal]) -> list[str]:
        """The goals of a clause body that holds when every literal holds."""
        goals: list[str] = []
        variables: dict[str, str] = {}
        for lit in literals:
            goals.extend(self._literal(lit, variables))
        return goals

    def rule(self, head: str, rule: Rule) -> None:
        parts = self.body(rule.body)
        new_exceptions = []
        for exc in rule.exceptions:
            name = self.exception_names.get(exc)
            if name is None:
                name = self.exception_names[exc] = f"ab{len(self.exception_names) + 1}"
                new_exceptions.append((name, exc))
            parts.append(f"not {name}(X,'True')")
        self.clauses.append(f"{head} :- {', '.join(parts)}." if parts else f"{head}.")
        for name, exc in new_exceptions:
            self.rule(f"{name}(X,'True')", exc)

    def _literal(self, lit: Literal, variables: dict[str, str]) -> list[str]:
        p, op, v = predicate(lit.feature), lit.op, lit.value
        if op == "==":
            return [f"{p}(X,{atom(v)})"]
        if op == "!=":
            return [f"not {p}(X,{atom(v)})"]
        if op == "not in":
            return [f"not {p}(X,{atom(x)})" for x in v]  # type: ignore[union-attr]
        out = []
        var = variables.get(lit.feature)
        if var is None:  # one variable per feature and clause: a feature has one value per row
            var = variables[lit.feature] = f"N{len(variables) + 1}"
            out.append(f"{p}(X,{var})")
        if op == "in":
            name = self.set_names.get(v)  # type: ignore[arg-type]
            if name is None:
                name = self.set_names[v] = f"in_set{len(self.set_names) + 1}"  # type: ignore[index]
                self.clauses.extend(f"{name}({atom(x)})." for x in v)  # type: ignore[union-attr]
            return out + [f"{name}({var})"]
        bound = atom(v)
        return out + [{"<=": f"{var}=<{bound}", "<": f"{var}<{bound}", ">": f"not({var}=<{bound})", ">=": f"not({var}<{bound})"}[op]]


def decision_list_asp(label: str, rules: Iterable[Rule]) -> str:
    """A decision list's rules (heads ``label == class``) as a logic program."""
    writer = ProgramWriter()
    for rule in rules:
        writer.rule(f"{predicate(label)}(X,{atom(rule.head.value)})", rule)  # type: ignore[union-attr]
    return "\n".join(writer.clauses)


PHRASES = {"==": "is", "!=": "is not", "<": "is below", "<=": "is at most", ">": "is above", ">=": "is at least", "in": "is", "not in": "is none of"}
"""How each comparison reads: "bank balance is below 60,000"."""


@dataclass(frozen=True)
class Words:
    """How a person reads the features and their values: the one place a literal, a rule or a
    causal rule is written in English ("bank balance is below 60,000"), for the command line,
    the page and the what-if.

    ``labels`` maps a feature to its name in words (else its name with spaces for underscores),
    ``values`` a feature to the words of its values (else a value is shown as it is, numbers
    with thousands separators); ``graded`` holds the numeric features whose labels name every
    value a person may have, so a threshold between two of them reads as the label on its side
    ("education level is at most associate degree (academic)" for ``education_num <= 12.5``);
    ``waits`` maps a feature only time changes to its unit of time ("years"; "" for a category),
    so its change reads as a wait.  Build it from a schema with :meth:`mc3g.schema.Schema.words`.
    """

    labels: Mapping[str, str] = field(default_factory=dict)
    values: Mapping[str, Mapping[Any, str]] = field(default_factory=dict)
    graded: frozenset[str] = frozenset()
    waits: Mapping[str, str] = field(default_factory=dict)

    def feature(self, name: str) -> str:
        """A feature's name in words: "hours per week"."""
        return self.labels.get(name) or name.replace("_", " ")

    def value(self, name: str, value: Any) -> str:
        """A value of feature ``name`` in words: its label, or the value as it is."""
        labels = self.values.get(name)
        if labels:
            key = value.item() if hasattr(value, "item") else value
            found = labels.get(key) if isinstance(key, (str, int, float)) else None
            if found is None and not isinstance(key, str):
                found = labels.get(token(key))
            if found is not None:
                return found
        return show(value)

    def literal(self, lit: Literal) -> str:
        """``lit`` in words: "checking account status is no checking account"."""
        name = self.feature(lit.feature)
        if lit.op in ("in", "not in"):
            shown = [self.value(lit.feature, v) for v in lit.value]  # type: ignore[union-attr]
            if len(shown) == 1:
                return f"{name} {PHRASES['==' if lit.op == 'in' else '!=']} {shown[0]}"
            return f"{name} {PHRASES[lit.op]} {', '.join(shown[:-1])} or {shown[-1]}"
        op, value = self._graded(lit)
        return f"{name} {PHRASES[op]} {self.value(lit.feature, value)}"

    def _graded(self, lit: Literal) -> tuple[str, Any]:
        """A threshold between two labelled values of a graded feature, as the labelled value on
        its side: ``<= 12.5`` is ``<= 12`` when every value is labelled (else as it is)."""
        labels = self.values.get(lit.feature, {})
        if lit.feature not in self.graded or lit.op not in NUMERIC_OPS or lit.value in labels:
            return lit.op, lit.value
        v = lit.value
        if lit.op in ("<", "<="):
            below = [k for k in labels if k < v or (lit.op == "<=" and k == v)]
            return ("<=", max(below)) if below else (lit.op, v)
        above = [k for k in labels if k > v or (lit.op == ">=" and k == v)]
        return (">=", min(above)) if above else (lit.op, v)

    def rule(self, rule: Rule) -> str:
        """A rule's conditions in words, with its exceptions: "a and b, unless (c)"."""
        text = " and ".join(self.literal(lit) for lit in rule.body) or "always"
        for exc in rule.exceptions:
            text += f", unless ({self.rule(exc)})"
        return text

    def causal(self, effect: Literal, cause: Sequence[Literal], constraint: bool) -> str:
        """A causal rule in words: "credit score is at least 620 when debt is none"; a rule that
        only allows its effect, "... may follow when ..."."""
        causes = " and ".join(self.literal(lit) for lit in cause)
        return f"{self.literal(effect)} {'when' if constraint else 'may follow when'} {causes}"


PLAIN = Words()
"""Words without labels: names with spaces for underscores, values as they are."""


def decision_list_english(label: str, rules: Iterable[Rule], default: str, words: Words = PLAIN) -> str:
    """A decision list in English: one numbered line per rule, then the default."""
    lines = [f"{i}. {words.feature(label)} is {r.head.value} when {words.rule(r)}." for i, r in enumerate(rules, 1)]  # type: ignore[union-attr]
    lines.append(f"Otherwise {words.feature(label)} is {default}.")
    return "\n".join(lines)


def _shown(value: object) -> str:
    value = value.item() if hasattr(value, "item") else value
    return show(value) if isinstance(value, (int, float, str)) else repr(value)


def _check_text(trace: RuleTrace, failed_only: bool) -> str:
    checks = trace.failed if failed_only else list(trace.checks)
    return ", ".join(f"{PLAIN.literal(c.literal)} ({PLAIN.feature(c.literal.feature)} = {_shown(c.value)})" for c in checks)


def _blocking(trace: RuleTrace) -> str:
    blocked = [e for e in trace.exceptions if e.covered]
    return "; ".join(f"the exception ({PLAIN.rule(e.rule)}) applies: {_check_text(e, False)}" for e in blocked)


def explanation_text(label: str, outcome: str, fired: int | None, traces: Sequence[RuleTrace]) -> str:
    """Why a decision list gave ``outcome`` for ``label``: the rule that ``fired`` (an index into
    ``traces``, one per rule), or why none did."""
    if fired is not None:
        trace = traces[fired]
        return f"{label} = {outcome}: rule {fired + 1} fires because {_check_text(trace, False) or 'its body is empty'}."
    lines = [f"{label} = {outcome} (the default): no rule fires."]
    for i, trace in enumerate(traces, 1):
        if not trace.body_holds:
            lines.append(f"  rule {i} fails on {_check_text(trace, True)}")
        else:
            lines.append(f"  rule {i}: its conditions hold but {_blocking(trace)}")
    return "\n".join(lines)
