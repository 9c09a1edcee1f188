"""Feature metadata: the one description of a table's columns that every part of mc3g shares.

The schema is the one place that says what a feature is (numeric or categorical, the values a
person may have) and how a person may change it (immutable, only as a consequence, one
direction, where advice may take it, how far one person may move it, a weight).  The learner
reads the kinds; the counterfactual engine reads the rest; every entrance checks a person's
values against it.  A data set's schema also carries each profile's own settings for its
features (:class:`ProfileSettings`), so that whoever names the schema gets them
(:meth:`Schema.under`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal

import numpy as np
import pandas as pd

from .exceptions import InputError, UnknownNameError
from .moves import checked_efforts, checked_moves
from .protections import PROTECTIONS, plain_setting
from .rules import Column, Words, token
from .values import LARGEST, category_problem, check_grid, checked_labels, first_non_number, number, stray_text, words

Kind = Literal["numeric", "categorical"]
Direction = Literal["increase", "decrease"]


@dataclass(frozen=True)
class Feature:
    """One column of a table and the rules for changing it.

    What a person may have: ``domain`` lists a categorical feature's values, ``valid`` bounds a
    numeric one (an age in [0, 120]; None: any number mc3g takes).  A value outside them is
    refused wherever it comes in, and no advice leaves them.  Where advice may go: ``targets``
    are the values a counterfactual may move a category to (default: all), ``range`` bounds
    where it may put a number (by default what the training data shows).  A person outside the
    range is still a person, and keeps their value.  ``step`` is a numeric feature's resolution
    (1 for integers), so "just past a threshold" is well defined.  ``max_change`` is the most one
    person may move a number from their own value, either way: ``range`` bounds where advice may
    go for anyone, ``max_change`` what one person may be asked to do (an applicant of 24 is not
    told to be 87).  ``moves`` are the (from, to) pairs a category may make (None: any move to a
    target): a person with value ``a`` may be advised ``b`` only when ``(a, b)`` is one of them
    (never-married -> married, not never-married -> divorced).  ``unknown`` are the values that
    mean "not known" (adult's '?'): a person may have one, and keeps it, but advice never moves a
    person to one, whatever the targets and moves say; ``efforts`` (from, to, effort) price moves
    (else 1, as in :mod:`mc3g.moves`).  ``protected``: a characteristic fair-lending law protects
    (sex, marital status): an applicant is never told it keeps them out.  ``waits``: only time changes the feature
    (age); a change is a wait in this unit ("years"; "" for a category's next bands), not an action.

    What a person reads: ``label`` is the feature's name in words ("hours per week"; by default
    the name with spaces for underscores) and ``value_labels`` the words for its values
    (``{9: "high school graduate"}`` for a number, ``{"A14": "no checking account"}`` for a
    category), so no code of the data reaches a sentence.  They change no answer.
    """

    name: str
    kind: Kind
    domain: tuple[str, ...] | None = None
    targets: tuple[str, ...] | None = None
    moves: tuple[tuple[str, str], ...] | None = None
    unknown: tuple[str, ...] = ()
    range: tuple[float, float] | None = None
    valid: tuple[float, float] | None = None
    step: float | None = None
    immutable: bool = False
    protected: bool = False
    consequence_only: bool = False
    direction: Direction | None = None
    max_change: float | None = None
    weight: float = 1.0
    must_change: bool = False
    efforts: tuple[tuple[str, str, float], ...] = ()
    waits: str | None = None
    description: str = ""
    label: str | None = None
    value_labels: tuple[tuple[str | float, str], ...] = ()

    def __post_init__(self) -> None:
        if self.label is not None:
            object.__setattr__(self, "label", words(self.label, f"feature {self.name!r}: the label"))
        object.__setattr__(self, "value_labels", checked_labels(f"feature {self.name!r}", self.kind == "numeric", self.domain, self.value_labels))
        if self.kind not in ("numeric", "categorical"):
            raise InputError(f"feature {self.name!r}: kind must be 'numeric' or 'categorical', not {self.kind!r}")
        if self.direction not in (None, "increase", "decrease"):
            raise InputError(f"feature {self.name!r}: direction must be 'increase' or 'decrease', not {self.direction!r}")
        number(self.weight, f"feature {self.name!r}: the weight")
        if self.weight < 0:
            raise InputError(f"feature {self.name!r}: weight must be >= 0, not {self.weight}")
        for name, bounds in (("range", self.range), ("valid values", self.valid)):
            if bounds is not None:
                for end in bounds:
                    number(end, f"feature {self.name!r}: an end of the {name}")
                if bounds[0] > bounds[1]:
                    raise InputError(f"feature {self.name!r}: empty {name} {bounds}")
        if self.max_change is not None:
            number(self.max_change, f"feature {self.name!r}: the max-change")
            if self.max_change <= 0:
                raise InputError(f"feature {self.name!r}: max-change must be > 0, not {self.max_change}")
        if self.waits:  # "" for a category: it waits for its next band
            words(self.waits, f"feature {self.name!r}: the unit of time it waits in")
        if self.waits is not None and self.kind == "numeric" and self.direction != "increase":
            raise InputError(f"feature {self.name!r}: a number only time changes only rises: declare it increase-only with waits")
        if self.kind == "categorical" and any(x is not None for x in (self.range, self.valid, self.step, self.max_change)):
            raise InputError(f"feature {self.name!r}: a categorical feature has no range, valid values, step or max-change")
        if self.kind == "numeric" and (self.domain is not None or self.targets is not None or self.moves is not None or self.unknown or self.efforts):
            raise InputError(f"feature {self.name!r}: a numeric feature has a range, not a set of values, moves or unknown values")
        moves, unknown = checked_moves(f"feature {self.name!r}", self.moves, self.unknown, self.domain, self.targets)
        object.__setattr__(self, "efforts", checked_efforts(f"feature {self.name!r}", self.efforts, self.domain))
        object.__setattr__(self, "moves", moves)
        object.__setattr__(self, "unknown", unknown)
        if self.step is not None:
            number(self.step, f"feature {self.name!r}: the step")
            if self.step <= 0:
                raise InputError(f"feature {self.name!r}: step must be > 0, not {self.step}")
            if self.range is not None:
                check_grid(self.name, self.step, max(abs(self.range[0]), abs(self.range[1])))

    def may_move(self, before: str, after: str) -> bool:
        """Whether advice may move this category from ``before`` to another value ``after``:
        not immutable, ``after`` not unknown, among the targets and one of the moves."""
        return (
            not self.immutable
            and after not in self.unknown
            and (self.targets is None or after in self.targets)
            and (self.moves is None or (before, after) in self.moves)
        )

    @property
    def is_numeric(self) -> bool:
        return self.kind == "numeric"

    @property
    def labels_every_value(self) -> bool:
        """Whether ``value_labels`` name every value a person may have of a numeric feature: its
        valid values on a grid of ``step`` (adult's education levels 1 to 16).  A threshold
        between two of them then reads as a label, and a form offers the labels to choose from."""
        keys = {value for value, _ in self.value_labels}
        if not self.is_numeric or not keys or self.valid is None or self.step is None:
            return False
        n = round((self.valid[1] - self.valid[0]) / self.step)
        return n + 1 <= len(keys) and all(self.valid[0] + i * self.step in keys for i in range(n + 1))

    def within(self, x: int | float, where: str) -> int | float:
        """The number ``x`` when a person may have it (see ``valid``); else an
        :class:`InputError` "``where`` is ``x``, ..." naming the valid values."""
        if self.valid is not None and not self.valid[0] <= x <= self.valid[1]:
            raise InputError(f"{where} is {x}, {self.outside_valid}")
        return x

    @property
    def valid_words(self) -> str:
        """``valid`` in words: "from 0 to 120", or "at least 0" when an end is mc3g's largest
        magnitude (that side is open), or "any number"."""
        lo, hi = (number(end, "") for end in self.valid or (-LARGEST, LARGEST))
        if hi >= LARGEST:
            return "any number" if lo <= -LARGEST else f"at least {lo}"
        return f"at most {hi}" if lo <= -LARGEST else f"from {lo} to {hi}"

    @property
    def outside_valid(self) -> str:
        """What is wrong with a number outside ``valid``, in words."""
        return f"not a value a person may have ({self.name} is {self.valid_words})"

    def first_refused(self, column: pd.Series) -> tuple[Any, str] | None:
        """The label of the first cell of ``column`` this feature cannot hold, and what is wrong
        with it; None when every cell is fine.  A numeric feature holds finite numbers within
        mc3g's bounds and ``valid`` (text is refused, not read as text), a categorical one values
        of its ``domain`` (None: any), never a missing cell.  Vectorised."""
        if self.is_numeric:
            bad = first_non_number(column)
            if bad is not None or self.valid is None:
                return bad
            values = pd.to_numeric(column, errors="coerce").to_numpy(np.float64)
            outside = np.flatnonzero((values < self.valid[0]) | (values > self.valid[1]))
            return None if not outside.size else (column.index[outside[0]], f"{number(values[outside[0]], '')}, {self.outside_valid}")
        tokens = _tokens(column)
        bad = column.isna().to_numpy()
        if self.domain is not None:
            bad = bad | ~np.isin(tokens, list(self.domain))
        if not bad.any():
            return None
        at = int(np.flatnonzero(bad)[0])
        return column.index[at], category_problem(column.iloc[at], tokens[at], self.domain)

    def updated(self, **changes: Any) -> Feature:
        """This feature with ``changes`` (field -> value) laid over it; fields not named stay.

        ``direction="any"`` lifts an increase-only or decrease-only.  A new ``kind`` drops the
        bounds of the old one (range and step, or domain and targets) unless ``changes`` gives them.
        """
        unknown = [k for k in changes if k not in SETTINGS]
        if unknown:
            raise InputError(f"feature {self.name!r}: unknown setting(s) {unknown}; the settings are {list(SETTINGS)}")
        if changes.get("direction") == "any":
            changes["direction"] = None
        if changes.get("kind", self.kind) != self.kind:
            cleared = ("range", "valid", "step", "max_change") if changes["kind"] == "categorical" else ("domain", "targets", "moves", "unknown")
            for name in cleared:
                changes.setdefault(name, None)
            changes.setdefault("value_labels", ())
        elif changes.get("value_labels") is not None:  # labels of values are laid over the data's one by one
            given = changes["value_labels"]
            changes["value_labels"] = {**dict(self.value_labels), **(dict(given) if not isinstance(given, Mapping) else given)}
        elif changes.get("domain") is not None:  # a narrower domain keeps the labels, moves and unknown values of its values
            domain = set(changes["domain"])
            changes["value_labels"] = tuple((v, label) for v, label in self.value_labels if v in domain)
            changes.setdefault("unknown", tuple(v for v in self.unknown if v in domain))
            if self.moves is not None:
                changes.setdefault("moves", tuple((a, b) for a, b in self.moves if a in domain and b in domain))
        return replace(self, **{k: () if k in ("value_labels", "unknown") and v is None else v for k, v in changes.items()})

    def protections(self) -> dict[str, Any]:
        """The settings of this feature that restrict what a person may be advised (see
        :data:`PROTECTIONS`), as plain JSON values: ``{}`` when the feature may move freely."""
        found = {name: getattr(self, name) for name, protection in PROTECTIONS.items() if protection.listed and getattr(self, name) != protection.free}
        return {name: plain_setting(name, value) for name, value in found.items()}

    def lifted(self, after: Feature) -> tuple[str, str] | None:
        """The first protection of this feature that ``after`` (the same feature, with more
        settings laid over it) lifts: the setting and the protection in words ("immutable",
        "increase-only", "max-change 10"); None when ``after`` keeps them all."""
        for name, protection in PROTECTIONS.items():
            before = getattr(self, name)
            if before != protection.free and not protection.kept(before, after):
                return name, protection.words(self)
        return None


SETTINGS: tuple[str, ...] = tuple(f.name for f in fields(Feature) if f.name != "name")
"""The fields of a feature that :meth:`Feature.updated` and :meth:`Schema.updated` may change."""


@dataclass(frozen=True)
class ProfileSettings:
    """A profile's own settings for a data set's features, kept with the data's schema and laid
    over it by :meth:`Schema.under`: feature -> field -> value (as :meth:`Schema.updated` takes
    them), and where each feature's were written (``where``: feature -> position, for messages)."""

    features: Mapping[str, Mapping[str, Any]]
    where: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Schema:
    """The features of a data set, its label column and the label value that is unfavourable."""

    name: str
    features: tuple[Feature, ...]
    label: str
    classes: tuple[str, ...]
    unfavourable: str
    notes: str = ""
    profiles: Mapping[str, ProfileSettings] = field(default_factory=dict, repr=False, hash=False)
    _index: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        names = [f.name for f in self.features]
        duplicated = sorted({n for n in names if names.count(n) > 1})
        if duplicated:
            raise InputError(f"schema {self.name!r}: duplicate feature names {duplicated}")
        if self.label in names:
            raise InputError(f"schema {self.name!r}: the label {self.label!r} is also a feature")
        if self.unfavourable not in self.classes:
            raise InputError(f"schema {self.name!r}: unfavourable class {self.unfavourable!r} is not one of {list(self.classes)}")
        object.__setattr__(self, "_index", {n: i for i, n in enumerate(names)})

    @property
    def feature_names(self) -> list[str]:
        return [f.name for f in self.features]

    @property
    def numeric(self) -> list[str]:
        return [f.name for f in self.features if f.is_numeric]

    @property
    def categorical(self) -> list[str]:
        return [f.name for f in self.features if not f.is_numeric]

    def feature(self, name: str) -> Feature:
        try:
            return self.features[self._index[name]]
        except KeyError:
            raise UnknownNameError(f"schema {self.name!r} has no feature {name!r}; it has {self.feature_names}") from None

    def __contains__(self, name: object) -> bool:
        return name in self._index

    def words(self) -> Words:
        """How a person reads these features and their values (their labels)."""
        return Words(
            {f.name: f.label for f in self.features if f.label},
            {f.name: dict(f.value_labels) for f in self.features if f.value_labels},
            frozenset(f.name for f in self.features if f.labels_every_value),
            {f.name: f.waits for f in self.features if f.waits is not None},
        )

    def select(self, names: Iterable[str]) -> Schema:
        """The same schema restricted to ``names`` (in that order)."""
        return replace(self, features=tuple(self.feature(n) for n in names))

    def updated(self, changes: Mapping[str, Mapping[str, Any]], *, where: Mapping[str, object] | None = None) -> Schema:
        """A copy with ``changes`` laid over the features: for each feature name, a mapping of
        field -> value (see :meth:`Feature.updated`).  A name the schema lacks adds a feature, so
        its changes must give its ``kind``; new features follow the schema's, in the order given.

        ``where`` says where each feature's changes were written (a file position, a parameter
        name); an error about that feature starts with it.  Raises :class:`InputError`.
        """
        features = {f.name: f for f in self.features}
        for name, change in changes.items():
            try:
                base = features.get(name)
                if base is None:
                    if change.get("kind") is None:
                        raise InputError(f"feature {name!r}: not in the data, so its kind (numeric or categorical) must be declared")
                    base = Feature(name, change["kind"])
                features[name] = base.updated(**change)
            except InputError as e:
                if where is None or name not in where:
                    raise
                raise InputError(f"{where[name]}: {e}") from None
        return replace(self, features=tuple(features.values()))

    def under(self, profile: str | None) -> Schema:
        """The data's metadata as ``profile`` has it: the profile's settings for this data set
        laid over the features (those for features this schema lacks left out), no profile's
        settings kept, so that laying them again changes nothing.  ``None`` lays none."""
        laid = self.profiles.get(profile) if profile is not None else None
        bare = replace(self, profiles={})
        if laid is None:
            return bare
        return bare.updated({name: change for name, change in laid.features.items() if name in self}, where=laid.where)

    def protections(self) -> dict[str, dict[str, Any]]:
        """Feature -> its settings that restrict advice (:meth:`Feature.protections`), for the
        features that have any: what an answer under this schema holds to."""
        return {f.name: found for f in self.features if (found := f.protections())}


def infer_schema(frame: pd.DataFrame, label: str, unfavourable: str, name: str = "data", numeric: Iterable[str] | None = None) -> Schema:
    """A schema read off a frame: numeric dtypes (or the columns named in ``numeric``) are numeric;
    a column of truth values is a category of two values, ``True`` and ``False``."""
    if label not in frame.columns:
        raise UnknownNameError(f"label column {label!r} is not in the frame; columns are {list(frame.columns)}")
    declared = set(numeric) if numeric is not None else None
    features = []
    for col in frame.columns:
        if col == label:
            continue
        values = frame[col]
        stray = stray_text(values) if declared is None else None
        if stray is not None:
            raise InputError(
                f"column {col!r} holds numbers and text (row {stray[0]}: {stray[1]!r}), so its kind is unclear: "
                "declare it (a schema, or numeric=) or make every cell a number or every cell text"
            )
        is_num = col in declared if declared is not None else pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)
        features.append(observed_feature(str(col), values, is_num))
    classes = tuple(sorted(frame[label].astype(str).unique()))
    return Schema(name, tuple(features), label, classes, str(unfavourable))


def observed_feature(name: str, values: pd.Series, numeric: bool, **settings: Any) -> Feature:
    """A feature as the data show it: [min, max] and step 1 when whole (numeric), or the values
    seen (categorical).  ``settings`` (metadata, or an explicit range or domain) take precedence."""
    if numeric:
        nums = pd.to_numeric(values, errors="coerce").dropna()
        settings.setdefault("range", (float(nums.min()), float(nums.max())) if len(nums) else None)
        settings.setdefault("step", 1.0 if len(nums) and bool((nums == nums.round()).all()) else None)
        return Feature(name, "numeric", **settings)
    settings.setdefault("domain", tuple(sorted(values.dropna().astype(str).unique())))
    return Feature(name, "categorical", **settings)


def _tokens(values: pd.Series) -> np.ndarray:
    """Each cell's token; cells that cannot be hashed (a list) are read one by one."""
    try:
        column = Column.from_values(values)
        return column.categories[column.codes]
    except TypeError:
        return np.array([token(v) for v in values], dtype=object)
