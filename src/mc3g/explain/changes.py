"""What a person does and what follows, in words: the changes of an option and its steps.

A :class:`DirectAction` is a change the person makes, a :class:`CausedChange` one that follows
by a causal rule (named by its stable id, and in words); each carries :class:`Shown`, the change
as a person reads it (labels of the feature and its values), so an answer reads the same
wherever it is read, a JSON document included.  A :class:`Step` is one step of an option.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..causal import CausalRule
from ..rules import PLAIN, Words
from ..values import plain, show


@dataclass(frozen=True)
class Shown:
    """A change as a person reads it: the feature's label and the words of the value before and
    after ("education level", "high school graduate", "bachelor's degree"), and for a feature
    only time changes, the unit of time waited (``waits``: "years"; "" for a category)."""

    feature: str
    before: str
    after: str
    waits: str | None = None

    @classmethod
    def of(cls, words: Words, feature: str, before: Any, after: Any) -> Shown:
        return cls(words.feature(feature), words.value(feature, before), words.value(feature, after), words.waits.get(feature))

    def to_dict(self) -> dict[str, str]:
        return {"feature": self.feature, "from": self.before, "to": self.after, **({"waits": self.waits} if self.waits is not None else {})}

    @classmethod
    def read(cls, data: Mapping[str, Any], feature: str, before: Any, after: Any) -> Shown:
        """The words a document holds for a change, or (a document of version 2.0) the change without labels."""
        shown = data.get("shown")
        return cls(shown["feature"], shown["from"], shown["to"], shown.get("waits")) if shown else cls.of(PLAIN, feature, before, after)


@dataclass(frozen=True)
class _Change:
    """A feature's move from ``before`` to ``after``, with ``shown``, the move in words (by
    default without labels: :data:`~mc3g.rules.PLAIN`)."""

    feature: str
    before: Any
    after: Any

    def __post_init__(self) -> None:
        if getattr(self, "shown", None) is None:
            object.__setattr__(self, "shown", Shown.of(PLAIN, self.feature, self.before, self.after))

    @property
    def rises(self) -> bool | None:
        """Whether a number rises (True) or falls (False); None for a category."""
        numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (self.before, self.after))
        return self.after > self.before if numbers else None


@dataclass(frozen=True)
class DirectAction(_Change):
    """A change the person makes; ``cost`` is its term in the norm (before any root)."""

    cost: float
    shown: Shown = None  # type: ignore[assignment]

    @classmethod
    def of(cls, words: Words, feature: str, before: Any, after: Any, cost: float) -> DirectAction:
        """The action, shown in ``words``."""
        return cls(feature, before, after, cost, Shown.of(words, feature, before, after))

    def sentence(self) -> str:
        """ "Raise your education level from high school graduate to bachelor's degree."; for a
        feature only time changes, "Wait 4 years (your age will then be 29)." """
        if self.is_wait:
            return self._wait()
        verb = {True: "Raise", False: "Lower", None: "Change"}[self.rises]
        return f"{verb} your {self.shown.feature} from {self.shown.before} to {self.shown.after}."

    @property
    def is_wait(self) -> bool:
        """Whether the change is a wait: its feature only time changes (``shown.waits``)."""
        return self.shown.waits is not None

    @property
    def span(self) -> str | None:
        """How long a wait of a number lasts, in words ("4 years", "1 year"); None for any other change."""
        if not self.shown.waits or self.rises is None:
            return None
        span, unit = self.after - self.before, self.shown.waits
        return f"{show(span)} {unit[:-1] if span == 1 and unit.endswith('s') else unit}"

    def _wait(self) -> str:
        if self.span is None:
            return f"Wait until your {self.shown.feature} is {self.shown.after}."
        return f"Wait {self.span} (your {self.shown.feature} will then be {self.shown.after})."

    @property
    def how(self) -> str:
        return "you wait for this" if self.is_wait else "you do this"

    def to_dict(self) -> dict[str, Any]:
        return {"feature": self.feature, "from": plain(self.before), "to": plain(self.after), "cost": self.cost, "shown": self.shown.to_dict()}


@dataclass(frozen=True)
class CausedChange(_Change):
    """A change that follows from the direct actions by a causal rule; it costs nothing except
    under the ``none`` mode (C3G), which counts every change.  ``forced``: the rule is a
    constraint, so the change happens by itself; a ``cause`` rule only allows it, at no effort.
    ``rule`` is the rule in words and ``rule_id`` names it stably
    (:attr:`mc3g.causal.CausalRule.id`; empty in a document of version 2.0, whose ``rule`` is
    the rule's text)."""

    rule: str
    cost: float = 0.0
    forced: bool = True
    rule_id: str = ""
    shown: Shown = None  # type: ignore[assignment]

    @classmethod
    def of(cls, words: Words, feature: str, before: Any, after: Any, rule: CausalRule, cost: float = 0.0) -> CausedChange:
        """The change that ``rule`` causes, shown in ``words``."""
        said = words.causal(rule.effect, rule.cause, rule.constraint)
        return cls(feature, before, after, said, cost, rule.constraint, rule.id, Shown.of(words, feature, before, after))

    def sentence(self) -> str:
        """ "your credit score rises from 599 to 620"; for a change a rule allows but does not
        force, "your occupation can change from sales to professional specialty"."""
        verb = {True: "rise", False: "fall", None: "change"}[self.rises]
        return f"your {self.shown.feature} {verb + 's' if self.forced else 'can ' + verb} from {self.shown.before} to {self.shown.after}"

    @property
    def how(self) -> str:
        return f"{'follows' if self.forced else 'allowed by'}: {self.rule}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "feature": self.feature, "from": plain(self.before), "to": plain(self.after), "rule": self.rule, "rule_id": self.rule_id,
            "cost": self.cost, "forced": self.forced, "shown": self.shown.to_dict(),
        }  # fmt: skip


@dataclass(frozen=True)
class Step:
    """One step of an option: the actions taken together (one, unless they must go together), the
    changes they cause, the state after it (the features in play) and whether the decision there
    is still a refusal."""

    actions: tuple[DirectAction, ...]
    caused: tuple[CausedChange, ...]
    state: dict[str, Any]
    refused: bool

    def sentence(self) -> str:
        together = " These go together: no order of them one at a time keeps to the causal knowledge." if len(self.actions) > 1 else ""
        outcome = "Still refused." if self.refused else "No longer refused."
        return f"{plan_of(self.actions, self.caused)}{together} {outcome}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "actions": [a.to_dict() for a in self.actions],
            "caused": [c.to_dict() for c in self.caused],
            "state": {k: plain(v) for k, v in self.state.items()},
            "decision": "refused" if self.refused else "not_refused",
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Step:
        return cls(
            tuple(read_direct(a) for a in data["actions"]), tuple(read_caused(c) for c in data["caused"]), dict(data["state"]), data["decision"] == "refused"
        )


def read_direct(d: Mapping[str, Any]) -> DirectAction:
    return DirectAction(d["feature"], d["from"], d["to"], d["cost"], Shown.read(d, d["feature"], d["from"], d["to"]))


def read_caused(c: Mapping[str, Any]) -> CausedChange:
    shown = Shown.read(c, c["feature"], c["from"], c["to"])
    return CausedChange(c["feature"], c["from"], c["to"], c["rule"], c.get("cost", 0.0), c.get("forced", True), c.get("rule_id", ""), shown)


def plan_of(direct: Sequence[DirectAction], caused: Sequence[CausedChange]) -> str:
    """What to do and what follows, in sentences."""
    parts = [a.sentence() for a in direct]
    forced = [c.sentence() for c in caused if c.forced]
    allowed = [c.sentence() for c in caused if not c.forced]
    if forced:
        parts.append(f"As a consequence, {'; '.join(forced)}.")
    if allowed:
        parts.append(f"At no further effort, {'; '.join(allowed)}.")
    if any(a.is_wait for a in direct):
        parts.append(apply_again([a for a in direct if a.is_wait]))
    return " ".join(parts) if parts else "No change is needed."


def apply_again(waits: Sequence[DirectAction]) -> str:
    """When to apply again, for a plan that waits: after its longest wait, when every wait is
    counted in one unit of time."""
    if len({a.shown.waits for a in waits}) == 1 and all(a.span for a in waits):
        return f"Apply again in {max(waits, key=lambda a: a.after - a.before).span}."
    return "Apply again once every wait above is over."
