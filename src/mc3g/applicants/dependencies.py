"""Dependencies between columns, found in a file of applicants: implications that hold in
(nearly) every row with enough support, such as "a Husband or a Wife is married" on adult.

They are proposed, never decided.  Which way cause and effect run (and whether it is a fact of
the world or of the sample) is for a person to say, so each is written as a constraint, the
combination no consistent state may have: ``forbid relationship in {Husband, Wife},
marital_status not in {Married-AF-spouse, Married-civ-spouse}``.

How they are found, in one pass over each pair of columns (a 30,000-row file of 15 columns takes
a few tens of milliseconds):

- **Between categories.**  For each value ``a`` of a column A with enough rows, the values ``b``
  of another column B that (almost) never occur with it although, were A and B unrelated, many
  rows would have them (a cell of the cross-table that is near empty and far below its expected
  count).  ``A == a`` then implies ``B`` keeps away from those values.  The values of A with the
  same such set join in one statement, and a statement found from both sides is written once.
- **A category and a number.**  The range of a number among the rows of one category, when it
  leaves out a good share of the file's values and holds in every row (``education ==
  Bachelors`` implies ``education_num == 13``).
- **Numbers as conditions are left out**: a threshold that implies a category (``age < 20``
  implies never married) is a correlation far more often than a fact, and binning numbers would
  make up the thresholds.  Columns with more than :data:`MOST_VALUES` values (identifiers, free
  text) are left out too.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..causal import Constraint
from ..rules import Column, Literal

MIN_SUPPORT = 0.01  # a condition must hold in at least this share of the rows ...
MIN_ROWS = 10  # ... and in at least this many
MIN_CONFIDENCE = 0.995  # the implication holds in at least this share of the rows where its condition holds
RARITY = 0.05  # a value left out occurs at most this share of its expected count with the condition
MIN_EXPECTED = 5.0  # a value is left out only if, unrelated, at least this many rows would have it
MIN_EXPECTED_BROKEN = 20.0  # were the columns unrelated, at least this many rows would break the implication
MIN_SHARE_OUT = 0.05  # what the consequence leaves out is at least this share of the file's rows
"""Rare values left out make correlations look like facts (adult: no White person born in Laos,
no Husband a private-household servant): what an implication excludes must be common enough."""
MOST_VALUES = 50  # categorical columns with more values are left out
MOST = 40  # the dependencies kept, most supported first


@dataclass(frozen=True)
class Dependency:
    """``condition`` implies ``consequence`` in ``holds`` of the ``rows`` rows where the condition
    holds; ``expected`` rows would break it were the two columns unrelated.  ``constraint`` is
    what a person uncomments: no state has the condition without the consequence."""

    condition: Literal
    consequence: Literal
    rows: int
    holds: int
    expected: float

    @property
    def constraint(self) -> Constraint:
        return Constraint((self.condition, self.consequence.negated()))

    @property
    def confidence(self) -> float:
        return self.holds / self.rows

    def evidence(self, total: int) -> str:
        """The evidence in words, as the draft writes it beside the constraint."""
        share = f"{self.rows / total:.1%} of the file"
        found = f"all {self.rows:,} rows" if self.holds == self.rows else f"{self.holds:,} of the {self.rows:,} rows ({self.confidence:.2%})"
        return f"{found} with {self.condition} ({share}) have {self.consequence}; were the two unrelated, about {self.expected:,.0f} would not"


def dependencies(frame: pd.DataFrame, categorical: Sequence[str], numeric: Sequence[str], most: int = MOST) -> list[Dependency]:
    """The dependencies of ``frame`` between its ``categorical`` columns and from them to its
    ``numeric`` ones, the best supported first, at most ``most``."""
    n = len(frame)
    least = max(MIN_ROWS, int(np.ceil(MIN_SUPPORT * n)))
    columns = {name: Column.from_values(frame[name]) for name in categorical}
    columns = {name: c for name, c in columns.items() if 2 <= len(c.categories) <= MOST_VALUES}
    found: list[tuple[frozenset, Dependency]] = []
    for a in columns:
        for b in columns:
            if a != b:
                found += _between(a, columns[a], b, columns[b], least)
        for b in numeric:
            found += [(frozenset(), d) for d in _to_number(a, columns[a], b, pd.to_numeric(frame[b], errors="coerce").to_numpy(np.float64), least)]
    kept = _once(found)
    return sorted(kept, key=lambda d: (-d.rows, str(d.condition), str(d.consequence)))[:most]


def _between(a: str, col_a: Column, b: str, col_b: Column, least: int) -> list[tuple[frozenset, Dependency]]:
    """Implications ``a in {...}`` => ``b`` away from some values, with the cells they forbid."""
    ka, kb = len(col_a.categories), len(col_b.categories)
    counts = np.bincount(col_a.codes.astype(np.int64) * kb + col_b.codes, minlength=ka * kb).reshape(ka, kb)
    rows_a, rows_b = counts.sum(axis=1), counts.sum(axis=0)
    expected = np.outer(rows_a, rows_b) / counts.sum()
    away = (counts <= (1 - MIN_CONFIDENCE) * rows_a[:, None]) & (counts <= RARITY * expected) & (expected >= MIN_EXPECTED)
    groups: dict[tuple[int, ...], list[int]] = defaultdict(list)
    share = rows_b / counts.sum()
    for i in np.flatnonzero(rows_a >= least):
        left_out = np.flatnonzero(away[i])
        if not left_out.size or left_out.size == kb or share[left_out].sum() < MIN_SHARE_OUT:
            continue
        if counts[i, left_out].sum() <= (1 - MIN_CONFIDENCE) * rows_a[i] and expected[i, left_out].sum() >= MIN_EXPECTED_BROKEN:
            groups[tuple(left_out)].append(int(i))
    out = []
    for left_out, values in groups.items():
        rows = int(rows_a[values].sum())
        broken = int(counts[np.ix_(values, left_out)].sum())
        kept = [j for j in range(kb) if j not in left_out]
        consequence = _among(b, [str(col_b.categories[j]) for j in kept], [str(col_b.categories[j]) for j in left_out])
        dependency = Dependency(
            _among(a, [str(col_a.categories[i]) for i in values]), consequence, rows, rows - broken, float(expected[np.ix_(values, left_out)].sum())
        )
        cells = frozenset(frozenset({(a, str(col_a.categories[i])), (b, str(col_b.categories[j]))}) for i in values for j in left_out)
        out.append((cells, dependency))
    return out


def _among(feature: str, values: list[str], others: Sequence[str] = ()) -> Literal:
    """``feature`` is one of ``values`` (the rest of its values being ``others``), written the
    shorter way: its forbidden side reads ``feature in others`` when they are fewer."""
    if others and len(others) < len(values):
        return Literal(feature, "!=", others[0]) if len(others) == 1 else Literal(feature, "not in", tuple(others))
    return Literal(feature, "==", values[0]) if len(values) == 1 else Literal(feature, "in", tuple(values))


def _to_number(a: str, col_a: Column, b: str, numbers: np.ndarray, least: int) -> list[Dependency]:
    """Implications ``a in {...}`` => a bound on the number ``b`` that every such row keeps."""
    present = ~np.isnan(numbers)
    ordered = np.sort(numbers[present])
    if not len(ordered):
        return []
    codes, k = col_a.codes[present], len(col_a.categories)
    rows = np.bincount(codes, minlength=k)
    low, high = np.full(k, np.inf), np.full(k, -np.inf)
    np.minimum.at(low, codes, numbers[present])
    np.maximum.at(high, codes, numbers[present])
    groups: dict[tuple[str, float], list[int]] = defaultdict(list)
    for i in np.flatnonzero(rows >= least):
        sides = [op for op, bound in ((">=", low[i]), ("<=", high[i])) if _passes(_outside(ordered, op, bound), rows[i])]
        if sides and low[i] == high[i]:
            groups[("==", float(low[i]))].append(int(i))
        for op in sides if low[i] != high[i] else ():
            groups[(op, float(low[i] if op == ">=" else high[i]))].append(int(i))
    out = []
    for (op, bound), values in groups.items():
        n = int(rows[values].sum())
        value = int(bound) if bound.is_integer() else bound
        out.append(Dependency(_among(a, [str(col_a.categories[i]) for i in values]), Literal(b, op, value), n, n, n * _outside(ordered, op, bound)))
    return out


def _passes(share: float, rows: int) -> bool:
    return share >= MIN_SHARE_OUT and rows * share >= MIN_EXPECTED_BROKEN


def _outside(ordered: np.ndarray, op: str, bound: float) -> float:
    """The share of the file's numbers that break ``number op bound``."""
    below = np.searchsorted(ordered, bound, side="left") / len(ordered)
    above = 1 - np.searchsorted(ordered, bound, side="right") / len(ordered)
    return {">=": below, "<=": above, "==": below + above}[op]


def _written(dependency: Dependency) -> int:
    """How many values a dependency's constraint writes out."""
    return sum(len(lit.value) if lit.op in ("in", "not in") else 1 for lit in dependency.constraint.literals)  # type: ignore[arg-type]


def _once(found: list[tuple[frozenset, Dependency]]) -> list[Dependency]:
    """Each dependency once: one found from both sides forbids the same cells, and one whose
    cells another forbids too says nothing more.  Those to a number have no cells to compare."""
    kept: list[tuple[frozenset, Dependency]] = []
    for cells, dependency in sorted(found, key=lambda f: (-len(f[0]), _written(f[1]))):  # of two ways to write it, the shorter
        if cells and any(cells <= other for other, _ in kept):
            continue
        kept.append((cells, dependency))
    return [d for _, d in kept]
