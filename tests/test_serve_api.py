"""The recourse service's JSON API over real HTTP on 127.0.0.1: John's plan, the schema a form is
built from, what-if, every answer against the shipped JSON Schemas, bad requests named by field,
the body and time limits, and that no request can reach a file or a model."""

from __future__ import annotations

import json
import re
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pandas as pd
import pytest
from conftest import live_server

from mc3g.datasets import JOHN
from mc3g.explain import TIMINGS
from mc3g.serialization import json_schema
from mc3g.serve import Limits, Service, create_app

RECOURSE = jsonschema.Draft202012Validator(json_schema("mc3g.recourse"))
WHATIF = jsonschema.Draft202012Validator(json_schema("mc3g.whatif"))


def explain(client: httpx.Client, applicant: dict[str, Any], **body: Any) -> dict[str, Any]:
    response = client.post("/v1/explain", json={"applicant": applicant, **body})
    assert response.status_code == 200, response.text
    answer = response.json()
    RECOURSE.validate(answer)
    return answer


def test_john_clears_his_debt_and_raises_his_balance_and_his_score_follows_to_620(client: httpx.Client) -> None:
    answer = explain(client, JOHN, k=3)
    assert answer["status"] == "refused" and answer["decision"] == ["bank balance is below 60,000", "credit score is below 620"]
    assert answer["refusing"] == [
        {"head": {"feature": "loan", "op": "==", "value": "rejected"}, "body": [{"feature": f, "op": "<", "value": v}]}
        for f, v in (("bank_balance", 60000), ("credit_score", 620))
    ]
    plan = answer["counterfactuals"][0]
    assert [(a["feature"], a["from"], a["to"]) for a in plan["direct"]] == [("debt", "over_10000", "none"), ("bank_balance", 40000, 60000)]
    assert [(c["feature"], c["from"], c["to"], c["forced"]) for c in plan["caused"]] == [("credit_score", 599, 620, True)]
    assert [step["decision"] for step in plan["steps"]] == ["refused", "not_refused"]
    assert answer["run"]["k"] == 3 and answer["instance"] == JOHN


def test_the_answer_is_the_cli_s_versioned_document(client: httpx.Client, loan: Service) -> None:
    answer = explain(client, JOHN)
    alone = loan.explainer.explain(JOHN, k=loan.k).to_dict(timing=False)
    for name in TIMINGS:
        del answer["run"][name]
    assert answer == alone and (answer["format"], answer["version"]) == ("mc3g.recourse", 2)


def test_every_status_keeps_the_json_schema(client: httpx.Client) -> None:
    approved = explain(client, {**JOHN, "debt": "none", "bank_balance": 70000, "credit_score": 700})
    assert approved["status"] == "not_refused" and approved["counterfactuals"] == [] and approved["reasons"]
    only_what_is_needed = explain(client, {"debt": "up_to_10000", "bank_balance": 1000, "credit_score": 300}, k=1)
    assert only_what_is_needed["status"] == "refused" and len(only_what_is_needed["counterfactuals"]) == 1
    with pytest.raises(jsonschema.ValidationError):  # the schema can fail: a refusal without options breaks it
        RECOURSE.validate({**only_what_is_needed, "counterfactuals": []})


def test_the_schema_describes_enough_to_build_a_form(client: httpx.Client) -> None:
    schema = client.get("/v1/schema").json()
    features = {f["name"]: f for f in schema["features"]}
    assert list(features) == ["age", "years_employed", "annual_income", "debt", "bank_balance", "credit_score"]
    assert features["debt"]["values"] == ["none", "up_to_10000", "over_10000"] and features["debt"]["kind"] == "categorical"
    assert features["credit_score"]["range"] == [300, 850] and features["credit_score"]["consequence_only"] and not features["credit_score"]["changeable"]
    assert features["age"]["direction"] == "increase" and not features["age"]["required"] and features["bank_balance"]["required"]
    assert features["age"]["max_change"] is None and features["age"]["valid"] == [0, 120] and features["bank_balance"]["valid"] is None
    assert schema["example"] == JOHN and schema["defaults"] == {"k": 3, "profile": "product", "mode": "derived", "norm": "l1"}
    assert schema["limits"]["max_k"] == 10 and client.get("/healthz").json() == {"status": "ok"}


def test_whatif_shows_the_decision_and_what_follows(client: httpx.Client) -> None:
    response = client.post("/v1/whatif", json={"applicant": JOHN, "changes": {"debt": "none"}})
    assert response.status_code == 200
    answer = response.json()
    WHATIF.validate(answer)
    assert answer["refused"] and answer["firing"] == ["bank balance is below 60,000"]
    assert [(c["feature"], c["to"]) for c in answer["caused"]] == [("credit_score", 620)]
    both = client.post("/v1/whatif", json={"applicant": JOHN, "changes": {"debt": "none", "bank_balance": 60000}}).json()
    WHATIF.validate(both)
    assert not both["refused"] and both["cost"] == pytest.approx(explain(client, JOHN)["counterfactuals"][0]["cost"])


def test_requests_neither_fit_nor_load_an_explainer(client: httpx.Client, monkeypatch: pytest.MonkeyPatch) -> None:
    """The explainer is fitted or loaded once, at start-up; serving a request does neither."""
    from mc3g import MC3G

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("fitted or loaded while serving a request")

    for name in ("fit", "load"):
        monkeypatch.setattr(MC3G, name, refuse)
    explain(client, JOHN)
    assert client.post("/v1/whatif", json={"applicant": JOHN, "changes": {"debt": "none"}}).status_code == 200
    assert client.get("/").status_code == 200 and client.get("/v1/schema").status_code == 200


BAD = [
    ({"applicant": {**JOHN, "debt": "lots"}}, ["body", "applicant", "debt"], "'none', 'up_to_10000' or 'over_10000'"),
    ({"applicant": {**JOHN, "bank_balance": "40000"}}, ["body", "applicant", "bank_balance"], "valid number"),
    ({"applicant": {**JOHN, "bank_balance": True}}, ["body", "applicant", "bank_balance"], "valid number"),
    ({"applicant": {**JOHN, "bank_balance": 1e16}}, ["body", "applicant", "bank_balance"], "less than or equal"),
    ({"applicant": {**JOHN, "age": -5}}, ["body", "applicant", "age"], "greater than or equal to 0"),  # not a person's age
    ({"applicant": {**JOHN, "credit_score": 900}}, ["body", "applicant", "credit_score"], "less than or equal to 850"),
    ({"applicant": {**JOHN, "annual_income": -1}}, ["body", "applicant", "annual_income"], "greater than or equal to 0"),
    ({"applicant": {**JOHN, "salary": 1}}, ["body", "applicant", "salary"], "Extra inputs"),
    ({"applicant": {k: v for k, v in JOHN.items() if k != "debt"}}, ["body", "applicant", "debt"], "Field required"),
    ({"applicant": JOHN, "k": 0}, ["body", "k"], "greater than or equal to 1"),
    ({"applicant": JOHN, "k": 11}, ["body", "k"], "less than or equal to 10"),
    ({"applicant": JOHN, "k": "3"}, ["body", "k"], "valid integer"),
    ({"applicant": JOHN, "model": "/tmp/model.pkl"}, ["body", "model"], "Extra inputs"),
    ({"applicant": JOHN, "causal": "credit_score >= 900 <- age > 0"}, ["body", "causal"], "Extra inputs"),
    ({"applicant": JOHN, "rules": {"rules": []}}, ["body", "rules"], "Extra inputs"),
]


@pytest.mark.parametrize(("body", "loc", "message"), BAD, ids=[".".join(map(str, loc[1:])) + f"-{i}" for i, (_, loc, _) in enumerate(BAD)])
def test_a_bad_request_gets_a_422_that_names_the_field(client: httpx.Client, body: dict[str, Any], loc: list[str], message: str) -> None:
    response = client.post("/v1/explain", json=body)
    assert response.status_code == 422
    assert any(p["loc"] == loc and message in p["msg"] for p in response.json()["detail"]), response.json()


@pytest.mark.parametrize("number", [b"NaN", b"Infinity", b"-Infinity", b"1e999"])
def test_a_number_that_is_not_finite_is_named(client: httpx.Client, number: bytes) -> None:
    body = b'{"applicant": {"debt": "none", "bank_balance": ' + number + b', "credit_score": 599}}'
    response = client.post("/v1/explain", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 422
    assert response.json()["detail"] == [{"loc": ["body", "applicant", "bank_balance"], "msg": "Input should be a finite number", "type": "finite_number"}]


@pytest.mark.parametrize(
    ("changes", "loc"),
    [
        ({}, ["body", "changes"]),
        ({"age": 40}, ["body", "changes", "age"]),  # not in play: no counterfactual touches it
        ({"debt": None}, ["body", "changes", "debt"]),
        ({"debt": "paid"}, ["body", "changes", "debt"]),
        ({"credit_score": 851}, ["body", "changes", "credit_score"]),
    ],
)
def test_whatif_names_a_bad_change(client: httpx.Client, changes: dict[str, Any], loc: list[str]) -> None:
    response = client.post("/v1/whatif", json={"applicant": JOHN, "changes": changes})
    assert response.status_code == 422 and [p["loc"] for p in response.json()["detail"]] == [loc]


@pytest.mark.parametrize("value", [40, "forty", None])
def test_a_feature_that_may_not_change_says_so(client: httpx.Client, value: Any) -> None:
    """Not "Extra inputs are not permitted": the feature exists, and the answer says why it may
    not be changed, whatever the value; the documented schema still lists only the changeable."""
    response = client.post("/v1/whatif", json={"applicant": JOHN, "changes": {"age": value}})
    assert response.status_code == 422
    [problem] = response.json()["detail"]
    assert problem["loc"] == ["body", "changes", "age"] and problem["msg"].startswith("age may not be changed here: neither the decision rules")
    assert "age" not in client.get("/openapi.json").json()["components"]["schemas"]["Changes"]["properties"]


def test_a_whatif_to_ones_own_values_is_refused(client: httpx.Client) -> None:
    response = client.post("/v1/whatif", json={"applicant": JOHN, "changes": {"debt": JOHN["debt"]}})
    assert response.status_code == 422 and "nothing changes" in response.json()["detail"][0]["msg"]


def test_malformed_and_oversized_bodies_get_4xx(client: httpx.Client) -> None:
    headers = {"content-type": "application/json"}
    assert client.post("/v1/explain", content=b'{"applicant": ', headers=headers).status_code == 422
    assert client.post("/v1/explain", content=b"[" * 20000, headers=headers).status_code == 400
    too_big = client.post("/v1/explain", content=b" " * (64 * 1024 + 1), headers=headers)
    assert too_big.status_code == 413 and "65,536 bytes" in too_big.json()["detail"]
    streamed = client.post("/v1/explain", content=iter([b'{"applicant": "', b"x" * (64 * 1024), b'"}']), headers=headers)
    assert streamed.status_code == 413 and "transfer-encoding" in streamed.request.headers


def test_the_api_document_lists_every_status_the_service_answers_with(client: httpx.Client) -> None:
    """Issue 25: OpenAPI said a body that is not JSON got 400 (it gets 422) and left out the
    500 of a failed model; docs/service.md's table, the document and the answers agree."""
    paths = client.get("/openapi.json").json()["paths"]
    routes = ("/v1/explain", "/v1/whatif", "/v1/notice", "/v1/notice.html", "/v1/portfolio")
    documented = {path: set(paths[path]["post"]["responses"]) for path in routes}
    table = Path(__file__).parents[1] / "docs" / "service.md"
    listed = {line.split("|")[1].strip() for line in table.read_text(encoding="utf-8").splitlines() if re.match(r"\| [2-5]\d\d \|", line)}
    answers = listed - {"409"}  # 409: a notice that cannot be written
    assert documented == {"/v1/explain": answers, "/v1/whatif": answers, "/v1/notice": listed, "/v1/notice.html": listed, "/v1/portfolio": answers}
    assert "gets a 422" in paths["/v1/explain"]["post"]["responses"]["400"]["description"]


def test_no_request_reaches_a_file_or_loads_anything(client: httpx.Client) -> None:
    """Requests carry values of the features and K (a notice's, the lender's name and reasons as
    text), nothing else; static files stay in their folder."""
    document = client.get("/openapi.json").json()
    bodies = {name: set(schema.get("properties", {})) for name, schema in document["components"]["schemas"].items() if name.endswith("Request")}
    notice, portfolio = {"applicant", "k", "lender", "reasons"}, {"applicants", "k", "budget", "patterns", "fewest"}
    assert bodies == {"ExplainRequest": {"applicant", "k"}, "WhatIfRequest": {"applicant", "changes"}, "NoticeRequest": notice, "PortfolioRequest": portfolio}
    assert set(document["paths"]) == {"/healthz", "/v1/schema", "/v1/explain", "/v1/whatif", "/v1/notice", "/v1/notice.html", "/v1/portfolio"}
    assert set(document["components"]["schemas"]["Applicant"]["properties"]) == set(JOHN)
    for path in ("/static/../config.py", "/static/%2e%2e/config.py", "/static/..%2fapi.py", "/docs", "/redoc"):
        assert client.get(path).status_code == 404, path
    assert client.get("/static/page.css").status_code == 200


def test_answers_are_not_cached_and_pages_load_nothing_from_outside(client: httpx.Client) -> None:
    headers = client.post("/v1/explain", json={"applicant": JOHN}).headers
    assert headers["cache-control"] == "no-store" and headers["x-content-type-options"] == "nosniff"
    assert "default-src 'none'" in headers["content-security-policy"]


class SlowModel:
    """A black box that takes its time: ``delay`` seconds per call, counting its calls."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.calls = 0
        self.lock = threading.Lock()

    def predict(self, X: pd.DataFrame) -> Any:
        with self.lock:
            self.calls += 1
        time.sleep(self.delay)
        return ["rejected" if b < 60000 or s < 620 else "approved" for b, s in zip(X["bank_balance"], X["credit_score"])]


@pytest.mark.slow
def test_a_search_past_its_time_limit_answers_503_and_is_abandoned() -> None:
    """Each call of the model outlasts the limit: the 503 comes while the first call runs, and the
    search stops at its next question instead of running on."""
    from mc3g import MC3G
    from mc3g.datasets import load
    from mc3g.reference import knowledge

    ds = load("loan", split="default")
    model = SlowModel(0.0)
    explainer = MC3G(model, knowledge(ds), schema=ds.schema, refine=0).fit(ds.X_train)
    model.calls = 0
    assert explainer.explain(JOHN).status == "refused" and model.calls >= 3  # left alone, John's search asks the model three times
    model.delay, model.calls = 0.4, 0
    service = Service(explainer, "loan", 1, Limits(timeout_seconds=0.2, threads=1), example=None)
    with live_server(create_app(service)) as url:
        response = httpx.post(f"{url}/v1/explain", json={"applicant": JOHN}, timeout=30)
        assert response.status_code == 503 and "time limit of 0.2 s" in response.json()["detail"]
        assert response.headers["retry-after"] == "1"
        time.sleep(0.6)  # the call under way ends; a search left to run would ask again
        assert model.calls <= 1


def test_a_portfolio_gives_the_summary_and_weakest_subgroups_of_the_applicants_answers(client: httpx.Client, loan: Service) -> None:
    """Issue 52, item 3, from the service: the applicants answered as /v1/explain answers each,
    then the audit's summary and weakest subgroups of them, as mc3g audit --json gives them."""
    from mc3g.audit import patterns_document, portfolio

    people = [{**JOHN, "bank_balance": balance, "credit_score": score} for balance in (10_000, 30_000, 50_000, 70_000) for score in (500, 580, 640)]
    response = client.post("/v1/portfolio", json={"applicants": people, "k": 1, "fewest": 2, "budget": 1.0})
    assert response.status_code == 200, response.text
    document = response.json()
    answers = [loan.explainer.explain(person, k=1) for person in people]
    summary, weakest = portfolio(pd.DataFrame(people), answers, None, 1.0, 2)
    assert document == {"people": 12, "refused": sum(a.status != "not_refused" for a in answers), **json.loads(json.dumps(patterns_document(summary, weakest)))}
    assert document["refused"] > 0 and document["summary"]["rules"] and document["weakest"]
    unknown = client.post("/v1/portfolio", json={"applicants": people[:2], "patterns": ["salary"]})
    assert unknown.status_code == 422 and unknown.json()["detail"][0]["loc"] == ["body", "patterns", 0]
    too_many = client.post("/v1/portfolio", json={"applicants": [JOHN] * 501})
    assert too_many.status_code == 422 and "at most 500" in too_many.text
