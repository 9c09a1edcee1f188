"""What a person receives: counterfactuals split into their own actions and what follows.

A :class:`Counterfactual` holds the new values, the direct actions (what the person does, and
what each costs), the caused changes (what follows by a causal rule, free) and a plain-language
plan.  :class:`Recourse` is the whole answer for one person, including the case where no
counterfactual exists (and why) and the case where the person was not refused at all.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any

import pandas as pd

from ..serialization import check_header, header

JSON_FORMAT = "mc3g.recourse"
JSON_VERSION = 2

REFUSED = "refused"
NOT_REFUSED = "not_refused"
NO_COUNTERFACTUAL = "no_counterfactual"
ERROR = "error"


def show(value: Any) -> str:
    """A value for people: thousands separators, no needless decimals, categories as written."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, (int, float)) and math.isfinite(value):
        if float(value).is_integer():
            return f"{int(value):,}"
        return f"{value:,.4f}".rstrip("0").rstrip(".")
    return str(value)


def _words(feature: str) -> str:
    return feature.replace("_", " ")


def plain(value: Any) -> Any:
    """Numbers as plain JSON numbers (ints when integral), everything else as text."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


@dataclass(frozen=True)
class DirectAction:
    """A change the person makes; ``cost`` is its term in the norm (before any root)."""

    feature: str
    before: Any
    after: Any
    cost: float

    def sentence(self) -> str:
        if isinstance(self.before, (int, float)) and isinstance(self.after, (int, float)):
            verb = "Raise" if self.after > self.before else "Lower"
            return f"{verb} your {_words(self.feature)} from {show(self.before)} to {show(self.after)}."
        return f"Change your {_words(self.feature)} from {show(self.before)} to {show(self.after)}."

    @property
    def how(self) -> str:
        return "you do this"

    def to_dict(self) -> dict[str, Any]:
        return {"feature": self.feature, "from": plain(self.before), "to": plain(self.after), "cost": self.cost}


@dataclass(frozen=True)
class CausedChange:
    """A change that follows from the direct actions by a causal rule; it costs nothing except
    under the ``none`` mode (C3G), which counts every change.  ``forced``: the rule is a
    constraint, so the change happens by itself; a ``cause`` rule only allows it, at no effort."""

    feature: str
    before: Any
    after: Any
    rule: str
    cost: float = 0.0
    forced: bool = True

    def sentence(self) -> str:
        """ "your credit score rises from 599 to 620"; for a change a rule allows but does not
        force, "your occupation can become Prof-specialty (was Sales)"."""
        if isinstance(self.before, (int, float)) and isinstance(self.after, (int, float)):
            verb = "rises" if self.after > self.before else "falls"
            return f"your {_words(self.feature)} {verb if self.forced else 'can ' + verb[:-1]} from {show(self.before)} to {show(self.after)}"
        return f"your {_words(self.feature)} {'becomes' if self.forced else 'can become'} {show(self.after)} (was {show(self.before)})"

    @property
    def how(self) -> str:
        return f"{'follows' if self.forced else 'allowed by'}: {self.rule}"

    def to_dict(self) -> dict[str, Any]:
        return {"feature": self.feature, "from": plain(self.before), "to": plain(self.after), "rule": self.rule, "cost": self.cost, "forced": self.forced}


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
        return f"{_plan(self.actions, self.caused)}{together} {outcome}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "actions": [a.to_dict() for a in self.actions],
            "caused": [c.to_dict() for c in self.caused],
            "state": {k: plain(v) for k, v in self.state.items()},
            "decision": "refused" if self.refused else "not_refused",
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Step:
        return cls(tuple(_direct(a) for a in data["actions"]), tuple(_caused(c) for c in data["caused"]), dict(data["state"]), data["decision"] == "refused")


def _direct(d: Mapping[str, Any]) -> DirectAction:
    return DirectAction(d["feature"], d["from"], d["to"], d["cost"])


def _caused(c: Mapping[str, Any]) -> CausedChange:
    return CausedChange(c["feature"], c["from"], c["to"], c["rule"], c.get("cost", 0.0), c.get("forced", True))


def _plan(direct: Sequence[DirectAction], caused: Sequence[CausedChange]) -> str:
    """What to do and what follows, in sentences."""
    parts = [a.sentence() for a in direct]
    forced = [c.sentence() for c in caused if c.forced]
    allowed = [c.sentence() for c in caused if not c.forced]
    if forced:
        parts.append(f"As a consequence, {'; '.join(forced)}.")
    if allowed:
        parts.append(f"At no further effort, {'; '.join(allowed)}.")
    return " ".join(parts) if parts else "No change is needed."


@dataclass(frozen=True)
class Counterfactual:
    values: dict[str, Any]
    direct_actions: tuple[DirectAction, ...]
    caused_changes: tuple[CausedChange, ...]
    cost: float
    norm: str
    mode: str
    steps: tuple[Step, ...] = ()

    @property
    def plan(self) -> str:
        """What to do, in order, and what follows: the sentence a person reads."""
        return _plan(self.direct_actions, self.caused_changes)

    def changes(self) -> pd.DataFrame:
        """Only what changes: one row per feature, direct actions first."""
        rows = [(c.feature, c.before, c.after, c.how, c.cost) for c in (*self.direct_actions, *self.caused_changes)]
        return pd.DataFrame(rows, columns=["feature", "from", "to", "how", "cost"])

    def to_dict(self) -> dict[str, Any]:
        return {
            "values": {k: plain(v) for k, v in self.values.items()},
            "cost": self.cost,
            "norm": self.norm,
            "mode": self.mode,
            "direct": [a.to_dict() for a in self.direct_actions],
            "caused": [c.to_dict() for c in self.caused_changes],
            "plan": self.plan,
            "steps": [step.to_dict() for step in self.steps],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Counterfactual:
        return cls(
            dict(data["values"]),
            tuple(_direct(d) for d in data["direct"]),
            tuple(_caused(c) for c in data["caused"]),
            data["cost"],
            data["norm"],
            data["mode"],
            tuple(Step.from_dict(step) for step in data.get("steps", ())),
        )


@dataclass(frozen=True)
class RunRecord:
    """How an answer was made: the method and the settings that shape it (answers with equal
    settings are comparable), then what it took (measurements, ``None`` where they do not apply).

    ``profile`` is the profile the explainer ran under (``product`` or ``paper``) and
    ``unfavourable`` the class it treated as the refusal; ``protections`` the protections in
    force: feature -> its settings that restrict advice (immutable, consequence-only, direction,
    max-change, targets; see :data:`~mc3g.schema.PROTECTIONS`), so a reader sees what held
    (``None`` in answers saved before it was recorded).
    ``scheme`` is the candidate scheme (``exact`` or the authors' ``data``); ``n_regions`` and
    ``n_candidates`` describe the candidate space searched; for a black box, ``fidelity`` is its
    surrogate's held-out agreement, ``judged_by_model`` / ``rejected_by_model`` count the states
    the model was asked about and refused, ``rules`` says which rules the answer was searched
    with (``global``: the surrogate; ``local``: rules learned near the person; ``none``: the
    model alone) and ``stopped`` why the search ended (``found``: K options; ``exhausted``: no
    candidate left; ``budget``: ``max_states`` states judged; ``read``: ten times as many read)."""

    method: str = "mc3g"
    profile: str | None = None
    unfavourable: str | None = None
    mode: str | None = None
    norm: str | None = None
    root: bool = True
    k: int = 1
    scheme: str | None = None
    scaling: str | None = None
    distinct: bool = False
    search_seconds: float | None = None
    n_regions: int | None = None
    n_candidates: int | None = None
    fidelity: float | None = None
    judged_by_model: int | None = None
    rejected_by_model: int | None = None
    rules: str | None = None
    stopped: str | None = None
    protections: dict[str, dict[str, Any]] | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def settings(self) -> dict[str, Any]:
        """The method and the settings, without the measurements: what answers made alike share."""
        return {name: value for name, value in asdict(self).items() if name not in MEASUREMENTS}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RunRecord:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


MEASUREMENTS = frozenset({"search_seconds", "n_regions", "n_candidates", "fidelity", "judged_by_model", "rejected_by_model"})
"""The fields of a :class:`RunRecord` that measure what an answer took (the rest are settings)."""


@dataclass(frozen=True)
class Recourse:
    """The answer for one person.

    ``status`` is ``refused`` (with counterfactuals in cost order), ``not_refused`` (the decision
    is already favourable), ``no_counterfactual`` (``reasons`` says why) or ``error`` (explaining
    this person failed, for instance in the model's own ``predict``; ``reasons`` has the message).
    """

    instance: dict[str, Any]
    status: str
    counterfactuals: tuple[Counterfactual, ...] = ()
    reasons: tuple[str, ...] = ()
    decision: tuple[str, ...] = ()  # the decision rules that fire on the person
    run: RunRecord = field(default_factory=RunRecord)

    @classmethod
    def failed(cls, instance: dict[str, Any], error: Exception, run: RunRecord) -> Recourse:
        """The ``error`` answer for a person whose explanation raised ``error``."""
        return cls(instance, ERROR, reasons=(f"{type(error).__name__}: {error}",), run=run)

    def __bool__(self) -> bool:
        return bool(self.counterfactuals)

    def __len__(self) -> int:
        return len(self.counterfactuals)

    def __iter__(self):
        return iter(self.counterfactuals)

    def __getitem__(self, i: int) -> Counterfactual:
        return self.counterfactuals[i]

    @property
    def features_touched(self) -> int:
        """How many features the options change directly, together (DiCE's diversity count)."""
        return len({a.feature for cf in self.counterfactuals for a in cf.direct_actions})

    @property
    def best(self) -> Counterfactual | None:
        return self.counterfactuals[0] if self.counterfactuals else None

    def table(self) -> pd.DataFrame:
        """Changes only, for every counterfactual (DiCE's ``show_only_changes``)."""
        frames = []
        for i, cf in enumerate(self.counterfactuals, 1):
            f = cf.changes()
            f.insert(0, "counterfactual", i)
            f["total"] = cf.cost
            frames.append(f)
        if not frames:
            return pd.DataFrame(columns=["counterfactual", "feature", "from", "to", "how", "cost", "total"])
        return pd.concat(frames, ignore_index=True)

    def to_dict(self, timing: bool = True) -> dict[str, Any]:
        """The versioned JSON document; ``timing=False`` leaves out the search time, the one
        field that differs between two runs that give the same answer."""
        run = self.run.to_dict()
        if not timing:
            del run["search_seconds"]
        return {
            **header(JSON_FORMAT, JSON_VERSION),
            "status": self.status,
            "instance": {k: plain(v) for k, v in self.instance.items()},
            "decision": list(self.decision),
            "reasons": list(self.reasons),
            "run": run,
            "features_touched": self.features_touched,
            "counterfactuals": [cf.to_dict() for cf in self.counterfactuals],
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Recourse:
        check_header(data, JSON_FORMAT, JSON_VERSION, "recourse")
        return cls(
            dict(data["instance"]),
            data["status"],
            tuple(Counterfactual.from_dict(c) for c in data["counterfactuals"]),
            tuple(data.get("reasons", ())),
            tuple(data.get("decision", ())),
            RunRecord.from_dict(data.get("run", {})),
        )

    @classmethod
    def from_json(cls, text: str) -> Recourse:
        return cls.from_dict(json.loads(text))

    def __str__(self) -> str:
        if self.status == NOT_REFUSED:
            return "Not refused: " + " ".join(self.reasons)
        if self.status == NO_COUNTERFACTUAL:
            return "No counterfactual: " + " ".join(self.reasons)
        if self.status == ERROR:
            return "Error: " + " ".join(self.reasons)
        lines = []
        for i, cf in enumerate(self.counterfactuals, 1):
            lines.append(f"{i}. (cost {cf.cost:.4f}, {cf.norm}) {cf.plan}")
        return "\n".join(lines)
