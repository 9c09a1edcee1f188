"""Rule sets as text: a logic program (s(CASP) syntax, as FOLD-SE prints it) and English."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from .literal import Literal, format_value
from .rule import Rule, RuleTrace


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


def literal_to_english(lit: Literal) -> str:
    v = format_value(lit.value)
    return {
        "==": f"{lit.feature} is {v}",
        "!=": f"{lit.feature} is not {v}",
        "in": f"{lit.feature} is one of {v}",
        "not in": f"{lit.feature} is none of {v}",
    }.get(lit.op, f"{lit.feature} {lit.op} {v}")


def rule_to_english(rule: Rule) -> str:
    text = " and ".join(literal_to_english(lit) for lit in rule.body) or "always"
    for exc in rule.exceptions:
        text += f", unless ({rule_to_english(exc)})"
    return text


def decision_list_english(label: str, rules: Iterable[Rule], default: str) -> str:
    """A decision list in English: one numbered line per rule, then the default."""
    lines = [
        f"{i}. {label} is {format_value(str(r.head.value))} when {rule_to_english(r)}."  # type: ignore[union-attr]
        for i, r in enumerate(rules, 1)
    ]
    lines.append(f"Otherwise {label} is {format_value(default)}.")
    return "\n".join(lines)


def _shown(value: object) -> str:
    value = value.item() if hasattr(value, "item") else value
    return format_value(value) if isinstance(value, (int, float, str)) else repr(value)


def _check_text(trace: RuleTrace, failed_only: bool) -> str:
    checks = trace.failed if failed_only else list(trace.checks)
    return ", ".join(f"{literal_to_english(c.literal)} ({c.literal.feature} = {_shown(c.value)})" for c in checks)


def _blocking(trace: RuleTrace) -> str:
    blocked = [e for e in trace.exceptions if e.covered]
    return "; ".join(f"the exception ({rule_to_english(e.rule)}) applies: {_check_text(e, False)}" for e in blocked)


def explanation_text(label: str, outcome: str, fired: int | None, traces: Sequence[RuleTrace]) -> str:
    """Why a decision list gave ``outcome`` for ``label``: the rule that ``fired`` (an index into
    ``traces``, one per rule), or why none did."""
    if fired is not None:
        trace = traces[fired]
        return f"{label} = {format_value(outcome)}: rule {fired + 1} fires because {_check_text(trace, False) or 'its body is empty'}."
    lines = [f"{label} = {format_value(outcome)} (the default): no rule fires."]
    for i, trace in enumerate(traces, 1):
        if not trace.body_holds:
            lines.append(f"  rule {i} fails on {_check_text(trace, True)}")
        else:
            lines.append(f"  rule {i}: its conditions hold but {_blocking(trace)}")
    return "\n".join(lines)
