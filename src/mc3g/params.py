"""Parameters declared once: the kinds of value each accepts, and the one function that checks them.

In the manner of scikit-learn's ``_parameter_constraints`` (its checking is private to
scikit-learn, so this is mc3g's own): an estimator or a settings object declares a table,
parameter name -> the kinds of value it accepts, and :func:`validate` checks a mapping of
parameters against it (at ``fit``, as scikit-learn does).  A value passes when one of its kinds
accepts it; None in the list accepts None.  A refused value is one :class:`InputError` that names
the parameter, says what it accepts and shows the value given:
``k must be a whole number from 1 to 2000 (max_states = 2000: ...), not 0``.  Nothing here
imports the rest of mc3g but its errors and values, so every layer can declare its parameters.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import numpy as np

from .exceptions import InputError, UnknownNameError, quoted
from .values import suggest


class Kind(ABC):
    """One kind of value a parameter accepts."""

    @abstractmethod
    def fits(self, value: Any) -> bool:
        """Whether ``value`` has this kind's type (a whole number, text...), bounds aside."""

    def accepts(self, value: Any, params: Mapping[str, Any]) -> bool:
        """Whether ``value`` is accepted; ``params`` are all the parameters checked with it (a
        bound may be another's value)."""
        return self.fits(value)

    @abstractmethod
    def said(self, params: Mapping[str, Any]) -> str:
        """What it accepts, in words: ``a whole number from 1 to 2000``."""

    def note(self, value: Any, params: Mapping[str, Any]) -> str:
        """What a refusal of ``value`` adds after it: a name near a misspelt one."""
        return ""


Constraints = Mapping[str, Sequence[Kind | None]]
"""Parameter name -> the kinds of value it accepts (None: None is accepted)."""


def _is_whole(value: Any) -> bool:
    return isinstance(value, (Integral, np.integer)) and not isinstance(value, (bool, np.bool_))


def _bound(x: float) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


@dataclass(frozen=True)
class Whole(Kind):
    """A whole number from ``low`` to ``high`` (None: unbounded).  ``high`` may name a parameter
    checked before this one, whose value is the bound; ``because`` says what the bounds mean or
    where they come from."""

    low: int | None = None
    high: int | str | None = None
    because: str = ""

    def fits(self, value: Any) -> bool:
        return _is_whole(value)

    def accepts(self, value: Any, params: Mapping[str, Any]) -> bool:
        high = self._high(params)
        return _is_whole(value) and (self.low is None or value >= self.low) and (high is None or value <= high)

    def _high(self, params: Mapping[str, Any]) -> int | None:
        return params[self.high] if isinstance(self.high, str) else self.high

    def said(self, params: Mapping[str, Any]) -> str:
        low, high = self.low, self._high(params)
        if low is not None and high is not None:
            bounds = f" from {low} to {high}"
        else:
            bounds = f" at least {low}" if low is not None else f" at most {high}" if high is not None else ""
        because = f"{self.high} = {high}: {self.because}" if isinstance(self.high, str) else self.because
        return f"a whole number{bounds}" + (f" ({because})" if because else "")


@dataclass(frozen=True)
class Number(Kind):
    """A finite real number between ``low`` and ``high`` (None: unbounded), each bound inside or
    not as ``closed`` says: ``both``, ``left``, ``right`` or ``neither``; ``of`` names its unit."""

    low: float | None = None
    high: float | None = None
    closed: str = "both"
    of: str = ""

    def fits(self, value: Any) -> bool:
        return isinstance(value, (Real, np.floating, np.integer)) and not isinstance(value, (bool, np.bool_)) and math.isfinite(float(value))

    def accepts(self, value: Any, params: Mapping[str, Any]) -> bool:
        if not self.fits(value):
            return False
        left, right = self.closed in ("both", "left"), self.closed in ("both", "right")
        above = self.low is None or (value >= self.low if left else value > self.low)
        below = self.high is None or (value <= self.high if right else value < self.high)
        return above and below

    def said(self, params: Mapping[str, Any]) -> str:
        left, right = self.closed in ("both", "left"), self.closed in ("both", "right")
        number = f"a number of {self.of}" if self.of else "a number"
        if self.low is not None and self.high is not None:
            return f"{number} in {'[' if left else '('}{_bound(self.low)}, {_bound(self.high)}{']' if right else ')'}"
        if self.low is not None:
            return f"{number} {'at least' if left else 'above'} {_bound(self.low)}"
        if self.high is not None:
            return f"{number} {'at most' if right else 'below'} {_bound(self.high)}"
        return "a finite " + number.removeprefix("a ")


@dataclass(frozen=True)
class OneOf(Kind):
    """One of the names ``choices`` (text)."""

    choices: tuple[str, ...]

    def fits(self, value: Any) -> bool:
        return isinstance(value, str)

    def accepts(self, value: Any, params: Mapping[str, Any]) -> bool:
        return isinstance(value, str) and value in self.choices

    def said(self, params: Mapping[str, Any]) -> str:
        names = [repr(str(c)) for c in self.choices]
        return "one of " + (" or ".join(names) if len(names) < 3 else ", ".join(names[:-1]) + " or " + names[-1])

    def note(self, value: Any, params: Mapping[str, Any]) -> str:
        return suggest(value, [str(c) for c in self.choices]) if isinstance(value, str) else ""


@dataclass(frozen=True)
class Flag(Kind):
    """True or False."""

    def fits(self, value: Any) -> bool:
        return isinstance(value, (bool, np.bool_))

    def said(self, params: Mapping[str, Any]) -> str:
        return "True or False"


@dataclass(frozen=True)
class Text(Kind):
    """Text (a name, a label, a path), said as ``what``."""

    what: str = "text"

    def fits(self, value: Any) -> bool:
        return isinstance(value, str)

    def said(self, params: Mapping[str, Any]) -> str:
        return self.what


@dataclass(frozen=True)
class Texts(Kind):
    """A list (or tuple, set) of text, said as ``what``: names of features, of types."""

    what: str = "a list of text"

    def fits(self, value: Any) -> bool:
        return isinstance(value, (list, tuple, set, frozenset)) and all(isinstance(v, str) for v in value)

    def said(self, params: Mapping[str, Any]) -> str:
        return self.what


@dataclass(frozen=True)
class Instance(Kind):
    """An instance of ``types``, said as ``what`` (``a CausalModel or a path``)."""

    types: type | tuple[type, ...]
    what: str

    def fits(self, value: Any) -> bool:
        return isinstance(value, self.types)

    def said(self, params: Mapping[str, Any]) -> str:
        return self.what


@dataclass(frozen=True)
class Free(Kind):
    """Anything here; ``what`` says what is meant and where it is checked (against the data, at
    ``fit``): scikit-learn's ``no_validation``."""

    what: str

    def fits(self, value: Any) -> bool:
        return True

    def said(self, params: Mapping[str, Any]) -> str:
        return self.what


def validate(params: Mapping[str, Any], table: Constraints, where: str = "") -> None:
    """Check each parameter of ``table`` that ``params`` holds, in the table's order (a bound
    may name a parameter declared before it); a parameter the table does not declare is not
    looked at.  The first refused one is one :class:`InputError` (an
    :class:`UnknownNameError` for a name none of its choices has), its message starting with
    ``where`` (``[service] ``)."""
    for name, kinds in table.items():
        if name not in params:
            continue
        value = params[name]
        if not any(value is None if kind is None else kind.accepts(value, params) for kind in kinds):
            raise refusal(name, value, kinds, params, where)


def refusal(name: str, value: Any, kinds: Iterable[Kind | None], params: Mapping[str, Any], where: str = "") -> InputError:
    """The error for ``value`` of parameter ``name``, which none of ``kinds`` accepts."""
    kinds = list(kinds)
    said = [kind.said(params) for kind in kinds if kind is not None]
    accepts = " or ".join(said) + (", or None" if None in kinds else "")
    fitting = [kind for kind in kinds if kind is not None and kind.fits(value)]
    plain = value.item() if isinstance(value, np.generic) else value
    typed = type(value).__name__
    shown = quoted(plain) if fitting or value is None else f"{quoted(plain)} ({'an' if typed[0] in 'aeiou' else 'a'} {typed})"
    notes = "".join(kind.note(value, params) for kind in fitting)
    error = UnknownNameError if fitting and all(isinstance(kind, OneOf) for kind in fitting) else InputError
    return error(f"{where}{name} must be {accepts}, not {shown}{notes}")


def whole(value: Any, name: str, low: int, high: int | None = None, because: str = "") -> int:
    """``value`` as an int when it is a whole number from ``low`` to ``high``, else the
    :class:`InputError` of :func:`validate`: for a bound known only where the value is used (the
    cores of this machine)."""
    validate({name: value}, {name: [Whole(low, high, because)]})
    return int(value)
