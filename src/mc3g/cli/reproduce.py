"""``mc3g reproduce``, ``mc3g report`` and ``mc3g bench explain``: the paper's tables and the figures."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer
from rich.progress import BarColumn, Progress, TextColumn
from rich.table import Table

from ..bench.peers import CFNOW_ROWS, CFNOW_TUNING
from ..profiles import Profile
from .app import MODE_HELP, PROFILE_HELP, app, bench_app, err, out, print_results, reproduce_app, spinner


@reproduce_app.command("table2")
def reproduce_table2(as_json: bool = typer.Option(False, "--json", help="Print {dataset: {mode: {norm: {nearest, furthest, average}}}}.")) -> None:
    """The paper's Table 2: nearest (K=1), furthest (K=20) and average cost, per mode and norm."""
    from ..bench.table2 import agrees, table2
    from ..reference import PAPER_TABLE2

    cells, spaces = table2()
    if as_json:
        sys.stdout.write(json.dumps(cells, indent=2) + "\n")
        return
    for name, modes in cells.items():
        space = spaces[name]
        table = Table(
            "mode", "norm", "nearest", "furthest", "average", "paper", "agrees",
            title=f"{name}: {space['regions']:,} symbolic regions, {space['candidates']:,} candidates (data scheme)",
            title_justify="left",
        )  # fmt: skip
        for mode, norms in modes.items():
            for norm, cell in norms.items():
                paper = PAPER_TABLE2[name].get(mode, {}).get(norm)
                ours = [cell["nearest"], cell["furthest"], cell["average"]]
                verdict = "" if paper is None else ("yes" if all(agrees(o, p) for o, p in zip(ours, paper)) else "NO")
                table.add_row(mode, norm, *(f"{o:.4f}" for o in ours), "/".join(f"{p:.3f}" for p in paper) if paper else "-", verdict)
        out.print(table)
    out.print("'agrees': each of our numbers, rounded or cut to three decimals, is the paper's (the paper mixes both).")


@reproduce_app.command("table1")
def reproduce_table1(
    rows: int = typer.Option(50, min=1, help="Refused test rows per data set."),
    as_json: bool = typer.Option(False, "--json", help="Print {dataset: {method: {causal_consistency, validity, l0, l1, seconds_per_query, n}}}."),
) -> None:
    """The paper's Table 1 under our protocol: MC3G, C3G, DiCE, Wachter and the nearest
    counterfactual, on the same refused rows of a black box (mc3g report writes it to docs/report/report.md)."""
    from ..bench.report import PAPER_NAMES
    from ..bench.table1 import PAPER_TABLE1, table1

    with Progress(TextColumn("{task.description}", markup=False), console=err, transient=True) as bar:
        task = bar.add_task("starting")
        results, infos = table1(n_rows=rows, progress=lambda text: bar.update(task, description=text))
    if as_json:
        sys.stdout.write(json.dumps({d: {m: r.to_dict() for m, r in ms.items()} for d, ms in results.items()}, indent=2) + "\n")
        return
    for name, methods in results.items():
        info = infos[name]
        table = Table(
            "method", "consistent %", "valid %", "L0", "L1", "s / query", "s alone", "CFs", "rows answered", "paper %", "note",
            title=f"{name} ({info['split']} split): {info['black_box']}, accuracy {info['accuracy']:.3f}, {info['rows']} refused rows, K = 3",
            title_justify="left",
        )  # fmt: skip
        for method, r in methods.items():
            cells = (r.causal_consistency, r.validity, r.l0, r.l1, r.seconds_per_query, r.seconds_alone)
            table.add_row(
                method, *("-" if v is None else f"{v:.3g}" for v in cells), str(r.n), str(r.rows_with_answer),
                str(PAPER_TABLE1[name].get(PAPER_NAMES.get(method, ""), "")), r.note,
            )  # fmt: skip
        out.print(table)
        for method, pair in info["paired_l1"].items():
            out.print(f"  L1 on the {pair['rows']} rows both answered: mc3g {pair['mc3g']:.3f}, {method} {pair[method]:.3f}")
    out.print("s / query: the rows explained in one call (MC3G pools its questions to the model); s alone: one row per call.")


@app.command()
def report(
    out_dir: str = typer.Option("docs/report", "--out", help="Folder for report.md and its plots."),
    rows: int = typer.Option(50, min=1, help="Refused test rows per data set for Table 1."),
    explain_limit: int = typer.Option(500, min=0, help="Refused rows per data set for the timing table (0: all)."),
) -> None:
    """Tables 1 and 2, the benchmark figures and plots (PNG), with the machine and versions."""
    from ..bench.report import write_report

    with Progress(TextColumn("{task.description}", markup=False), console=err, transient=True) as bar:
        task = bar.add_task("starting")
        path = write_report(Path(out_dir), rows, explain_limit or None, progress=lambda text: bar.update(task, description=text))
    out.print(f"Wrote {path} and its plots.")


@bench_app.command("explain")
def bench_explain(
    limit: int = typer.Option(None, min=1, help="At most this many refused rows per data set (default: all)."),
    mode: str = typer.Option("derived", help=MODE_HELP),
    candidates: str = typer.Option("exact", help="exact or data."),
    ks: list[int] = typer.Option([1, 20], "-k", "--k", help="How many counterfactuals; repeat for several."),
    profile: str = typer.Option(Profile.PRODUCT.value, "--profile", help=PROFILE_HELP),
    distinct: bool = typer.Option(
        None, "--distinct/--near", help="Options whose actions truly differ, or the K nearest states; by default the profile's choice.", show_default=False
    ),
    markdown: bool = typer.Option(False, help="Print a Markdown table (for the docs)."),
    as_json: bool = typer.Option(False, "--json", help="Print the results as JSON."),
) -> None:
    """Time per person over every refused test row of adult, german and cars (K=1 and K=20)."""
    from ..bench.explain import explain_benchmark

    columns = ("data", "K", "people", "found", "violations", "step violations", "median ms", "p95 ms", "worst ms")

    def row(r: Any) -> tuple[str, ...]:
        counts = (f"{r.people:,}", f"{r.found:,}", str(r.violations), str(r.step_violations))
        return (r.dataset, str(r.k), *counts, f"{r.median_ms:.1f}", f"{r.p95_ms:.1f}", f"{r.worst_ms:.1f}")

    with Progress(TextColumn("{task.description}", markup=False), BarColumn(), console=err, transient=True) as bar:
        task = bar.add_task("explaining", total=None)
        results = explain_benchmark(
            ks=tuple(ks), mode=mode, candidates=candidates, profile=profile, distinct=distinct, limit=limit,
            on_person=lambda d, k: bar.update(task, advance=1, description=f"{d}, K={k}"),
        )  # fmt: skip
    answers = "distinct options" if results and results[0].distinct else "nearest states"
    title = f"MC3G search time per refused person ({profile} profile, {answers}, mode {mode}, {candidates} candidates)"
    print_results(
        results,
        columns,
        row,
        title,
        as_json,
        markdown,
    )


@bench_app.command("persist")
def bench_persist(
    people: int = typer.Option(20, min=1, help="Refused test rows each explainer answers, before and after loading."),
    repeat: int = typer.Option(5, min=1, help="Saves and loads per timing (the best is reported)."),
    markdown: bool = typer.Option(False, help="Print a Markdown table (for the docs)."),
    as_json: bool = typer.Option(False, "--json", help="Print the results as JSON."),
) -> None:
    """Size of a saved explainer, time to save and load it against fitting, and its answers."""
    from ..bench.persist import persist_benchmark

    columns = ("data", "model", "fit s", "document KiB", "save ms", "load ms", "people", "same answers")

    def row(r: Any) -> tuple[str, ...]:
        return (
            r.dataset,
            r.model,
            f"{r.fit_seconds:.2f}",
            f"{r.size_kib:.0f}",
            f"{r.save_ms:.1f}",
            f"{r.load_ms:.1f}",
            str(r.people),
            "yes" if r.same_answers else "NO",
        )

    with spinner("fitting, saving, loading..."):
        results = persist_benchmark(people=people, repeat=repeat)
    print_results(results, columns, row, "MC3G.save / MC3G.load", as_json, markdown)


@bench_app.command("profiles")
def bench_profiles(
    every: int = typer.Option(1, min=1, help="Every n-th refused test row (default: all of them)."),
    k: int = typer.Option(3, "-k", "--k", min=1, help="Options per person."),
    n_jobs: int = typer.Option(1, "--n-jobs", min=1, help="Processes."),
    markdown: bool = typer.Option(False, help="Print a Markdown table (for the docs)."),
    as_json: bool = typer.Option(False, "--json", help="Print the results as JSON."),
) -> None:
    """What the refused person receives under paper and product: adult with a gradient-boosted
    black box, German with the profile's rules; options checked against the data's metadata."""
    from ..bench.profiles import profile_audit

    columns = ("data", "model", "profile", "refusal", "people", "answered", "options", "protected changed", "one-way reversed",
               "out of range", "other", "moved further than product allows", "first option harmful", "features touched", "seconds")  # fmt: skip

    def row(r: Any) -> tuple[str, ...]:
        counts = (r.people, r.answered, r.options, r.protected, r.one_way, r.out_of_range, r.other, r.too_far, r.first_harmful)
        return (f"{r.dataset} ({r.split})", r.model, r.profile, r.refusal, *(f"{n:,}" for n in counts), f"{r.features_touched:.2f}", f"{r.seconds:.1f}")

    with spinner("explaining...") as status:
        results = profile_audit("adult", every=every, k=k, n_jobs=n_jobs, progress=status)
        results += profile_audit("german", model="rules", k=k, progress=status)
    print_results(results, columns, row, f"Options under each profile (K = {k}), checked against the data's own metadata", as_json, markdown)


@bench_app.command("advice")
def bench_advice(
    rows: int = typer.Option(None, "--rows", min=1, help="The first N refused test rows per data set and model (default: all of them)."),
    k: int = typer.Option(3, "-k", "--k", min=1, help="Options per person."),
    datasets: list[str] = typer.Option(["adult", "german", "taiwan"], "--data", help="adult, german or taiwan; repeat for several."),
    kinds: list[str] = typer.Option(None, "--model", help="et, hgb, gb, ada, card, hgb-cat or lgbm-cat; repeat (default: et and hgb on adult, gb elsewhere)."),
    profile: str = typer.Option(Profile.PRODUCT.value, "--profile", help=PROFILE_HELP),
    drafted: bool = typer.Option(
        False, "--drafted", help="Use the knowledge mc3g init drafts from the training rows as a lender's own CSV, unedited, not the data set's own."
    ),
    markdown: bool = typer.Option(False, help="Print a Markdown table (for the docs)."),
    as_json: bool = typer.Option(False, "--json", help="Print the results as JSON."),
) -> None:
    """What a lender would send: held-out black boxes refuse test rows, each refused person is
    explained, and every option is judged by the lender's checklist (docs/checklist.md): the
    options that pass, those failing each line, the people with an option that passes, and the
    people with none, told why."""
    from ..bench.advice import DEFAULT_MODELS, MODELS, advice_benchmark
    from ..bench.checklist import LINES

    for kind in kinds or ():
        if kind not in MODELS:
            raise typer.BadParameter(f"{kind!r} is none of {', '.join(MODELS)}", param_hint="--model")
    columns = ("data", "model", "accuracy", "profile", "knowledge", "people", "answered", "options", "pass", *(f"fail: {line}" for line in LINES),
               "people with one that passes", "no option", "no option naming a protected feature", "fewer than K (why)", "seconds")  # fmt: skip

    def row(r: Any) -> tuple[str, ...]:
        share = f"{r.passing:,} ({100 * r.passing / r.options:.0f}%)" if r.options else "-"
        sendable = f"{r.sendable:,} ({100 * r.sendable / r.people:.0f}%)" if r.people else "-"
        fewer = "; ".join(f"{why} {n:,}" for why, n in sorted(r.fewer.items())) or "-"
        return (f"{r.dataset} ({r.split})", r.model, f"{r.accuracy:.3f}", r.profile, r.knowledge, f"{r.people:,}", f"{r.answered:,}", f"{r.options:,}", share,
                *(f"{r.failing[line]:,}" for line in LINES), sendable, f"{r.none:,}", f"{r.none_naming_protected:,}", fewer, f"{r.seconds:.0f}")  # fmt: skip

    with spinner("explaining...") as status:
        results = [
            advice_benchmark(name, kind, profile, k, rows, progress=status, drafted=drafted) for name in datasets for kind in (kinds or DEFAULT_MODELS[name])
        ]
    title = f"Options judged by the lender's checklist ({profile} profile, K = {k}, held-out black boxes)"
    print_results(results, columns, row, title, as_json, markdown)


@bench_app.command("blackbox")
def bench_blackbox(
    rows: int = typer.Option(30, "--rows", min=1, help="Refused test rows per data set and black box."),
    k: int = typer.Option(3, "-k", "--k", min=1, help="Options per person."),
    datasets: list[str] = typer.Option(["adult", "german"], "--data", help="adult and/or german; repeat for both."),
    kinds: list[str] = typer.Option(
        list(("gbm", "rf", "lr", "mlp", "xgb")),
        "--model",
        help="Black boxes: gbm, rf, lr, mlp, xgb; held out (no setting was tuned on them): lgbm, et, svc, knn. Repeat for several.",
    ),
    profile: str = typer.Option(Profile.PRODUCT.value, "--profile", help=PROFILE_HELP),
    hunt: str | None = typer.Option(
        None,
        "--hunt",
        help="measured: MC3G's rounds sized by what the model charges for rows, timed at fit. Or settings of MC3G's search, NAME=VALUE separated by commas.",
    ),
    cfnow_rows: int = typer.Option(CFNOW_ROWS, "--cfnow-rows", min=0, help="The first rows of each box CFNOW's greedy search explains too (0: none)."),
    cfnow_tuning: int = typer.Option(CFNOW_TUNING, "--cfnow-tuning", min=1, help="Seconds CFNOW may tune what its greedy search found (its limit_seconds)."),
    markdown: bool = typer.Option(False, help="Print a Markdown table (for the docs)."),
    as_json: bool = typer.Option(False, "--json", help="Print the results as JSON."),
) -> None:
    """MC3G against DiCE random and CFNOW's greedy search on the same refused rows of each black
    box, interleaved row by row: rows answered, validity, consistency, cheapest L1, seconds per
    query, the surrogate's fidelity before and after refinement, the model calls each makes per
    query, and MC3G's own work per person (its search less the model's calls)."""
    from ..bench.blackbox import blackbox_benchmark
    from ..bench.peers import Cfnow
    from .explain import hunt_given

    columns = ("data", "model", "fidelity", "near", "rows", "answered MC3G / DiCE", "DiCE good, MC3G missed", "MC3G dearer",
               "greedy cheaper first / later options", "valid % MC3G / DiCE", "consistent % MC3G / DiCE", "L1 MC3G / DiCE (rows)", "judged mean / most",
               "s per query MC3G / pooled / DiCE",
               "ratio (median)", "calls per query MC3G / DiCE", "rounds per person median / most", "rows per round", "own work ms median / CPU",
               "one call ms / row µs", "ratio if MC3G's work were free", "rounds per person by phase", "own work ms per person by phase",
               "search settings changed", "CFNOW rows: answered / valid % / consistent %", "L1 MC3G / CFNOW (rows)",
               "s per query MC3G / CFNOW greedy / CFNOW whole", "CFNOW greedy ÷ MC3G", "calls per query CFNOW")  # fmt: skip

    def row(r: Any) -> tuple[str, ...]:
        pct = lambda v: "-" if v is None else f"{v:.0f}"  # noqa: E731
        fid = lambda a, b: "-" if a is None else f"{a:.3f} → {b:.3f}"  # noqa: E731
        l1 = "-" if r.mc3g_l1 is None else f"{r.mc3g_l1:.2f} / {r.dice_l1:.2f} ({r.both})"
        return (
            r.dataset, r.model, fid(r.fidelity, r.fidelity_refined), fid(r.near, r.near_refined), str(r.rows),
            f"{r.mc3g_answered} / {r.dice_answered}", f"{r.dice_good}, {r.missed}", str(r.dearer),
            f"{r.greedy_cheaper} / {r.greedy_cheaper_later} of {r.later_options}",
            f"{pct(r.mc3g_validity)} / {pct(r.dice_validity)}", f"{pct(r.mc3g_consistency)} / {pct(r.dice_consistency)}", l1,
            f"{r.judged_mean:.0f} / {r.judged_most}", f"{r.mc3g_seconds:.3f} / {r.mc3g_pooled_seconds:.3f} / {r.dice_seconds:.3f}",
            f"{r.ratio:.1f}× ({r.median_ratio:.1f}×)", f"{r.mc3g_calls:.1f} / {r.dice_calls:.1f}",
            f"{r.rounds_median:g} / {r.rounds_most}", f"{r.rows_per_round:.0f}", f"{r.own_ms:.1f} / {r.own_cpu_ms:.1f}",
            f"{1000 * r.call_seconds:.1f} / {1e6 * r.row_seconds:.1f}", f"{r.bound:.1f}×",
            ", ".join(f"{name} {mean:.2f}" for name, mean in r.rounds_by_phase.items()),
            ", ".join(f"{name} {ms:.0f}" for name, ms in r.ms_by_phase.items()), ", ".join(f"{n} {v}" for n, v in r.hunt.items()) or "-",
            *_cfnow_cells(r.cfnow, pct),
        )  # fmt: skip

    with spinner("explaining...") as status:
        peer = Cfnow(cfnow_rows, cfnow_tuning)
        results = blackbox_benchmark(tuple(datasets), tuple(kinds), rows, k, profile, progress=status, hunt=hunt_given(hunt), cfnow=peer)
    title = f"MC3G, DiCE random and CFNOW on black boxes ({profile} profile, K = {k}{f', hunt {hunt}' if hunt else ''})"
    print_results(results, columns, row, title, as_json, markdown)


def _cfnow_cells(c: Any, pct: Any) -> tuple[str, ...]:
    """The CFNOW columns of ``mc3g bench blackbox``'s table (dashes where it did not run)."""
    if c is None:
        return ("-",) * 5
    l1 = "-" if c.mc3g_l1 is None else f"{c.mc3g_l1:.2f} / {c.l1:.2f} ({c.both})"
    return (
        f"{c.rows}: {c.answered} / {pct(c.validity)} / {pct(c.consistency)}", l1,
        f"{c.mc3g_seconds:.3f} / {c.greedy_seconds:.3f} / {c.seconds:.3f}", f"{c.ratio:.1f}×", f"{c.calls:.1f}",
    )  # fmt: skip


@bench_app.command("exact")
def bench_exact(
    rows: int = typer.Option(30, "--rows", min=1, help="Refused adult test rows per black box."),
    k: list[int] = typer.Option([1, 3], "-k", "--k", min=1, help="Options per person; repeat for several."),
    kinds: list[str] = typer.Option(["hgb", "xgb", "lr", "rf", "et"], "--model", help="Boxes: hgb, xgb, lr, rf, et, ada, card, hgb-cat, lgbm-cat, xgb-cat."),
    markdown: bool = typer.Option(False, help="Print a Markdown table (for the docs)."),
    as_json: bool = typer.Option(False, "--json", help="Print the results as JSON."),
) -> None:
    """A lender's own model searched as it is (its decision read exactly) against the search through
    rules that imitate it and DiCE random, on the same refused adult rows, interleaved row by
    row (product profile): rows answered, no option proved, the surrogate's dearer first options
    and false "no option", own work per person, seconds and model calls per query (hgb-cat,
    lgbm-cat, xgb-cat: boosters that split the categories' ordinal codes themselves)."""
    from ..bench.exact import exact_benchmark

    columns = ("model", "read", "K", "rows", "answered exact / surrogate / DiCE", "no option proved", "surrogate: none where one exists",
               "surrogate dearer (worst)", "own ms median exact / surrogate", "s per query exact / surrogate / DiCE",
               "calls per query exact / surrogate / DiCE", "DiCE ÷ exact", "DiCE ÷ surrogate", "fit s")  # fmt: skip

    def row(r: Any) -> tuple[str, ...]:
        worst = "-" if r.worst_gap is None else f"{r.worst_gap:.0%}"
        return (
            r.model, r.reading, str(r.k), str(r.rows), f"{r.exact_answered} / {r.surrogate_answered} / {r.dice_answered}", str(r.proved_none),
            str(r.false_none), f"{r.dearer} ({worst})", f"{r.exact_ms:.1f} / {r.surrogate_ms:.1f}",
            f"{r.exact_seconds:.3f} / {r.surrogate_seconds:.3f} / {r.dice_seconds:.3f}", f"{r.exact_calls:.1f} / {r.surrogate_calls:.1f} / {r.dice_calls:.1f}",
            f"{r.ratio:.1f}×", f"{r.surrogate_ratio:.1f}×", f"{r.fit_seconds:.1f}",
        )  # fmt: skip

    with spinner("explaining...") as status:
        results = [run for each in k for run in exact_benchmark(tuple(kinds), rows, each, progress=status)]
    print_results(results, columns, row, "A model read exactly, through its surrogate and DiCE random (adult, product profile)", as_json, markdown)


@bench_app.command("reading")
def bench_reading(
    sizes: str = typer.Option("25x8,100x12,200x16,400x20,300x0", "--sizes", help="Forests as TREESxDEPTH, comma-separated (depth 0: grown to the end)."),
    rows: int = typer.Option(5, "--rows", min=1, help="Refused adult test rows per forest."),
    markdown: bool = typer.Option(False, help="Print a Markdown table (for the docs)."),
    as_json: bool = typer.Option(False, "--json", help="Print the results as JSON."),
) -> None:
    """Where reading stops: random forests of adult of growing size read and searched exactly (or,
    past the nodes mc3g reads, through their surrogate), with the fit and the search's own time."""
    from ..bench.exact import reading_benchmark

    try:
        parsed = [(int(t), int(d) or None) for t, d in (size.strip().split("x") for size in sizes.split(",") if size.strip())]
    except ValueError:
        raise typer.BadParameter(f"sizes are TREESxDEPTH, comma-separated, not {sizes!r}", param_hint="--sizes") from None
    columns = ("trees", "depth", "nodes", "read", "fit s", "own ms median (most)", "answered", "no option proved", "rows")

    def row(r: Any) -> tuple[str, ...]:
        return (
            str(r.trees), str(r.depth or "any"), f"{r.nodes:,}", r.reading, f"{r.fit_seconds:.1f}", f"{r.own_ms:.0f} ({r.most_ms:.0f})",
            str(r.answered), str(r.proved_none), str(r.rows),
        )  # fmt: skip

    with spinner("explaining...") as status:
        results = reading_benchmark(parsed, rows, progress=status)
    print_results(results, columns, row, "Where reading stops: random forests of adult (product profile, K = 1)", as_json, markdown)


@bench_app.command("models")
def bench_models(
    rows: int = typer.Option(300, "--rows", min=1, help="Adult test rows, the same people for every model."),
    k: int = typer.Option(3, "-k", "--k", min=1, help="Options per person."),
    kinds: list[str] = typer.Option(
        ["hgb", "xgb", "lr", "rf", "et"], "--model", help="Held-out black boxes: hgb, xgb, lr, rf, et, ada, card, and mlp (not read). Repeat for several."
    ),
    by: str = typer.Option("sex,marital_status", "--by", help="The groupings whose precluded shares are compared, comma-separated."),
    markdown: bool = typer.Option(False, help="Print a Markdown table (for the docs)."),
    as_json: bool = typer.Option(False, "--json", help="Print the results as JSON."),
) -> None:
    """Candidate models compared on the same adult people, each read exactly where it can be
    (product profile): accuracy, the share refused, the share of refused people with an option
    and its mean cost, the share precluded (a proved "no option") by group and the largest gap,
    the protections blocking them, for a model not read the people with no option whom a
    protected characteristic alone turns, and the audit's warnings."""
    from ..bench.models import models_benchmark

    groupings = [g.strip() for g in by.split(",") if g.strip()]
    columns = ("model", "accuracy", "people", "refused", "with option", "precluded (proved)", "none, not proved", "mean cost",
               *(f"precluded by {g}" for g in groupings), "blocking most often", "turned by a protected characteristic alone", "s per person")  # fmt: skip

    def row(r: Any) -> tuple[str, ...]:
        by_group = [", ".join(f"{group} {share:.0%}" for group, share in r.precluded_by[g].items()) + f" (gap {r.gaps[g]:.0%})" for g in groupings]
        return (
            r.model, f"{r.accuracy:.3f}", str(r.people), str(r.refused), str(r.answered), str(r.precluded), str(r.not_proved), f"{r.mean_cost:.3f}",
            *by_group, r.blocking or "-", f"{r.turned} ({r.turning})" if r.turned else str(r.turned), f"{r.seconds:.2f}",
        )  # fmt: skip

    with spinner("explaining...") as status:
        results = models_benchmark(tuple(kinds), rows, k, groupings, progress=status)
    print_results(results, columns, row, "Candidate models on the same people, each read exactly where it can be (adult, product profile)", as_json, markdown)
    for r in results:
        for warning in r.warnings:
            typer.echo(f"{r.model}: warning: {warning}.", err=True)
