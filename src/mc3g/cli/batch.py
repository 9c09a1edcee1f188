"""``mc3g batch``, ``mc3g audit`` and ``mc3g bench batch``: a whole portfolio on Dask, and who
bears what burden of recourse."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import typer
from rich import box
from rich.table import Table

from ..exceptions import InputError
from ..models import ModelFile
from ..params import whole
from ..reference import ExplainerSettings
from .app import app, bench_app, err, out, print_results, spinner, styled
from .explain import (
    CAUSAL,
    CAUSAL_ONLY,
    DATASET_HELP,
    DISTINCT,
    FAVOURABLE,
    MODE,
    MODEL_HELP,
    NORM,
    PROFILE,
    SPLIT,
    TRUST_MODEL,
    TRUST_TYPES,
    K,
    fitted,
)
from .sources import SAVED_HELP, dataset_or_saved, given_option, saved_explainer

REFUSALS = ("people", "errors", "refused", "recourse", "precluded", "unproved", "turned", "refused_ratio")
BURDEN = ("mean", "median", "p90", "burden_ratio", "fewer")  # a terminal shows the audit in two tables of these, then the actions
SCHEDULER_HELP = "The address of an existing Dask scheduler (tcp://HOST:PORT); without it a LocalCluster starts on 127.0.0.1."


@app.command()
def batch(
    ctx: typer.Context,
    source: str = typer.Argument(..., help="The people: a CSV or Parquet file, a folder of them, or a glob (quoted)."),
    dataset: str = typer.Option(None, "--dataset", help=DATASET_HELP),
    saved: str = typer.Option(None, "--explainer", help=SAVED_HELP),
    out_dir: str = typer.Option(..., "--out", help="The results folder: one Parquet file per partition; a rerun with the same settings resumes it."),
    workers: int = typer.Option(None, "--workers", help="Worker processes of the LocalCluster: from 1 to the cores (default: one per core)."),
    scheduler: str = typer.Option(None, "--scheduler", help=SCHEDULER_HELP),
    partition_rows: int = typer.Option(256, "--partition-rows", min=1, max=1_000_000, help="People per partition (one file, the unit of resume)."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Start the --out folder afresh, losing its partitions (else other settings are refused)."),
    split: str = SPLIT,
    mode: str = MODE,
    norm: str = NORM,
    k: int = K,
    profile: str = PROFILE,
    distinct: bool = DISTINCT,
    rules: str = typer.Option(None, "--rules", help="Decision rules as JSON."),
    causal: str = CAUSAL,
    causal_only: str = CAUSAL_ONLY,
    model: str = typer.Option(None, "--model", help=MODEL_HELP),
    trust_model: bool = TRUST_MODEL,
    trust_types: list[str] = TRUST_TYPES,
    favourable: str = FAVOURABLE,
) -> None:
    """Explain every person of SOURCE on Dask, into a folder of Parquet files (one row per person)."""
    from ..batch import Batch, dask_client
    from ..explain import PeopleBar
    from ..records import frame_sha256

    if scheduler and workers is not None:
        raise InputError("--workers sizes the LocalCluster mc3g starts; a cluster given by --scheduler has its own workers")
    n = None if workers is None else _workers(workers)
    dataset_or_saved(dataset, saved)
    reading = ModelFile(model, trust_model, trust_types)
    if saved:
        explainer, data = saved_explainer(ctx, saved, reading)
        if given_option(ctx, "k"):
            explainer.set_params(k=k)
    else:
        ds, explainer = fitted(
            ExplainerSettings(
                dataset=dataset, split=split, model=reading, favourable=favourable, rules_file=rules, causal_file=causal, causal_only=causal_only,
                profile=profile, params={"mode": mode, "norm": norm, "k": k, "distinct": distinct},
            )
        )  # fmt: skip
        data = {"name": ds.name, "split": ds.split, "train_sha256": frame_sha256(ds.train)}
    started = time.perf_counter()
    with dask_client(scheduler, n) as client:
        with Batch(explainer, source, out_dir, client, data=data, model_file=model, partition_rows=partition_rows, overwrite=overwrite) as run:
            summary = run.summary
            with PeopleBar(summary.people, True, summary.skipped_people) as advance:
                run.run(advance)
    seconds = time.perf_counter() - started
    done = ", ".join(f"{n:,} {status}" for status, n in sorted(summary.statuses.items())) or "nothing new"
    explained = sum(summary.statuses.values())
    err.print(
        f"{summary.people:,} people in {summary.partitions:,} partitions: {summary.skipped_people:,} already done, now {done} "
        f"in {seconds:.1f} s ({explained / seconds:,.1f} people/s). Results in {out_dir}.",
        soft_wrap=True,
    )


def _workers(workers: int) -> int:
    from ..explain import usable_cores

    cores = usable_cores()
    return whole(workers, "--workers", 1, cores, f"mc3g may use {cores} core(s) here")


@app.command()
def audit(
    folder: str = typer.Argument(..., help="The results folder of mc3g batch."),
    by: str = typer.Option(..., "--by", help="Columns to group by, separated by commas; join columns with + to group by both (sex,race,sex+race)."),
    bands: list[str] = typer.Option(None, "--band", help="Cut a numeric column into bands, as age=25,35,50,65: group by age_band; repeat for several."),
    report_dir: str = typer.Option(None, "--out", help="Folder for audit.md and its PNG plots (default: FOLDER/_audit)."),
    fewest: int = typer.Option(None, "--fewest", min=1, help="People a group needs for its ratio to the best-off group, else not defined: '-' (default 20)."),
    patterns: str = typer.Option(
        None, "--patterns", help="The people's columns a recourse summary and the weakest subgroups are found over, separated by commas (default: all; 'none')."
    ),
    budget: float = typer.Option(
        None, "--budget", min=0, help="The cost within which a subgroup's refused people count as able to reverse the decision (default: the median)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the tables, the summary and the weakest subgroups as JSON."),
) -> None:
    """Recourse by group: share refused, share with recourse, its cost (mean, median, p90), the features acted on, and each group against the best-off;
    a recourse summary of at most ten segment -> action rules, and the subgroups whose recourse is worst."""
    from ..audit import FEWEST, Band, audit, parse_groupings, write_report
    from ..batch import AUDIT

    mined = None if patterns is None else [] if patterns.strip() == "none" else [c.strip() for c in patterns.split(",") if c.strip()]
    result = audit(folder, parse_groupings(by), [Band.parse(b) for b in bands or ()], fewest or FEWEST, mined, budget)
    path = write_report(result, Path(report_dir) if report_dir else Path(folder) / AUDIT)
    if as_json:
        sys.stdout.write(json.dumps(_audit_document(result), indent=2, default=str) + "\n")
        return
    _print_audit(result)
    out.print(f"Wrote {path} and its plots.")


def _audit_document(result: Any) -> dict[str, Any]:
    """``mc3g audit --json``: each grouping's table, the recourse summary and the weakest subgroups."""
    from ..audit import patterns_document, summary_rows

    return {"groups": {name: summary_rows(t) for name, t in result.tables.items()}, **patterns_document(result.summary, result.weakest)}


def _print_audit(result: Any) -> None:
    """The audit's tables on the terminal, then the summary, the weakest subgroups and any warning."""
    from ..audit import WEAKEST, cells, headings, preclusions, summary_lines, summary_rows, weakest_cells

    if result.planned > result.people:
        err.print(styled(("The batch is unfinished:", "bold"), f" {result.people:,} of its {result.planned:,} people are in the results."))
    for name, table in result.tables.items():
        rows = summary_rows(table)
        for title, keys in ((f"Refusals by {name}", REFUSALS), (f"The cost of recourse by {name}", BURDEN)):
            shown = Table(*headings(name, keys), title=f"{title} ({result.people:,} people)", title_justify="left", box=box.SIMPLE_HEAD)
            shown.columns[0].overflow = "fold"  # a long group name wraps, never cut
            for row in rows:
                shown.add_row(*cells(row, keys))
            out.print(shown)
        out.print("Acted on most (share of best options):")
        for row in rows:
            out.print(f"  {row['group']}: {row['actions'] or '-'}", soft_wrap=True)
        if any(row["blocking"] for row in rows):
            out.print("Blocking protections (share of the precluded, proved on the model read exactly):")
            for row in rows:
                out.print(f"  {row['group']}: {row['blocking'] or '-'}", soft_wrap=True)
        if any(row["turning"] for row in rows):
            out.print("A protected characteristic alone turns the refusal (share of those turned, asked of the model):")
            for row in rows:
                out.print(f"  {row['group']}: {row['turning'] or '-'}", soft_wrap=True)
    if result.summary is not None:
        out.print(styled("\n", ("Recourse summary", "bold")), soft_wrap=True)
        for line in summary_lines(result.summary):
            out.print(f"  {line}", soft_wrap=True)
    if result.weakest is not None and not result.weakest.empty:
        budget = float(result.weakest["budget"].iloc[0])
        shown = Table(
            *(heading for _, heading, _ in WEAKEST), title=f"\nWeakest subgroups (within a cost of {budget:.3f})", title_justify="left", box=box.SIMPLE_HEAD
        )
        shown.columns[0].overflow = "fold"
        for row in result.weakest.to_dict("records"):
            shown.add_row(*weakest_cells(row))
        out.print(shown)
    for warning in preclusions(result):
        err.print(styled(("Warning:", "bold"), f" {warning}."), soft_wrap=True)


@bench_app.command("portfolio")
def bench_portfolio(
    rows: int = typer.Option(300, min=1, help="Refused test rows of each data set."),
    k: int = K,
    facts: bool = typer.Option(False, "--facts", help="Also FACTS (aif360[FACTS]) on the held-out model's people, beside mc3g's answers on its subgroup."),
    markdown: bool = typer.Option(False, help="Print a Markdown table (for the docs)."),
    as_json: bool = typer.Option(False, "--json", help="Print the results as JSON."),
) -> None:
    """A recourse summary and the weakest subgroups on adult, German, Taiwan and a planted book: coverage, exactness, the worst found."""
    from ..bench.portfolio import portfolio_benchmark

    columns = ("case", "refused", "with an option", "rules", "covered", "exact", "weakest subgroup found", "s")

    def row(r: Any) -> tuple[str, ...]:
        covered = f"{r.covered} ({r.covered / r.with_option:.0%})" if r.with_option else "-"
        return (r.case, str(r.refused), str(r.with_option), str(r.rules), covered, "yes" if r.exact else "NO", r.weakest, f"{r.seconds:.2f}")

    with spinner("fitting and explaining..."):
        results, beside = portfolio_benchmark(rows=rows, k=k, facts=facts)
    if as_json:
        sys.stdout.write(json.dumps({"cases": [r.to_dict() for r in results], "facts": [r.to_dict() for r in beside]}, indent=2) + "\n")
        return
    print_results(results, columns, row, "mc3g audit: summary and weakest subgroups", False, markdown)
    if facts:
        sys.stdout.write("\n" if markdown else "")
        shown = ("case", "people", "FACTS's most unequal subgroup", "its actions' effectiveness", "mc3g: within the budget there", "FACTS s")
        print_results(beside, shown, lambda r: (r.case, str(r.people), r.subgroup, r.facts, r.mc3g, f"{r.seconds:.0f}"), "FACTS", False, markdown)


@bench_app.command("batch")
def bench_batch(
    workers: list[int] = typer.Option([1, 2], "--workers", help="LocalCluster sizes to measure; repeat for several."),
    profile: str = PROFILE,
    k: int = K,
    model: str = typer.Option("gbm", "--model", help="The black box of Table 1 to explain: gbm, rf or mlp."),
    joblib: bool = typer.Option(False, "--joblib", help="Also time the refused rows through joblib processes (mc3g explain --all-refused --n-jobs)."),
    audit_to: str = typer.Option(None, "--audit", help="Audit the last run's results by sex and by race into this folder (docs/audit)."),
    markdown: bool = typer.Option(False, help="Print Markdown tables (for the docs)."),
    as_json: bool = typer.Option(False, "--json", help="Print the results as JSON."),
) -> None:
    """mc3g batch over every adult test row (paper split) with a black box on 1 and 2 workers:
    people per second, speed-up, peak memory per worker, and a projection to a million people."""
    from ..bench.batch import batch_benchmark, projection

    for n in workers:
        _workers(n)
    audited = Path(audit_to) if audit_to else None
    results = batch_benchmark(tuple(workers), profile=profile, k=k, model=model, joblib=joblib, progress=err.print, audit_to=audited)
    projected = projection(results)
    if as_json:
        sys.stdout.write(json.dumps({"runs": [r.to_dict() for r in results], "projection": [p.to_dict() for p in projected]}, indent=2) + "\n")
        return
    base = results[0]
    columns = ("runner", "workers", "people", "refused", "seconds", "people/s", "refused/s", "speed-up", "CPU ms / person", "busy", "peak MiB", "start s")

    def row(r: Any) -> list[str]:
        rates = (f"{r.people / r.seconds:.1f}", f"{r.refused / r.seconds:.1f}", f"{base.seconds / r.seconds:.2f}x" if r.runner == "dask" else "")
        busy = f"{r.cpu_seconds / (r.seconds * r.workers):.0%}"  # below 100 %: the workers waited, or other work had the cores
        dask_only = (f"{1000 * r.cpu_seconds / r.people:.1f}", busy, f"{max(r.peak_mib):.0f}", f"{r.start_seconds:.1f}") if r.runner == "dask" else ("",) * 4
        return [r.runner, str(r.workers), f"{r.people:,}", f"{r.refused:,}", f"{r.seconds:.1f}", *rates, *dask_only]

    print_results(results, columns, row, f"mc3g batch: adult, {base.model}, profile {profile}, K = {k}", False, markdown)
    if markdown:
        sys.stdout.write("\n")
    title = "Projection from the measured cost per person"
    print_results(projected, ("workers", "hours for 1,000,000 people"), lambda p: (str(p.workers), f"{p.hours:.2f}"), title, False, markdown)
