"""The statements of causal knowledge: where one was written, causal rules and constraints, and
the per-feature settings a file may give.

MC3G (Dasgupta et al., NeSy 2025) keeps a counterfactual inside the states that the user's causal
knowledge allows, and treats as free the changes that the causal rules explain.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..exceptions import InputError, quoted
from ..rules import Literal
from ..values import words

DECLARABLE = (
    "kind", "domain", "targets", "moves", "unknown", "range", "valid", "step", "immutable", "protected", "consequence_only", "direction", "max_change",
    "weight", "must_change", "efforts", "waits", "label", "value_labels",
)  # fmt: skip
"""The :class:`~mc3g.schema.Feature` fields that causal knowledge may set for a feature (the ones
the text format can state).  ``direction`` may also be ``"any"``: it lifts the data's direction;
``value_labels`` (value -> words) are laid over the data's value by value."""


@dataclass(frozen=True)
class Source:
    """Where a statement was written: file, line and column (1-based)."""

    file: str
    line: int
    column: int = 1

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


def checked_settings(features: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """A plain copy of per-feature settings (name -> field -> value), without the fields set to
    ``None`` (``None`` means "as the data has it").  Raises :class:`InputError` on a field the
    causal knowledge cannot set."""
    out: dict[str, dict[str, Any]] = {}
    for name, settings in features.items():
        if not isinstance(name, str) or not isinstance(settings, Mapping):
            raise InputError(f"feature settings map a feature name to a mapping of field -> value, not {name!r} -> {settings!r}")
        unknown = [k for k in settings if k not in DECLARABLE]
        if unknown:
            raise InputError(f"feature {name!r}: causal knowledge cannot set {unknown}; it sets {list(DECLARABLE)}")
        out[name] = {k: v for k, v in settings.items() if v is not None}
        if contradicts(out[name]):
            raise InputError(f"feature {name!r} is {contradicts(out[name])}")
        if "label" in out[name]:
            words(out[name]["label"], f"feature {name!r}: the label")
        if "moves" in out[name]:
            out[name]["moves"] = _moves(name, out[name]["moves"])
        if "value_labels" in out[name]:
            out[name]["value_labels"] = _labels(name, out[name]["value_labels"])
    return out


def contradicts(settings: Mapping[str, Any]) -> str | None:
    """What is wrong with a feature both immutable and must-change, or None."""
    if settings.get("immutable") and settings.get("must_change"):
        return "immutable and must-change: no state could keep both (every person would have no option)"
    return None


def _moves(name: str, moves: Any) -> tuple[tuple[str, str], ...]:
    """Moves as sorted distinct (from, to) pairs (given as pairs, or as a mapping from -> to)."""
    try:
        pairs = {(a, b) for a, b in (moves.items() if isinstance(moves, Mapping) else moves)}
    except (TypeError, ValueError):
        raise InputError(f"feature {name!r}: moves are (from, to) pairs of values, not {quoted(moves)}") from None
    return tuple(sorted(pairs, key=lambda pair: (str(pair[0]), str(pair[1]))))


def _labels(name: str, labels: Any) -> dict[Any, str]:
    """Value labels as a mapping value -> words (given as one, or as pairs)."""
    try:
        pairs = dict(labels.items() if isinstance(labels, Mapping) else labels)
    except (TypeError, ValueError):
        raise InputError(f"feature {name!r}: value_labels map a value to its words, not {quoted(labels)}") from None
    return {value: words(said, f"feature {name!r}: the label of {value!r}") for value, said in pairs.items()}


@dataclass(frozen=True)
class CausalRule:
    """``effect <- cause``: when the cause holds, the effect can follow without the person acting.

    With ``constraint`` (the default) the rule also holds in every consistent state: cause
    implies effect.  ``source`` gives where the rule was written.
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
    def cause_features(self) -> list[str]:
        return list(dict.fromkeys(lit.feature for lit in self.cause))

    @property
    def id(self) -> str:
        """A stable name of the rule: 12 hexadecimal digits of the SHA-256 of what it says (its
        effect, its causes in any order, whether it is a constraint), the same in every process
        and version, whatever its comment, its place in a file or the words it is shown in.  An
        answer's caused change names its rule by it."""
        said = [_said(self.effect), sorted(_said(lit) for lit in self.cause), self.constraint]
        return hashlib.sha256(json.dumps(said, separators=(",", ":")).encode("utf-8")).hexdigest()[:12]

    def __str__(self) -> str:
        text = f"{self.effect} <- {', '.join(str(c) for c in self.cause)}"
        return text if self.constraint else f"cause {text}"


def _said(lit: Literal) -> list[Any]:
    """A literal as plain data with its numbers as floats, so ``620`` and ``620.0`` say the same."""
    values = lit.value if isinstance(lit.value, tuple) else (lit.value,)
    return [lit.feature, lit.op, [["n", float(v)] if not isinstance(v, str) else ["t", v] for v in values]]


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
