"""``mc3g report``: Tables 1 and 2, the benchmark figures and plots, written into one folder."""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from ..profiles import Profile
from ..reference import PAPER_TABLE2
from .explain import explain_benchmark
from .table1 import METHODS, PAPER_TABLE1, fidelities, table1
from .table2 import agrees, table2

PAPER_NAMES = {"mc3g": "mc3g", "c3g": "c3g", "dice_random": "dice", "nearest_noncausal": "mace"}


def machine() -> str:
    versions = ", ".join(f"{p} {_version(p)}" for p in ("mc3g", "numpy", "pandas", "scikit-learn", "clingo", "dice-ml", "matplotlib"))
    return f"{platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()}; {versions}"


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def _fmt(value: Any, digits: int = 3) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def write_report(out: Path, rows: int = 50, explain_limit: int | None = 500, progress: Callable[[str], None] | None = None) -> Path:
    """Run everything and write ``report.md`` and its PNG plots into ``out``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    say = progress or (lambda _: None)
    started = time.perf_counter()
    say("Table 1")
    results, infos = table1(n_rows=rows, progress=say)
    say("Table 2")
    cells, spaces = table2()
    say("search time per person")
    timings = explain_benchmark(limit=explain_limit, profile=Profile.PAPER) + explain_benchmark(ks=(3,), limit=explain_limit)
    say("surrogate fidelity per black box")
    fidelity = fidelities()

    lines = ["# mc3g report", "", f"Made by `mc3g report` on {machine()}.", ""]
    lines += _table1_md(results, infos, rows)
    lines += _table2_md(cells, spaces)
    scope = f"first {explain_limit or 'all'} refused test rows per data set"
    lines += ["## Search time per refused person", ""]
    lines += [f"The paper profile's K nearest states, then the product profile's distinct options; mode `derived`, L1, exact candidates; {scope}.", ""]
    lines += [
        "| data | profile | K | people | found | violations | step violations | median ms | p95 ms | worst ms |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for t in timings:
        counts = f"{t.people} | {t.found} | {t.violations} | {t.step_violations}"
        lines.append(f"| {t.dataset} | {t.profile} | {t.k} | {counts} | {t.median_ms:.1f} | {t.p95_ms:.1f} | {t.worst_ms:.1f} |")
    lines += ["", "## Surrogate fidelity per black box", "", "Agreement of the FOLD-SE rules with the black box on 20 % of the training rows held out.", ""]
    lines += ["| data | black box | test accuracy | fidelity | rules |", "|---|---|---|---|---|"]
    lines += [f"| {d} | {k} | {v['accuracy']:.3f} | {v['fidelity']:.3f} | {v['rules']} |" for d, kinds in fidelity.items() for k, v in kinds.items()]
    lines += ["", "![fidelity](fidelity.png)", "", f"The whole report took {time.perf_counter() - started:.0f} s.", ""]

    _plot_costs(plt, results, out / "costs.png")
    _plot_times(plt, results, out / "time_per_query.png")
    _plot_fidelity(plt, fidelity, out / "fidelity.png")
    path = out / "report.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def _table1_md(results, infos, rows: int) -> list[str]:
    lines = ["## Table 1: causal consistency, validity, cost and time", ""]
    for name, methods in results.items():
        info = infos[name]
        lines += [
            f"**{name}** ({info['split']} split): black box {info['black_box']} (test accuracy {info['accuracy']:.3f}); "
            f"the first {info['rows']} refused test rows (asked for {rows}); K = 3; surrogate fidelity "
            f"{info['fidelity_mc3g']:.3f}.",
            "",
            "| method | causal consistency % | validity % | L0 | L1 | s / query | s alone | counterfactuals | rows answered | paper's consistency % | note |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for method, r in methods.items():
            paper = PAPER_TABLE1[name].get(PAPER_NAMES.get(method, ""), "")
            lines.append(
                f"| {method} | {_fmt(r.causal_consistency, 1)} | {_fmt(r.validity, 1)} | {_fmt(r.l0, 2)} | {_fmt(r.l1, 3)} | "
                f"{_fmt(r.seconds_per_query, 4)} | {_fmt(r.seconds_alone, 4)} | {r.n} | {r.rows_with_answer} | {paper} | {r.note} |"
            )
        lines += ["", "Direct-action L1 on the rows both methods answered:", "", "| method | rows | mc3g | method |", "|---|---|---|---|"]
        lines += [f"| {m} | {p['rows']} | {p['mc3g']:.3f} | {p[m]:.3f} |" for m, p in info["paired_l1"].items()]
        speed = {m: methods[m].seconds_per_query for m in ("mc3g", "dice_random") if m in methods and methods[m].seconds_per_query}
        if len(speed) == 2:
            lines += ["", f"MC3G is {speed['dice_random'] / speed['mc3g']:.1f}x faster per query than DiCE random on these rows."]
        if info.get("judged_mc3g"):
            judged = info["judged_mc3g"]
            lines += ["", f"The black box judged {judged['mean']:.0f} candidate states per person for MC3G on average (most: {judged['most']:,})."]
        lines.append("")
    lines += [
        "*s / query*: all the rows in one `explain` call, divided by the rows (MC3G pools the people's questions to the "
        "model into one `predict` call per round; DiCE, Wachter: one row after another).  *s alone*: MC3G with one "
        "row per call.",
        "",
        "![costs](costs.png) ![time per query](time_per_query.png)",
        "",
    ]
    return lines


def _table2_md(cells, spaces) -> list[str]:
    lines = ["## Table 2: nearest / furthest / average cost of the 20 least-cost counterfactuals", ""]
    lines += ["| data | mode | norm | ours | paper | agrees |", "|---|---|---|---|---|---|"]
    for name, modes in cells.items():
        for mode, norms in modes.items():
            for norm, c in norms.items():
                ours = [c["nearest"], c["furthest"], c["average"]]
                paper = PAPER_TABLE2[name].get(mode, {}).get(norm)
                verdict = "" if paper is None else ("yes" if all(agrees(o, p) for o, p in zip(ours, paper)) else "NO")
                lines.append(
                    f"| {name} | {mode} | {norm} | {' / '.join(f'{o:.4f}' for o in ours)} | "
                    f"{' / '.join(f'{p:.3f}' for p in paper) if paper else '-'} | {verdict} |"
                )
    lines += ["", "Symbolic regions / candidates: " + ", ".join(f"{d} {s['regions']:,} / {s['candidates']:,}" for d, s in spaces.items()), ""]
    return lines


def _plot_costs(plt, results, path: Path) -> None:
    fig, axes = plt.subplots(1, len(results), figsize=(6 * len(results), 4), squeeze=False)
    for ax, (name, methods) in zip(axes[0], results.items()):
        shown = [m for m in METHODS if m in methods and methods[m].l1_each]
        ax.boxplot([methods[m].l1_each for m in shown], showfliers=False)
        ax.set_xticks(range(1, len(shown) + 1), shown, rotation=30, ha="right")
        ax.set_title(f"{name}: L1 cost of direct actions per counterfactual")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _grouped_bars(plt, path: Path, labels: list[str], series: dict[str, list[float]], ylabel: str, log: bool = False, ylim=None) -> None:
    """One group of bars per label, one bar per series."""
    fig, ax = plt.subplots(figsize=(max(6, 1.3 * len(labels)), 4))
    width = 0.8 / max(1, len(series))
    for i, (name, values) in enumerate(series.items()):
        ax.bar(np.arange(len(labels)) + i * width, values, width, label=name)
    tilted = len(labels) > 3
    ax.set_xticks(np.arange(len(labels)) + width * (len(series) - 1) / 2, labels, rotation=30 if tilted else 0, ha="right" if tilted else "center")
    if log:
        ax.set_yscale("log")
    if ylim:
        ax.set_ylim(*ylim)
    ax.set_ylabel(ylabel)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _plot_times(plt, results, path: Path) -> None:
    series = {
        name: [methods[m].seconds_per_query if m in methods and methods[m].seconds_per_query else np.nan for m in METHODS] for name, methods in results.items()
    }
    _grouped_bars(plt, path, list(METHODS), series, "seconds per query (log)", log=True)


def _plot_fidelity(plt, fidelity, path: Path) -> None:
    names = list(fidelity)
    kinds = list(next(iter(fidelity.values())))
    series = {kind: [fidelity[n][kind]["fidelity"] for n in names] for kind in kinds}
    _grouped_bars(plt, path, names, series, "surrogate fidelity (held out)", ylim=(0.5, 1.0))
