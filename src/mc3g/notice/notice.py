"""A notice of adverse action: what a lender sends a person it refuses, built from their answer.

US Regulation B (12 CFR 1002.9) asks a creditor that refuses credit for the *specific* principal
reasons; its commentary calls "internal standards or policies" and "failed to achieve the
qualifying score" not specific, lenders' practice gives four reasons at most, and the CFPB's
circular 2022-03 says a complex model excuses none of it.  So a notice gives the answer's
principal reasons (:func:`mc3g.explain` reads them from the model's own verdicts, in the
person's words) or the lender's own, each checked: none vague, none naming a protected feature;
the least-effort plan and its steps, none changing a protected feature; when to apply again; and
what identifies the decision (the model, the knowledge and the settings by SHA-256, and a
decision id computed from them, the person and the date), for the lender's records.  The
statements the law asks beside these (the lender's name and address, the ECOA notice, a credit
bureau's) are the lender's to add.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import pickle
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..exceptions import NoticeError
from ..explain import ERROR, MC3G, MOST_REASONS, NOT_REFUSED, Recourse, apply_again
from ..models import model_source
from ..records import batch_settings, settings_hash
from ..serialization import header
from ..values import plain
from .page import template

FORMAT, VERSION = "mc3g.notice", 1

VAGUE = frozenset(
    {"other", "others", "misc", "miscellaneous", "unknown", "none", "na", "n a", "not available", "not applicable", "insufficient", "various", "see above"}
)
"""Reasons that say nothing, whole (after lower case and punctuation dropped)."""

VAGUE_PARTS = ("insufficient data", "insufficient information", "internal standard", "internal polic", "credit polic", "qualifying score", "not meet our")
"""Words that make a reason the non-specific kind Regulation B's commentary names, anywhere in it."""

ONCE_DONE = "You may apply again once the changes above are made."
WHENEVER = "You may apply again whenever your circumstances change."


@dataclass(frozen=True)
class NoticeReason:
    """One principal reason as the person reads it: from the model (``feature``: the feature it is
    about) or in the lender's own words (``feature`` None)."""

    sentence: str
    feature: str | None
    source: str  # "model" or "lender"


@dataclass(frozen=True)
class Plan:
    """The least-effort option: its effort, the plan in a sentence, its steps (when it has more
    than one) and each action the person takes, in words."""

    effort: float
    plan: str
    steps: tuple[str, ...]
    actions: tuple[dict[str, str], ...]


@dataclass(frozen=True)
class Notice:
    """A notice of adverse action for one refused person (:meth:`of`): as text (:attr:`text`),
    HTML for the person (:meth:`html`) and JSON for the lender's records (:meth:`to_dict`, whose
    JSON Schema ships as ``mc3g.serialization.json_schema("mc3g.notice")``)."""

    decision: str
    date: str
    lender: str | None
    applicant: dict[str, Any]
    reasons: tuple[NoticeReason, ...]
    plan: Plan | None
    no_way_out: str | None
    apply_again: str
    record: dict[str, Any]

    @classmethod
    def of(
        cls,
        explainer: MC3G,
        answer: Recourse,
        *,
        date: datetime.date | str | None = None,
        lender: str | None = None,
        reasons: Sequence[str] = (),
        model_file: str | Path | None = None,
    ) -> Notice:
        """The notice of ``answer`` (``explainer``'s answer for one person), dated ``date``
        (today by default), from ``lender``; ``reasons``: the lender's own principal reasons, used
        instead of the answer's; ``model_file``: the file the model was read from, when the
        explainer does not know it.  Raises :class:`~mc3g.exceptions.NoticeError` for a person not
        refused, a vague reason or one that names a protected feature, a plan that changes one, or
        no specific reason to give."""
        who = _who(answer)
        if answer.status == NOT_REFUSED:
            raise NoticeError(f"the model does not refuse {who}: there is no adverse action to give notice of")
        if answer.status == ERROR:
            raise NoticeError(f"{who} has no answer to give notice of ({'; '.join(answer.reasons)})")
        day = _day(date)
        given = _lender_reasons(explainer, reasons, who) if reasons else _model_reasons(explainer, answer, who)
        if not given:
            raise NoticeError(
                f"no principal reason to give {who}: no change within the causal knowledge reverses the decision, so the model's verdicts name no "
                f"reason the person can act on; give the lender's own specific reasons (reasons=[...], --reason TEXT, at most {MOST_REASONS})"
            )
        plan = _plan(explainer, answer, who)
        record = _record(explainer, answer, model_file)
        applicant = {name: plain(value) for name, value in answer.instance.items()}
        decision = _decision_id(day, applicant, record)
        no_way = None if plan is not None else " ".join(answer.plainly)  # proved, or not found
        again = WHENEVER if plan is None else _apply_again(answer)
        return cls(decision, day, lender, applicant, given, plan, no_way, again, record)

    @property
    def text(self) -> str:
        """The notice as the person reads it, in plain text."""
        lines = [f"Notice of action taken{' by ' + self.lender if self.lender else ''}", f"Date: {self.date}", f"Decision: {self.decision}", ""]
        lines += ["Your application was refused.", "", "The principal reasons for the decision:"]
        lines += [f"  {i}. {reason.sentence}" for i, reason in enumerate(self.reasons, 1)]
        lines += ["", "What would change the decision, with the least effort:"]
        if self.plan is None:
            lines.append(f"  {self.no_way_out}")
        else:
            lines.append(f"  {self.plan.plan}")
            if self.plan.steps:
                lines += ["  Step by step:", *(f"    {j}. {step}" for j, step in enumerate(self.plan.steps, 1))]
        lines += ["", f"When to apply again: {self.apply_again}", "", f"For the lender's records: {self.identifiers}."]
        return "\n".join(lines) + "\n"

    @property
    def identifiers(self) -> str:
        """The decision's identifiers in a line: the decision id and the first twelve digits of each SHA-256."""
        record = self.record
        model = "not identified" if record["model_sha256"] is None else f"SHA-256 {record['model_sha256'][:12]} (of its {record['model_identified_by']})"
        settings = record["settings_sha256"].removeprefix("sha256:")[:12]
        return f"decision {self.decision}; model {model}; causal knowledge SHA-256 {record['causal_sha256'][:12]}; settings SHA-256 {settings}"

    def to_dict(self) -> dict[str, Any]:
        """The lender's record of the notice (format ``mc3g.notice``), with its text."""
        return {
            **header(FORMAT, VERSION),
            "decision": {"id": self.decision, "date": self.date, "outcome": "refused"},
            "lender": self.lender,
            "applicant": self.applicant,
            "reasons": [asdict(reason) for reason in self.reasons],
            "plan": None if self.plan is None else {**asdict(self.plan), "steps": list(self.plan.steps), "actions": list(self.plan.actions)},
            "no_way_out": self.no_way_out,
            "apply_again": self.apply_again,
            "record": self.record,
            "text": self.text,
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    def html(self) -> str:
        """The notice as a page for the person (no script, no style from elsewhere)."""
        return str(template().render(notice=self))


def notice(explainer: MC3G, person: Mapping[str, Any], **options: Any) -> Notice:
    """``explainer``'s answer for ``person``, as a notice (:meth:`Notice.of` and its options)."""
    answer = explainer.explain(person)
    assert isinstance(answer, Recourse)
    return Notice.of(explainer, answer, **options)


def vague(text: str) -> bool:
    """Whether a reason says nothing specific: "other", "insufficient data", "internal standards"."""
    said = _words(text)
    return len(said) < 3 or said in VAGUE or any(part in said for part in VAGUE_PARTS)


def _who(answer: Recourse) -> str:
    shown = ", ".join(f"{name} = {plain(value)!r}" for name, value in list(answer.instance.items())[:6])
    return f"the person ({shown}{', …' if len(answer.instance) > 6 else ''})"


def _day(date: datetime.date | str | None) -> str:
    if date is None:
        return datetime.date.today().isoformat()
    if isinstance(date, datetime.date):
        return date.isoformat()
    try:
        return datetime.date.fromisoformat(str(date)).isoformat()
    except ValueError:
        raise NoticeError(f"the notice's date {date!r} is not a date as YYYY-MM-DD") from None


def _model_reasons(explainer: MC3G, answer: Recourse, who: str) -> tuple[NoticeReason, ...]:
    """The answer's principal reasons, each about a feature with a specific name, none protected."""
    schema, words = explainer.schema_, explainer.words_
    for reason in answer.principal:
        label = words.feature(reason.feature)
        if schema.feature(reason.feature).protected:
            raise NoticeError(f"the answer for {who} gives {label}, a protected feature, as a reason: a notice never does (explain under the product profile)")
        if vague(label):
            raise NoticeError(f"the answer for {who} gives a reason about {reason.feature!r}, whose name in words ({label!r}) says nothing specific: label it")
    return tuple(NoticeReason(reason.sentence, reason.feature, "model") for reason in answer.principal)


def _lender_reasons(explainer: MC3G, reasons: Sequence[str], who: str) -> tuple[NoticeReason, ...]:
    """The lender's own reasons, each specific and naming no protected feature, at most four."""
    given = [str(reason).strip() for reason in reasons]
    if len(given) > MOST_REASONS:
        raise NoticeError(f"{len(given)} reasons given for {who}: a notice gives at most {MOST_REASONS} principal reasons")
    protected = [f.name for f in explainer.schema_.features if f.protected]
    for reason in given:
        if vague(reason):
            said = "a notice states the factors that decided (not 'other', 'insufficient data', 'internal standards')"
            raise NoticeError(f"the reason {reason!r} for {who} says nothing specific: {said}")
        named = [name for name in protected if _names(reason, name, explainer.words_.feature(name))]
        if named:
            raise NoticeError(f"the reason {reason!r} for {who} names {named[0]!r}, a protected feature: a notice never gives one as a reason")
    return tuple(NoticeReason(reason, None, "lender") for reason in given)


def _words(text: str) -> str:
    """``text`` in lower case, words apart by one space, no punctuation."""
    return " ".join(re.sub(r"[^\w]+", " ", text.lower()).replace("_", " ").split())


def _names(text: str, name: str, label: str) -> bool:
    """Whether ``text`` names the feature ``name`` (or its ``label``), as whole words."""
    return any(f" {_words(word)} " in f" {_words(text)} " for word in (name, label))


def _plan(explainer: MC3G, answer: Recourse, who: str) -> Plan | None:
    """The least-effort option in words; None when there is none.  A plan that changes a protected
    feature (the paper profile lets sex change) is refused; a wait is no act (age grows by itself)."""
    best = answer.best
    if best is None:
        return None
    acts = [*(a for a in best.direct_actions if not a.is_wait), *best.caused_changes]
    changed = [c.feature for c in acts if explainer.schema_.feature(c.feature).protected]
    if changed:
        label = explainer.words_.feature(changed[0])
        raise NoticeError(f"the least-effort option for {who} changes {label}, a protected feature: a notice never asks that (keep it in the knowledge)")
    steps = tuple(step.sentence() for step in best.steps) if len(best.steps) > 1 else ()
    actions = tuple({"feature": a.shown.feature, "from": a.shown.before, "to": a.shown.after} for a in best.direct_actions)
    return Plan(float(best.cost), best.plan, steps, actions)


def _apply_again(answer: Recourse) -> str:
    assert answer.best is not None
    waits = [action for action in answer.best.direct_actions if action.is_wait]
    return apply_again(waits) if waits else ONCE_DONE


def _record(explainer: MC3G, answer: Recourse, model_file: str | Path | None) -> dict[str, Any]:
    """What identifies the decision: the mc3g version, the model, the decision rules, the causal
    knowledge and the schema by SHA-256, the answer's settings and their hash, and its guarantee."""
    settings = {**batch_settings(explainer, {}, model_file), "run": json.loads(json.dumps(answer.run.settings(), default=str))}
    sha256, by = _model_identity(explainer, settings["model_sha256"])
    kept = ("mc3g", "rules_sha256", "causal_sha256", "schema_sha256", "run", "params")
    return {"model_sha256": sha256, "model_identified_by": by, **{key: settings[key] for key in kept}} | {
        "settings_sha256": settings_hash(settings), "guarantee": answer.run.guarantee, "reading": answer.run.reading
    }  # fmt: skip


def _model_identity(explainer: MC3G, file_sha256: str | None) -> tuple[str | None, str | None]:
    """The model's SHA-256 and what it is of: its file, the decision rules it is, or its pickle."""
    if file_sha256 is not None:
        return file_sha256, "file"
    source = model_source(explainer.model)
    if source is not None:
        return source.sha256, "file"
    if explainer.black_box_ is None:
        return hashlib.sha256(explainer.rules_.to_json().encode("utf-8")).hexdigest(), "decision rules"
    try:
        return hashlib.sha256(pickle.dumps(explainer.model, protocol=5)).hexdigest(), "pickle"
    except (pickle.PicklingError, AttributeError, TypeError):  # a function defined inline: nothing identifies it
        return None, None


def _decision_id(day: str, applicant: Mapping[str, Any], record: Mapping[str, Any]) -> str:
    """The same person, model, knowledge, settings and day give the same id."""
    basis = {"date": day, "applicant": applicant, "model": record["model_sha256"], "settings": record["settings_sha256"]}
    return hashlib.sha256(json.dumps(basis, sort_keys=True, default=str).encode("utf-8")).hexdigest()[:16]
