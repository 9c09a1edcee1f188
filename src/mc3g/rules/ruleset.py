"""A rule set: an ordered decision list over one label column.

A row gets the class of the first rule that covers it, else ``default``.  When every rule has the
same class (a binary FOLD-SE program) order does not matter and the rules are a disjunction.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..exceptions import InputError, UnknownNameError
from ..reading import loads
from ..serialization import check_header, header
from .render import PLAIN, Words, decision_list_asp, decision_list_english, explanation_text
from .rule import LiteralCheck, Rule, RuleTrace
from .table import Table

__all__ = ["Explanation", "LiteralCheck", "RuleSet", "RuleTrace"]

JSON_FORMAT = "mc3g.ruleset"
JSON_VERSION = 1


@dataclass(frozen=True)
class RuleSet:
    rules: tuple[Rule, ...]
    label: str
    default: str
    classes: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "rules", tuple(self.rules))
        for i, rule in enumerate(self.rules, 1):
            if rule.head is None or rule.head.feature != self.label or rule.head.op != "==":
                raise InputError(f"rule {i}: its head must be '{self.label} == <class>', not {rule.head}")
        if not self.classes:
            found = [self.default] + [str(r.head.value) for r in self.rules]  # type: ignore[union-attr]
            object.__setattr__(self, "classes", tuple(sorted(set(found))))

    # -- evaluation ---------------------------------------------------------------------------
    def first_rule(self, data: pd.DataFrame | Table | Mapping[str, Any]) -> np.ndarray:
        """Index of the first rule covering each row, -1 where none does."""
        table = _table(data, self.features)
        first = np.full(table.n_rows, -1, dtype=np.int64)
        for i, rule in enumerate(self.rules):
            open_rows = np.flatnonzero(first < 0)
            if not len(open_rows):
                break
            hit = rule.covers(table.take(open_rows))
            first[open_rows[hit]] = i
        return first

    def predict(self, data: pd.DataFrame | Table | Mapping[str, Any]) -> np.ndarray:
        first = self.first_rule(data)
        heads = np.array([str(r.head.value) for r in self.rules] + [self.default], dtype=object)  # type: ignore[union-attr]
        return heads[np.where(first >= 0, first, len(self.rules))]

    def covers(self, data: pd.DataFrame | Table | Mapping[str, Any]) -> np.ndarray:
        """Rows that some rule covers (for a binary rule set: rows of the rules' class)."""
        return self.first_rule(data) >= 0

    # -- structure -----------------------------------------------------------------------------
    @property
    def features(self) -> list[str]:
        seen: dict[str, None] = {}
        for rule in self.rules:
            for f in rule.features:
                seen.setdefault(f)
        return list(seen)

    @property
    def n_rules(self) -> int:
        return len(self.rules)

    @property
    def n_exceptions(self) -> int:
        return sum(r.count_exceptions() for r in self.rules)

    @property
    def n_literals(self) -> int:
        return sum(sum(1 for _ in r.literals()) for r in self.rules)

    def flattened(self) -> RuleSet:
        return RuleSet(tuple(r.flattened() for r in self.rules), self.label, self.default, self.classes)

    def __len__(self) -> int:
        return len(self.rules)

    def __iter__(self):
        return iter(self.rules)

    def __getitem__(self, i: int) -> Rule:
        return self.rules[i]

    # -- explanation ---------------------------------------------------------------------------
    def explain(self, row: pd.Series | Mapping[str, Any]) -> Explanation:
        """Which rule decided ``row``, or why each rule did not fire."""
        values = dict(row.items()) if isinstance(row, (pd.Series, Mapping)) else None
        if values is None:
            raise InputError("explain() takes one row: a pandas Series or a mapping of feature -> value")
        missing = [f for f in self.features if f not in values]
        if missing:
            raise UnknownNameError(f"the row lacks feature(s) {missing} that the rules read")
        traces = [rule.trace(values) for rule in self.rules]
        fired = next((i for i, t in enumerate(traces) if t.covered), None)
        label = str(self.rules[fired].head.value) if fired is not None else self.default  # type: ignore[union-attr]
        return Explanation(label, fired, tuple(traces), self)

    # -- serialisation -------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            **header(JSON_FORMAT, JSON_VERSION),
            "label": self.label,
            "default": self.default,
            "classes": list(self.classes),
            "rules": [r.to_dict() for r in self.rules],
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RuleSet:
        """A rule set from its JSON document; a document of another shape is an :class:`InputError`."""
        if not isinstance(data, Mapping):
            raise InputError(f"a rule set document is a JSON object, not {type(data).__name__}")
        check_header(data, JSON_FORMAT, JSON_VERSION, "rule set")
        try:
            return cls(
                tuple(Rule.from_dict(r) for r in data["rules"]),
                data["label"],
                data["default"],
                tuple(data.get("classes", ())),
            )
        except (KeyError, TypeError, AttributeError) as e:  # a part missing, or of the wrong kind
            shape = "'rules' (objects with 'head', 'body', 'exceptions'), 'label' and 'default'"
            raise InputError(f"a rule set document has {shape}: {type(e).__name__}: {e}") from None

    @classmethod
    def from_json(cls, text: str) -> RuleSet:
        try:
            data = loads(text)
        except json.JSONDecodeError as e:
            raise InputError(f"the rule set is not JSON: {e}") from None
        return cls.from_dict(data)

    def to_asp(self) -> str:
        return decision_list_asp(self.label, self.rules)

    def to_english(self, words: Words = PLAIN) -> str:
        """The decision list in English, with the labels of ``words`` (a schema's :meth:`~mc3g.schema.Schema.words`)."""
        return decision_list_english(self.label, self.rules, self.default, words)

    def __str__(self) -> str:
        return self.to_asp()


@dataclass(frozen=True)
class Explanation:
    label: str
    fired: int | None
    traces: tuple[RuleTrace, ...]
    ruleset: RuleSet

    def __str__(self) -> str:
        return explanation_text(self.ruleset.label, self.label, self.fired, self.traces)


def _table(data: pd.DataFrame | Table | Mapping[str, Any], needed: list[str]) -> Table:
    if isinstance(data, Table):
        table = data
    elif isinstance(data, pd.DataFrame):
        missing = [f for f in needed if f not in data.columns]
        if missing:
            raise UnknownNameError(f"the data lacks column(s) {missing} that the rules read")
        table = Table.from_frame(data[needed] if needed else data)
    else:
        table = Table.from_frame(data)
    missing = [f for f in needed if f not in table]
    if missing:
        raise UnknownNameError(f"the data lacks column(s) {missing} that the rules read")
    return table
