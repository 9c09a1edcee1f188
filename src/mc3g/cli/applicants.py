"""``mc3g init``, ``mc3g check`` and ``mc3g fit``: from a file of past applicants that mc3g has
never seen to a saved explainer, by way of causal knowledge drafted from it and reviewed."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from ..applicants import Fitted, check_knowledge, draft, fit_file, read_data
from ..engine import Engine
from ..exceptions import InputError
from ..models import ModelFile
from ..reading import writable_path
from ..values import suggest
from .app import app, err, out
from .explain import DISTINCT, HUNT, MODE, NORM, PROFILE, TRUST_MODEL, TRUST_TYPES, hunt_given

if TYPE_CHECKING:
    from pandas import DataFrame

DATA_HELP = "A CSV or Parquet file of past applicants: a header naming the columns, one row per applicant, the decision in a column."
TARGET = typer.Option(..., "--target", help="The column that holds the decision.")
OVERWRITE = typer.Option(False, "--overwrite", help="Replace an existing --out file.")


@app.command()
def init(
    data: str = typer.Argument(..., help=DATA_HELP),
    target: str = TARGET,
    favourable: str = typer.Option(None, "--favourable", help="The decision's favourable value, checked and noted in the draft."),
    out_file: str = typer.Option(None, "--out", help="Write the draft to this file (default: standard output); an existing file is kept unless --overwrite."),
    overwrite: bool = OVERWRITE,
    no_guess: bool = typer.Option(
        False, "--no-guess", help="Write each feature's kind and its categories or range alone: no step, protection or dependency is guessed."
    ),
    categorical: list[str] = typer.Option(
        None, "--categorical", help="A column of categories some of whose values look like numbers (2, 3+): read as they are, not refused; repeat for several."
    ),
    most: int = typer.Option(40, "--dependencies", min=0, max=1000, help="The most dependencies proposed, the best supported first."),
) -> None:
    """Draft causal knowledge from DATA for a person to review: kinds and ranges as the data show
    them; steps, protections and dependencies guessed, each with its evidence."""
    started = time.perf_counter()
    rows = read_data(data, categorical=categorical or (), hint=" (a category some of whose values look like numbers: --categorical NAME)")
    _categorical_columns(rows.frame, categorical or (), target, data)
    drafted = draft(rows.frame, target, favourable=favourable, guess=not no_guess, source=Path(data).name, most=most)
    text = drafted.to_text()
    seconds = time.perf_counter() - started
    if out_file:
        write_new(Path(out_file), text, overwrite)
    else:
        sys.stdout.write(text)  # as it is: no console reads it
    err.print(
        f"Drafted {out_file or 'the knowledge'} from {len(rows.frame):,} rows in {seconds:.2f} s: {len(drafted.features)} features; "
        f"protections proposed for {', '.join(drafted.protected) or 'none'}; which way advice may move guessed for "
        f"{', '.join(drafted.directed) or 'none'}; {len(drafted.dependencies)} dependencies found (commented out).",
        soft_wrap=True,
    )
    gaps = rows.frame.drop(columns=[target]).isna()
    if gaps.any(axis=None):
        columns = ", ".join(str(c) for c in gaps.columns[gaps.any()])
        err.print(
            f"note: {int(gaps.any(axis=1).sum()):,} row(s) have a missing cell ({columns}); mc3g check and mc3g fit refuse them: "
            "fill them in, or leave those rows out.",
            soft_wrap=True,
        )
    err.print(f"Review it, then: mc3g check {out_file or 'FILE.causal'} --data {data} --target {target}", soft_wrap=True)


def write_new(path: Path, text: str, overwrite: bool) -> None:
    """Write ``text`` to ``path`` whole or not at all (a temporary file renamed into place); an
    existing file is refused unless ``overwrite``: a knowledge file may hold a person's edits."""
    writable_path(path, "knowledge file")
    if path.exists() and not overwrite:
        raise InputError(f"{path} exists (it may hold your edits): choose another --out, or replace it with --overwrite")
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None


@app.command()
def check(
    knowledge: str = typer.Argument(..., help="A causal-knowledge file."),
    data: str = typer.Option(..., "--data", help=DATA_HELP),
    target: str = typer.Option(None, "--target", help="The column that holds the decision (not a feature); without it every column is one."),
) -> None:
    """Check a knowledge file against a data file: every name or value the data lack, at
    file:line:column, and every statement rows of the data break. Exit 2 on the first kind, 1 on
    the second."""
    report = check_knowledge(knowledge, data, target)
    for error in report.errors:
        out.print(f"{error}", soft_wrap=True)
    for broken in report.broken:
        out.print(str(broken), soft_wrap=True)
    for note in report.notes:
        out.print(f"note: {note}", soft_wrap=True)
    counts = report.read
    against = f"{len(report.data.frame):,} rows of {data}"
    if report.errors:
        err.print(f"{knowledge}: {len(report.errors)} problem(s) with names or values ({counts} read) against {against}.", soft_wrap=True)
        raise typer.Exit(2)
    if report.broken:
        err.print(f"{knowledge}: {len(report.broken)} statement(s) broken by rows of the data ({counts}; {against}).", soft_wrap=True)
        raise typer.Exit(1)
    err.print(f"{knowledge}: every name and value is in the data, and no row breaks it ({counts}; {against}).", soft_wrap=True)


@app.command()
def fit(
    data: str = typer.Argument(..., help=DATA_HELP),
    target: str = TARGET,
    out_file: str = typer.Option(..., "--out", help="The saved explainer (a JSON document): replaced whole, or left as it was."),
    causal: str = typer.Option(None, "--causal", help="A causal-knowledge file (mc3g init drafts one); every name and value in it must be in the data."),
    model: str = typer.Option(
        None, "--model", help="A fitted classifier: .skops or .onnx; a pickle only with --trust-model. Without it, FOLD-SE rules are learned from DATA."
    ),
    trust_model: bool = TRUST_MODEL,
    trust_types: list[str] = TRUST_TYPES,
    favourable: str = typer.Option(None, "--favourable", help="The favourable value of the decision (or of --model's labels, when they are its own)."),
    ignore: list[str] = typer.Option(
        None, "--ignore", help="A column that is no feature (an identifier: new applicants bring new values); repeat for several."
    ),
    profile: str = PROFILE,
    mode: str = MODE,
    norm: str = NORM,
    k: int = typer.Option(1, "-k", "--k", min=1, help="How many options an answer gives, least cost first (explain -k asks for others)."),
    distinct: bool = DISTINCT,
    hunt: str = HUNT,
) -> None:
    """Fit an explainer on DATA and save it: of a model of your own (with the held-out fidelity of
    the rules that imitate it), or of FOLD-SE rules learned from DATA (with their accuracy)."""
    reading = ModelFile(model, trust_model, trust_types)
    started = time.perf_counter()
    loaded = reading.load()
    settings = {"profile": profile, "mode": mode, "norm": norm, "k": k, "distinct": distinct, "hunt": hunt_given(hunt)}
    fitted = fit_file(data, target, causal=causal, model=loaded, favourable=favourable, ignore=ignore or (), **settings)
    seconds = time.perf_counter() - started
    path = writable_path(out_file, "saved explainer")
    fitted.explainer.save(path, model_file=model)
    again = f"--model {model}" + (" --trust-model" if trust_model else "")  # the types trusted travel with the explainer, for this model's bytes
    _report(fitted, data, again if model else "", out_file, seconds)


LOW_FIDELITY = 0.8  # rules that imitate a black box less well than this are worth a warning


def _categorical_columns(frame: DataFrame, named: list[str], target: str, data: str) -> None:
    """``--categorical`` names columns of ``data`` that are features; one whose every value is a
    number is drafted numeric, and said so (it has no text to keep from being refused)."""
    for name in named:
        if name == target:
            raise InputError(f"--categorical {name}: that is the decision, not a feature")
        if name not in frame.columns:
            raise InputError(f"--categorical {name}: {data} has no such column{suggest(name, map(str, frame.columns))}; its columns are {list(frame.columns)}")
        if frame[name].dtype.kind in "iuf":
            err.print(
                f"note: --categorical {name}: every value of {name} is a number, so it is drafted numeric; if its numbers are codes, "
                f"declare it in the draft as `{name}: categorical {{...}}` with its codes",
                soft_wrap=True,
            )


def _advisable(engine: Engine) -> str:
    """What advice may change, from the knowledge in force: a consequence-only feature said so."""
    named = [f"{n} (only as a consequence)" if engine.schema.feature(n).consequence_only else n for n in engine.advisable]
    return f"Advice may change: {', '.join(named)}." if named else "Advice may change nothing: every feature the decision reads is immutable."


def _report(fitted: Fitted, data: str, model: str, out_file: str, seconds: float) -> None:
    """What was fitted, in words; ``model`` is how to name the model again (its options)."""
    how = " (read off its words; --favourable to choose)" if fitted.guessed else ""
    out.print(
        f"Fitted on {len(fitted.data.frame):,} rows of {data} in {seconds:.1f} s. The decision {fitted.target}: "
        f"favourable {fitted.favourable!r}{how}, refused {fitted.unfavourable!r}.",
        soft_wrap=True,
    )
    if model:
        agree = f"they agree with it on {fitted.score:.1%} of held-out rows"
        if fitted.explainer.engine_.glass is not None:
            said = f"The model is {fitted.explainer.run_record().reading}: an answer is the least-cost options it accepts, and no option is a proof."
            out.print(f"{said} The rules below say in words why it refuses; {agree}.", soft_wrap=True)
        else:
            out.print(f"The rules below imitate the model: {agree}.", soft_wrap=True)
            if fitted.score < LOW_FIDELITY:
                err.print(
                    f"note: the rules agree with the model on only {fitted.score:.1%} of held-out rows. Every option is checked with the model, "
                    "but where the rules err a person may be told there is no option when there is one; a model mc3g reads exactly "
                    "(trees, boosters, linear scores: docs/semantics.md) has no such gap.",
                    soft_wrap=True,
                )
    else:
        out.print(f"FOLD-SE rules of the refusal, learned from the file: {fitted.score:.1%} accurate on 20 % of its rows held out.", soft_wrap=True)
    out.print(fitted.rules.to_english(), soft_wrap=True)
    out.print(_advisable(fitted.explainer.engine_), soft_wrap=True)
    if fitted.unprotected:
        err.print(
            f"note: advice may change {', '.join(fitted.unprotected)}, which look protected (a characteristic fair-lending law protects, age, "
            "a record's identifier or weight); mc3g init proposes protections, and the knowledge (--causal) decides.",
            soft_wrap=True,
        )
    again = f" {model}" if model else ""
    out.print(f"Saved {out_file}. Next: mc3g explain --explainer {out_file}{again} --input {data} --row 0", soft_wrap=True)
