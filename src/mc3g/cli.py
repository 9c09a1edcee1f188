"""The ``mc3g`` command line."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn
from rich.table import Table

from . import __version__
from .datasets import default_data_dir, download, load, names
from .exceptions import InputError, InternalError, MC3GError
from .explain.result import show

app = typer.Typer(
    help="Causally constrained counterfactual explanations (MC3G) with the FOLD-SE rule learner.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
data_app = typer.Typer(help="The data sets: list them, download the UCI originals.", no_args_is_help=True)
bench_app = typer.Typer(help="Benchmarks that print tables of measured figures.", no_args_is_help=True)
reproduce_app = typer.Typer(help="The paper's tables, recomputed and printed beside the published numbers.", no_args_is_help=True)
app.add_typer(data_app, name="data")
app.add_typer(bench_app, name="bench")
app.add_typer(reproduce_app, name="reproduce")

out = Console(highlight=False)
err = Console(stderr=True, highlight=False)


@contextmanager
def _user_errors() -> Iterator[None]:
    """Errors about the user's input end the command with their message, not a traceback."""
    try:
        yield
    except InternalError:
        raise  # a bug: it shows as one
    except (MC3GError, FileNotFoundError) as exc:
        err.print(f"[bold red]error:[/] {exc}", markup=True, highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None


def _version(value: bool) -> None:
    if value:
        out.print(f"mc3g {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version and exit."),
) -> None:
    """Causally constrained counterfactual explanations (MC3G) with the FOLD-SE rule learner."""


@app.command()
def learn(
    dataset: str = typer.Argument(..., help="adult, german, cars, cars4 or loan."),
    split: str = typer.Option("uci", help="uci (the UCI originals), paper (the MC3G splits) or default (loan)."),
    ratio: float = typer.Option(0.5, help="Exception ratio."),
    tail: float = typer.Option(0.005, help="Drop rules covering fewer than this share of the training rows."),
    heuristic: str = typer.Option("mgi", help="mgi (FOLD-SE), ig (FOLD-R++) or gini."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Learn FOLD-SE rules for the unfavourable class and score them on the test split."""
    from .bench.learn import run_foldse

    with _user_errors():
        ds = load(dataset, split=split)
        result = run_foldse(ds, ratio=ratio, tail=tail, heuristic=heuristic)
    rules = result.rules
    assert rules is not None
    if as_json:
        payload = {**result.to_dict(), "english": rules.to_english()}
        payload.pop("peak_mib")
        sys.stdout.write(json.dumps(payload, indent=2) + "\n")
        return
    what = f"{ds.schema.label} = {result.target!r}" if result.target is not None else f"the classes of {ds.schema.label}"
    out.print(
        f"[bold]FOLD-SE[/] on [bold]{ds.name}[/] ({ds.split} split): {result.n_train:,} training rows, "
        f"{result.n_test:,} test rows; the rules describe {what}.\n"
    )
    out.print("[bold]Logic program[/]")
    out.print(result.program or "(no rules: every row gets the default class)", markup=False, soft_wrap=True)
    out.print("\n[bold]In words[/]")
    out.print(rules.to_english(), markup=False, soft_wrap=True)
    table = Table(title="Test split", title_justify="left", show_header=False)
    for key, value in (
        ("accuracy", f"{result.accuracy:.4f}"),
        ("precision", f"{result.precision:.4f}"),
        ("recall", f"{result.recall:.4f}"),
        ("rules / exceptions / literals", f"{result.n_rules} / {result.n_exceptions} / {result.n_literals}"),
        ("training time", f"{result.train_seconds:.3f} s"),
    ):
        table.add_row(key, value)
    out.print()
    out.print(table)


@data_app.command("list")
def data_list() -> None:
    """The data sets mc3g knows and where it looks for their files."""
    table = Table("name", "what it is")
    for name, description in names().items():
        table.add_row(name, description)
    out.print(table)
    out.print(f"Files are read from {default_data_dir()} (set MC3G_DATA_DIR to change it).")


@data_app.command("download")
def data_download(
    datasets: list[str] = typer.Argument(None, help="Data sets to fetch (default: all UCI files)."),
    dest: str = typer.Option(None, help="Directory to write to (default: MC3G_DATA_DIR or the user cache)."),
    base_url: str = typer.Option(None, help="Mirror of the UCI repository's machine-learning-databases folder."),
) -> None:
    """Fetch the UCI originals and check their SHA-256."""
    kwargs: dict[str, Any] = {"dest": dest, "names": datasets or None}
    if base_url:
        kwargs["base_url"] = base_url
    with _user_errors(), Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(), console=err) as bar:
        tasks: dict[str, Any] = {}

        def progress(name: str, done: int, total: int | None) -> None:
            if name not in tasks:
                tasks[name] = bar.add_task(name, total=total)
            bar.update(tasks[name], completed=done)

        fetched = download(progress=progress, **kwargs)
    target = dest or default_data_dir()
    out.print(f"{len(fetched)} file(s) fetched into {target}; every file's SHA-256 checked." if fetched else f"All files already in {target}.")


@bench_app.command("learn")
def bench_learn(
    repeat: int = typer.Option(3, help="Fits per timing (the best is reported)."),
    memory: bool = typer.Option(True, help="Measure peak memory (an extra fit under tracemalloc)."),
    foldrpp: bool = typer.Option(True, help="Include FOLD-R++ mode (information gain, no tail; slow on adult)."),
    replicas: int = typer.Option(4, help="Also train on adult's training set stacked this many times."),
    markdown: bool = typer.Option(False, help="Print a Markdown table (for the docs)."),
    as_json: bool = typer.Option(False, "--json", help="Print the results as JSON."),
) -> None:
    """FOLD-SE against FOLD-R++ mode and a decision tree of comparable accuracy."""
    from .bench.learn import learn_benchmark

    columns = ("data", "rows", "learner", "accuracy", "rules", "literals", "train s", "peak MiB")

    def row(r: Any) -> tuple[str, ...]:
        peak = "" if r.peak_mib is None else f"{r.peak_mib:.1f}"
        return (r.dataset, f"{r.n_train:,}", r.learner, f"{r.accuracy:.4f}", str(r.n_rules), str(r.n_literals), f"{r.train_seconds:.3f}", peak)

    with _user_errors():
        if as_json or markdown:
            results = learn_benchmark(repeat=repeat, memory=memory, replicas=replicas, foldrpp=foldrpp)
        else:
            table = Table(*columns, title="FOLD-SE training benchmark (test accuracy; best of repeated fits)")
            with out.status("training...") as status:

                def show(r: Any) -> None:
                    status.update(f"done: {r.dataset} / {r.learner}")
                    table.add_row(*row(r))

                learn_benchmark(repeat=repeat, memory=memory, replicas=replicas, foldrpp=foldrpp, on_result=show)
            out.print(table)
            return
    if as_json:
        sys.stdout.write(json.dumps([r.to_dict() for r in results], indent=2) + "\n")
        return
    sys.stdout.write("| " + " | ".join(columns) + " |\n|" + "---|" * len(columns) + "\n")
    for r in results:
        sys.stdout.write("| " + " | ".join(row(r)) + " |\n")


# -- counterfactuals ---------------------------------------------------------------------------
MODE_HELP = "derived (MC3G: what follows from your actions is free), explained (the authors' code) or none (C3G)."


def _explainer(dataset: str, split: str | None, rules_file: str | None, causal_file: str | None, model_file: str | None = None, **params: Any):
    """The data set and a fitted MC3G explainer: a black box loaded from ``model_file``, or the
    decision rules of ``rules_file``, or the paper's rules; the paper's causal knowledge for its
    data sets unless a file is given."""
    from .causal import CausalModel
    from .explain import MC3G
    from .reference import REFERENCES
    from .rules import RuleSet

    ref = REFERENCES.get(dataset)
    split = split or (ref.split if ref else "uci")
    ds = load(dataset, split=split)
    paper_setting = ref is not None and ref.split == split
    if model_file:
        import joblib

        model: Any = joblib.load(model_file)
    elif rules_file:
        model = RuleSet.from_json(Path(rules_file).read_text(encoding="utf-8"))
    elif paper_setting:
        model = ref.rules  # type: ignore[union-attr]
    else:
        raise InputError(
            f"no decision rules for {dataset} ({split} split): pass --rules FILE (e.g. the 'rules' of "
            f"`mc3g learn {dataset} --json`) or --model FILE (a fitted model saved with joblib)"
        )
    if causal_file:
        causal = CausalModel.load(causal_file, schema=ds.schema)
    elif paper_setting and not rules_file:
        causal = ref.causal(ds)  # type: ignore[union-attr]
    else:
        causal = None
    X_train = ds.train.drop(columns=[ds.schema.label]) if model_file else ds.X_train
    return ds, MC3G(model, causal, schema=ds.schema, **params).fit(X_train)


def _done_rows(path: Path) -> set[str]:
    """Rows an earlier, interrupted run already wrote.  A last line cut off mid-write is removed,
    so the lines appended next start on a line of their own."""
    done: set[str] = set()
    if not path.exists():
        return done
    text = path.read_text(encoding="utf-8")
    complete = text if text.endswith("\n") or not text else text[: text.rfind("\n") + 1]
    if complete != text:
        path.write_text(complete, encoding="utf-8")
    for line in complete.splitlines():
        try:
            done.add(str(json.loads(line)["row"]))
        except (json.JSONDecodeError, KeyError):
            continue
    return done


def _explain_all(ds: Any, explainer: Any, out_file: str | None) -> None:
    """Every refused test row, one JSON line each, appended as they finish; rerunning the same
    command skips the rows already in the file."""
    from collections import Counter

    X = ds.test[list(explainer.feature_names_in_)]
    rows = X[explainer.refuses(X)]
    path = Path(out_file) if out_file else None
    done = _done_rows(path) if path else set()
    todo = rows[[str(i) not in done for i in rows.index]]
    counts: Counter[str] = Counter()
    sink = path.open("a", encoding="utf-8") if path else sys.stdout
    try:
        for index, result in explainer.explain_each(todo, progress=True):
            sink.write(json.dumps({"row": _plain_index(index), **result.to_dict()}) + "\n")
            sink.flush()
            counts[result.status] += 1
    finally:
        if path:
            sink.close()
    summary = ", ".join(f"{n} {status}" for status, n in sorted(counts.items())) or "nothing new"
    err.print(f"{len(rows):,} refused rows: {len(rows) - len(todo):,} already done, now {summary}.")


def _plain_index(index: Any) -> Any:
    return index.item() if hasattr(index, "item") else index


def _test_row(ds: Any, row: int) -> Any:
    if not 0 <= row < len(ds.test):
        raise InputError(f"row {row} is out of range: the {ds.name} {ds.split} test split has rows 0 to {len(ds.test) - 1}")
    return ds.test.drop(columns=[ds.schema.label]).iloc[row]


def _print_recourse(result: Any, explainer: Any, title: str) -> None:
    shown = {f: result.instance[f] for f in explainer.features_in_play_}
    out.print(f"[bold]{title}[/]: " + ", ".join(f"{k} = {show(v)}" for k, v in shown.items()), soft_wrap=True)
    if result.decision:
        out.print("[bold]Refused[/] because: " + "; or ".join(result.decision), soft_wrap=True)
    if not result.counterfactuals:
        out.print(str(result), soft_wrap=True)
        return
    run = result.run
    out.print(
        f"\n[bold]{len(result)} counterfactual(s)[/] (mode {run.mode}, norm {run.norm}, {run.scheme} candidates, search {run.search_seconds * 1000:.1f} ms):"
    )
    for i, cf in enumerate(result, 1):
        out.print(f"\n[bold]{i}.[/] cost {cf.cost:.4f}: {cf.plan}", soft_wrap=True)
        table = Table("feature", "from", "to", "how", "cost")
        for a in cf.direct_actions:
            table.add_row(a.feature, show(a.before), show(a.after), "you do this", f"{a.cost:.4f}")
        for c in cf.caused_changes:
            table.add_row(c.feature, show(c.before), show(c.after), f"follows: {c.rule}", f"{c.cost:.4f}")
        out.print(table)


@app.command()
def explain(
    dataset: str = typer.Argument(..., help="adult, german, cars or loan (the paper's rules), or any data set with --rules or --model."),
    row: int = typer.Option(None, "--row", help="Position of the person in the test split (0-based)."),
    all_refused: bool = typer.Option(False, "--all-refused", help="Explain every refused test row (JSON lines)."),
    out: str = typer.Option(None, "--out", help="With --all-refused: append to this JSON-lines file; a rerun resumes."),
    split: str = typer.Option(None, help="paper, uci or default; by default the paper's split for its data sets."),
    mode: str = typer.Option("derived", help=MODE_HELP),
    norm: str = typer.Option("l1", help="l0, l1 or l2."),
    k: int = typer.Option(1, "-k", "--k", help="How many counterfactuals, least cost first."),
    candidates: str = typer.Option("exact", help="exact (the optimum over each domain) or data (the authors' scheme)."),
    squared: bool = typer.Option(False, help="L2 without the square root (the paper's Algorithm 4)."),
    scaling: str = typer.Option("std", help="Numeric changes in units of the training std or mad."),
    plausible: bool = typer.Option(False, help="Only values seen in the training data."),
    rules: str = typer.Option(None, "--rules", help="Decision rules as JSON (RuleSet.to_json, or the 'rules' of mc3g learn --json)."),
    model: str = typer.Option(None, "--model", help="A fitted classifier saved with joblib (load only files you trust)."),
    causal: str = typer.Option(None, "--causal", help="A causal-knowledge file."),
    n_jobs: int = typer.Option(1, "--n-jobs", help="Processes for --all-refused."),
    as_json: bool = typer.Option(False, "--json", help="Print the answer as JSON."),
) -> None:
    """The least-effort ways out of a refusal, respecting the causal knowledge."""
    with _user_errors():
        if (row is None) == (not all_refused):
            raise InputError("give either --row N or --all-refused")
        ds, explainer = _explainer(
            dataset, split, rules, causal, model, mode=mode, norm=norm, k=k, candidates=candidates,
            root=not squared, scaling=scaling, plausible=plausible, n_jobs=n_jobs,
        )  # fmt: skip
        if all_refused:
            _explain_all(ds, explainer, out)
            return
        result = explainer.explain(_test_row(ds, row)[list(explainer.feature_names_in_)])
    if as_json:
        sys.stdout.write(result.to_json() + "\n")
        return
    _print_recourse(result, explainer, f"{ds.name} test row {row} ({ds.split} split)")


@app.command()
def demo(as_json: bool = typer.Option(False, "--json", help="Print the answer as JSON.")) -> None:
    """The paper's John: refused a loan, and what he can do about it."""
    from .datasets.loan import JOHN

    with _user_errors():
        explainers = {mode: _explainer("loan", None, None, None, mode=mode)[1] for mode in ("derived", "explained", "none")}
        results = {mode: e.explain(JOHN) for mode, e in explainers.items()}
    best = results["derived"]
    if as_json:
        payload = best.to_dict()
        payload["cost_by_mode"] = {m: (r.best.cost if r.best else None) for m, r in results.items()}
        sys.stdout.write(json.dumps(payload, indent=2) + "\n")
        return
    out.print("John asks for a loan. The bank refuses if the bank balance is below 60,000 or the credit score below 620.", soft_wrap=True)
    out.print("Clearing one's debt lifts the credit score past 620 (credit_score >= 620 <- debt == 'none').\n", soft_wrap=True)
    _print_recourse(best, explainers["derived"], "John")
    table = Table("mode", "cost (l1)", "what John does", "what follows", title="\nThe same question under each cost mode", title_justify="left")
    for mode, label in (("derived", "derived (MC3G)"), ("explained", "explained (authors' code)"), ("none", "none (C3G: every change costs)")):
        cf = results[mode].best
        if cf is None:
            table.add_row(label, "-", "no counterfactual", "")
            continue
        follows = ", ".join(c.feature + ("" if c.cost == 0 else " (but counted)") for c in cf.caused_changes) or "nothing"
        table.add_row(label, f"{cf.cost:.4f}", ", ".join(a.feature for a in cf.direct_actions), follows)
    out.print(table)


@app.command()
def export(
    dataset: str = typer.Argument(..., help="adult, german, cars or loan, or any data set with --rules."),
    row: int = typer.Option(..., "--row", help="Position of the person in the test split (0-based)."),
    fmt: str = typer.Option("asp", "--format", help="asp: the clingo program (decision rules, causal knowledge, the person, the query)."),
    split: str = typer.Option(None, help="paper, uci or default."),
    mode: str = typer.Option("derived", help=MODE_HELP),
    norm: str = typer.Option("l1", help="l0, l1 or l2."),
    candidates: str = typer.Option("exact", help="exact or data."),
    rules: str = typer.Option(None, "--rules", help="Decision rules as JSON."),
    causal: str = typer.Option(None, "--causal", help="A causal-knowledge file."),
) -> None:
    """Print the logic program behind an answer; `clingo` runs it as it is."""
    with _user_errors():
        if fmt != "asp":
            raise InputError(f"unknown format {fmt!r}; the only format is 'asp'")
        ds, explainer = _explainer(dataset, split, rules, causal, mode=mode, norm=norm, candidates=candidates)
        sys.stdout.write(explainer.program(_test_row(ds, row)))


@reproduce_app.command("table2")
def reproduce_table2(as_json: bool = typer.Option(False, "--json", help="Print {dataset: {mode: {norm: {nearest, furthest, average}}}}.")) -> None:
    """The paper's Table 2: nearest (K=1), furthest (K=20) and average cost, per mode and norm."""
    from .bench.table2 import agrees, table2
    from .reference import PAPER_TABLE2

    with _user_errors():
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
    rows: int = typer.Option(50, help="Refused test rows per data set."),
    as_json: bool = typer.Option(False, "--json", help="Print {dataset: {method: {causal_consistency, validity, l0, l1, seconds_per_query, n}}}."),
) -> None:
    """The paper's Table 1 under our protocol: MC3G, C3G, DiCE, Wachter and the nearest
    counterfactual, on the same refused rows of a black box (see docs/report.md)."""
    from .bench.report import PAPER_NAMES
    from .bench.table1 import PAPER_TABLE1, table1

    with _user_errors(), Progress(TextColumn("{task.description}"), console=err, transient=True) as bar:
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
    rows: int = typer.Option(50, help="Refused test rows per data set for Table 1."),
    explain_limit: int = typer.Option(500, help="Refused rows per data set for the timing table (0: all)."),
) -> None:
    """Tables 1 and 2, the benchmark figures and plots (PNG), with the machine and versions."""
    from .bench.report import write_report

    with _user_errors(), Progress(TextColumn("{task.description}"), console=err, transient=True) as bar:
        task = bar.add_task("starting")
        path = write_report(Path(out_dir), rows, explain_limit or None, progress=lambda text: bar.update(task, description=text))
    out.print(f"Wrote {path} and its plots.")


@bench_app.command("explain")
def bench_explain(
    limit: int = typer.Option(None, help="At most this many refused rows per data set (default: all)."),
    mode: str = typer.Option("derived", help=MODE_HELP),
    candidates: str = typer.Option("exact", help="exact or data."),
    markdown: bool = typer.Option(False, help="Print a Markdown table (for the docs)."),
    as_json: bool = typer.Option(False, "--json", help="Print the results as JSON."),
) -> None:
    """Time per person over every refused test row of adult, german and cars (K=1 and K=20)."""
    from .bench.explain import explain_benchmark

    columns = ("data", "K", "people", "found", "violations", "median ms", "p95 ms", "worst ms")

    def row(r: Any) -> tuple[str, ...]:
        return (r.dataset, str(r.k), f"{r.people:,}", f"{r.found:,}", str(r.violations), f"{r.median_ms:.1f}", f"{r.p95_ms:.1f}", f"{r.worst_ms:.1f}")

    with _user_errors(), Progress(TextColumn("{task.description}"), BarColumn(), console=err, transient=True) as bar:
        task = bar.add_task("explaining", total=None)
        results = explain_benchmark(
            mode=mode, candidates=candidates, limit=limit, on_person=lambda d, k: bar.update(task, advance=1, description=f"{d}, K={k}")
        )
    if as_json:
        sys.stdout.write(json.dumps([r.to_dict() for r in results], indent=2) + "\n")
    elif markdown:
        sys.stdout.write("| " + " | ".join(columns) + " |\n|" + "---|" * len(columns) + "\n")
        for r in results:
            sys.stdout.write("| " + " | ".join(row(r)) + " |\n")
    else:
        table = Table(*columns, title=f"MC3G search time per refused person (mode {mode}, {candidates} candidates)")
        for r in results:
            table.add_row(*row(r))
        out.print(table)


if __name__ == "__main__":  # pragma: no cover
    app()
