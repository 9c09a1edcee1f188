"""Sectioning one feature back to the model's boundary: exact on a monotone model, in as few
rounds as ``section_points`` a round would take, with fewer rows."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mc3g.engine.tuning import DEFAULT
from mc3g.hunt.boundary import Segment, fewest, rounds

FIRST, SECTION = DEFAULT.first_points, DEFAULT.section_points


def _section(width: int, boundary: int) -> tuple[int, int, int]:
    """A segment from 0 up to ``width`` (unjudged) on a model that accepts from ``boundary`` on:
    the boundary found, the rounds and the points judged."""
    segment = Segment({}, "x", 0, width, 1, accepted=False)
    judged = count = 0
    while points := segment.points():
        segment = segment.narrowed([p >= boundary for p in points])
        judged, count = judged + len(points), count + 1
    return segment.best, count, judged


@given(st.integers(1, 10_000_000))
def test_the_fewest_points_need_no_more_rounds_than_section_points(inside: int) -> None:
    n = fewest(inside, SECTION)
    assert rounds(inside, n) <= rounds(inside, SECTION)
    if inside > SECTION:
        assert n <= SECTION and (n == 2 or rounds(inside, n - 1) > rounds(inside, SECTION))


@given(st.data(), st.integers(2, 2_000_000))
def test_a_segment_finds_a_monotone_model_s_boundary(data: st.DataObject, width: int) -> None:
    boundary = data.draw(st.integers(1, width))
    found, count, _ = _section(width, boundary)
    after_first = -(-(width - 1) // (FIRST - 1))  # the widest gap the first round leaves
    assert found == boundary
    assert count <= 1 + rounds(after_first, SECTION)


def test_a_wide_segment_takes_about_the_square_root_of_its_points_a_round() -> None:
    """100,000 grid points (a capital gain): 32 first, then about 56 and 55, where 256 a round
    judged about 300."""
    found, count, judged = _section(100_000, 33_595)
    assert (found, count) == (33_595, 3) and judged < 160


def test_a_segment_first_asked_in_a_call_of_its_own_takes_as_few_points_as_a_later_round() -> None:
    """An option's segment whose first points no earlier call held (:meth:`Segment.late`) takes
    every point where one round of ``section_points`` can, not 32 and then the rest (a call
    more); a wider one, the fewest points of a later round."""
    segment = Segment({}, "x", 0, 1_000, 1)
    assert len(segment.points()) == FIRST
    late = segment.late()
    assert late.points() == list(range(1, 1_000)) and len(segment.points()) == FIRST  # a new segment: the first is as it was
    late = late.narrowed([p >= 679 for p in late.points()])
    assert late.best == 679 and late.points() == []
    wide = Segment({}, "x", 0, 3_905, 1).late()
    assert len(wide.points()) == fewest(3_904, SECTION) < SECTION


def test_a_segment_starts_from_what_the_model_said_on_its_line() -> None:
    """Verdicts on points of a segment judged already (another option's segment on the same
    line asked them) narrow it before its first round: off its grid or past its end they say
    nothing."""
    segment = Segment({}, "x", 0, 29_197, 1)
    segment = segment.narrowed_by_known([(28_235, False), (28_500.5, False), (29_197, True), (28_900, True), (40_000, True), (1_000, False)])
    segment = segment.late()
    assert segment.best == 28_900 and segment.points() == list(range(28_236, 28_900))


def test_a_german_credit_amount_is_sectioned_in_two_rounds() -> None:
    """A credit amount's 18,174 grid points: 32 first leave about 586 between two of them, which
    one more round takes whole (two rounds of about 24 each where a round took 256 at most: a
    call more for the person)."""
    found, count, judged = _section(18_174, 7_777)
    assert (found, count) == (7_777, 2) and judged < 32 + 600
