"""The feature settings the product profile guards, and how each may be tightened or loosened.

Kept apart from :mod:`mc3g.schema`, which describes a feature: this table decides which of its
settings are protections (knowledge may tighten them, never lift them) and how each is said to a
person.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

Feature = Any  # a mc3g.schema.Feature, which reads this table (so it is not imported here)


class Protection(NamedTuple):
    """A feature setting the product profile guards: its unrestricted value (``free``), whether a
    feature with later settings (``after``) keeps the restriction ``before`` of an earlier one,
    the restriction of a feature in words, and whether answers list it among the protections in
    force (``listed``)."""

    free: Any
    kept: Callable[[Any, Feature], bool]
    words: Callable[[Feature], str]
    listed: bool = True


def _within(before: tuple[float, float], after: tuple[float, float] | None) -> bool:
    return after is not None and before[0] <= after[0] and after[1] <= before[1]


PROTECTIONS: dict[str, Protection] = {
    "immutable": Protection(False, lambda _, after: after.immutable, lambda _: "immutable"),
    "protected": Protection(False, lambda _, after: after.protected, lambda _: "protected", listed=False),
    "consequence_only": Protection(False, lambda _, after: after.immutable or after.consequence_only, lambda _: "consequence-only"),
    "direction": Protection(None, lambda before, after: after.immutable or after.direction == before, lambda f: f"{f.direction}-only"),
    "valid": Protection(None, lambda before, after: _within(before, after.valid), lambda f: f"valid only {f.valid_words}", listed=False),
    "max_change": Protection(
        None, lambda before, after: after.immutable or (after.max_change is not None and after.max_change <= before), lambda f: f"max-change {f.max_change:g}"
    ),
    "targets": Protection(
        None,
        lambda before, after: after.immutable or (after.targets is not None and set(after.targets) <= set(before)),
        lambda f: f"targets {{{', '.join(f.targets or ())}}}",
    ),
    "moves": Protection(
        None,
        lambda before, after: after.immutable or (after.moves is not None and set(after.moves) <= set(before)),
        lambda f: f"moves {{{', '.join(f'{a} -> {b}' for a, b in f.moves or ())}}}",
    ),
    "unknown": Protection(
        (), lambda before, after: after.immutable or set(before) <= set(after.unknown), lambda f: f"never to unknown {{{', '.join(f.unknown)}}}"
    ),
}
"""The feature settings the product profile guards: knowledge may tighten them, never loosen
them.  Those that restrict advice (all but ``valid``) are listed in every answer as the
protections in force, and an immutable feature keeps each of them.  ``valid`` says who may be a
person at all, not where advice goes: it holds even for an immutable feature, and answers leave
it out (the training range inside it bounds advice; ``/v1/schema`` shows both per feature).
``protected`` (a characteristic the law protects, never named to an applicant as what keeps
them out) is not listed either: it restricts what an answer says, not where advice goes.
``range`` is not guarded: it bounds where advice may put a number, by default the training
range, and knowledge may widen it.  A new setting that restricts advice joins here."""


def plain_setting(name: str, value: Any) -> Any:
    """A protection as plain JSON, as answers list it: tuples as lists, and moves as each value
    with the values it may move to."""
    if name != "moves":
        return list(value) if isinstance(value, tuple) else value
    out: dict[str, list[str]] = {}
    for a, b in value:
        out.setdefault(a, []).append(b)
    return out
