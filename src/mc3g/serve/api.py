"""The recourse service: a FastAPI app over one explainer fitted or loaded at start-up.

``GET /healthz``, ``GET /v1/schema``, ``POST /v1/explain``, ``POST /v1/whatif``, ``POST
/v1/notice`` (a notice of adverse action, JSON; ``/v1/notice.html`` the same as a page), the OpenAPI
document at ``/openapi.json`` and the applicant's page at ``/``.  Bodies are validated by
models generated from the explainer's schema; a bad one gets a 422 that names the field, a body
over the limit a 413, a search past its time limit a 503.  No route takes a path, a model, rules
or causal text: the service is configured at start-up only.  There is no ``/docs`` page, whose
scripts would come from a CDN.
"""

# No ``from __future__ import annotations``: FastAPI reads the generated request models from the
# routes' annotations, which must be the classes themselves.

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pandas as pd
from fastapi import FastAPI, HTTPException, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel

from .. import __version__
from ..audit import patterns_document, portfolio
from ..exceptions import BlackBoxError, InputError, NoticeError
from ..explain import NO_COUNTERFACTUAL, REFUSED
from ..notice import Notice
from ..serialization import json_schema
from ..values import plain
from .config import Service
from .inputs import inputs_of, request_models, schema_document
from .page import ROUTER, Page
from .runner import Searches, TimeLimit

# Sent with every answer: nothing is cached (answers are about a person), and a page may load
# only its own style sheet (no script, no outside resource, no framing).
HEADERS = [
    (b"cache-control", b"no-store"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"content-security-policy", b"default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"),
]


class ErrorDetail(BaseModel):
    """Why a request got no answer."""

    detail: str


def _document(name: str, description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{name}"}}}}


ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorDetail, "description": "The body nests deeper than the JSON parser reads (a body that is not JSON gets a 422)."},
    413: {"model": ErrorDetail, "description": "The body is larger than the service's limit."},
    500: {"model": ErrorDetail, "description": "The model itself failed on the applicant's row."},
    503: {"model": ErrorDetail, "description": "No answer within the time limit."},
}
"""The statuses besides 200 and FastAPI's own 422 (a field that is wrong, or a body that is not
JSON, each problem named), as docs/service.md lists them."""


def create_app(service: Service) -> FastAPI:
    """The service for ``service``'s explainer; its searches run in ``service.limits.threads``."""
    limits = service.limits
    inputs = inputs_of(service.explainer)
    models = request_models(inputs, service.k, limits.max_k)
    searches = Searches(service.explainer, limits.threads, limits.timeout_seconds)
    described = schema_document(service.explainer, inputs, service.title, service.k, limits, service.example)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        searches.close()

    app = FastAPI(
        title=f"mc3g recourse service: {service.title}",
        version=__version__,
        description="Least-effort changes that would turn a refusal around, respecting causal knowledge (MC3G).",
        docs_url=None,
        redoc_url=None,
        lifespan=lifespan,
    )

    @app.get("/healthz", summary="Whether the service is up")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/v1/schema", summary="The features a request gives, with kinds, allowed values and ranges")
    async def schema() -> dict[str, Any]:
        return described

    @app.post("/v1/explain", summary="The least-effort options out of a refusal", responses={200: _document("Recourse", "The answer."), **ERRORS})
    async def explain(body: models.explain) -> JSONResponse:  # type: ignore[name-defined]
        result = await searches.explain(body.applicant.values(), body.k)
        return JSONResponse(result.to_dict())

    @app.post("/v1/whatif", summary="What follows from changes of the applicant's own", responses={200: _document("WhatIf", "The state reached."), **ERRORS})
    async def whatif(body: models.whatif) -> JSONResponse:  # type: ignore[name-defined]
        result = await searches.whatif(body.applicant.values(), body.changes.values())
        return JSONResponse(result.to_dict())

    _notices(app, service, models.notice, searches)

    _portfolio(app, models.portfolio, searches, [x.name for x in inputs])

    app.add_exception_handler(RequestValidationError, _invalid)
    app.add_exception_handler(InputError, _refused)
    app.add_exception_handler(NoticeError, _no_notice)
    app.add_exception_handler(TimeLimit, _busy)
    app.add_exception_handler(BlackBoxError, _model_failed)
    app.state.page = Page.of(service, inputs, models, searches)
    app.include_router(ROUTER)
    app.mount("/static", StaticFiles(packages=[("mc3g.serve", "static")]), name="static")
    app.openapi = lambda: _openapi(app)  # type: ignore[method-assign]
    app.add_middleware(_BodyLimit, limit=limits.max_body_bytes)
    app.add_middleware(_Headers)
    return app


def _notices(app: FastAPI, service: Service, request: type[BaseModel], searches: Searches) -> None:
    """``POST /v1/notice`` and ``/v1/notice.html``: the applicant's answer as a notice of adverse
    action, dated the day it is asked for."""

    async def notice_of(body: Any) -> Notice:
        answer = await searches.explain(body.applicant.values(), body.k)
        return Notice.of(service.explainer, answer, lender=body.lender, reasons=body.reasons)

    refused = {409: {"model": ErrorDetail, "description": "No notice for this applicant: not refused, a reason vague or protected, or no reason to give."}}

    @app.post(
        "/v1/notice", summary="A notice of adverse action for a refused applicant", responses={200: _document("Notice", "The notice."), **ERRORS, **refused}
    )
    async def notice(body: request) -> JSONResponse:  # type: ignore[valid-type]
        return JSONResponse((await notice_of(body)).to_dict())

    page = {200: {"description": "The notice as a page.", "content": {"text/html": {"schema": {"type": "string"}}}}}

    @app.post("/v1/notice.html", summary="The notice as a page for the applicant", response_model=None, responses={**page, **ERRORS, **refused})
    async def notice_page(body: request) -> HTMLResponse:  # type: ignore[valid-type]
        return HTMLResponse((await notice_of(body)).html())


def _portfolio(app: FastAPI, request: type[BaseModel], searches: Searches, names: list[str]) -> None:
    """``POST /v1/portfolio``: many applicants answered, then the audit's recourse summary and
    weakest subgroups of them over their features ``names`` (one no applicant gives: no subgroup)."""

    @app.post(
        "/v1/portfolio", summary="A recourse summary and the weakest subgroups of many applicants", responses={200: {"description": "The summary."}, **ERRORS}
    )
    async def portfolio_of(body: request) -> JSONResponse:  # type: ignore[valid-type]
        rows = [applicant.values() for applicant in body.applicants]
        people = pd.DataFrame([{name: plain(value) for name, value in row.items()} for row in rows]).reindex(columns=names)  # 500, not 500.0, in words
        answers = await searches.portfolio(rows, body.k)
        summary, weakest = portfolio(people, answers, body.patterns, body.budget, body.fewest)
        refused = sum(a.status in (REFUSED, NO_COUNTERFACTUAL) for a in answers)
        return JSONResponse({"people": len(rows), "refused": refused, **patterns_document(summary, weakest)})


async def _invalid(_: Request, exc: Exception) -> JSONResponse:
    """422 naming each field that is wrong and why.  The input itself is not echoed: it may be
    a number JSON cannot write (NaN), and it is the person's data."""
    problems = exc.errors() if isinstance(exc, RequestValidationError) else []
    return JSONResponse({"detail": [{"loc": list(p["loc"]), "msg": p["msg"], "type": p["type"]} for p in problems]}, status_code=422)


async def _refused(_: Request, exc: Exception) -> JSONResponse:
    """A value the models let through but mc3g refuses: 422, in FastAPI's shape, with mc3g's message."""
    return JSONResponse({"detail": [{"loc": ["body"], "msg": str(exc), "type": "value_error"}]}, status_code=422)


async def _no_notice(_: Request, exc: Exception) -> JSONResponse:
    """A valid request for a notice that cannot be written (the applicant is not refused, a
    reason is vague or protected, no reason to give): 409, naming why."""
    return JSONResponse({"detail": str(exc)}, status_code=409)


async def _busy(_: Request, exc: Exception) -> JSONResponse:
    return JSONResponse({"detail": str(exc)}, status_code=503, headers={"retry-after": "1"})


async def _model_failed(_: Request, exc: Exception) -> JSONResponse:
    return JSONResponse({"detail": f"the model failed: {exc}"}, status_code=500)


class _Headers:
    """Adds :data:`HEADERS` to every response (plain ASGI: no per-request task)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def sending(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *HEADERS]
            await send(message)

        await self.app(scope, receive, sending)


class _BodyLimit:
    """413 for a body over ``limit`` bytes: at once when its Content-Length says so, else as soon
    as the bytes read pass the limit (FastAPI passes an HTTPException raised while it reads on)."""

    def __init__(self, app: Any, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.limit:
            await JSONResponse({"detail": self._message}, status_code=413)(scope, receive, send)
            return
        read = 0

        async def counted() -> dict[str, Any]:
            nonlocal read
            message = await receive()
            read += len(message.get("body", b""))
            if read > self.limit:
                raise HTTPException(413, self._message)
            return message

        await self.app(scope, counted, send)

    @property
    def _message(self) -> str:
        return f"the body is larger than this service takes ({self.limit:,} bytes)"


def _openapi(app: FastAPI) -> dict[str, Any]:
    """FastAPI's document, with the shipped JSON Schemas of the answers as components."""
    if app.openapi_schema is None:
        document = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
        components = document.setdefault("components", {}).setdefault("schemas", {})
        for name, fmt in (("Recourse", "mc3g.recourse"), ("WhatIf", "mc3g.whatif"), ("Notice", "mc3g.notice")):
            components.update(_components(name, json_schema(fmt)))
        app.openapi_schema = jsonable_encoder(document)
    return app.openapi_schema


def _components(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    """A JSON Schema with ``$defs`` as OpenAPI components: ``name`` and ``name_DEF`` for each
    definition, references rewritten to match."""

    def moved(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: (v.replace("#/$defs/", f"#/components/schemas/{name}_") if k == "$ref" else moved(v)) for k, v in node.items()}
        if isinstance(node, list):
            return [moved(v) for v in node]
        return node

    definitions = schema.pop("$defs", {})
    schema.pop("$schema", None)
    return {name: moved(schema), **{f"{name}_{key}": moved(value) for key, value in definitions.items()}}
