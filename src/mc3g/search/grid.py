"""A number's grid and the values it may take between its bounds.

A numeric feature moves on the grid of its ``step`` (its resolution: 1 for whole numbers), its
values taken as the decimals they are written as, so every comparison on the grid is exact.  A
:class:`Domain` is what a number may take for one person: the grid points within its bounds, or
only its training values (``plausible``).  Where a model's score is linear in a number, one
candidate value stands for the values after it, up to the next candidate away from the person's
own (:meth:`Domain.spans`), the candidates twice as far from it each (:meth:`Domain.doubling`):
the search bounds what such an interval can score, and splits it where that bound is not met
(:mod:`.score`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ..values import plains


def person_step(step: float | None, seen: np.ndarray | None, original: float) -> float:
    """A number's grid step in one person's problem: the schema's ``step``, or the finest decimal
    its training values ``seen`` use (the person's own value where none were read)."""
    return step or infer_step(np.array([original]) if seen is None else seen)


def infer_step(values: Iterable[float]) -> float:
    """The resolution of a numeric column: 1 for integers, else the finest decimal it uses."""
    numbers = np.asarray([v for v in values if v is not None and math.isfinite(v)], dtype=np.float64)
    for digits in range(0, 7):
        scaled = numbers * 10**digits
        if np.all(np.abs(scaled - np.round(scaled)) < 1e-6):
            return 10.0**-digits
    return 1e-6


@functools.lru_cache(maxsize=1 << 16)  # steps, thresholds and a person's values recur across people
def decimal(x: float) -> Fraction:
    """A number as the decimal it was written as (its shortest repr): 0.1 is 1/10, not the binary
    fraction nearest to it.  The grid is computed in these exact terms, so a threshold that sits on
    a grid point is found on it, however many steps from zero it is."""
    return Fraction(repr(float(x))) if not isinstance(x, int) else Fraction(x)


@functools.lru_cache(maxsize=1 << 16)  # a feature's cells and candidates recur across people
def units(x: float, step: float) -> Fraction:
    """``x`` in steps, exactly."""
    return decimal(x) / decimal(step)


def grid_value(k: int, step: float) -> float | int:
    """Grid point ``k`` as a number: the float nearest the exact decimal (an int for whole steps)."""
    if float(step).is_integer():
        return k * int(step)
    return float(k * decimal(step))


@dataclass(frozen=True, eq=False)
class Domain:
    """The values a number may take for one person: the grid of ``step`` within [``lo``, ``hi``],
    or only ``seen`` (sorted training values within them)."""

    step: float
    lo: float
    hi: float
    seen: np.ndarray | None = None

    def nearest(self, x: float, toward: float) -> Any | None:
        """The value nearest ``x`` on the way to ``toward`` (``x`` itself if it is one), or None."""
        if self.seen is not None:
            inside = self.seen[(self.seen >= min(x, toward)) & (self.seen <= max(x, toward))]
            return None if not len(inside) else plains(inside[:1] if toward >= x else inside[-1:])[0]
        k = math.ceil(units(x, self.step)) if toward >= x else math.floor(units(x, self.step))
        value = grid_value(k, self.step)
        return value if min(x, toward) <= value <= max(x, toward) and self.lo <= value <= self.hi else None

    def doubling(self, original: float) -> list[Any]:
        """Values on either side of the person's own: the nearest, then each twice as far from
        it as the last (one step, two, four, ...), and the bound: an interval between two of
        them gains at most about twice what its first value does, so few intervals of a linear
        score pass its bound."""
        out: list[Any] = []
        for end in (self.lo, self.hi):
            first = self._beyond(original, end)
            if first is None:
                continue
            out.append(first)
            distance, sign = float(self.step), 1.0 if end > original else -1.0
            while abs(end - first) > distance:
                point = self.nearest(first + sign * distance, end)
                if point is not None:
                    out.append(point)
                distance *= 2
            out.append(self.nearest(end, first))
        return [v for v in out if v is not None]

    def _beyond(self, x: float, toward: float) -> Any | None:
        """The first value past ``x`` (not ``x`` itself) on the way to ``toward``."""
        up = toward > x
        if self.seen is not None:
            inside = self.seen[(self.seen > x) & (self.seen <= toward)] if up else self.seen[(self.seen < x) & (self.seen >= toward)]
            return None if not len(inside) else plains(inside[:1] if up else inside[-1:])[0]
        k = units(x, self.step)
        value = grid_value(math.floor(k) + 1 if up else math.ceil(k) - 1, self.step)
        return value if (x < value <= toward if up else toward <= value < x) and self.lo <= value <= self.hi else None

    def spans(self, values: Sequence[Any]) -> tuple[Any, ...]:
        """For each candidate (``values``, the person's own first): the farthest value it stands
        for, up to the next candidate away from the person's own or the bound (the person's own
        stands for itself)."""
        original = values[0]
        ups = sorted(v for v in values[1:] if v > original)
        downs = sorted((v for v in values[1:] if v < original), reverse=True)
        after = {v: w for side in (ups, downs) for v, w in zip(side, side[1:])}
        out: list[Any] = [original]
        for v in values[1:]:
            bound = self.hi if v > original else self.lo
            far = self._before(after[v], v) if v in after else self.nearest(bound, v)
            out.append(v if far is None else far)
        return tuple(out)

    def _before(self, end: Any, v: Any) -> Any | None:
        """The value nearest ``end`` on the way back to ``v``, not ``end`` itself."""
        up = end > v
        if self.seen is not None:
            inside = self.seen[(self.seen >= v) & (self.seen < end)] if up else self.seen[(self.seen > end) & (self.seen <= v)]
            return None if not len(inside) else plains(inside[-1:] if up else inside[:1])[0]
        k = units(end, self.step)
        value = grid_value(math.ceil(k) - 1 if up else math.floor(k) + 1, self.step)
        return value if (v <= value < end if up else end < value <= v) else None

    def following(self, v: Any, far: Any, n: int) -> list[Any]:
        """Up to ``n`` values after ``v`` on the way to ``far``."""
        if self.seen is None:
            k, sign = units(v, self.step), 1 if far > v else -1
            if k.denominator != 1:
                return []
            return [w for i in range(1, n + 1) if (far - (w := grid_value(int(k) + sign * i, self.step))) * sign >= 0]
        seen = self.seen[(self.seen >= min(v, far)) & (self.seen <= max(v, far)) & (self.seen != v)]
        return plains(seen[:n] if far > v else seen[::-1][:n])
