"""Causal knowledge: per-feature settings, constraints and causal rules ``effect <- cause``.

MC3G (Dasgupta et al., NeSy 2025) keeps a counterfactual inside the states that the user's causal
knowledge allows, and treats as free the changes that the causal rules explain.  The knowledge is
written by hand (see :mod:`mc3g.causal.parser` for the text format) or built here from Python.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..exceptions import CausalSyntaxError
from ..rules import Literal
from ..schema import Schema
from .parser import read, read_file
from .printing import to_asp, to_text
from .statements import CausalRule, Constraint, Source, checked_settings

__all__ = ["CausalModel", "CausalRule", "Constraint", "Source", "load", "parse", "parse_all"]


@dataclass(frozen=True)
class CausalModel:
    """Per-feature settings, constraints and causal rules.  Build it from Python or parse a file.

    ``features`` maps a feature name to its settings, a mapping of :class:`~mc3g.schema.Feature`
    field -> value for the fields in :data:`~mc3g.causal.statements.DECLARABLE`; a field not
    given keeps the data's value, and ``direction="any"`` lifts the data's direction::

        CausalModel(features={"age": {"direction": "increase"}, "sex": {"immutable": False}})

    ``sources`` says where each feature was declared (for messages; not part of equality).
    """

    features: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    rules: tuple[CausalRule, ...] = ()
    constraints: tuple[Constraint, ...] = ()
    name: str = "causal knowledge"
    sources: Mapping[str, Source] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "features", checked_settings(self.features))
        object.__setattr__(self, "rules", tuple(self.rules))
        object.__setattr__(self, "constraints", tuple(self.constraints))
        object.__setattr__(self, "sources", dict(self.sources))

    # -- construction --------------------------------------------------------------------------
    @classmethod
    def parse(cls, text: str, file: str = "<string>", schema: Schema | None = None) -> CausalModel:
        """Read the text format; with ``schema``, features and values are checked against it."""
        return cls(**read(text, file, schema)._asdict())

    @classmethod
    def load(cls, path: str | Path, schema: Schema | None = None) -> CausalModel:
        """Read a UTF-8 causal-knowledge file; the model is named after the file."""
        path = Path(path)
        return replace(cls.parse(read_file(path), str(path), schema), name=path.stem)

    def combined(self, other: CausalModel, name: str | None = None) -> CausalModel:
        """This knowledge and ``other``'s: the rules and constraints of both, each once (a rule
        stated in both is one rule: a copy of shipped knowledge added to it changes nothing),
        feature settings laid over field by field (``other``'s win); named ``name`` (by default
        this model's name).  A user's file joins the knowledge shipped for a data set so."""
        features = {feature: dict(settings) for feature, settings in self.features.items()}
        for feature, settings in other.features.items():
            features.setdefault(feature, {}).update(settings)
        rules = tuple(dict.fromkeys(self.rules + other.rules))
        constraints = tuple(dict.fromkeys(self.constraints + other.constraints))
        return CausalModel(features, rules, constraints, self.name if name is None else name, {**self.sources, **other.sources})

    # -- use -----------------------------------------------------------------------------------
    def schema(self, base: Schema) -> Schema:
        """``base`` with this model's feature settings applied (and its new features added)."""
        return base.updated(self.features, where=self.sources)

    def rules_for(self, feature: str) -> list[CausalRule]:
        return [r for r in self.rules if r.effect.feature == feature]

    def rule(self, rule_id: str) -> CausalRule | None:
        """The causal rule an answer names by ``rule_id`` (:attr:`CausalRule.id`), or None."""
        return next((r for r in self.rules if r.id == rule_id), None)

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
        """The model in the text format; ``parse(model.to_text()) == model``."""
        return to_text(self)

    def to_asp(self) -> str:
        """The model as an s(CASP)-style program, for reading beside the decision rules."""
        return to_asp(self)


def parse(text: str, file: str = "<string>", schema: Schema | None = None) -> CausalModel:
    """Read causal knowledge; with ``schema``, every feature must be one of its features and every
    value fit the feature's kind and domain.  Raises :class:`~mc3g.exceptions.CausalSyntaxError`."""
    return CausalModel.parse(text, file, schema)


def load(path: str | Path, schema: Schema | None = None) -> CausalModel:
    """Read a UTF-8 causal-knowledge file; the model is named after the file."""
    return CausalModel.load(path, schema)


def parse_all(text: str, file: str = "<string>", schema: Schema | None = None) -> tuple[CausalModel, list[CausalSyntaxError]]:
    """Every problem of the text (in file order, not only the first) and the knowledge of the
    statements that have none: what ``mc3g check`` reports."""
    errors: list[CausalSyntaxError] = []
    parsed = read(text, file, schema, errors)
    return CausalModel(**parsed._asdict()), errors
