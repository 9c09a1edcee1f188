"""Schemathesis over the service's ``/openapi.json``, on 127.0.0.1: requests generated from the
schema (valid ones must be answered, invalid ones refused with a 4xx), every check Schemathesis
has, no 5xx, and every answer valid under the shipped JSON Schemas.  The fast tier sends about sixty
requests; the deep run, marked slow, more than five hundred."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import jsonschema
import pytest
import schemathesis
from conftest import live_server
from hypothesis import HealthCheck, given, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from mc3g.serialization import json_schema
from mc3g.serve import create_app, embedded

ANSWERS = {
    "/v1/explain": jsonschema.Draft202012Validator(json_schema("mc3g.recourse")),
    "/v1/whatif": jsonschema.Draft202012Validator(json_schema("mc3g.whatif")),
}


@pytest.fixture(scope="module")
def api() -> Iterator[tuple[str, schemathesis.BaseSchema]]:
    with live_server(create_app(embedded())) as url:
        yield url, schemathesis.openapi.from_url(f"{url}/openapi.json")


def fuzz(url: str, schema: schemathesis.BaseSchema, examples: int) -> Counter[tuple[str, str, int]]:
    """Up to ``examples`` generated requests per operation and mode (invalid bodies only where
    there is a body); returns how many got each status, by operation and mode."""
    statuses: Counter[tuple[str, str, int]] = Counter()
    for result in schema.get_all_operations():
        operation = result.ok()
        modes = [schemathesis.GenerationMode.POSITIVE] + ([schemathesis.GenerationMode.NEGATIVE] if operation.method == "post" else [])
        for mode in modes:
            _check(url, operation, mode, examples, statuses)
    return statuses


def _check(url: str, operation: schemathesis.APIOperation, mode: schemathesis.GenerationMode, examples: int, statuses: Counter) -> None:
    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    def check(case: schemathesis.Case) -> None:
        response = case.call(base_url=url)
        unchanged = _changes_nothing(response)
        statuses[operation.label, "unchanged" if unchanged else mode.value, response.status_code] += 1
        case.validate_response(response, excluded_checks=[positive_data_acceptance] if unchanged else None)
        if response.status_code == 200 and operation.path in ANSWERS:
            ANSWERS[operation.path].validate(response.json())

    check()


def _changes_nothing(response: object) -> bool:
    """A what-if whose changes are the applicant's own values: valid under the schema (which
    cannot compare two fields), and refused with a 422 that says so."""
    if response.status_code != 422:  # type: ignore[attr-defined]
        return False
    detail = response.json()["detail"]  # type: ignore[attr-defined]
    return len(detail) == 1 and detail[0]["msg"].startswith("nothing changes for the row: ")


@pytest.mark.slow
def test_generated_requests_are_answered_or_refused_by_the_schema(api: tuple[str, schemathesis.BaseSchema]) -> None:
    statuses = fuzz(*api, examples=15)
    assert not [key for key in statuses if key[2] >= 500]
    answered = statuses["POST /v1/whatif", "positive", 200] + statuses["POST /v1/whatif", "unchanged", 422]
    assert statuses["POST /v1/explain", "positive", 200] >= 12 and answered >= 12
    assert sum(n for (label, mode, status), n in statuses.items() if mode == "negative" and 400 <= status < 500) >= 24


@pytest.mark.slow
def test_five_hundred_generated_requests_and_no_5xx(api: tuple[str, schemathesis.BaseSchema]) -> None:
    statuses = fuzz(*api, examples=150)
    assert sum(statuses.values()) >= 500
    assert not [key for key in statuses if key[2] >= 500]
