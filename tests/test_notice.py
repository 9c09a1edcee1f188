"""Notices of adverse action (issue 52, item 2): the README's notice word for word, the JSON
Schema every notice keeps, the reasons a notice refuses (vague, protected, more than four, none),
a plan that changes a protected feature refused and a wait let through, what identifies the
model, and the service's routes."""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import shlex
from dataclasses import replace
from pathlib import Path

import httpx
import jsonschema
import numpy as np
import pandas as pd
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from sklearn.tree import DecisionTreeClassifier
from typer.testing import CliRunner

from mc3g.cli import app
from mc3g.datasets import JOHN
from mc3g.exceptions import NoticeError
from mc3g.explain import MC3G
from mc3g.notice import Notice, notice, vague
from mc3g.profiles import Profile
from mc3g.reference import fitted_explainer
from mc3g.schema import Feature, Schema
from mc3g.serialization import json_schema

ROOT = Path(__file__).resolve().parents[1]
NOTICE = jsonschema.Draft202012Validator(json_schema("mc3g.notice"), format_checker=jsonschema.FormatChecker())


@pytest.fixture(scope="module")
def bank() -> MC3G:
    return fitted_explainer("loan")[1]


def test_mc3g_notice_on_the_demo_person_prints_the_readme_s_notice_word_for_word() -> None:
    readme = ROOT.joinpath("README.md").read_text(encoding="utf-8")
    command, printed = re.search(r"```bash\n(mc3g notice [^\n]*)\n```\n\n.*?```\n(Notice of action taken.*?)```", readme, flags=re.S).groups()  # type: ignore[union-attr]
    result = CliRunner().invoke(app, shlex.split(command)[1:])
    assert result.exit_code == 0, result.output
    assert result.output == printed


def test_john_s_notice_gives_the_model_s_reasons_his_plan_and_when_to_apply_again(bank: MC3G) -> None:
    written = notice(bank, JOHN, date="2026-12-03", lender="Example Bank")
    document = written.to_dict()
    NOTICE.validate(document)
    assert [r["feature"] for r in document["reasons"]] == ["debt", "bank_balance"] and {r["source"] for r in document["reasons"]} == {"model"}
    assert document["plan"]["actions"] == [
        {"feature": "debt", "from": "over 10,000", "to": "none"},
        {"feature": "bank balance", "from": "40,000", "to": "60,000"},
    ]
    assert document["plan"]["steps"][-1].endswith("No longer refused.") and document["no_way_out"] is None
    assert document["apply_again"] == "You may apply again once the changes above are made."
    assert written.text.startswith("Notice of action taken by Example Bank\nDate: 2026-12-03\n")
    record = document["record"]
    assert record["model_identified_by"] == "decision rules" and record["model_sha256"] == hashlib.sha256(bank.rules_.to_json().encode()).hexdigest()
    assert record["causal_sha256"] == hashlib.sha256(bank.causal_.to_text().encode()).hexdigest() and record["guarantee"] == "exact"
    again = notice(bank, JOHN, date="2026-12-03")
    assert again.decision == written.decision  # the same person, model, settings and day
    assert notice(bank, JOHN, date="2026-12-04").decision != written.decision
    assert notice(bank, {**JOHN, "bank_balance": 41000}, date="2026-12-03").decision != written.decision


def test_a_notice_is_refused_for_a_person_not_refused_and_for_a_date_that_is_not_one(bank: MC3G) -> None:
    with pytest.raises(NoticeError, match="does not refuse the person .*no adverse action"):
        notice(bank, {**JOHN, "debt": "none", "bank_balance": 90000, "credit_score": 700})
    with pytest.raises(NoticeError, match="date '3 December' is not a date as YYYY-MM-DD"):
        notice(bank, JOHN, date="3 December")


@pytest.mark.parametrize("reason", ["Other", "insufficient data", "Does not meet our internal standards", "Failed to achieve the qualifying score", "n/a", "-"])
def test_a_vague_reason_is_refused(bank: MC3G, reason: str) -> None:
    assert vague(reason)
    with pytest.raises(NoticeError, match="says nothing specific"):
        notice(bank, JOHN, reasons=[reason])


def test_the_lender_s_own_reasons_replace_the_model_s_each_checked(bank: MC3G) -> None:
    given = ["Income insufficient for amount of credit requested", "Excessive obligations in relation to income"]
    written = notice(bank, JOHN, reasons=given)
    assert [(r.sentence, r.feature, r.source) for r in written.reasons] == [(g, None, "lender") for g in given]
    NOTICE.validate(written.to_dict())
    with pytest.raises(NoticeError, match="5 reasons given .* at most 4"):
        notice(bank, JOHN, reasons=[f"Delinquent past obligation number {i}" for i in range(5)])
    assert not vague("Delinquent past or present credit obligations with others")  # "other" inside a reason is specific


@pytest.mark.slow
def test_a_refused_adult_with_no_way_out_needs_the_lender_s_reasons_and_none_protected(adult_paper) -> None:
    """adult under the product knowledge: most refused people have no way out, so the model's
    verdicts name no reason to act on; the lender's own are taken, unless one names a protected
    feature (by its name or its words, in any case)."""
    ds, explainer = fitted_explainer("adult")
    person = ds.test.drop(columns=[ds.schema.label]).iloc[0]
    for reason, named in (("Marital status", "marital_status"), ("Your SEX", "sex"), ("Applicant's race", "race")):
        with pytest.raises(NoticeError, match=f"names '{named}', a protected feature"):
            notice(explainer, person, reasons=[reason])
    with pytest.raises(NoticeError, match="no principal reason to give the person .*--reason TEXT"):
        notice(explainer, person)  # refused with no way out: the model's verdicts name no reason to act on
    written = notice(explainer, person, reasons=["Length of employment"], date="2026-12-03")
    NOTICE.validate(written.to_dict())
    assert written.plan is None and written.no_way_out == "No change within your reach would change the decision."
    assert "No change within your reach would change the decision." in written.text and written.apply_again.startswith("You may apply again whenever")


@pytest.mark.slow
def test_a_plan_that_changes_a_protected_feature_is_refused() -> None:
    """A knowledge that lets a protected feature change (the paper profile's, to reproduce its
    tables): a notice of a plan that changes it is refused, as a notice never asks that."""
    every, model = _model_domain()
    features = (Feature("income", "numeric", range=(0, 8), step=1), Feature("savings", "numeric", range=(0, 3), step=0.5))
    features += (Feature("region", "categorical", domain=("a", "b", "c")),)
    schema = Schema("small", (*features[:2], replace(features[2], protected=True)), "label", ("no", "yes"), "no")
    person = {"income": 0, "savings": 2.5, "region": "b"}  # region b is what holds them back
    paper = MC3G(model, schema=schema, desired_class="yes", profile=Profile.PAPER, refine=0).fit(every)
    answer = paper.explain(person)
    assert [a.feature for a in answer.best.direct_actions] == ["region"]
    with pytest.raises(NoticeError, match="changes region, a protected feature: a notice never asks that"):
        Notice.of(paper, answer)
    fixed = Schema("small", (*features[:2], replace(features[2], protected=True, immutable=True)), "label", ("no", "yes"), "no")
    kept = MC3G(model, schema=fixed, desired_class="yes", refine=0).fit(every)
    written = notice(kept, person)  # the knowledge keeps region: another plan
    assert written.plan is not None and "region" not in [a["feature"] for a in written.plan.actions]
    for reason in ("Your REGION of residence", "region"):
        with pytest.raises(NoticeError, match="names 'region', a protected feature"):
            notice(kept, person, reasons=[reason])


def test_a_plan_that_waits_says_when_to_apply_again() -> None:
    """Age is protected and only time changes it: a plan that waits is sent, with when to apply
    again; a plan that also acts says to apply once the changes are made."""
    frame = pd.DataFrame(list(itertools.product(range(18, 60), range(0, 10))), columns=["age", "savings"])
    labels = np.where((frame["age"] >= 30) | (frame["savings"] >= 8), "yes", "no")
    model = DecisionTreeClassifier(random_state=0).fit(frame, labels)
    age = Feature("age", "numeric", range=(18, 80), step=1, direction="increase", waits="years", protected=True)
    schema = Schema("ages", (age, Feature("savings", "numeric", range=(0, 9), step=1, weight=20.0)), "label", ("no", "yes"), "no")
    explainer = MC3G(model, schema=schema, desired_class="yes", refine=0).fit(frame)
    written = notice(explainer, {"age": 27, "savings": 1}, date="2026-12-03")
    assert written.plan is not None and written.plan.plan == "Wait 3 years (your age will then be 30). Apply again in 3 years."
    assert written.apply_again == "Apply again in 3 years." and written.reasons[0].feature == "savings"  # never age: it is protected
    NOTICE.validate(written.to_dict())


def _model_domain() -> tuple[pd.DataFrame, object]:
    rng = np.random.default_rng(5)
    domain = {"income": list(range(9)), "savings": [v / 2 for v in range(7)], "region": ["a", "b", "c"]}
    every = pd.DataFrame(list(itertools.product(*domain.values())), columns=list(domain))
    frame = every.sample(300, replace=True, random_state=5).reset_index(drop=True)
    score = frame["income"] / 4 + frame["savings"] / 1.5 - (frame["region"] == "b") + rng.normal(scale=0.3, size=len(frame))
    labels = np.where(score > np.median(score), "yes", "no")
    encode = ColumnTransformer([("c", OneHotEncoder(sparse_output=False), ["region"]), ("n", StandardScaler(), ["income", "savings"])])
    return every, make_pipeline(encode, GradientBoostingClassifier(n_estimators=20, max_depth=2, random_state=0)).fit(frame, labels)


@pytest.mark.slow
def test_the_model_is_identified_by_its_file_or_its_pickle(tmp_path: Path) -> None:
    import skops.io

    from mc3g import load_model

    every, model = _model_domain()
    person = every[model.predict(every) == "no"].iloc[0]
    fitted = MC3G(model, desired_class="yes", refine=0).fit(every)
    record = notice(fitted, person).record
    assert record["model_identified_by"] == "pickle" and record["guarantee"] == "exact"
    path = tmp_path / "model.skops"
    skops.io.dump(model, path)
    loaded = load_model(path, trusted_types=skops.io.get_untrusted_types(file=path))
    from_file = notice(MC3G(loaded, desired_class="yes", refine=0).fit(every), person)
    assert from_file.record["model_identified_by"] == "file" and from_file.record["model_sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert from_file.reasons == notice(fitted, person).reasons
    numbers = (Feature("income", "numeric", range=(0, 8), step=1, label="other"), Feature("savings", "numeric", range=(0, 3), step=0.5, label="misc"))
    unnamed = Schema("small", (*numbers, Feature("region", "categorical", domain=("a", "b", "c"))), "label", ("no", "yes"), "no")
    with pytest.raises(NoticeError, match="a reason about '(income|savings)', whose name in words \\('(other|misc)'\\) says nothing specific: label it"):
        notice(MC3G(model, schema=unnamed, desired_class="yes", refine=0).fit(every), person)


def test_the_page_escapes_what_it_is_given(bank: MC3G) -> None:
    page = notice(bank, JOHN, lender="<script>alert(1)</script> Bank", reasons=["Income <b>insufficient</b> for the amount requested"]).html()
    assert "<script>" not in page and "&lt;script&gt;" in page and "&lt;b&gt;insufficient" in page
    assert "<h2>The principal reasons for the decision</h2>" in page and "<style" not in page


def test_the_service_gives_the_notice_as_json_and_as_a_page(client: httpx.Client) -> None:
    response = client.post("/v1/notice", json={"applicant": JOHN, "lender": "Example Bank"})
    assert response.status_code == 200, response.text
    document = response.json()
    NOTICE.validate(document)
    assert document["lender"] == "Example Bank" and [r["feature"] for r in document["reasons"]] == ["debt", "bank_balance"]
    page = client.post("/v1/notice.html", json={"applicant": JOHN, "reasons": ["Excessive obligations in relation to income"]})
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "<li>Excessive obligations in relation to income</li>" in page.text
    vague_reason = client.post("/v1/notice", json={"applicant": JOHN, "reasons": ["Other"]})
    assert vague_reason.status_code == 409 and "says nothing specific" in vague_reason.text
    granted = client.post("/v1/notice", json={"applicant": {**JOHN, "debt": "none", "bank_balance": 90000, "credit_score": 700}})
    assert granted.status_code == 409 and "no adverse action" in granted.text
    too_many = client.post("/v1/notice", json={"applicant": JOHN, "reasons": ["Length of employment"] * 5})
    assert too_many.status_code == 422 and json.dumps(too_many.json()).count("reasons")
