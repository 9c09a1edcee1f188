"""Which way advice may move a column of a file of applicants, guessed for ``mc3g init`` with its
evidence, so that a draft used as it is never advises a move to a worse value or a wait as an
action (docs/checklist.md):

- **time**: a column whose name says it counts the time since something (``present_residence_since``,
  ``tenure``) changes only by waiting: a number rises, in years or months (``waits``); bands of
  time (``less_than1``, ``1equalsless_than_and_less_than4``, ...) move a band at a time.
- **the past**: a column whose name says it is a history (``credit_history``) records what
  happened, which advice cannot change: immutable.
- **the lender's own decision**: a credit limit, which the lender sets: immutable.
- **a career**: a job, an occupation, a type of employer: immutable (a career jump or a new type
  of employer is not advice a lender hands out; a reviewer may lift it for moves they name).
- **an amount owed**: a number whose name says it is owed (a bill, a debt, arrears) only falls.
- **toward the better values**: a number, or categories that name numbered bands (``less_than100``,
  ``100equalsless_than_and_less_than500``, ``greater_than1000``), whose past applicants were
  approved more often the higher (or the lower) it is (for a number, a rank correlation of at
  least :data:`LEAST_ASSOCIATION` with the decision; for bands, of :data:`LEAST_BAND_TREND`
  between their order and their shares approved): advice only that way (a number's direction; bands up or down, a band
  further costing one more).  Where the data show no clear way, nothing is guessed.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pandas as pd

from .protections import words

LEAST_ASSOCIATION = 0.1
"""The rank correlation between a column and the favourable decision that makes its better way."""

LEAST_BAND_TREND = 0.5
"""The rank correlation between bands' order and their share of favourable decisions that makes
their better way (a few bands: a clear run, not a slight one)."""
LEAST_BAND_ROWS = 10  # a band with fewer past applicants says nothing of the way

_TIME = ("since", "tenure", "seniority", "years at", "years in", "months at", "months in", "time at", "time in", "length of")
_HISTORY = ("history", "histories")
_CAREER = ("job", "occupation", "profession", "workclass", "work class", "employer type", "type of employer", "employment type")
_LENDERS = ("limit", "limits", "credit line", "line of credit")
_OWED = ("bill", "bills", "debt", "debts", "owed", "owing", "outstanding", "arrears", "overdue", "past due")
_BELOW = re.compile(r"less|below|under|lower|fewer|(?<![a-z])lt(?![a-z])|<")
_ABOVE = re.compile(r"greater|more|above|over|higher|(?<![a-z])gt(?![a-z])|>|\+")


def direction(name: str, values: pd.Series, numeric: bool, domain: tuple[str, ...] | None, favourable: pd.Series | None) -> tuple[dict[str, Any], str] | None:
    """The settings that say which way advice may move the column ``name`` (``favourable``: whether
    each row's decision is the favourable one, None when it is not known), and why; None when
    neither its name nor the data say."""
    said = f" {' '.join(words(name))} "
    if any(f" {w} " in said for w in _HISTORY):
        return {"immutable": True}, "a history, by its name: it records what happened, which advice cannot change"
    if any(f" {w} " in said for w in _LENDERS):
        return {"immutable": True}, "the lender's own decision (a credit limit), by its name: not the applicant's to change"
    if any(f" {w} " in said for w in _CAREER):
        return {"immutable": True}, "a career or a type of employer, by its name: a jump in either is not advice a lender hands out"
    timed = any(f" {w} " in said for w in _TIME)
    if numeric:
        if timed:
            unit = "months" if "month" in said else "years"
            return {"direction": "increase", "waits": unit}, f"time, by its name: it only grows, and advice is a wait in {unit}"
        if any(f" {w} " in said for w in _OWED):
            return {"direction": "decrease"}, "an amount owed, by its name: advice only lowers it"
        trend = _association(pd.to_numeric(values, errors="coerce"), favourable)
        if trend is None:
            return None
        way = "increase" if trend > 0 else "decrease"
        return {"direction": way}, f"past applicants were approved more often the {'higher' if trend > 0 else 'lower'} it is (rank correlation {trend:+.2f})"
    bands = _bands(domain or ())
    if not bands:
        return None
    if timed:
        moves = tuple(zip(bands, bands[1:]))
        return {"waits": "", "moves": moves}, "time in bands, by its name and values: advice is a wait for the next band"
    trend = _band_trend(values.astype(str), bands, favourable)
    if trend is None:
        return None
    ordered = bands if trend > 0 else bands[::-1]
    moves = tuple((a, b) for i, a in enumerate(ordered) for b in ordered[i + 1 :])
    efforts = tuple((a, b, float(j - i)) for i, a in enumerate(ordered) for j, b in enumerate(ordered) if j > i + 1)
    return {"moves": moves, "efforts": efforts}, (
        f"bands by their numbers; past applicants were approved more often the {'higher' if trend > 0 else 'lower'} the band "
        f"(rank correlation {trend:+.2f}): advice only that way, a band further costing one more; the other values stay"
    )


def _bands(domain: tuple[str, ...]) -> list[str]:
    """The values that name numbered bands, from the lowest (``less_than0`` below ``0..200``
    below ``greater_than200``), when at least two do and they are at least half of them; else []."""
    placed = {}
    for value in domain:
        numbers = [float(n) for n in re.findall(r"\d+(?:\.\d+)?", value)]
        if not numbers:
            continue
        text = value.lower()
        if len(numbers) >= 2:
            placed[value] = (numbers[0] + numbers[1]) / 2
        else:
            placed[value] = numbers[0] - 0.5 if _BELOW.search(text) else numbers[0] + 0.5 if _ABOVE.search(text) else numbers[0]
    if len(placed) < 2 or 2 * len(placed) < len(domain) or len(set(placed.values())) < len(placed):
        return []
    return sorted(placed, key=placed.__getitem__)


def _band_trend(values: pd.Series, bands: list[str], favourable: pd.Series | None) -> float | None:
    """How the share of favourable decisions runs across ``bands`` (lowest first): the rank
    correlation of the share with the band's place, over the bands of at least
    :data:`LEAST_BAND_ROWS` rows, where it is at least :data:`LEAST_BAND_TREND` either way."""
    if favourable is None:
        return None
    shares = [float(favourable[values == band].mean()) for band in bands if (values == band).sum() >= LEAST_BAND_ROWS]
    return _clear(np.arange(len(shares), dtype=np.float64), pd.Series(shares, dtype=np.float64).rank().to_numpy(), LEAST_BAND_TREND)


def _association(numbers: pd.Series, favourable: pd.Series | None) -> float | None:
    """The rank correlation between ``numbers`` and the favourable decision where it is clear
    (at least :data:`LEAST_ASSOCIATION` either way), else None."""
    if favourable is None:
        return None
    known = numbers.notna().to_numpy()
    if known.sum() < 20:
        return None
    return _clear(numbers[known].rank().to_numpy(np.float64), favourable.to_numpy(np.float64)[known], LEAST_ASSOCIATION)


def _clear(x: np.ndarray, y: np.ndarray, least: float) -> float | None:
    """The correlation of ``x`` and ``y`` where it is at least ``least`` either way; None where
    it is weaker or not defined (fewer than two points, or one side the same throughout)."""
    if len(x) < 2 or x.std() == 0 or y.std() == 0:
        return None
    trend = float(np.corrcoef(x, y)[0, 1])
    return trend if abs(trend) >= least else None
