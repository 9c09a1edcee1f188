"""A segment's points as the model's verdicts know them (:class:`~.boundary.Segment`,
:class:`~.verdicts.Verdicts`): their keys, whether all are judged, and the verdicts on a
segment's line however they were asked (another option's segment, a row drawn)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .boundary import Segment
from .verdicts import Verdicts


def point_keys(verdicts: Verdicts, s: Segment) -> list[tuple]:
    """The keys of the segment's next points (:meth:`Verdicts.line`)."""
    line = verdicts.line(s.changes, s.name)
    return [line(p) for p in s.points()]


def judged(verdicts: Verdicts, s: Segment) -> list[bool] | None:
    """Whether the model accepts each of the segment's next points, if it has judged them all."""
    points, verdict = s.points(), verdicts.verdict
    if not points:
        return None
    line = verdicts.line(s.changes, s.name)
    if verdict(line(points[-1])) is None:
        return None  # a segment's points are asked together: its last one unjudged, they all are
    known = [verdict(line(p)) for p in points]
    return None if None in known else known  # type: ignore[return-value]


def narrowed_on_lines(verdicts: Verdicts, segments: Sequence[Segment]) -> list[Segment]:
    """Each of ``segments`` narrowed by the model's verdicts on its points judged already
    (:meth:`Segment.narrowed_by_known`): rows that differ from its end in its feature only,
    each checked to be its row there."""
    if not segments:
        return []
    lines: dict[tuple[str, tuple], list[Segment]] = {}  # by the feature moved and the rest of the row
    forcing: dict[int, Callable[[Any], tuple]] = {}
    for s in segments:
        line = verdicts.line(s.changes, s.name)
        end = line(s.end)
        lines.setdefault((s.name, tuple(item for item in end if item[0] != s.name)), []).append(s)
        if verdicts.may_force(s.row(s.end)):
            # What a point forces may differ from what the end does; where the changes force
            # nothing, a row on the line is the segment's row there (its key is its changes).
            forcing[id(s)] = line
    said: dict[int, list[tuple[Any, bool]]] = {id(s): [] for s in segments}
    moved: dict[int, set[str]] = {}  # by the changes a row makes: the features its lines move (a row is on a line only with as many changes)
    for name, rest in lines:
        moved.setdefault(len(rest) + 1, set()).add(name)
    for key, ok in verdicts.judged_rows(moved):  # a row changing more features than any line (as many drawn do) lies on none
        names = moved[len(key)]
        for at, (name, value) in enumerate(key):
            if name in names:
                for s in lines.get((name, key[:at] + key[at + 1 :]), ()):
                    if id(s) not in forcing or forcing[id(s)](value) == key:
                        said[id(s)].append((value, ok))
    return [s.narrowed_by_known(said[id(s)]) for s in segments]
