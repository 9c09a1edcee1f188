"""The principal reasons for a refusal, as a lender may give them to the person: the features
within their reach whose change would reverse the decision, ranked by how much they do.

A reason must be true of the model and something the person can act on.  Each reason here comes
from the model's own verdicts on the person's single changes within the causal knowledge and
the protections (the decision rules' or the model's read exactly, with no call; a black box's as
its search asked them), never from the text of rules that imitate it.  A feature ranks by its
responsiveness (Cheon, Wang and Ustun, "Feature Responsiveness Scores", ICLR 2025): the share of
its changes open to the person that the model accepts, with the change alone that reverses the
decision at least effort.  Where no single change does, the features of the options found are
the reasons, each needed with others, by how many options act on it.  A protected feature is
never a reason given to the person (the lender's record keeps the decision's full text).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..engine import Engine
from ..search import Problem, change_size
from .changes import DirectAction, read_direct

MOST_REASONS = 4  # a notice of adverse action gives at most four principal reasons

SingleChange = tuple[str, Any, bool | None]  # a feature, the value it alone changes to, and whether the model accepts that (None: not known)


@dataclass(frozen=True)
class Reason:
    """One principal reason: ``feature``, its single changes open to the person the model
    accepts (``accepted``) of those it judged (``judged``), the least-effort one accepted
    (``change``; else the change an option makes, which helps only with others), in how many of
    the options found it is one of the actions (``options``), and the ``sentence`` the person
    reads."""

    feature: str
    accepted: int
    judged: int
    change: DirectAction | None
    options: int
    sentence: str

    @property
    def responsiveness(self) -> float:
        """The share of the feature's single changes open to the person the model accepts."""
        return self.accepted / self.judged if self.judged else 0.0

    def to_dict(self) -> dict[str, Any]:
        change = None if self.change is None else self.change.to_dict()
        return {"feature": self.feature, "accepted": self.accepted, "judged": self.judged, "responsiveness": self.responsiveness}  | {
            "change": change, "options": self.options, "sentence": self.sentence
        }  # fmt: skip

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Reason:
        change = None if data.get("change") is None else read_direct(data["change"])
        return cls(data["feature"], data["accepted"], data["judged"], change, data["options"], data["sentence"])


def principal_reasons(engine: Engine, row: Mapping[str, Any], judged: Iterable[SingleChange], options: Sequence[Any]) -> tuple[Reason, ...]:
    """Up to :data:`MOST_REASONS` reasons from the person's single changes ``judged`` and the
    ``options`` found (:class:`~mc3g.explain.Counterfactual`, least cost first)."""
    schema, words = engine.schema, engine.words
    counts: dict[str, list[int]] = {}
    least: dict[str, tuple[float, Any]] = {}
    for name, value, accepted in judged:
        if accepted is None or schema.feature(name).protected:
            continue
        tally = counts.setdefault(name, [0, 0])
        tally[0], tally[1] = tally[0] + accepted, tally[1] + 1
        if accepted:
            size = change_size(schema.feature(name), row[name], value, engine.spreads.get(name, 1.0) or 1.0)
            if name not in least or size < least[name][0]:
                least[name] = (size, value)
    acting: dict[str, list[DirectAction]] = {}
    for option in options:
        for action in option.direct_actions:
            acting.setdefault(action.feature, []).append(action)
    responsive = sorted(least, key=lambda name: (-counts[name][0] / counts[name][1], least[name][0], name))
    together = sorted((n for n in acting if n not in least and not schema.feature(n).protected), key=lambda n: (-len(acting[n]), list(acting).index(n)))
    reasons = []
    for name in [*responsive, *together][:MOST_REASONS]:
        accepted, tried = counts.get(name, (0, 0))
        if name in least:
            change = DirectAction.of(words, name, row[name], least[name][1], least[name][0])
            also = f"{accepted} of the {tried} changes of your {words.feature(name)} open to you would"
            sentence = f"{change.sentence()[:-1]}: that alone would change the decision ({also})."
        else:
            change = acting[name][0]
            ways = "every way out found" if len(acting[name]) == len(options) else f"{len(acting[name])} of the {len(options)} ways out found"
            sentence = f"{change.sentence()[:-1]}, with other changes: it is part of {ways}."
        reasons.append(Reason(name, accepted, tried, change, len(acting.get(name, ())), sentence))
    return tuple(reasons)


def single_changes(problem: Problem, instance: Mapping[str, Any]) -> tuple[list[tuple[str, Any]], list[dict[str, Any]]]:
    """Each change of one feature alone open to the person ``instance`` in ``problem`` (a
    candidate value of a feature the person may set, not a protected one), and the row it makes
    with what the causal rules force there."""
    forced = problem.consequences(instance)
    changes, rows = [], []
    for values in problem.space.features:
        feature = values.feature
        if feature.immutable or feature.consequence_only or feature.protected:
            continue
        for value in values.values[1:]:  # the first candidate is the person's own value
            made = {values.name: value} if forced is None else forced({values.name: value})
            changes.append((values.name, value))
            rows.append({**instance, **made})
    return changes, rows
