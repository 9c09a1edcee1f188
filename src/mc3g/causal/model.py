"""Causal knowledge: feature metadata, constraints and causal rules ``effect <- cause``.

MC3G (Dasgupta et al., NeSy 2025) keeps a counterfactual inside the states that the user's causal
knowledge allows, and treats as free the changes that the causal rules explain.  The knowledge is
written by hand (see :mod:`mc3g.causal.parser` for the text format) or built here from Python.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from ..exceptions import InputError
from ..rules import Literal, Rule
from ..schema import Feature, Schema


@dataclass(frozen=True)
class Source:
    """Where a statement was written: file, line and column (1-based)."""

    file: str
    line: int
    column: int = 1

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True)
class FeatureSpec:
    """What a causal-knowledge file says about one feature; ``None`` means "as the data has it".

    ``targets`` restricts the values a counterfactual may move a categorical feature to (the
    person's own value may always stay); ``direction="any"`` lifts the data's increase-only or
    decrease-only.
    """

    name: str
    kind: str | None = None
    domain: tuple[str, ...] | None = None
    targets: tuple[str, ...] | None = None
    range: tuple[float, float] | None = None
    step: float | None = None
    immutable: bool | None = None
    consequence_only: bool | None = None
    direction: str | None = None
    weight: float | None = None
    must_change: bool | None = None
    source: Source | None = field(default=None, compare=False)

    def apply(self, base: Feature | None) -> Feature:
        """The feature with this spec's settings laid over ``base`` (the data's view of it)."""
        if base is None:
            if self.kind is None:
                where = f" ({self.source})" if self.source else ""
                raise InputError(f"feature {self.name!r}{where}: not in the data, so its kind (numeric or categorical) must be declared")
            base = Feature(self.name, self.kind)  # type: ignore[arg-type]
        changes: dict[str, Any] = {}
        for name in ("kind", "domain", "targets", "range", "step", "immutable", "consequence_only", "direction", "weight", "must_change"):
            value = getattr(self, name)
            if value is not None:
                changes[name] = None if (name, value) == ("direction", "any") else value
        if changes.get("kind", base.kind) != base.kind:  # re-declared kind: drop the data's bounds
            cleared = ("range", "step") if changes["kind"] == "categorical" else ("domain", "targets")
            for name in cleared:
                changes.setdefault(name, None)
        return replace(base, **changes)


@dataclass(frozen=True)
class CausalRule:
    """``effect <- cause``: when the cause holds, the effect can follow without the person acting.

    With ``constraint`` (the default) the rule also holds in every consistent state: cause
    implies effect.  ``sources`` gives where the effect and each cause literal were written.
    """

    effect: Literal
    cause: tuple[Literal, ...]
    constraint: bool = True
    source: Source | None = field(default=None, compare=False)
    comment: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "cause", tuple(self.cause))
        if not self.cause:
            raise InputError(f"causal rule for {self.effect}: the cause is empty")
        if any(lit.feature == self.effect.feature for lit in self.cause):
            raise InputError(f"causal rule {self}: the effect's feature {self.effect.feature!r} cannot also be in its cause")

    @property
    def rule(self) -> Rule:
        return Rule(self.effect, self.cause)

    @property
    def cause_features(self) -> list[str]:
        return list(dict.fromkeys(lit.feature for lit in self.cause))

    def __str__(self) -> str:
        text = f"{self.effect} <- {', '.join(str(c) for c in self.cause)}"
        return text if self.constraint else f"cause {text}"


@dataclass(frozen=True)
class Constraint:
    """``forbid l1, l2, ...``: no consistent state satisfies all the literals."""

    literals: tuple[Literal, ...]
    source: Source | None = field(default=None, compare=False)
    comment: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "literals", tuple(self.literals))
        if not self.literals:
            raise InputError("a constraint needs at least one literal")

    def __str__(self) -> str:
        return "forbid " + ", ".join(str(lit) for lit in self.literals)


@dataclass(frozen=True)
class CausalModel:
    """Feature specs, constraints and causal rules.  Build it from Python or parse a file."""

    features: tuple[FeatureSpec, ...] = ()
    rules: tuple[CausalRule, ...] = ()
    constraints: tuple[Constraint, ...] = ()
    name: str = "causal knowledge"

    def __post_init__(self) -> None:
        object.__setattr__(self, "features", tuple(self.features))
        object.__setattr__(self, "rules", tuple(self.rules))
        object.__setattr__(self, "constraints", tuple(self.constraints))
        seen: dict[str, FeatureSpec] = {}
        for spec in self.features:
            if spec.name in seen:
                raise InputError(f"feature {spec.name!r} is declared twice ({seen[spec.name].source} and {spec.source})")
            seen[spec.name] = spec

    # -- construction --------------------------------------------------------------------------
    @classmethod
    def parse(cls, text: str, file: str = "<string>", schema: Schema | None = None) -> CausalModel:
        """Read the text format; with ``schema``, features and values are checked against it."""
        from .parser import parse

        return parse(text, file=file, schema=schema)

    @classmethod
    def load(cls, path: Any, schema: Schema | None = None) -> CausalModel:
        from .parser import load

        return load(path, schema=schema)

    def merged(self, other: CausalModel) -> CausalModel:
        """Both models' statements; a feature declared in both takes ``other``'s settings."""
        mine = {s.name: s for s in self.features}
        for spec in other.features:
            mine[spec.name] = spec
        return CausalModel(tuple(mine.values()), self.rules + other.rules, self.constraints + other.constraints, self.name)

    # -- use -----------------------------------------------------------------------------------
    def spec(self, name: str) -> FeatureSpec | None:
        return next((s for s in self.features if s.name == name), None)

    def schema(self, base: Schema) -> Schema:
        """``base`` with this model's feature settings applied (and its new features added)."""
        features = [self.spec(f.name).apply(f) if self.spec(f.name) else f for f in base.features]  # type: ignore[union-attr]
        known = {f.name for f in base.features}
        features += [s.apply(None) for s in self.features if s.name not in known]
        return replace(base, features=tuple(features))

    def rules_for(self, feature: str) -> list[CausalRule]:
        return [r for r in self.rules if r.effect.feature == feature]

    @property
    def forbidden(self) -> list[tuple[Literal, ...]]:
        """Every combination no consistent state may have: the constraints, and ``cause and not
        effect`` for each causal rule that is also a constraint."""
        out = [c.literals for c in self.constraints]
        out += [r.cause + (r.effect.negated(),) for r in self.rules if r.constraint]
        return out

    @property
    def mentioned(self) -> list[str]:
        """Features that a rule or constraint reads, in order of first mention."""
        names: dict[str, None] = {}
        for r in self.rules:
            names.setdefault(r.effect.feature)
            for lit in r.cause:
                names.setdefault(lit.feature)
        for c in self.constraints:
            for lit in c.literals:
                names.setdefault(lit.feature)
        return list(names)

    def literals(self) -> Iterable[Literal]:
        for r in self.rules:
            yield r.effect
            yield from r.cause
        for c in self.constraints:
            yield from c.literals

    def to_text(self) -> str:
        from .printing import to_text

        return to_text(self)

    def to_asp(self) -> str:
        from .printing import to_asp

        return to_asp(self)
