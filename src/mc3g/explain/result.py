"""What a person receives: counterfactuals split into their own actions and what follows.

A :class:`Counterfactual` holds the new values, the direct actions (what the person does, and
what each costs), the caused changes (what follows by a causal rule, free; :mod:`.changes`) and a
plain-language plan.  :class:`Recourse` is the whole answer for one person, including the case
where no counterfactual exists (and why), the case where the person was not refused at all, the
rules that refused them as literals and in words, and why it has fewer options than asked for.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any

import pandas as pd

from ..engine import Engine
from ..reading import loads
from ..rules import Rule
from ..serialization import check_header, header
from ..values import plain
from .changes import CausedChange, DirectAction, Step, plan_of, read_caused, read_direct
from .principal import Reason

JSON_FORMAT = "mc3g.recourse"
JSON_VERSION = 2
# 2.1: the refusing rules as literals, why fewer than K, changes in words, caused changes' rule ids;
# 2.2: the run's reading and guarantee, and what blocks a person with no option; 2.3: a change
# of a feature only time changes says so (its unit of time, ``shown.waits``), and reads as a wait;
# 2.4: the principal reasons (``principal``), from the model's verdicts on the person's single changes;
# each option's remoteness from past applicants, and the options left out as unlike them all (``unlike``);
# 2.5: what an option had to clear beyond the model's decision (``run.robust``) and each option's
# share of retrained models that accept it (``survival``)
JSON_MINOR = 6

REFUSED = "refused"
NOT_REFUSED = "not_refused"
NO_COUNTERFACTUAL = "no_counterfactual"
ERROR = "error"


@dataclass(frozen=True)
class Counterfactual:
    values: dict[str, Any]
    direct_actions: tuple[DirectAction, ...]
    caused_changes: tuple[CausedChange, ...]
    cost: float
    norm: str
    mode: str
    steps: tuple[Step, ...] = ()
    remoteness: float | None = None  # how unlike past applicants its state is (above 1: unlike them all; :mod:`mc3g.search.past`)
    survival: float | None = None  # the share of the models retrained on resampled data that accept it (:mod:`mc3g.models.robust`)

    @property
    def plan(self) -> str:
        """What to do, in order, and what follows: the sentence a person reads."""
        return plan_of(self.direct_actions, self.caused_changes)

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
            "remoteness": self.remoteness,
            "survival": self.survival,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Counterfactual:
        return cls(
            dict(data["values"]),
            tuple(read_direct(d) for d in data["direct"]),
            tuple(read_caused(c) for c in data["caused"]),
            data["cost"],
            data["norm"],
            data["mode"],
            tuple(Step.from_dict(step) for step in data.get("steps", ())),
            data.get("remoteness"),
            data.get("survival"),
        )


@dataclass(frozen=True)
class RunRecord:
    """How an answer was made: the method and the settings that shape it (answers with equal
    settings are comparable), then what it took (measurements, ``None`` where they do not apply).

    ``profile`` is the profile the explainer ran under (``product`` or ``paper``) and
    ``unfavourable`` the class it treated as the refusal; ``protections`` the protections in
    force: feature -> its settings that restrict advice (immutable, consequence-only, direction,
    max-change, targets; see :data:`~mc3g.protections.PROTECTIONS`), so a reader sees what held
    (``None`` in answers saved before it was recorded); ``hunt``, for a black box, the settings
    of its search that differ from the defaults (:class:`~mc3g.engine.HuntSettings`;
    ``{}`` for none), so answers made with other draws or rounds are told apart.
    ``scheme`` is the candidate scheme (``exact`` or the authors' ``data``); ``n_regions`` and
    ``n_candidates`` describe the candidate space searched; for a black box, ``fidelity`` is its
    surrogate's held-out agreement, ``judged_by_model`` / ``rejected_by_model`` count the states
    the model was asked about and refused, ``model_rounds`` the rounds of questions to the model
    (its ``predict`` calls when the person is explained alone) and ``rows_asked`` the rows those
    held, every row counted, and ``wider_draws`` the draws made again, wider, because the model
    had accepted no row the knowledge allows; ``rounds_by_phase`` the rounds each part of the search
    asked (``first question``, ``global rules``, ``local rules``, ``to the budget``, ``sharpen``,
    ``last draw``, ``merge``, ``steps``: :mod:`~mc3g.hunt.phases`), so every round past the
    common two says why it was needed, and ``seconds_by_phase`` the search's own time in each of
    those parts (the model's calls left out; with ``search_seconds``, timings, left out of answers
    compared across runs); ``rules`` says which rules the answer was searched
    with (``global``: the surrogate; ``local``: rules learned near the person; ``none``: the
    model alone; ``model``: the model's own decision, read exactly); for every search, ``stopped``
    says why it ended (``found``: K options; ``exhausted``: no candidate left; ``budget``:
    ``max_states`` states judged; ``read``: as many states read for plain rules and a model read
    exactly, ten times as many for a black box otherwise).  ``reading``, for a black box, says
    what of it was read exactly (its kind and size) or why it was not; ``guarantee`` what the
    answer is (:data:`GUARANTEES`): ``exact`` (the least-cost options the decision itself
    accepts, decision rules or a model read exactly, and "no option" proved), ``bounded`` (that
    search, stopped at ``max_states``) or ``surrogate`` (a black box searched through rules that
    imitate it: docs/semantics.md says what holds)."""

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
    model_rounds: int | None = None
    rows_asked: int | None = None
    wider_draws: int | None = None
    rounds_by_phase: dict[str, int] | None = None
    seconds_by_phase: dict[str, float] | None = None
    rules: str | None = None
    stopped: str | None = None
    protections: dict[str, dict[str, Any]] | None = None
    hunt: dict[str, Any] | None = None
    reading: str | None = None
    guarantee: str | None = None
    robust: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def imitation(self) -> str:
        """Where the reason for a black box's refusal is read, in words: rules that imitate the
        model, and how well they agree with it ('' for decision rules, which are the model)."""
        if self.fidelity is None:
            return ""
        return f"read from rules that imitate the model; they agree with the model on {self.fidelity:.0%} of the past cases they were checked against"

    def settings(self) -> dict[str, Any]:
        """The method and the settings, without the measurements: what answers made alike share."""
        return {name: value for name, value in asdict(self).items() if name not in MEASUREMENTS}

    @classmethod
    def of(cls, engine: Engine, k: int) -> RunRecord:
        """The settings part of an answer's run record: what every answer with ``k`` shares."""
        st = engine.settings
        return cls(
            profile=st.profile.value, unfavourable=engine.unfavourable, mode=st.mode, norm=st.norm, root=st.root,
            k=k, scheme=st.scheme, scaling=st.scaling, distinct=st.distinct, protections=engine.schema.protections(),
            hunt=None if engine.black_box is None else st.hunt.changed(), reading=reading(engine),
            robust=None if engine.black_box is None or engine.black_box.robust is None else engine.black_box.robust.settings,
        )  # fmt: skip

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RunRecord:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


GUARANTEES = ("exact", "bounded", "surrogate")
"""What an answer is (:attr:`RunRecord.guarantee`)."""


def reading(engine: Engine) -> str | None:
    """What of a black box was read exactly, or why it was not (None for decision rules)."""
    if engine.black_box is None:
        return None
    if engine.glass is not None:
        glass = engine.glass
        size = f"{glass.size:,} terms" if glass.linear else f"{glass.size:,} nodes"
        return f"{glass.kind}, read exactly ({size} over {len(glass.features)} features)"
    return f"not read exactly: {engine.opaque}" if engine.opaque else "not read exactly (read_model='never')"


MEASUREMENTS = frozenset(
    {"search_seconds", "n_regions", "n_candidates", "fidelity", "judged_by_model", "rejected_by_model"}
    | {"model_rounds", "rows_asked", "wider_draws", "rounds_by_phase", "seconds_by_phase", "rules", "stopped", "guarantee"}
)
"""The fields of a :class:`RunRecord` that measure what an answer took (the rest are settings)."""

TIMINGS = ("search_seconds", "seconds_by_phase")
"""The fields of a :class:`RunRecord` that differ between two runs that give the same answer."""


@dataclass(frozen=True)
class Recourse:
    """The answer for one person.

    ``status`` is ``refused`` (with counterfactuals in cost order), ``not_refused`` (the decision
    is already favourable), ``no_counterfactual`` (``reasons`` says why) or ``error`` (explaining
    this person failed, for instance in the model's own ``predict``; ``reasons`` has the message).
    ``refusing`` are the decision rules that refuse the person (for a black box, rules that
    imitate it: ``run.fidelity`` says how well) and ``decision`` the same rules in words.
    ``fewer`` says why there are fewer options than the K asked for ('' when there are K), and
    ``run.stopped`` where the search stopped.  ``blocking``, where a model read exactly accepts
    no state within the protections (a proof), says what would open a way out: the smallest sets
    of protections (feature, setting) whose lifting would, ``()`` when none would; None where it
    was not asked.  ``principal`` are the principal reasons the person reads (at most four, from
    the model's verdicts, never a protected feature: :mod:`.principal`), and :attr:`plainly`
    what the person is told, with no word of how the search went.  ``unlike`` counts the options
    found but left out as unlike every past applicant (under ``product``: each option's
    ``remoteness`` says how unlike them it is).  ``turns_on``, where a model that cannot be read
    was searched and no option found (not proved), are the protected characteristics that alone
    turn its refusal, asked of it: (feature, value) pairs, ``()`` when none does; None where not
    asked (:mod:`.turning`).  The lender reads it; the applicant never does.
    """

    instance: dict[str, Any]
    status: str
    counterfactuals: tuple[Counterfactual, ...] = ()
    reasons: tuple[str, ...] = ()
    decision: tuple[str, ...] = ()
    run: RunRecord = field(default_factory=RunRecord)
    refusing: tuple[Rule, ...] = ()
    fewer: str = ""
    blocking: tuple[tuple[tuple[str, str], ...], ...] | None = None
    principal: tuple[Reason, ...] = ()
    unlike: int = 0
    turns_on: tuple[tuple[str, Any], ...] | None = None

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
    def plainly(self) -> tuple[str, ...]:
        """What the person is told beside the options, in plain words: the principal reasons, or
        that no change within their reach would change the decision (found so, when the model was
        searched through rules that imitate it)."""
        if self.status == REFUSED:
            return tuple(reason.sentence for reason in self.principal)
        if self.status == NO_COUNTERFACTUAL:
            if self.unlike:
                return ("The only ways out found are unlike anything past applicants have done, so none is offered.",)
            if self.run.guarantee == "exact":
                return ("No change within your reach would change the decision.",)
            return ("No change within your reach was found that would change the decision.",)
        return ()

    @property
    def fewer_plainly(self) -> str:
        """:attr:`fewer` as the person reads it ('' when there are K options): whether no other
        way out exists within their reach, or none other was found."""
        if not self.fewer:
            return ""
        if self.unlike:
            other = "another found would be" if self.unlike == 1 else "others found would be"
            return f"Only {len(self)} of the {self.run.k} ways out asked for: {other} unlike anything past applicants have done."
        other = "there is no other" if self.run.guarantee == "exact" else "no other was found"
        return f"Only {len(self)} of the {self.run.k} ways out asked for: {other} within your reach."

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
        """The versioned JSON document; ``timing=False`` leaves out the search's times
        (:data:`TIMINGS`), the fields that differ between two runs that give the same answer."""
        run = self.run.to_dict()
        if not timing:
            for name in TIMINGS:
                del run[name]
        return {
            **header(JSON_FORMAT, JSON_VERSION, JSON_MINOR),
            "status": self.status,
            "instance": {k: plain(v) for k, v in self.instance.items()},
            "decision": list(self.decision),
            "refusing": [r.to_dict() for r in self.refusing],
            "reasons": list(self.reasons),
            "fewer": self.fewer or None,
            "blocking": None if self.blocking is None else [[{"feature": f, "protection": p} for f, p in unit] for unit in self.blocking],
            "run": run,
            "features_touched": self.features_touched,
            "counterfactuals": [cf.to_dict() for cf in self.counterfactuals],
            "principal": [reason.to_dict() for reason in self.principal],
            "unlike": self.unlike,
            "turns_on": None if self.turns_on is None else [{"feature": f, "value": plain(v)} for f, v in self.turns_on],
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
            tuple(Rule.from_dict(r) for r in data.get("refusing", ())),
            data.get("fewer") or "",
            None if data.get("blocking") is None else tuple(tuple((p["feature"], p["protection"]) for p in unit) for unit in data["blocking"]),
            tuple(Reason.from_dict(r) for r in data.get("principal", ())),
            data.get("unlike", 0),
            None if data.get("turns_on") is None else tuple((t["feature"], t["value"]) for t in data["turns_on"]),
        )

    @classmethod
    def from_json(cls, text: str) -> Recourse:
        return cls.from_dict(loads(text))

    def __str__(self) -> str:
        if self.status == NOT_REFUSED:
            return "Not refused: " + " ".join(self.reasons)
        if self.status == NO_COUNTERFACTUAL:
            return "No counterfactual: " + " ".join(self.reasons)
        if self.status == ERROR:
            return "Error: " + " ".join(self.reasons)
        lines = [f"{i}. (cost {cf.cost:.4f}, {cf.norm}) {cf.plan}" for i, cf in enumerate(self.counterfactuals, 1)]
        return "\n".join(lines + ([self.fewer] if self.fewer else []))
