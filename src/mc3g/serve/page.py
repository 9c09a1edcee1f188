"""The applicant's page at ``/``: plain HTML forms, rendered on the server, no script.

The form is the one ``/v1/schema`` describes (a label, a hint and the current value for each
feature a rule or the model reads; the allowed values, in words, to choose from).  Posting it
shows the decision in words and the options as cards; the what-if form posts the person's own
changes and shows the new decision and what follows.  Form text goes through the same generated models as the JSON API, so
a bad value is named beside its field.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from jinja2 import Environment, PackageLoader, Template, select_autoescape
from pydantic import ValidationError

from ..exceptions import InputError
from .config import Service
from .inputs import Input, RequestModels
from .runner import Searches, TimeLimit

CHANGE = "change:"  # the what-if form's fields: change:FEATURE


@dataclass(frozen=True)
class FieldView:
    """One form field: its id, name and label, a hint, the values to choose from (each as the
    form sends it and in words; None for a field of text), the value shown and the error to show
    beside it."""

    id: str
    name: str
    label: str
    hint: str
    values: list[tuple[str, str]] | None
    value: str
    error: str | None = None


def _hint(x: Input) -> str:
    f = x.feature
    notes = [sentence_case(f.description.rstrip(".")) + "."] if f.description else []
    if f.valid is not None and not f.labels_every_value:  # a choice of labelled values needs no bounds
        notes.append(sentence_case(f.valid_words) + ".")
    if f.immutable:
        notes.append("You cannot change this.")
    elif f.consequence_only:
        notes.append("This changes only as a consequence of other changes.")
    elif f.direction:
        notes.append(f"This can only {f.direction}.")
    if f.max_change is not None and not f.immutable:
        notes.append(f"Advice moves it by at most {f.max_change:g}.")
    if not x.required:
        notes.append("Optional.")
    return " ".join(notes)


def _fields(inputs: list[Input], values: dict[str, Any], errors: dict[str, str], prefix: str = "") -> list[FieldView]:
    return [
        FieldView(
            f"{'change' if prefix else 'field'}-{i}", prefix + x.name, f"New {x.words.feature(x.name)}" if prefix else x.label, _hint(x),
            [(_text(v), said) for v, said in x.choices] if x.choices is not None else None, _text(values.get(x.name)), errors.get(x.name),
        )
        for i, x in enumerate(inputs)
    ]  # fmt: skip


def _text(value: Any) -> str:
    """A value as a form field holds it: whole numbers without ".0", every digit kept (the
    what-if form sends the values back)."""
    if value is None:
        return ""
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def _typed(form: dict[str, str], inputs: list[Input], prefix: str = "") -> dict[str, Any]:
    """The form's text as a request would give it: numbers as numbers (text that is not one stays
    text, so the model names the field), empty fields left out."""
    typed: dict[str, Any] = {}
    for x in inputs:
        text = form.get(prefix + x.name, "").strip()
        if not text:
            continue
        if x.feature.is_numeric:
            try:
                typed[x.name] = float(text.replace(",", ""))
            except ValueError:
                typed[x.name] = text
        else:
            typed[x.name] = text
    return typed


def _errors(error: ValidationError) -> dict[str, str]:
    found: dict[str, str] = {}
    for problem in error.errors():
        where = str(problem["loc"][0]) if problem["loc"] else ""
        found.setdefault(where, problem["msg"].removeprefix("Value error, "))
    return found


def sentence_case(text: str) -> str:
    return text[:1].upper() + text[1:]


@dataclass(frozen=True)
class Page:
    """What the page's routes read, built once per service: the service, the fields asked (a
    feature that no rule and no model reads is not asked for) and those a what-if may change,
    the request models, the searches and the template."""

    service: Service
    inputs: list[Input]
    changeable: list[Input]
    models: RequestModels
    searches: Searches
    template: Template

    @classmethod
    def of(cls, service: Service, inputs: list[Input], models: RequestModels, searches: Searches) -> Page:
        environment = Environment(loader=PackageLoader("mc3g.serve", "templates"), autoescape=select_autoescape(default=True))
        environment.filters.update(sentence=sentence_case)
        asked = [x for x in inputs if x.required]
        return cls(service, asked, [x for x in asked if x.changeable], models, searches, environment.get_template("page.html"))

    def render(
        self,
        values: dict[str, Any],
        k: int,
        errors: dict[str, str],
        status: int = 200,
        changes: dict[str, Any] | None = None,
        change_errors: dict[str, str] | None = None,
        **shown: Any,
    ) -> HTMLResponse:
        """The page; ``errors`` and ``change_errors`` map a feature (or '' for the whole form) to a message."""
        change_errors = change_errors or {}
        service = self.service
        context = {
            "title": service.title, "fields": _fields(self.inputs, values, errors), "k": k, "max_k": service.limits.max_k, "k_error": errors.get("k"),
            "change_fields": _fields(self.changeable, changes or {}, change_errors, CHANGE), "problem": errors.get(""),
            "change_problem": "Choose at least one change to try." if "" in change_errors else None, **shown,
        }  # fmt: skip
        return HTMLResponse(self.template.render(context), status_code=status)

    async def answer(self, values: dict[str, Any], k: int, changes: dict[str, Any] | None = None, change_errors: dict[str, str] | None = None) -> HTMLResponse:
        """The page with the person's options and, when they tried changes, what those do (or
        what is wrong with the changes)."""
        try:
            result = await self.searches.explain(values, k)
            whatif = await self.searches.whatif(values, changes) if changes and not change_errors else None
        except (TimeLimit, InputError) as exc:
            return self.render(values, k, {"": str(exc)}, 503 if isinstance(exc, TimeLimit) else 422, changes)
        return self.render(values, k, {}, 422 if change_errors else 200, changes, change_errors, result=result, whatif=whatif)

    async def read(self, request: Request) -> tuple[dict[str, str], dict[str, Any], int, dict[str, str]]:
        """The posted form, the applicant's values, K and the errors found in them."""
        form = dict(parse_qsl((await request.body()).decode("utf-8", errors="replace"), keep_blank_values=True))
        values = _typed(form, self.inputs)
        errors: dict[str, str] = {}
        try:
            values = self.models.applicant.model_validate(values).values()
        except ValidationError as exc:
            errors = _errors(exc)
        k = self.service.k
        try:
            k = self.models.count.validate_python(int(form.get("k", k)))  # the bounds of the API's k
        except ValueError:  # pydantic's ValidationError is one
            errors["k"] = f"How many options: a whole number from 1 to {self.service.limits.max_k}."
        return form, values, k, errors


ROUTER = APIRouter(include_in_schema=False)
"""The page's routes, over the app's :class:`Page` (``app.state.page``); they are not part of the OpenAPI document."""


def _page(request: Request) -> Page:
    return request.app.state.page


@ROUTER.get("/", response_class=HTMLResponse)
async def start(request: Request) -> HTMLResponse:
    """The form, answered at once for the service's example applicant when it has one."""
    page = _page(request)
    example = page.service.example
    return page.render({}, page.service.k, {}) if example is None else await page.answer(dict(example), page.service.k)


@ROUTER.post("/", response_class=HTMLResponse)
async def explain(request: Request) -> HTMLResponse:
    page = _page(request)
    _, values, k, errors = await page.read(request)
    return page.render(values, k, errors, 422) if errors else await page.answer(values, k)


@ROUTER.post("/whatif", response_class=HTMLResponse)
async def whatif(request: Request) -> HTMLResponse:
    page = _page(request)
    form, values, k, errors = await page.read(request)
    changes = _typed(form, page.changeable, CHANGE)
    change_errors: dict[str, str] = {}
    try:
        changes = page.models.changes.model_validate(changes).values()
    except ValidationError as exc:
        change_errors = _errors(exc)
    if errors:
        return page.render(values, k, errors, 422, changes, change_errors)
    return await page.answer(values, k, changes, change_errors)
