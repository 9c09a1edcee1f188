"""The audit written down: a Markdown report with one table per grouping and, for each, two PNG
plots (the burden's distribution by group; the features acted on, by group).  matplotlib is
imported only here, and only when a report is written."""

from __future__ import annotations

import html
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from ..exceptions import InputError
from .patterns import Summary, in_segment
from .table import REFUSED_WITH_OPTION, Audit, action_shares, group_label, preclusions, summary_rows

TOP_FEATURES = 8
COLUMNS = (
    ("people", "people", "{:,}"),
    ("errors", "errors", "{:,}"),
    ("refused", "refused", "{:.1%}"),
    ("recourse", "with recourse", "{:.1%}"),
    ("mean", "mean cost", "{:.3f}"),
    ("median", "median cost", "{:.3f}"),
    ("p90", "p90 cost", "{:.3f}"),
    ("refused_ratio", "refused ÷ best", "{:.2f}"),
    ("burden_ratio", "burden ÷ best", "{:.2f}"),
    ("actions", "acted on most (share of best options)", "{}"),
    ("fewer", "fewer than K, told why (share of those with recourse)", "{:.1%}"),
    ("precluded", "precluded (proved)", "{:.1%}"),
    ("blocking", "blocking protections (share of precluded)", "{}"),
    ("unproved", "no option, not proved", "{:.1%}"),
    ("turned", "turned by a protected characteristic alone", "{:.1%}"),
    ("turning", "characteristics turning it (share of those turned)", "{}"),
)
"""The columns shown: the table's name, the heading, the format."""


def cells(row: dict[str, Any], keys: tuple[str, ...] | None = None) -> list[str]:
    """A table row as text: the group's name, then the columns named by ``keys`` (all of :data:`COLUMNS`)."""
    return [row["group"], *("-" if row.get(key) is None else shape.format(row[key]) for key, _, shape in COLUMNS if keys is None or key in keys)]


def headings(grouping: str, keys: tuple[str, ...] | None = None) -> list[str]:
    return [grouping, *(heading for key, heading, _ in COLUMNS if keys is None or key in keys)]


def write_report(audit: Audit, out: Path) -> Path:
    """Write ``audit.md`` and its plots into ``out``; returns the report's path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if out.exists() and not out.is_dir():
        raise InputError(f"{out} is a file: the report needs a folder for audit.md and its plots (name a new or an existing folder)")
    out.mkdir(parents=True, exist_ok=True)
    lines = [
        "# Recourse audit",
        "",
        f"{audit.people:,} people from `{audit.folder}` (settings {audit.settings_hash[:19]}…).",
        "",
        "- **refused**: the share of people with a decision whom the model refuses; **errors** had no decision.",
        "- **with recourse**: the share of refused people who have an option that flips the decision.",
        "- **cost** (the burden): the cost of the best option of each person with recourse.",
        f"- **÷ best**: the group's share refused, or its mean cost, over the lowest among the groups of {audit.fewest} people or more (with a decision, "
        f"or with recourse; 1.00 is the best-off group); `-` where it is not defined: a smaller group, or a lowest share of 0.",
        "- **acted on most**: the features the best options act on, with the share of the group's people with recourse whose best option does.",
        "- **fewer than K**: the share of people with recourse who have fewer options than asked for; the results' `fewer` column says why for each.",
        "- **precluded**: the share of refused people the model accepts in no state within the protections, proved on its own decision read exactly "
        "(a model searched through imitating rules proves nothing: 0 %); **blocking protections**: those whose lifting alone, or with the fewest "
        "others, would open a way out for them, with the share of the group's precluded people each keeps out.",
        "- **no option, not proved**: the share of refused people left with no option by a search through rules that imitate a model that cannot be "
        "read; **turned by a protected characteristic alone**: the share of refused people so left whom the model itself accepts when one protected "
        "characteristic alone changes to a value the protections bar (asked of the model), with the characteristics that do it most often.",
        "- The box plots show the quartiles of the cost, whiskers at the 5th and 95th percentiles and the mean as a triangle.",
        "",
    ]
    if audit.planned > audit.people:
        lines += [f"**The batch is unfinished:** {audit.people:,} of its {audit.planned:,} people are in the results.", ""]
    warned = preclusions(audit)
    if warned:
        lines += ["## Warnings", "", "Each keeps one group out, or turns its refusals, more than another's.", "", *(f"- {_inert(w)}." for w in warned), ""]
    for grouping, table in audit.tables.items():
        columns = grouping.split("+")
        slug = re.sub(r"[^A-Za-z0-9_.]+", "-", grouping).strip("-.") or "group"  # a file name whatever the columns are called
        shown = _inert(grouping.replace("+", " and "))
        lines += [f"## By {shown}", "", "| " + " | ".join(map(_inert, headings(grouping))) + " |", "|" + "---|" * (len(COLUMNS) + 1)]
        lines += ["| " + " | ".join(map(_inert, cells(row))) + " |" for row in summary_rows(table)]
        answered = audit.frame[audit.frame["status"] == REFUSED_WITH_OPTION]
        _saved(plt, _plot_costs(plt, answered, columns), out / f"cost-by-{slug}.png")
        _saved(plt, _plot_actions(plt, answered, columns), out / f"actions-by-{slug}.png")
        lines += ["", f"![cost of recourse by {shown}](cost-by-{slug}.png)", "", f"![actions by {shown}](actions-by-{slug}.png)", ""]
    lines += _patterns(plt, audit, out)
    path = out / "audit.md"
    written = out / ".audit.md.tmp"  # the report appears whole or not at all
    try:
        written.write_text("\n".join(lines), encoding="utf-8")
    except OSError as exc:
        written.unlink(missing_ok=True)
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
    written.replace(path)
    return path


def summary_lines(summary: Summary) -> list[str]:
    """A recourse summary in words: how much it covers, then each rule with its people and cost."""
    if not summary.people:
        return ["No refused person has an option to summarise."]
    head = f"{len(summary.rules)} rule(s) cover {summary.covered:,} of the {summary.people:,} refused people with an option ({summary.coverage:.0%})"
    return [f"{head}:", *(f"{i}. {rule.sentence()} ({rule.covered:,} people, mean cost {rule.cost:.3f})" for i, rule in enumerate(summary.rules, 1))]


WEAKEST = (("subgroup", "subgroup", "{}"), ("refused", "refused", "{:,}"), ("within_budget", "within the budget", "{:.1%}"))
WEAKEST += (("with_option", "with an option", "{:.1%}"), ("mean_cost", "mean cost of those within it", "{:.3f}"))
"""The columns of the weakest subgroups' table: its name, the heading, the format."""


def weakest_cells(row: Mapping[str, Any]) -> list[str]:
    return ["-" if row[key] is None or (isinstance(row[key], float) and math.isnan(row[key])) else shape.format(row[key]) for key, _, shape in WEAKEST]


def _patterns(plt: Any, audit: Audit, out: Path) -> list[str]:
    """The report's recourse summary and weakest subgroups, with the weakest's costs plotted."""
    if audit.summary is None or audit.weakest is None:
        return []
    lines = ["## Recourse summary", "", *(_inert(line) for line in summary_lines(audit.summary)), ""]
    if audit.weakest.empty:
        return lines
    budget = float(audit.weakest["budget"].iloc[0])
    lines += [
        "## Weakest subgroups",
        "",
        f"The subgroups whose refused people can least often reverse the decision within a cost of {budget:.3f}, worst first:",
        "",
    ]
    lines += ["| " + " | ".join(heading for _, heading, _ in WEAKEST) + " |", "|" + "---|" * len(WEAKEST)]
    lines += ["| " + " | ".join(map(_inert, weakest_cells(row))) + " |" for row in audit.weakest.to_dict("records")]
    _saved(plt, _plot_weakest(plt, audit.frame, audit.weakest), out / "weakest-subgroups.png")
    return [*lines, "", "![cost of recourse in the weakest subgroups](weakest-subgroups.png)", ""]


def _plot_weakest(plt: Any, frame: pd.DataFrame, weakest: pd.DataFrame) -> Any:
    """A box per weakest subgroup of the cost of its refused people's best option, worst first,
    the budget a dashed line."""
    answered = frame[frame["status"] == REFUSED_WITH_OPTION]
    costs = answered["cost"].to_numpy()
    groups = [(row["subgroup"].removeprefix("people with "), costs[in_segment(answered, row["segment"])]) for _, row in weakest.iterrows()]
    fig, ax = plt.subplots(figsize=(max(6.0, 0.9 * len(groups) + 2), 5))
    ax.boxplot([group if len(group) else [math.nan] for _, group in groups], whis=(5, 95), showfliers=False, showmeans=True)
    ax.set_xticks(range(1, len(groups) + 1), [f"{_drawn(name)}\n(n={len(group):,})" for name, group in groups], rotation=30, ha="right", fontsize=7)
    ax.axhline(float(weakest["budget"].iloc[0]), linestyle="--", color="grey")
    ax.set_ylabel("cost of the best option (those with one)")
    ax.set_title("Cost of recourse in the weakest subgroups, worst first")
    fig.tight_layout()
    return fig


def _inert(text: str) -> str:
    """A table cell or heading as text only: a group's value may hold ``|`` (which would end the
    cell), or HTML and Markdown a reader's viewer would run or render."""
    return html.escape(str(text), quote=False).replace("|", "\\|").replace("\n", " ")


def _drawn(text: str) -> str:
    """A label as matplotlib draws it literally: a ``$`` would start its mathematics."""
    return str(text).replace("$", r"\$")


def _saved(plt: Any, fig: Any, path: Path) -> None:
    """Write a plot whole or not at all: a full disk leaves no empty PNG, and names the file."""
    try:
        fig.savefig(path, dpi=100)
    except OSError as exc:
        path.unlink(missing_ok=True)
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        plt.close(fig)


def _plot_costs(plt: Any, answered: pd.DataFrame, columns: list[str]) -> Any:
    """A box per group of the cost of recourse (whiskers at the 5th and 95th percentiles, the mean as a dot)."""
    groups = [(group_label(g), part["cost"].to_numpy()) for g, part in answered.groupby(columns, observed=True)]
    fig, ax = plt.subplots(figsize=(max(5.0, 0.9 * len(groups) + 2), 4))
    ax.boxplot([costs for _, costs in groups], whis=(5, 95), showfliers=False, showmeans=True)
    tilted = len(groups) > 4
    names = [f"{_drawn(name)}\n(n={len(costs):,})" for name, costs in groups]
    ax.set_xticks(range(1, len(groups) + 1), names, rotation=30 if tilted else 0, ha="right" if tilted else "center")
    ax.set_ylabel("cost of the best option")
    ax.set_title(_drawn(f"Cost of recourse by {' and '.join(columns)}"))
    fig.tight_layout()
    return fig


def _plot_actions(plt: Any, answered: pd.DataFrame, columns: list[str]) -> Any:
    """A heat map: for each group (rows) and each of the most used features (columns), the share
    of the group's people with recourse whose best option acts on the feature."""
    shares = action_shares(answered, columns).fillna(0.0)
    shares = shares[shares.mean().nlargest(TOP_FEATURES).index] if not shares.empty else shares
    fig, ax = plt.subplots(figsize=(max(5.0, 1.1 * shares.shape[1] + 2.5), max(3.2, 0.5 * shares.shape[0] + 1.8)))
    image = ax.imshow(shares.to_numpy(), cmap="Blues", vmin=0, vmax=1, aspect="auto")
    ax.set_xticks(range(shares.shape[1]), [_drawn(c) for c in shares.columns], rotation=30, ha="right")
    ax.set_yticks(range(shares.shape[0]), [_drawn(group_label(g)) for g in shares.index])
    for (i, j), value in pd.DataFrame(shares.to_numpy()).stack().items():
        ax.text(j, i, f"{value:.0%}", ha="center", va="center", color="white" if value > 0.6 else "black", fontsize=8)
    fig.colorbar(image, ax=ax, label="share")
    ax.set_title(_drawn(f"Features acted on, by {' and '.join(columns)}"))
    fig.tight_layout()
    return fig
