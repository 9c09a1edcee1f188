"""``mc3g notice``: a notice of adverse action for one refused person, as text, HTML and JSON;
``mc3g bench notice``: how many refused people of each data set a notice is written for."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer

from ..models import ModelFile
from ..notice import Notice
from ..reading import writable_path
from ..reference import fitted_explainer
from .app import app, bench_app, err, print_results, spinner
from .explain import (
    CAUSAL,
    CAUSAL_ONLY,
    DATASET_HELP,
    FAVOURABLE,
    INPUT,
    MODEL,
    PERSON,
    PROFILE,
    ROW,
    RULES,
    SAVED,
    SPLIT,
    TRUST_MODEL,
    TRUST_TYPES,
    K,
    one_person_picked,
)


@app.command()
def notice(
    ctx: typer.Context,
    dataset: str = typer.Argument(None, help=DATASET_HELP + " With no data set, --explainer, --row or --person: the demo's John.", show_default=False),
    row: int = ROW,
    saved: str = SAVED,
    input_path: str = INPUT,
    person: str = PERSON,
    split: str = SPLIT,
    profile: str = PROFILE,
    k: int = K,
    rules: str = RULES,
    model: str = MODEL,
    trust_model: bool = TRUST_MODEL,
    trust_types: list[str] = TRUST_TYPES,
    favourable: str = FAVOURABLE,
    causal: str = CAUSAL,
    causal_only: str = CAUSAL_ONLY,
    date: str = typer.Option(None, "--date", help="The notice's date, YYYY-MM-DD (today by default)."),
    lender: str = typer.Option(None, "--lender", help="The lender's name, as the notice's heading gives it."),
    reasons: list[str] = typer.Option(
        None, "--reason", help="The lender's own principal reason, instead of the model's; repeat for several (at most four, each specific)."
    ),
    html: str = typer.Option(None, "--html", help="Also write the notice as a page of HTML for the person to this file."),
    as_json: bool = typer.Option(False, "--json", help="Print the lender's record of the notice as JSON (format mc3g.notice) instead of its text."),
) -> None:
    """A notice of adverse action: the principal reasons, the least-effort plan, when to apply again."""
    if all(option is None for option in (dataset, saved, row, person, input_path, model, rules, causal, causal_only)):  # nothing names a person: John
        from ..datasets import JOHN

        explainer, chosen = fitted_explainer("loan")[1], JOHN
    else:
        given = {"dataset": dataset, "split": split, "favourable": favourable, "rules_file": rules, "causal_file": causal, "causal_only": causal_only}
        given |= {"profile": profile, "calls": {"k": k}}
        explainer, chosen, _ = one_person_picked(ctx, saved, ModelFile(model, trust_model, trust_types), given, person, row, input_path)
    written = Notice.of(explainer, explainer.explain(chosen), date=date, lender=lender, reasons=reasons or (), model_file=model)
    if html is not None:
        path = writable_path(html, "notice")
        path.write_text(written.html(), encoding="utf-8")
        err.print(f"The notice as a page: {Path(path)}", soft_wrap=True)
    sys.stdout.write(written.to_json() + "\n" if as_json else written.text)


@bench_app.command("notice")
def bench_notice(
    rows: int = typer.Option(100, min=1, help="Refused test rows of each data set."),
    markdown: bool = typer.Option(False, help="Print a Markdown table (for the docs)."),
    as_json: bool = typer.Option(False, "--json", help="Print the results as JSON."),
) -> None:
    """Notices of adverse action on adult, German and Taiwan: written from the model's reasons, or needing the lender's."""
    from ..bench.notice import notice_benchmark

    columns = (
        "data",
        "refused",
        "notice from the model's reasons",
        "no way out: the lender's reasons needed",
        "refused otherwise",
        "reasons a notice",
        "plans that wait",
        "ms a notice",
    )

    def row(r: Any) -> tuple[str, ...]:
        return (
            r.dataset,
            str(r.refused),
            str(r.written),
            str(r.lender_reasons),
            str(r.refused_otherwise),
            f"{r.reasons_mean:.1f}",
            str(r.waits),
            f"{r.ms_median:.1f}",
        )

    with spinner("fitting and explaining..."):
        results = notice_benchmark(rows=rows)
    print_results(results, columns, row, "mc3g notice", as_json, markdown)
