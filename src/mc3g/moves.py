"""The moves a category may make and the values that mean unknown, checked once for every feature.

A :class:`~mc3g.schema.Feature`'s ``moves`` are (from, to) pairs: a person with value ``a`` may be
advised ``b`` only when ``(a, b)`` is one of them.  Its ``unknown`` values ('?') may be a
person's, never advice.  The search, the checker and the page read them through the feature.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .exceptions import InputError

Moves = tuple[tuple[str, str], ...]


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
