"""``mc3g explain``, ``mc3g demo`` and ``mc3g export``: counterfactuals for people of a data set."""

from __future__ import annotations

import sys
from contextlib import nullcontext
from dataclasses import replace
from typing import Any

import numpy as np
import typer
from rich.table import Table

from ..engine import MEASURED
from ..exceptions import InputError
from ..models import ModelFile
from ..params import whole
from ..profiles import Profile
from ..reference import ExplainerSettings, fitted_explainer, knowledge
from .app import MODE_HELP, PROFILE_HELP, app, err, out, styled
from .sources import INPUT_HELP, PERSON_HELP, SAVED_HELP, People, choose, dataset_or_saved, given_option, input_file, one_person, saved_explainer, split_people

DATASET_HELP = (
    "adult, german, cars or loan (the paper's rules, or under the product profile rules FOLD-SE learns for the data's refusal), "
    "or any data set with --rules or --model; or, for data of your own, --explainer FILE instead."
)


MODEL_HELP = "A fitted classifier: .skops or .onnx; a pickle (.pkl, .pickle, .joblib) only with --trust-model."
MODEL = typer.Option(None, "--model", help=MODEL_HELP)
RULES = typer.Option(None, "--rules", help="Decision rules as JSON (RuleSet.to_json, or the 'rules' of mc3g learn --json).")
ROW = typer.Option(None, "--row", min=0, help="Position of the person in the test split, or in --input (0-based).")
TRUST_MODEL = typer.Option(False, "--trust-model", help="Load a pickled --model: loading a pickle runs code from the file, so only for files you trust.")
TRUST_TYPES = typer.Option(None, "--trust-type", help="A type a .skops --model may hold beyond skops' trusted defaults; repeat for several.")
FAVOURABLE = typer.Option(None, "--favourable", help="The favourable label of --model, when its labels are not the data set's classes (e.g. 1 or True).")
SPLIT = typer.Option(None, help="paper, uci or default; by default the paper's split for its data sets.")
MODE = typer.Option("derived", help=MODE_HELP)
NORM = typer.Option("l1", help="l0, l1 or l2.")
K = typer.Option(1, "-k", "--k", min=1, help="How many counterfactuals, least cost first.")
PROFILE = typer.Option(Profile.PRODUCT.value, "--profile", help=PROFILE_HELP)
DISTINCT = typer.Option(
    None, "--distinct/--near", help="Options whose actions truly differ, or the K nearest states; by default the profile's choice.", show_default=False
)
HUNT = typer.Option(
    None,
    "--hunt",
    help="measured: --model is timed as it is fitted, and where it costs by the row (kNN, a kernel SVM), fewer rows a round. "
    "Or settings of the black-box search, NAME=VALUE separated by commas (section_points=4096); docs/semantics.md lists them.",
)
CAUSAL = typer.Option(None, "--causal", help="A causal-knowledge file, added to the knowledge shipped for the data set.")
CAUSAL_ONLY = typer.Option(
    None, "--causal-only", help="A causal-knowledge file used instead of the knowledge shipped for the data set. The profile's settings for it hold either way."
)


def fitted(settings: ExplainerSettings) -> tuple[Any, Any]:
    """fitted_explainer; with --causal-only (a file instead of the knowledge shipped for the
    data set) it says on standard error what that leaves out and that the profile's settings
    still hold."""
    ds, explainer = fitted_explainer(settings)
    if settings.causal_only is not None:
        shipped = knowledge(ds)
        left = (
            f"the knowledge shipped for {ds.name} ({len(shipped.rules)} causal rules, {len(shipped.constraints)} constraints) is not used"
            if shipped is not None
            else f"no knowledge ships for {ds.name}"
        )
        profile = explainer.run_record().profile
        laid = ds.schema.profiles.get(profile)
        held = f" The {profile} profile's settings for {ds.name} still hold ({', '.join(laid.features)})." if laid is not None else ""
        err.print(f"--causal-only: the causal knowledge is {settings.causal_only} alone: {left}.{held}", soft_wrap=True)
    return ds, explainer


SAVED = typer.Option(None, "--explainer", help=SAVED_HELP)
INPUT = typer.Option(None, "--input", help=INPUT_HELP)
PERSON = typer.Option(None, "--person", help=PERSON_HELP)


def _results(people: People, explainer: Any, out_file: str | None, model_file: str | None, overwrite: bool) -> Any:
    """The results file of ``--out`` (standard output without it), resumed when its header holds
    this run's settings: the people (a data set with fingerprints of its rows, or the saved
    explainer and the input file, by their SHA-256), the profile, the model, the rules, the
    knowledge and every setting.  A pipe or a device is written without resume."""
    from ..records import batch_settings, open_results

    results = open_results(out_file or sys.stdout, batch_settings(explainer, people.data, model_file), list(people.rows.index), overwrite=overwrite)
    if out_file and not results.resumable:
        err.print(f"{out_file} is not a regular file (a pipe or a device): the answers are written to it without resume.", soft_wrap=True)
    return results


def _explain_all(people: People, explainer: Any, results: Any) -> None:
    """Every refused row, one JSON line each, written as they finish; the rows already in the
    results file are skipped."""
    from collections import Counter

    X = people.rows[list(explainer.feature_names_in_)]
    refused = [int(p) for p in np.flatnonzero(explainer.refuses(X))]
    todo = [p for p in refused if p not in results.done]
    counts: Counter[str] = Counter()
    for position, result in explainer.explain_each(X.iloc[todo].set_axis(todo), progress=True):  # labelled by position: what --row takes
        results.write(position, result)
        counts[result.status] += 1
    summary = ", ".join(f"{n} {status}" for status, n in sorted(counts.items())) or "nothing new"
    err.print(f"{len(refused):,} refused rows: {len(refused) - len(todo):,} already done, now {summary}.")


def _check_out(out: str | None, overwrite: bool, person: str | None) -> None:
    """Refuse --overwrite without --out, and --out with --person (an answer there has no row)."""
    if overwrite and not out:
        raise InputError("--overwrite starts the --out file afresh: give it with --out")
    if out and person is not None:
        raise InputError("--out holds answers by the position of a row (of --input or the test split); --person has none")


def hunt_given(text: str | None) -> str | dict[str, int | bool] | None:
    """--hunt as MC3G takes it: measured, or settings as NAME=VALUE separated by commas, each a
    whole number, true or false (HuntSettings then checks each name and value)."""
    if text is None or text == MEASURED:
        return text
    given: dict[str, int | bool] = {}
    for pair in text.split(","):
        name, equals, value = (part.strip() for part in pair.partition("="))
        flag = {"true": True, "false": False}.get(value.lower())
        if not (equals and name and (flag is not None or value.removeprefix("-").isdigit())):
            raise InputError(
                f"--hunt {text!r}: {pair.strip()!r} is no NAME=VALUE (a whole number, true or false); give measured, or settings such as"
                " section_points=4096,draw_ahead=false"
            )
        given[name] = int(value) if flag is None else flag
    return given


def _n_jobs(n_jobs: int) -> int:
    """--n-jobs: -1 (every core) or from 1 to the cores this process may use."""
    from ..explain import usable_cores

    cores = usable_cores()
    return n_jobs if n_jobs == -1 else whole(n_jobs, "--n-jobs", 1, cores, f"mc3g may use {cores} core(s) here; -1 uses them all")


def _print_recourse(result: Any, explainer: Any, title: str) -> None:
    """One answer as the person reads it: the decision, its principal reasons and the options, in
    words, with no word of how the search went (``--json`` has the lender's whole record)."""
    words = explainer.words_
    shown = ", ".join(f"{words.feature(f)} = {words.value(f, result.instance[f])}" for f in explainer.features_in_play_)
    out.print(styled((title, "bold"), ": " + shown), soft_wrap=True)
    if result.status not in ("refused", "no_counterfactual"):
        out.print(str(result), soft_wrap=True)
        return
    out.print(styled(("Refused.", "bold")))
    if result.principal:
        out.print(styled("\n", ("What would change the decision", "bold"), ":"))
        for i, sentence in enumerate(result.plainly, 1):
            out.print(f"  {i}. {sentence}", soft_wrap=True)
    if not result.counterfactuals:
        out.print(" ".join(result.plainly), soft_wrap=True)
        return
    ways = "One way" if len(result) == 1 else f"{len(result)} ways"
    out.print(styled("\n", (f"{ways} out", "bold"), ", least effort first:"))
    for i, cf in enumerate(result, 1):
        out.print(styled("\n", (f"{i}.", "bold"), f" effort {cf.cost:.2f}: {cf.plan}"), soft_wrap=True)
        table = Table("feature", "from", "to", "how", "effort")
        for c in (*cf.direct_actions, *cf.caused_changes):
            table.add_row(c.shown.feature, c.shown.before, c.shown.after, c.how, f"{c.cost:.2f}")
        out.print(table)
        if len(cf.steps) > 1 or any(len(step.actions) > 1 for step in cf.steps):
            out.print("Step by step:")
            for j, step in enumerate(cf.steps, 1):
                out.print(f"  {j}. {step.sentence()}", soft_wrap=True)
    if result.fewer:
        out.print(styled("\n", result.fewer_plainly), soft_wrap=True)


@app.command()
def explain(
    ctx: typer.Context,
    dataset: str = typer.Argument(None, help=DATASET_HELP, show_default=False),
    row: int = ROW,
    all_refused: bool = typer.Option(False, "--all-refused", help="Explain every refused row of the test split, or of --input (JSON lines)."),
    out: str = typer.Option(
        None, "--out", help="Write the answers to this results file (JSON lines after a header of the settings); a rerun with the same settings resumes it."
    ),
    overwrite: bool = typer.Option(False, "--overwrite", help="Start the --out file afresh, losing its answers (else a file of other settings is refused)."),
    saved: str = SAVED,
    input_path: str = INPUT,
    person: str = PERSON,
    split: str = SPLIT,
    mode: str = MODE,
    norm: str = NORM,
    k: int = K,
    candidates: str = typer.Option("exact", help="exact (the optimum over each domain) or data (the authors' scheme)."),
    profile: str = PROFILE,
    distinct: bool = DISTINCT,
    squared: bool = typer.Option(False, help="L2 without the square root (the paper's Algorithm 4)."),
    scaling: str = typer.Option("std", help="Numeric changes in units of the training std or mad."),
    plausible: bool = typer.Option(False, help="Only values seen in the training data."),
    rules: str = RULES,
    model: str = MODEL,
    trust_model: bool = TRUST_MODEL,
    trust_types: list[str] = TRUST_TYPES,
    favourable: str = FAVOURABLE,
    causal: str = CAUSAL,
    causal_only: str = CAUSAL_ONLY,
    hunt: str = HUNT,
    margin: float = typer.Option(0.0, "--margin", help="How far past its decision point the model's probability of approval must be at an option."),
    retrains: int = typer.Option(0, "--retrains", min=0, help="Fit --model's own recipe again on this many resamples; options must satisfy them all."),
    n_jobs: int = typer.Option(1, "--n-jobs", help="Processes for --all-refused: from 1 to the machine's cores, or -1 for all of them."),
    as_json: bool = typer.Option(False, "--json", help="Print the answer as JSON."),
) -> None:
    """The least-effort ways out of a refusal, respecting the causal knowledge."""
    choose(row=row, all_refused=all_refused, person=person, input_path=input_path, saved=saved)
    _check_out(out, overwrite, person)
    reading, calls = ModelFile(model, trust_model, trust_types), {"k": k, "n_jobs": _n_jobs(n_jobs)}
    dataset_or_saved(dataset, saved)
    settings = None if saved else ExplainerSettings(
        dataset=dataset, split=split, model=reading, favourable=favourable, rules_file=rules, causal_file=causal, causal_only=causal_only, profile=profile,
        params={"mode": mode, "norm": norm, "candidates": candidates, "root": not squared, "scaling": scaling, "plausible": plausible, "distinct": distinct,
                "hunt": hunt_given(hunt), "margin": margin} | ({"retrains": retrains} if retrains else {}),
    )  # fmt: skip
    explainer, data, split_rows = _explainer(ctx, saved, reading, settings, calls)
    if person is not None:
        result, title = explainer.session(one_person(explainer, person)).run(explainer.refuses_rows), "The person of --person"
    else:
        people = input_file(explainer, input_path, data, all_refused) if input_path else split_rows
        chosen = None if all_refused else people.pick(row)  # refused before any file is written
        with _results(people, explainer, out, model, overwrite) if out or all_refused else nullcontext() as results:
            if chosen is None:
                _explain_all(people, explainer, results)
                return
            result, title = _one_row(explainer, row, chosen, results), people.title(row)
    if as_json:
        sys.stdout.write(result.to_json() + "\n")
        return
    _print_recourse(result, explainer, title)


def _explainer(
    ctx: typer.Context, saved: str | None, model: ModelFile, settings: ExplainerSettings | None, calls: dict[str, Any] | None = None
) -> tuple[Any, dict[str, Any], People | None]:
    """The explainer of --explainer FILE (its black box read as ``model`` says), or else the one
    ``settings`` describe (fitted on the data set's training split), with the per-call settings
    ``calls`` (-k, --n-jobs; a saved explainer keeps its own K unless -k is given); what a results
    header records of it; and the data set's test split (None for a saved explainer)."""
    calls = calls or {}
    if settings is None:
        explainer, data = saved_explainer(ctx, str(saved), model)
        return explainer.set_params(**{name: value for name, value in calls.items() if name != "k" or given_option(ctx, "k")}), data, None
    ds, explainer = fitted(replace(settings, params={**settings.params, **calls}))
    split_rows = split_people(ds, explainer)
    return explainer, split_rows.data, split_rows


def one_person_picked(
    ctx: typer.Context, saved: str | None, model: ModelFile, given: dict[str, Any], person: str | None, row: int | None, input_path: str | None
) -> tuple[Any, Any, str]:
    """For a command about one person (--person, or --row of --input or of the test split): the
    explainer of --explainer FILE, or of the settings ``given`` with ``model``; the person; a title."""
    choose(row=row, all_refused=None, person=person, input_path=input_path, saved=saved)
    dataset_or_saved(given["dataset"], saved)
    settings = None if saved else ExplainerSettings(model=model, **{name: value for name, value in given.items() if name != "calls"})
    explainer, data, split_rows = _explainer(ctx, saved, model, settings, given.get("calls"))
    chosen, title = _picked(explainer, split_rows, data, input_path, row, person)
    return explainer, chosen, title


def _picked(explainer: Any, split_rows: People | None, data: dict[str, Any], input_path: str | None, row: int | None, person: str | None) -> tuple[Any, str]:
    """The one person --person gives, or row --row of --input or of the test split, and a title."""
    if person is not None:
        return one_person(explainer, person), "The person of --person"
    people = input_file(explainer, input_path, data, False) if input_path else split_rows
    assert people is not None and row is not None  # choose() saw to it
    return people.pick(row), people.title(row)


def _one_row(explainer: Any, row: int, person: Any, results: Any) -> Any:
    """The answer for row ``row`` (``person``); with a results file, the one it holds, or
    else a new one written to it."""
    if results is not None and row in results.done:
        err.print(f"row {row} is already in {results.name}: its answer there is shown.", soft_wrap=True)
        return results.stored(row)
    result = explainer.explain(person)
    if results is not None:
        results.write(row, result)
    return result


@app.command()
def whatif(
    ctx: typer.Context,
    dataset: str = typer.Argument(None, help=DATASET_HELP, show_default=False),
    row: int = ROW,
    changes: list[str] = typer.Option(..., "--set", help="A change the person makes, as FEATURE=VALUE; repeat for several."),
    saved: str = SAVED,
    input_path: str = INPUT,
    person: str = PERSON,
    split: str = SPLIT,
    mode: str = MODE,
    norm: str = NORM,
    profile: str = PROFILE,
    rules: str = RULES,
    model: str = MODEL,
    trust_model: bool = TRUST_MODEL,
    trust_types: list[str] = TRUST_TYPES,
    favourable: str = FAVOURABLE,
    causal: str = CAUSAL,
    causal_only: str = CAUSAL_ONLY,
    as_json: bool = typer.Option(False, "--json", help="Print the answer as JSON."),
) -> None:
    """Try a plan of one's own: what it forces, what it breaks, the decision and the cost."""
    wanted = {}
    for change in changes:
        name, sep, value = change.partition("=")
        if not sep or not name.strip():
            raise InputError(f"--set takes FEATURE=VALUE, not {change!r}")
        wanted[name.strip()] = value.strip()
    given = {"dataset": dataset, "split": split, "favourable": favourable, "rules_file": rules, "causal_file": causal, "causal_only": causal_only}
    given |= {"profile": profile, "params": {"mode": mode, "norm": norm}}
    explainer, chosen, title = one_person_picked(ctx, saved, ModelFile(model, trust_model, trust_types), given, person, row, input_path)
    result = explainer.whatif(chosen, wanted)
    if as_json:
        sys.stdout.write(result.to_json() + "\n")
        return
    out.print(styled((title, "bold")))
    out.print(str(result), soft_wrap=True)


@app.command()
def export(
    ctx: typer.Context,
    dataset: str = typer.Argument(None, help=DATASET_HELP, show_default=False),
    row: int = ROW,
    fmt: str = typer.Option("asp", "--format", help="asp: the clingo program (decision rules, causal knowledge, the person, the query)."),
    saved: str = SAVED,
    input_path: str = INPUT,
    person: str = PERSON,
    split: str = typer.Option(None, help="paper, uci or default."),
    mode: str = MODE,
    norm: str = NORM,
    candidates: str = typer.Option("exact", help="exact or data."),
    profile: str = PROFILE,
    rules: str = RULES,
    causal: str = CAUSAL,
    causal_only: str = CAUSAL_ONLY,
    model: str = typer.Option(None, "--model", help=MODEL_HELP + " Only to load an --explainer of a black box."),
    trust_model: bool = TRUST_MODEL,
    trust_types: list[str] = TRUST_TYPES,
) -> None:
    """Print the logic program behind an answer; `clingo` runs it as it is."""
    if fmt != "asp":
        raise InputError(f"unknown format {fmt!r}; the only format is 'asp'")
    choose(row=row, all_refused=None, person=person, input_path=input_path, saved=saved)
    if model and not saved:
        raise InputError("--model here only loads an --explainer that holds a black box; the program is that of its rules")
    reading = ModelFile(model, trust_model, trust_types)
    dataset_or_saved(dataset, saved)
    settings = None if saved else ExplainerSettings(
        dataset=dataset, split=split, rules_file=rules, causal_file=causal, causal_only=causal_only, profile=profile,
        params={"mode": mode, "norm": norm, "candidates": candidates},
    )  # fmt: skip
    explainer, data, split_rows = _explainer(ctx, saved, reading, settings)
    sys.stdout.write(explainer.program(_picked(explainer, split_rows, data, input_path, row, person)[0]))
