"""``mc3g demo``: the paper's John, embedded, and a card issuer's refused client of the Taiwan
data set, whose model is read exactly; with ``--save``, the files ``mc3g serve`` makes its page of."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from ..reference import card_issuer, fitted_explainer
from ..values import plain
from .app import app, err, out
from .explain import _print_recourse

DEMOS = ("loan", "taiwan")


@app.command()
def demo(
    data: str = typer.Option("loan", "--data", help="loan: the paper's John (embedded); taiwan: a card issuer's refused client (the Taiwan data set)."),
    save: str = typer.Option(
        None, "--save", help="With --data taiwan: write the model, the explainer and a service file here (for mc3g serve --config FOLDER/service.toml)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the answer as JSON."),
) -> None:
    """The paper's John: refused a loan, and what he can do about it; or a card issuer's client."""
    if data not in DEMOS:
        raise typer.BadParameter(f"{data!r} is none of {', '.join(DEMOS)}", param_hint="--data")
    if data == "taiwan":
        _card_client(save, as_json)
    elif save is not None:
        raise typer.BadParameter("John's explainer needs no files: mc3g serve serves him as it is", param_hint="--save")
    else:
        _john(as_json)


def _john(as_json: bool) -> None:
    from ..datasets import JOHN

    explainers = {mode: fitted_explainer("loan", mode=mode)[1] for mode in ("derived", "explained", "none")}
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
        follows = ", ".join(c.shown.feature + ("" if c.cost == 0 else " (but counted)") for c in cf.caused_changes) or "nothing"
        table.add_row(label, f"{cf.cost:.4f}", ", ".join(a.shown.feature for a in cf.direct_actions), follows)
    out.print(table)


def _card_client(save: str | None, as_json: bool) -> None:
    """The card issuer's model fitted now (about 20 seconds), its first refused test client
    explained, and, with ``save``, the files of its page."""
    with err.status("fitting the card issuer's model on 24,000 clients and reading it..."):
        _, explainer, client = card_issuer()
    answer = explainer.explain(client)
    if save is not None:
        _save(Path(save), explainer, client)
    if as_json:
        sys.stdout.write(answer.to_json() + "\n")
        return
    out.print(
        "A card issuer's model (gradient boosting of 24,000 past clients) expects this client to default next month. "
        "Their history, limit, age, sex, marriage and education stay; the September payment and its status may change.\n",
        soft_wrap=True,
    )
    _print_recourse(answer, explainer, f"Client {client.name}")
    if save is not None:
        out.print(f"\nSaved to {save}: mc3g serve --config {Path(save) / 'service.toml'}", soft_wrap=True)


def _save(folder: Path, explainer: Any, client: Any) -> None:
    """The model as a skops file, the explainer beside it, and a service file naming both, with
    the types the model file holds trusted and the client as the page's example."""
    import skops.io

    folder.mkdir(parents=True, exist_ok=True)
    skops.io.dump(explainer.model, folder / "card.skops")
    explainer.save(folder / "explainer.json", model_file=folder / "card.skops")
    trusted = skops.io.get_untrusted_types(file=folder / "card.skops")
    lines = ["[explainer]", 'saved = "explainer.json"', 'model = "card.skops"', f"trusted_types = {json.dumps(trusted)}", "k = 3", ""]
    lines += ["[service]", 'title = "A card issuer\'s clients (Taiwan)"', "", "[example]"]
    lines += [f"{name} = {json.dumps(plain(client[name]))}" for name in explainer.feature_names_in_]
    (folder / "service.toml").write_text("\n".join(lines) + "\n")
