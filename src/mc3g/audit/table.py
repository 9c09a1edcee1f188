"""Recourse by group: who is refused, who has a way out, and what it costs them.

A batch's results folder holds one row per person (:mod:`mc3g.batch`): the person's input
columns, whether they were refused, the status of their answer, the cost of their best option
and the features it acts on.  For each group of a grouping (one input column, a numeric band of
one, or several joined), :func:`audit` gives:

- ``people`` in the group, and ``errors`` (people whose answer failed: no decision is known);
- ``refused``: the share of people with a decision whom the model refuses;
- ``recourse``: the share of refused people who have an option (a counterfactual);
- the cost of their best option, the burden: ``mean``, ``median`` and ``p90`` (90th percentile);
- ``actions``: the features the best options act on most often, each with its share;
- ``refused_ratio`` and ``burden_ratio``: the group's refusal share and mean cost over the
  lowest among the groups of :data:`FEWEST` people or more (1.0 is the best-off group; 1.5
  means half as much again); not defined (NaN) for a smaller group, or when the lowest is 0;
- ``fewer``: the share of people with an option who have fewer than K, each told why (the
  results' ``fewer``: the search read every state within the knowledge, or stopped at a bound);
- ``precluded``: the share of refused people the model itself accepts in no state within the
  protections (a model read exactly: a proof), and ``blocking``: the protections whose lifting
  would open a way out for them most often, each with its share of the group's precluded people;
- ``unproved``: the share of refused people left with no option by a search that proves none (a
  model that cannot be read, searched through rules that imitate it); ``turned``: the share of
  refused people so left whose refusal the model itself turns when a protected characteristic
  alone changes (asked of it: the results' ``turns_on``), and ``turning``: those characteristics
  most often, each with its share of the group's people so turned.

:func:`preclusions` names each protection that keeps one group's refused people out more often
than another's, and each protected characteristic that alone turns the refusal of one group's
people left with no option more often than another's (:data:`GAP` apart at least, and
:data:`RATIO` times as often), among groups of :data:`FEWEST` refused people or more.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..batch import RESULT_COLUMNS, partition_files, read_manifest
from ..exceptions import InputError, ResultsFileError
from .patterns import Summary, recourse_summary, weakest_subgroups

REFUSED_WITH_OPTION = "refused"
NO_OPTION = "no_counterfactual"
ERROR = "error"
TOP_ACTIONS = 3
GAP, RATIO = 0.05, 1.25  # a protection warned of: it keeps this much more of one group's refused people out, and this many times as many
FEWEST = 20  # people a group needs to be compared (a ratio to the best, a warning): a share of three people says little
MOST_PEOPLE = 20_000  # refused people a summary and the weakest subgroups are drawn from, at most (a million make no better rules)


@dataclass(frozen=True)
class Band:
    """A numeric column cut into bands at ``edges`` (each band holds its lower edge), as the
    column ``name``."""

    column: str
    edges: tuple[float, ...]

    @property
    def name(self) -> str:
        return f"{self.column}_band"

    @classmethod
    def parse(cls, text: str) -> Band:
        """``age=25,35,50,65``: the bands below 25, 25 to 35, ..., 65 and above, as ``age_band``."""
        column, sep, cuts = text.partition("=")
        try:
            edges = tuple(float(c) for c in cuts.split(","))
        except ValueError:
            edges = ()
        if not sep or not column.strip() or not edges or any(not math.isfinite(e) for e in edges) or list(edges) != sorted(set(edges)):
            raise InputError(f"a band is COLUMN=EDGES with increasing numbers, as age=25,35,50,65; not {text!r}")
        return cls(column.strip(), edges)

    def labels(self) -> list[str]:
        shown = [f"{e:g}" for e in self.edges]
        return [f"<{shown[0]}", *(f"{a}-{b}" for a, b in zip(shown, shown[1:])), f">={shown[-1]}"]

    def cut(self, values: pd.Series) -> pd.Series:
        if not pd.api.types.is_numeric_dtype(values):
            raise InputError(f"column {self.column!r} is not numeric ({values.dtype}): it cannot be cut into bands")
        return pd.cut(values, [-math.inf, *self.edges, math.inf], right=False, labels=self.labels())


@dataclass
class Audit:
    """The audit of a results folder: the people read, and one table per grouping (named by its
    columns joined with ``+``), one row per group."""

    folder: str
    people: int
    planned: int  # people the batch's input holds: more than ``people`` if the batch is unfinished
    settings_hash: str
    tables: dict[str, pd.DataFrame]
    frame: pd.DataFrame  # the people, with the grouping columns (for the plots)
    fewest: int = FEWEST  # people a group needs for its ratios to the best-off group
    summary: Summary | None = None  # segment -> action rules of the refused people's plans (:mod:`.patterns`)
    weakest: pd.DataFrame | None = None  # the subgroups whose recourse is worst


def read_people(folder: str | Path, columns: Sequence[str]) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The results' rows with only ``columns`` and what the audit needs, read by pandas from the
    folder's partition files, and the folder's manifest; a row of other settings is refused."""
    files = partition_files(folder)
    manifest = read_manifest(folder)
    needed = ["position", "status", "refused", "cost", "actions", "settings_hash"]
    later = ["guarantee", "blocking", "fewer", "options", "turns_on"]  # results written before mc3g wrote them lack them
    if not files:
        raise InputError(f"{folder} holds no partition yet: run mc3g batch first")
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        available = pq.read_schema(files[0]).names
        wanted = list(dict.fromkeys([*needed, *(c for c in later if c in available), *columns]))
        unknown = [c for c in columns if c not in available]
        if unknown:
            raise InputError(f"the results have no column(s) {unknown}; the people's columns are {[c for c in available if c not in needed]}")
        frame = pd.read_parquet(files, columns=wanted)
    except (pa.ArrowException, OSError):
        raise ResultsFileError(_damaged(folder, files, list(dict.fromkeys([*needed, *columns])))) from None
    for column in later:
        if column not in frame.columns:
            frame[column] = [[] for _ in range(len(frame))] if column in ("blocking", "turns_on") else None
    foreign = frame["settings_hash"] != manifest.get("settings_hash")
    if foreign.any():
        raise InputError(f"{folder}: {int(foreign.sum())} row(s) were made under settings other than the folder's manifest")
    if frame["position"].duplicated().any():
        raise InputError(f"{folder}: a person is in the results twice (position {int(frame['position'][frame['position'].duplicated()].iloc[0])})")
    return frame, manifest


def _damaged(folder: str | Path, files: Sequence[Path], columns: list[str]) -> str:
    """What is wrong with a folder whose partition files pyarrow cannot read together: each file
    that cannot be read alone, and the rerun that repairs them."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    damaged: dict[str, str] = {}
    for path in files:
        try:
            pq.read_table(path, columns=columns)
        except (pa.ArrowException, OSError) as exc:
            damaged[path.name] = f"{type(exc).__name__}: {str(exc).strip()[:200]}"
    if not damaged:
        return f"{folder}: its partition files cannot be read together (their columns differ): rerun mc3g batch with --overwrite"
    first, reason = next(iter(damaged.items()))
    return (
        f"{folder}: {len(damaged)} partition file(s) cannot be read, {list(damaged)[:5]}{' …' if len(damaged) > 5 else ''} "
        f"({first}: {reason}); rerun the mc3g batch that wrote the folder, with the same settings: it removes them and explains their people again"
    )


def audit(
    folder: str | Path,
    groupings: Sequence[Sequence[str]],
    bands: Sequence[Band] = (),
    fewest: int = FEWEST,
    patterns: Sequence[str] | None = None,
    budget: float | None = None,
) -> Audit:
    """The per-group table of each grouping (a list of columns; a band's column is its
    ``name``; a band no grouping names is a grouping of its own); ratios to the best-off group
    among groups of ``fewest`` people or more.  And, from the people's columns ``patterns``
    (None: all of them; ``[]``: none), a recourse summary and the weakest subgroups within a
    cost ``budget`` (:mod:`.patterns`), of at most :data:`MOST_PEOPLE` refused people drawn."""
    named = {c for g in groupings for c in g}
    groupings = [*groupings, *([b.name] for b in bands if b.name not in named)]
    by_name = {b.name: b for b in bands}
    sources = [by_name[c].column if c in by_name else c for g in groupings for c in g]
    mined = people_in(folder) if patterns is None else list(patterns)
    frame, manifest = read_people(folder, list(dict.fromkeys([*sources, *mined])))
    for band in bands:
        frame[band.name] = band.cut(frame[band.column])
    tables = {"+".join(g): group_table(frame, list(g), fewest) for g in groupings}
    planned = int(manifest.get("plan", {}).get("people", len(frame)))
    made = Audit(str(folder), len(frame), planned, str(manifest.get("settings_hash")), tables, frame, fewest)
    if mined:
        refused = frame[frame["status"].isin([REFUSED_WITH_OPTION, NO_OPTION])]
        drawn = refused.sample(MOST_PEOPLE, random_state=0) if len(refused) > MOST_PEOPLE else refused
        made.summary = recourse_summary(drawn, mined)
        made.weakest = weakest_subgroups(drawn, mined, budget, fewest)
    return made


def people_in(folder: str | Path) -> list[str]:
    """The people's own columns of a results folder (the input's, beside the results')."""
    import pyarrow.parquet as pq

    files = partition_files(folder)
    return [] if not files else [c for c in pq.read_schema(files[0]).names if c not in RESULT_COLUMNS]


def group_table(frame: pd.DataFrame, columns: list[str], fewest: int = FEWEST) -> pd.DataFrame:
    """One row per group of ``columns``: the measures described in this module's docstring
    (ratios to the best-off group among groups of ``fewest`` people or more)."""
    answered = frame["status"] == REFUSED_WITH_OPTION
    marks = pd.DataFrame(
        {
            "error": frame["status"] == ERROR,
            "decided": frame["status"] != ERROR,
            "refused": frame["refused"].fillna(False).astype(bool),
            "answered": answered,
            "precluded": precluded(frame),
            "unproved": unproved(frame),
            "turned": turned(frame),
            "fewer": answered & frame["fewer"].notna(),
            "burden": frame["cost"].where(answered),
        }
    )
    grouped = pd.concat([frame[columns], marks], axis=1).groupby(columns, observed=True, dropna=False)
    sums = grouped[["error", "decided", "refused", "answered", "precluded", "unproved", "turned", "fewer"]].sum()
    table = pd.DataFrame(
        {
            "people": grouped.size(),
            "errors": sums["error"],
            "refused": sums["refused"] / sums["decided"],
            "recourse": sums["answered"] / sums["refused"],
            "mean": grouped["burden"].mean(),
            "median": grouped["burden"].median(),
            "p90": grouped["burden"].quantile(0.9),
            "precluded": sums["precluded"] / sums["refused"],
            "fewer": sums["fewer"] / sums["answered"],
            "unproved": sums["unproved"] / sums["refused"],
            "turned": sums["turned"] / sums["refused"],
        }
    )
    table["actions"] = _top_actions(frame[answered], columns).reindex(table.index)
    table["blocking"] = _top_actions(frame[marks["precluded"]].assign(actions=frame["blocking"]), columns).reindex(table.index)
    table["turning"] = _top_actions(frame[marks["turned"]].assign(actions=frame["turns_on"].map(characteristics)), columns).reindex(table.index)
    table["refused_ratio"] = _over_best(table["refused"], sums["decided"], fewest)
    table["burden_ratio"] = _over_best(table["mean"], sums["answered"], fewest)
    return table


def _over_best(measure: pd.Series, counted: pd.Series, fewest: int) -> pd.Series:
    """Each group's ``measure`` over the lowest among the groups of ``fewest`` people or more
    (``counted``: those the measure is of); NaN, not defined, for a smaller group, and for
    every group when the lowest is 0 (no multiple of nothing) or no group is that large."""
    large = counted >= fewest
    lowest = measure[large].min()
    if not lowest > 0:
        return pd.Series(math.nan, index=measure.index)
    return (measure / lowest).where(large)


def _top_actions(answered: pd.DataFrame, columns: list[str]) -> pd.Series:
    """Per group, the features the best options act on most often, with the share of the
    group's people with an option whose best option acts on each."""
    shares = action_shares(answered, columns)
    if shares.empty:  # nobody of the kind (no precluded person, say): each group's entry is left empty
        return pd.Series(dtype=object)
    return pd.Series(
        {group: ", ".join(f"{f} {s:.0%}" for f, s in row.nlargest(TOP_ACTIONS).items() if s > 0) for group, row in shares.iterrows()}, dtype=object
    ).rename_axis(shares.index.names)


def precluded(frame: pd.DataFrame) -> pd.Series:
    """Whether each person's answer proves they have no way out (a model read exactly)."""
    return (frame["status"] == NO_OPTION) & (frame["guarantee"] == "exact")


def unproved(frame: pd.DataFrame) -> pd.Series:
    """Whether each person was left with no option by a search that proves none (imitating rules)."""
    return (frame["status"] == NO_OPTION) & (frame["guarantee"] != "exact")


def turned(frame: pd.DataFrame) -> pd.Series:
    """Whether each person left with no option, unproved, is accepted by the model when a
    protected characteristic alone changes (asked of it)."""
    return unproved(frame) & frame["turns_on"].map(lambda turns: turns is not None and len(turns) > 0)


def characteristics(turns: Any) -> list[str]:
    """The protected characteristics of a person's ``turns_on`` (``feature = value`` each), once each."""
    return list(dict.fromkeys(str(turn).split(" = ", 1)[0] for turn in turns))


def preclusions(audit: Audit) -> list[str]:
    """Each protection that keeps one group's refused people out of every option (proved), and
    each protected characteristic that alone turns the refusal of one group's refused people
    left with no option (not proved) more often than another group's, by grouping, in words."""
    frame = audit.frame
    kept = frame[precluded(frame)]["blocking"].explode().dropna()
    turning = frame[turned(frame)]["turns_on"].map(characteristics).explode().dropna()
    kept_out = "{key} keeps {worst} of refused {w} out of every option, against {best} of refused {b} (by {name}; proved on the model read exactly)"
    turns = (
        "changing only {key} turns the model's refusal of {worst} of refused {w} left with no option, against {best} of refused {b} "
        "(by {name}; asked of the model, which cannot be read: its refusals are not proved final)"
    )
    return _gaps(audit, kept, kept_out) + _gaps(audit, turning, turns)


def _gaps(audit: Audit, marked: pd.Series, words: str) -> list[str]:
    """Each key of ``marked`` (a person's index, a key each) held by a larger share of one
    group's refused people than another's, by grouping, said in ``words``."""
    out = []
    frame = audit.frame
    refused = frame["refused"].fillna(False).astype(bool)
    for name in audit.tables:
        columns = name.split("+")
        base = frame[refused].groupby(columns, observed=True, dropna=False).size()
        base = base[base >= FEWEST]
        for key in sorted(set(marked)):
            held = marked[marked == key].index
            share = (frame.loc[held].groupby(columns, observed=True, dropna=False).size().reindex(base.index, fill_value=0) / base).dropna()
            if len(share) > 1 and share.max() - share.min() >= GAP and share.max() >= RATIO * share.min():
                worst, best = share.idxmax(), share.idxmin()
                out.append(words.format(key=key, worst=f"{share.max():.0%}", w=group_label(worst), best=f"{share.min():.0%}", b=group_label(best), name=name))
    return out


def action_shares(answered: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """A group by feature table: the share of the group's people with an option whose best option acts on the feature."""
    acted = answered[[*columns, "actions"]].explode("actions").dropna(subset=["actions"])
    counts = acted.groupby([*columns, "actions"], observed=True).size().unstack("actions", fill_value=0)
    people = answered.groupby(columns, observed=True, dropna=False).size()
    return counts.div(people.reindex(counts.index), axis=0)


def parse_groupings(text: str) -> list[list[str]]:
    """``sex,race,sex+race``: three groupings, the last by both columns together."""
    groupings = [[c.strip() for c in item.split("+")] for item in text.split(",") if item.strip()]
    if not groupings or any(not c for g in groupings for c in g):
        raise InputError(f"--by takes column names separated by commas, joined with + to group by several at once; not {text!r}")
    return groupings


def group_label(group: Any) -> str:
    """A group's name in tables and plots: its values joined with ``/``."""
    return " / ".join(str(v) for v in group) if isinstance(group, tuple) else str(group)


def summary_rows(table: pd.DataFrame) -> list[Mapping[str, Any]]:
    """The table's rows as plain values (for JSON and Markdown), groups named by :func:`group_label`."""
    return [{"group": group_label(g), **defined(row.items())} for g, row in table.iterrows()]


def defined(items: Iterable[tuple[str, Any]]) -> dict[str, Any]:
    """A row's values with None for a number not defined (NaN, which JSON has no word for)."""
    return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in items}


def patterns_document(summary: Summary | None, weakest: pd.DataFrame | None) -> dict[str, Any]:
    """The recourse summary and the weakest subgroups as JSON (``mc3g audit --json``, the
    service's portfolio); None where they were not found."""
    said = None if summary is None else {"people": summary.people, "covered": summary.covered, "rules": [rule.to_dict() for rule in summary.rules]}
    weak = None if weakest is None else [defined(row.items()) for row in weakest.drop(columns="segment").to_dict("records")]
    return {"summary": said, "weakest": weak}
