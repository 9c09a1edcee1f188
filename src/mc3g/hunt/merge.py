"""The merge phase of a black box's search (:mod:`.phases`): every row the model accepted counts,
the answer's numbers polished and its actions traded."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from ..search import Assessment
from .boundary import exchanges, given_up, taken, under
from .hunt import Hunt
from .progress import Option, Progress
from .verdicts import Asking, Row
from .verified import Outcome


class Merge:
    """The search's states merged with the rows the model accepted (:meth:`Hunt.merged`; those
    asked ahead that no phase reached count too), merged again while the steps of the options
    chosen, once judged, add rows it accepts: a state part of the way to an option may be
    accepted already, and cheaper.  Where no step is left to judge, an option's numbers
    sectioned together (:meth:`Hunt.together`) that no call carried are asked, if they would
    cost less than the K-th option: no later call would carry them.  Each call also carries the
    options no sectioning round took (the last one found them), pared and with their numbers
    moved back, as a greedy search would go on from them; never a call of their own.  Last, with
    sharpening on, the options' own numbers moved back (:meth:`Hunt.moved_back`) and exchanged
    (:func:`~.boundary.exchanges`: one back, another on) that no call carried are asked before
    they are the answer, again while that finds a cheaper option, in ``tuning.polish`` calls at
    most: a number an option reached by steps or paring may need less (issue 51: a capital gain
    of 7,297 kept where 7,074 was accepted), and a step of one number may cost less than a step
    of another (issue 51's near ties).  Once that ends, with K options, their actions traded
    (:meth:`_traded`) that could beat the K-th are asked in one call more, and the options then
    polished again (as many calls at most, each only where something is left to ask).  After
    the polishing, so it takes nothing from it: the answer is the one before or a cheaper one."""

    name = "merge"

    def run(self, hunt: Hunt, progress: Progress) -> Asking:
        hunt.verdicts.release()
        outcome = progress.outcome
        assert outcome is not None  # the search proper has run
        merged, polished, traded = outcome, 0, False
        while True:
            merged = hunt.merged(progress, merged, outcome.found)
            near = _with_unlike(hunt, progress, outcome, merged)  # the answer's options first
            rows = [hunt.verdicts.key(row) for row in hunt.unjudged_steps(near[: len(merged.found)])]
            rows = rows or hunt.accepted.cheaper([key for key in hunt.together(progress.sectioned) if hunt.verdicts.verdict(key) is None], merged.found)
            if hunt.sharp and not rows and polished < hunt.tuning.polish:  # the options' own numbers moved back and exchanged: a call of their own
                rows = [key for p, a in near for key in map(hunt.verdicts.key, hunt.moved_back(p, a)) if hunt.verdicts.verdict(key) is None]
                rows += self._exchanged(hunt, near, merged.found)
                polished += 1
            if hunt.sharp and not rows and not traded:  # then their actions traded, and what that finds polished again
                rows, traded, polished = self._traded(hunt, near, merged.found), True, 0
            if not rows:
                return replace(progress, outcome=merged)
            if hunt.sharp:  # the options no sectioning round took ride along, pared and their numbers moved back
                fresh, progress = hunt.claim(progress, near)
                rows += [hunt.verdicts.key(row) for p, a in fresh for row in hunt.pared(p, a) + hunt.moved_back(p, a)]
            yield from hunt.ask(progress, [], rows)

    @staticmethod
    def _exchanged(hunt: Hunt, options: list[Option], found: Sequence[Assessment]) -> list[tuple]:
        """The options' numbers exchanged (:func:`~.boundary.exchanges`) not judged yet that could
        beat the K-th option."""
        return _unjudged_cheaper(hunt, [row for p, a in options for row in exchanges(hunt.engine, hunt.row, p, a)], found)

    @staticmethod
    def _traded(hunt: Hunt, options: list[Option], found: Sequence[Assessment]) -> list[tuple]:
        """The options' actions traded (:func:`~.boundary.given_up`, :func:`~.boundary.taken`),
        each brought under the cost it must beat (:func:`~.boundary.under`): the K-th option's
        (none while fewer are known), or where it makes every action of a cheaper option and
        more, that option's (as it is, it can be no option, and ranked among the rows accepted
        it would crowd out those that can: a German applicant's third option was lost so);
        those not judged yet that could beat it (issue 51: with two options of three, savings
        10 in place of income 4 with score 12 was not asked; full-time with income moved back
        from 7 to 3, costing more than the third option and less than the first, neither)."""
        if not found:
            return []
        e, person, rough = hunt.engine, hunt.row, hunt.accepted.rough
        kth = found[-1].cost if len(found) == hunt.k else math.inf
        rows = [row for p, a in options for row in given_up(e, person, p, a) + taken(e, person, p, a)]
        traded = under(e, person, rows, lambda row: min(kth, _held(row, person, found)), rough)
        return _unjudged_cheaper(hunt, [row for row in traded if rough(row) < _held(row, person, found)], found)


def _with_unlike(hunt: Hunt, progress: Progress, outcome: Outcome, merged: Outcome) -> list[Option]:
    """The options ``merged`` holds (the answer's) and, where it passed over some unlike every
    past applicant, the K least-cost of ``outcome``'s states and the rows accepted whatever
    their remoteness: the merge polishes and trades from both, as the search sections them all
    (an option unlike them all, its numbers moved back, may be like them)."""
    options = list(zip(merged.priced_in, merged.found))
    if not merged.unlike:
        return options
    mine = {id(a) for _, a in options}
    return options + [(p, a) for p, a in hunt.accepted.options(outcome.problem, outcome.found, kept=progress.kept).chosen if id(a) not in mine]


def _unjudged_cheaper(hunt: Hunt, rows: list[Row], found: Sequence[Assessment]) -> list[tuple]:
    """The keys of ``rows`` not judged yet that could beat the K-th of ``found``."""
    keys = dict.fromkeys(hunt.verdicts.key(row) for row in rows)
    return hunt.accepted.cheaper([key for key in keys if hunt.verdicts.verdict(key) is None], found)


def _held(row: Row, person: Row, options: Sequence[Assessment]) -> float:
    """The least cost of ``options`` whose every action ``row`` makes (infinite for none): the
    row can be an option only below it."""
    made = {name for name, value in row.items() if value != person[name]}
    return min((a.cost for a in options if a.direct and made.issuperset(a.direct)), default=math.inf)
