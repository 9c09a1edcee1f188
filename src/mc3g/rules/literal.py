"""Literals: one condition on one feature.

The same literal serves a learned decision rule (``capital_gain <= 6849``), a causal rule's cause
or effect (``debt == 'none'``) and the counterfactual search.  The comparison ``> v`` is the exact
complement of ``<= v`` (FOLD-SE's refined operator, Wang & Gupta, PADL 2024): a cell that is not a
number satisfies ``> v`` and ``>= v`` but never ``< v`` or ``<= v``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..exceptions import InputError
from ..values import number
from .table import Column, token

Number = int | float
Value = str | Number | tuple

NUMERIC_OPS = ("<", "<=", ">", ">=")
TOKEN_OPS = ("==", "!=", "in", "not in")
OPS = NUMERIC_OPS + TOKEN_OPS
NEGATION = {"==": "!=", "!=": "==", "in": "not in", "not in": "in", "<=": ">", ">": "<=", "<": ">=", ">=": "<"}


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))


@dataclass(frozen=True)
class Literal:
    """``feature op value``.  ``value`` is a number for ``<``/``<=``/``>``/``>=``, a token (str)
    or a number for ``==``/``!=``, and a sorted tuple of tokens or numbers for ``in``/``not in``."""

    feature: str
    op: str
    value: Value

    def __post_init__(self) -> None:
        if self.op not in OPS:
            raise InputError(f"literal on {self.feature!r}: unknown operator {self.op!r}; use one of {list(OPS)}")
        v = self.value
        if self.op in NUMERIC_OPS:
            if not _is_number(v):
                raise InputError(f"literal {self.feature} {self.op} {v!r}: the value must be a number")
            object.__setattr__(self, "value", self._number(v))
        elif self.op in ("in", "not in"):
            if isinstance(v, (str, bytes)) or not hasattr(v, "__iter__"):
                raise InputError(f"literal {self.feature} {self.op} {v!r}: the value must be a set of values")
            items = tuple(self._number(x) if _is_number(x) else str(x) for x in v)
            if not items:
                raise InputError(f"literal {self.feature} {self.op} {{}}: the set is empty")
            object.__setattr__(self, "value", tuple(sorted(set(items), key=_sort_key)))
        elif _is_number(v):
            object.__setattr__(self, "value", self._number(v))
        elif not isinstance(v, str):
            raise InputError(f"literal {self.feature} {self.op} {v!r}: the value must be a string or a number")

    def _number(self, v: Any) -> Number:
        """A number of the literal, finite and no larger than mc3g takes."""
        number(v, f"literal on {self.feature!r} ({self.op}): the number")
        return _plain_number(v)

    @property
    def is_numeric(self) -> bool:
        """True when the literal compares numbers (an order or an equality with a number)."""
        if self.op in NUMERIC_OPS:
            return True
        if self.op in ("in", "not in"):
            return all(_is_number(x) for x in self.value)  # type: ignore[union-attr]
        return _is_number(self.value)

    def negated(self) -> Literal:
        """The exact complement: every cell satisfies exactly one of a literal and its negation."""
        return Literal(self.feature, NEGATION[self.op], self.value)

    def mask(self, column: Column) -> np.ndarray:
        """Which cells of ``column`` satisfy the literal."""
        op, v = self.op, self.value
        if op in NUMERIC_OPS:
            x = column.numbers
            with np.errstate(invalid="ignore"):
                if op == "<=":
                    return x <= v
                if op == "<":
                    return x < v
                if op == ">":
                    return ~(x <= v)
                return ~(x < v)
        values = v if op in ("in", "not in") else (v,)
        hit = np.zeros(len(column), dtype=bool)
        for item in values:  # type: ignore[union-attr]
            if _is_number(item):
                hit |= column.numbers == item
            else:
                code = column.code(item)
                if code >= 0:
                    hit |= column.codes == code
        return hit if op in ("==", "in") else ~hit

    def holds(self, value: Any) -> bool:
        """Whether a single cell satisfies the literal."""
        return bool(self.mask(Column.from_values(np.array([value], dtype=object)))[0])

    def __str__(self) -> str:
        return f"{self.feature} {self.op} {format_value(self.value)}"

    def to_dict(self) -> dict[str, Any]:
        v = list(self.value) if isinstance(self.value, tuple) else self.value
        return {"feature": self.feature, "op": self.op, "value": v}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Literal:
        try:
            return cls(data["feature"], data["op"], data["value"])
        except KeyError as e:
            raise InputError(f"a literal needs 'feature', 'op' and 'value'; {data!r} lacks {e.args[0]!r}") from None


def _plain_number(v: Any) -> Number:
    """Numbers as plain int or float, so equality, hashing and JSON behave the same everywhere."""
    if isinstance(v, (int, np.integer)):
        return int(v)
    f = float(v)
    return f


def _sort_key(v: Any) -> tuple[int, Any]:
    return (0, v, "") if _is_number(v) else (1, 0, v)


def format_value(v: Value) -> str:
    """A value as people read it: numbers without a needless '.0', tokens quoted, sets in braces."""
    if isinstance(v, tuple):
        return "{" + ", ".join(format_value(x) for x in v) + "}"
    if _is_number(v):
        return token(v)
    return repr(v)
