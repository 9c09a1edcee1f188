"""The moves a category may make and the values that mean unknown, checked once for every feature.

A :class:`~mc3g.schema.Feature`'s ``moves`` are (from, to) pairs: a person with value ``a`` may be
advised ``b`` only when ``(a, b)`` is one of them.  Its ``unknown`` values ('?') may be a
person's, never advice.  Its ``efforts`` say how hard a move is, in the units a number's change
is counted in (its spread): a move not listed costs 1, as any change of a category.  The search,
the checker and the page read them through the feature.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .exceptions import InputError

Moves = tuple[tuple[str, str], ...]
Efforts = tuple[tuple[str, str, float], ...]


def checked_moves(
    where: str, moves: Any, unknown: Any, domain: tuple[str, ...] | None, targets: tuple[str, ...] | None
) -> tuple[Moves | None, tuple[str, ...]]:
    """``moves`` as sorted distinct (from, to) pairs of text (given as pairs or as a mapping from
    -> to; None: any move) and ``unknown`` as sorted distinct text, all values of ``domain``;
    no move to an unknown value or to the value one has, and no unknown value among ``targets``.
    Else an :class:`InputError` starting with ``where``."""
    if isinstance(unknown, str) or not all(isinstance(v, str) for v in unknown):
        raise InputError(f"{where}: the values that mean unknown are a set of text values, not {unknown!r}")
    unknown = tuple(sorted(set(unknown)))
    if moves is not None:
        pairs = list(moves.items()) if isinstance(moves, Mapping) else list(moves)
        if not all(isinstance(p, (tuple, list)) and len(p) == 2 and all(isinstance(v, str) for v in p) for p in pairs):
            raise InputError(f"{where}: moves are (from, to) pairs of values, not {moves!r}")
        moves = tuple(sorted({(a, b) for a, b in pairs}))
    named = [*unknown, *(v for pair in moves or () for v in pair)]
    if domain is not None and (stray := [v for v in named if v not in domain]):
        raise InputError(f"{where}: {stray[0]!r} is not one of its values {list(domain)}")
    for a, b in moves or ():
        if a == b:
            raise InputError(f"{where}: the move {a} -> {b} goes nowhere")
        if b in unknown:
            raise InputError(f"{where}: the move {a} -> {b} goes to a value that means unknown, which is never advice")
    if targets is not None and (bad := sorted(set(targets) & set(unknown))):
        raise InputError(f"{where}: {bad[0]!r} means unknown, so it cannot be a target of advice")
    return moves, unknown


def checked_efforts(where: str, efforts: Any, domain: tuple[str, ...] | None) -> Efforts:
    """``efforts`` as sorted (from, to, effort) triples, each move once, between two values of
    ``domain`` and of a positive, finite effort.  Else an :class:`InputError` starting with ``where``."""
    try:
        triples = [(a, b, float(e)) for a, b, e in efforts]
    except (TypeError, ValueError):
        raise InputError(f"{where}: efforts are (from, to, effort) triples, not {efforts!r}") from None
    seen: dict[tuple[str, str], float] = {}
    for a, b, e in triples:
        if not (isinstance(a, str) and isinstance(b, str)) or a == b:
            raise InputError(f"{where}: an effort prices a move between two values, not {a!r} -> {b!r}")
        if domain is not None and (stray := [v for v in (a, b) if v not in domain]):
            raise InputError(f"{where}: {stray[0]!r} is not one of its values {list(domain)}")
        if not 0 < e < float("inf"):
            raise InputError(f"{where}: the effort of {a} -> {b} must be a positive number, not {e:g}")
        if seen.setdefault((a, b), e) != e:
            raise InputError(f"{where}: the move {a} -> {b} is given two efforts, {seen[(a, b)]:g} and {e:g}")
    return tuple(sorted((a, b, e) for (a, b), e in seen.items()))


def effort(efforts: Efforts, before: str, after: str) -> float:
    """The effort of moving a category from ``before`` to ``after``: as ``efforts`` state it, else
    1; 0 when it does not move."""
    if before == after:
        return 0.0
    return next((e for a, b, e in efforts if a == before and b == after), 1.0)
