"""What mc3g accepts as a number or a category, checked where users hand values in.

Every entrance (a person's row, training data, a data file, causal knowledge, rules) asks these
checks (what a parameter accepts is declared in :mod:`mc3g.params`), so a value is refused for
the same reasons everywhere, with a message that says where the value was, what it is and why
it is refused.  Nothing here imports the rest of
mc3g, so the schema, the rules and the parsers can all use it.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Collection, Iterable, Mapping
from numbers import Integral, Real
from typing import Any

import numpy as np
import pandas as pd

from .exceptions import InputError, listed, quoted

LARGEST = 1e15
"""The largest magnitude of any number mc3g takes in.  A float holds every decimal of 15
significant digits exactly, so up to here whole numbers, steps of 1 and the search's grid keep
their meaning; past it a float rounds them together, and sums of squares start to overflow."""

TOO_LARGE = f"beyond ±{LARGEST:.0e}, the largest magnitude mc3g takes (a float holds 15 digits exactly)"

MISSING_MARKS = ("?", "")
"""Text that marks a missing cell (as UCI files write it), besides None and NaN."""


def plain(value: Any) -> Any:
    """A value as JSON and the search write it: a NumPy scalar as Python's, a whole number as an
    int (38.0 is 38), another number as a float, anything else (text, a flag) as it is."""
    value = value.item() if isinstance(value, np.generic) else value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    return int(value) if float(value).is_integer() else float(value)


def plains(numbers: np.ndarray) -> list[int | float]:
    """:func:`plain` of each of an array of numbers, at once (training values come in thousands)."""
    return [int(v) if v.is_integer() else v for v in np.asarray(numbers, dtype=np.float64).tolist()]


def show(value: Any) -> str:
    """A value for people: thousands separators, no needless decimals, categories as written."""
    value = value.item() if isinstance(value, np.generic) else value
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, (int, float)) and math.isfinite(value):
        if float(value).is_integer():
            return f"{int(value):,}"
        return f"{value:,.4f}".rstrip("0").rstrip(".")
    return str(value)


MOST_WORDS = 200
"""The most characters of a label: a feature's or a value's name in words."""


def words(text: Any, where: str) -> str:
    """``text`` as a label a sentence can hold: text of 1 to :data:`MOST_WORDS` characters, not
    blank, without line breaks or other control characters.  Else an :class:`InputError`."""
    if not isinstance(text, str):
        raise InputError(f"{where} must be text, not {quoted(text)}")
    if not text.strip() or len(text) > MOST_WORDS or any(not c.isprintable() for c in text):
        raise InputError(f"{where} must be 1 to {MOST_WORDS} printable characters on one line, not {quoted(text)}")
    return text


def suggest(word: str, candidates: Iterable[str]) -> str:
    """A "did you mean" hint for a misspelt name or value, or ''."""
    close = difflib.get_close_matches(word, list(candidates), n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def is_missing(value: Any) -> bool:
    """None, NaN or pandas' NA: a cell with no value."""
    return value is None or value is pd.NA or (isinstance(value, (float, np.floating)) and math.isnan(value))


def number(value: Any, where: str) -> int | float:
    """``value`` as a plain number (an int when it is whole, else a float), finite and of
    magnitude at most :data:`LARGEST`; text that spells such a number counts.  Anything else is
    an :class:`InputError` "``where`` is ..." that says what the value is (``where`` names it:
    ``"row 3: feature 'age'"``)."""
    converted, problem = _converted(value)
    if problem:
        raise InputError(f"{where} is {problem}")
    return converted


def _converted(value: Any) -> tuple[int | float, str]:
    """The number and '', or 0 and what is wrong with ``value`` ("'abc', not a number")."""
    value = value.item() if isinstance(value, np.generic) else value  # numpy's scalars, shown as plain ones
    if isinstance(value, (bool, np.bool_)):
        return 0, f"{value!r}, a truth value, not a number"
    if is_missing(value):
        return 0, f"missing ({value!r}); it needs a number: fill it in, or leave the row out"
    if isinstance(value, (Integral, np.integer)):
        converted: float = int(value)
    elif isinstance(value, str):
        try:
            converted = float(value) if "_" not in value else math.nan  # '_' separates no digits in data
        except ValueError:
            converted = math.nan
        if math.isnan(converted):
            return 0, f"{value!r}, not a number"
    elif isinstance(value, (Real, np.floating)):
        converted = float(value)
    else:
        return 0, f"{value!r} (a {type(value).__name__}), not a number"
    if isinstance(converted, float) and not math.isfinite(converted):
        return 0, f"{value!r}, not a finite number"
    if abs(converted) > LARGEST:
        return 0, f"{_short(converted)}, {TOO_LARGE}"
    return (int(converted) if float(converted).is_integer() else converted), ""


def first_non_number(column: pd.Series, missing_ok: bool = False) -> tuple[Any, str] | None:
    """The label of the first cell of ``column`` that :func:`number` refuses, and what is wrong
    with it; None when every cell is a number (or, with ``missing_ok``, missing: None, NaN or a
    mark of :data:`MISSING_MARKS`).  Vectorised: only the cells pandas cannot read as plain
    numbers are looked at one by one."""
    values = column.to_numpy()
    if values.dtype.kind in "iu":
        bad = np.abs(values) > LARGEST
    elif values.dtype.kind == "f":
        bad = ~np.isfinite(values) | (np.abs(np.nan_to_num(values)) > LARGEST)
        if missing_ok:
            bad &= ~np.isnan(values)
    else:  # cells of any kind: pandas reads the plain numbers, the rest are looked at one by one
        numbers = pd.to_numeric(pd.Series(values, dtype=object), errors="coerce").to_numpy(np.float64)
        truth = np.fromiter((isinstance(v, (bool, np.bool_)) for v in values), dtype=bool, count=len(values))
        suspect = np.flatnonzero(~np.isfinite(numbers) | (np.abs(np.nan_to_num(numbers)) > LARGEST) | truth)
        bad = np.zeros(len(values), dtype=bool)
        for i in suspect:
            v = values[i]
            bad[i] = bool(_converted(v)[1]) and not (missing_ok and (is_missing(v) or (isinstance(v, str) and v in MISSING_MARKS)))
    if not bad.any():
        return None
    at = int(np.flatnonzero(bad)[0])
    return column.index[at], _converted(values[at])[1]


def _short(x: float) -> str:
    """A huge number as people can read it (an int too large for a float included)."""
    if isinstance(x, int) and abs(x) >= 1e300:
        return f"a whole number of {len(str(abs(x)))} digits"
    return f"{x:.6g}"


def check_grid(name: str, step: float, magnitude: float) -> None:
    """Refuse a ``step`` so fine that values up to ``magnitude`` lie more than :data:`LARGEST`
    steps from zero: a float could no longer keep neighbouring points of the grid apart, and the
    search, which moves a value just past a threshold by one step, would silently land on it."""
    if magnitude / step > LARGEST:
        raise InputError(
            f"feature {name!r}: step {step:g} is too fine for values as large as {magnitude:g}: "
            f"a float cannot keep {magnitude / step:.3g} steps apart (at most {LARGEST:.0e}); use a coarser step"
        )


def category(value: Any, canonical: str, domain: Collection[str] | None, where: str) -> str:
    """``canonical`` (the token of ``value``) when it is one of ``domain`` (None: any); a missing
    value or one outside the domain is an :class:`InputError` naming the known values."""
    problem = category_problem(value, canonical, domain)
    if problem:
        raise InputError(f"{where} is {problem}")
    return canonical


def category_problem(value: Any, canonical: str, domain: Collection[str] | None) -> str:
    """What is wrong with ``value`` (of token ``canonical``) as a category of ``domain``, or ''."""
    if is_missing(value):
        return f"missing ({quoted(value)}); it needs one of its values" + _listed(domain)
    if domain is not None and canonical not in domain:
        return f"{quoted(value)}, not one of its values" + _listed(domain) + suggest(canonical, domain)
    return ""


def _listed(domain: Collection[str] | None) -> str:
    return "" if domain is None else f" ({listed(sorted(domain))})"


def stray_text(column: pd.Series) -> tuple[Any, Any] | None:
    """The label and value of the first text cell of a column that otherwise holds numbers (a
    numeric column with a typo), or None.  Missing marks do not count: numbers with '?' are a
    numeric column with gaps.  Only a column of Python objects can mix them, so others cost
    nothing."""
    if column.dtype != object or pd.api.types.infer_dtype(column, skipna=True) not in ("mixed", "mixed-integer"):
        return None
    values = column.to_numpy()
    is_number = np.array([isinstance(v, (Real, np.number)) and not isinstance(v, (bool, np.bool_)) for v in values], dtype=bool)
    is_text = np.array([isinstance(v, str) and v not in MISSING_MARKS for v in values], dtype=bool)
    if not (is_number.any() and is_text.any()):
        return None
    at = int(np.flatnonzero(is_text)[0])
    return column.index[at], values[at]


def checked_labels(where: str, numeric: bool, domain: Collection[str] | None, value_labels: Any) -> tuple[tuple[str | float, str], ...]:
    """A feature's value labels (a mapping, or (value, label) pairs) as pairs of a value and words a
    sentence can hold: numbers for a numeric feature, values of ``domain`` for a category, each
    value once.  Else an :class:`InputError` starting with ``where``."""
    pairs = list(value_labels.items()) if isinstance(value_labels, Mapping) else list(value_labels)
    labelled: dict[str | float, str] = {}
    for pair in pairs:
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise InputError(f"{where}: value labels pair a value with its label, not {pair!r}")
        value, label = pair
        if numeric:
            value = number(value, f"{where}: a labelled value")
        elif not isinstance(value, str):  # a category's value is text: 2 (or 2.0) labels '2'
            value = number(value, f"{where}: a labelled value")
            value = str(int(value)) if float(value).is_integer() else str(value)
        if not numeric and domain is not None and value not in domain:
            raise InputError(f"{where}: {value!r} is labelled but is not one of its values {list(domain)}")
        if value in labelled:
            raise InputError(f"{where}: the value {value!r} is labelled twice")
        labelled[value] = words(label, f"{where}: the label of {value!r}")
    return tuple(labelled.items())
