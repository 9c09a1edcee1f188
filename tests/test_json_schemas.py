"""The JSON Schemas shipped in ``mc3g/resources`` describe what ``--json`` prints and what the
library writes, for every status; and they refuse a document that drifts from them."""

from __future__ import annotations

import json

import jsonschema
import pytest
from typer.testing import CliRunner

from mc3g.cli import app
from mc3g.datasets import JOHN
from mc3g.exceptions import BlackBoxError, InputError
from mc3g.explain import Recourse
from mc3g.reference import fitted_explainer
from mc3g.serialization import json_schema

RECOURSE = jsonschema.Draft202012Validator(json_schema("mc3g.recourse"))
WHATIF = jsonschema.Draft202012Validator(json_schema("mc3g.whatif"))


def test_the_schemas_are_draft_2020_12_and_only_the_shipped_ones_are_known() -> None:
    for fmt in ("mc3g.recourse", "mc3g.whatif", "mc3g.notice"):
        jsonschema.Draft202012Validator.check_schema(json_schema(fmt))
    with pytest.raises(InputError, match="no JSON Schema ships for format 'mc3g.explainer'"):
        json_schema("mc3g.explainer")


def test_the_command_line_s_json_keeps_the_schemas() -> None:
    runner = CliRunner()
    explained = runner.invoke(app, ["explain", "loan", "--row", "3", "-k", "3", "--json"])
    assert explained.exit_code == 0, explained.output
    RECOURSE.validate(json.loads(explained.output))
    tried = runner.invoke(app, ["whatif", "loan", "--row", "3", "--set", "bank_balance=60000", "--json"])
    assert tried.exit_code == 0, tried.output
    WHATIF.validate(json.loads(tried.output))


def test_every_status_keeps_the_schema_and_drift_is_refused() -> None:
    _, explainer = fitted_explainer("loan", k=2)
    answers = [
        explainer.explain(JOHN),
        explainer.explain({**JOHN, "debt": "none", "bank_balance": 90000, "credit_score": 700}),
        Recourse.failed(JOHN, BlackBoxError("predict failed"), explainer.run_record()),
    ]
    assert [a.status for a in answers] == ["refused", "not_refused", "error"]
    for answer in answers:
        RECOURSE.validate(answer.to_dict())
        RECOURSE.validate(answer.to_dict(timing=False))
    document = answers[0].to_dict()
    for drifted in ({**document, "status": "maybe"}, {**document, "extra": 1}, {**document, "version": 3}, {**document, "counterfactuals": []}):
        with pytest.raises(jsonschema.ValidationError):
            RECOURSE.validate(drifted)
    WHATIF.validate(explainer.whatif(JOHN, {"credit_score": 700}).to_dict())  # not the person's to make: no cost
