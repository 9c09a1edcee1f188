"""The applicant's page as the server renders it: John's form and answer at once, every field
labelled, errors beside their fields, the what-if panel, nothing loaded from outside, and what
a person types shown as text, never run."""

from __future__ import annotations

import re
from dataclasses import replace
from html.parser import HTMLParser

import httpx
from conftest import live_server

from mc3g import MC3G, CausalModel
from mc3g.datasets import JOHN, load
from mc3g.serve import Service, create_app


class Form(HTMLParser):
    """The page's controls and labels: id -> (tag, attributes), label targets, and every link or
    source the page names."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.controls: dict[str, tuple[str, dict[str, str | None]]] = {}
        self.labelled: set[str] = set()
        self.links: list[str] = []
        self.tags: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.tags.append(tag)
        if tag in ("input", "select") and a.get("type") != "hidden":
            self.controls[str(a["id"])] = (tag, a)
        if tag == "label":
            self.labelled.add(str(a["for"]))
        self.links += [str(a[k]) for k in ("href", "src", "action") if a.get(k)]


def text(html: str) -> str:
    """The words a person reads: tags out, spaces folded."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).replace("&#39;", "'")


def john_form(**changes: str) -> dict[str, str]:
    return {name: str(value) for name, value in JOHN.items()} | {"k": "3"} | changes


def test_a_newcomer_sees_john_and_his_answer_at_once(client: httpx.Client) -> None:
    response = client.get("/")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/html")
    form = Form(response.text)
    values = {a["name"]: a.get("value") for tag, a in form.controls.values() if tag == "input"}
    assert values["bank_balance"] == "40000" and values["credit_score"] == "599" and values["k"] == "3"
    assert 'value="over_10000" selected' in response.text
    words = text(response.text)
    reasons = "What would change the decision Change your debt from over 10,000 to none, with other changes: it is part of every way out found."
    assert f"Refused. {reasons}" in words and "bank balance is below 60,000" not in words
    assert "Change your debt from over 10,000 to none." in words and "Raise your bank balance from 40,000 to 60,000." in words
    assert "Your credit score rises from 599 to 620." in words
    first, second = (
        "Change your debt from over 10,000 to none. As a consequence, your credit score rises from 599 to 620. Still refused.",
        "Raise your bank balance from 40,000 to 60,000. No longer refused.",
    )
    assert f"Step by step {first} {second}" in words


def test_every_field_has_a_label_and_the_page_needs_nothing_from_outside(client: httpx.Client) -> None:
    form = Form(client.get("/").text)
    assert form.controls and set(form.controls) <= form.labelled
    assert "script" not in form.tags
    assert all(link.startswith(("/", "#")) for link in form.links), form.links
    assert 'name="viewport"' in client.get("/").text


def test_an_impossible_value_is_named_beside_its_field(client: httpx.Client) -> None:
    response = client.post("/", data=john_form(credit_score="900"))
    assert response.status_code == 422
    assert "Credit score: Input should be less than or equal to 850" in text(response.text)
    assert "From 300 to 850. This changes only as a consequence of other changes." in text(client.get("/").text)  # the hint says so before


def test_posting_the_form_explains_the_values_given(client: httpx.Client) -> None:
    response = client.post("/", data=john_form(bank_balance="59000", k="1"))
    assert response.status_code == 200
    assert "Raise your bank balance from 59,000 to 60,000." in text(response.text)


def test_a_bad_value_is_named_beside_its_field(client: httpx.Client) -> None:
    response = client.post("/", data=john_form(bank_balance="lots", debt="paid off", k="99"))
    assert response.status_code == 422
    form = Form(response.text)
    balance = next(a for tag, a in form.controls.values() if a.get("name") == "bank_balance")
    assert balance["aria-invalid"] == "true" and f"{balance['id']}-error" in str(balance["aria-describedby"])
    words = text(response.text)
    assert "Bank balance: Input should be a valid number" in words and "Debt: Input should be 'none', 'up_to_10000' or 'over_10000'" in words
    assert "How many options: a whole number from 1 to 10." in words and f'href="#{balance["id"]}"' in response.text
    assert form.controls["k"][1]["aria-describedby"] == "k-error" and 'id="k-error"' in response.text


def test_whatif_shows_the_new_decision_and_what_follows(client: httpx.Client) -> None:
    response = client.post("/whatif", data=john_form(**{"change:debt": "none", "change:bank_balance": ""}))
    assert response.status_code == 200
    panel = text(response.text.split('id="whatif"', 1)[1])
    assert "Still refused. What you do Change your debt from over 10,000 to none." in panel
    assert "Your credit score rises from 599 to 620." in panel and "because" not in panel  # no rule's text: the reasons are the model's
    both = text(client.post("/whatif", data=john_form(**{"change:debt": "none", "change:bank_balance": "60000"})).text)
    assert "No longer refused." in both and "Effort: 1.24." in both


def test_whatif_without_a_change_asks_for_one(client: httpx.Client) -> None:
    response = client.post("/whatif", data=john_form(**{"change:debt": "", "change:bank_balance": ""}))
    assert response.status_code == 422 and "Choose at least one change to try." in response.text


def test_what_a_person_types_is_shown_as_text(client: httpx.Client) -> None:
    response = client.post("/", data=john_form(debt="<script>alert(1)</script>", bank_balance="<img src=x>"))
    assert response.status_code == 422
    assert "<script>" not in response.text and "<img src=x>" not in response.text
    assert "&lt;script&gt;" in response.text or "&lt;img src=x&gt;" in response.text


def test_without_an_example_the_form_starts_empty(loan: Service) -> None:
    with live_server(create_app(replace(loan, example=None))) as url:
        html = httpx.get(url).text
    assert "Enter your details and choose" in html and 'value="40000"' not in html


def test_a_field_says_how_far_advice_may_move_it(loan: Service, client: httpx.Client) -> None:
    params = loan.explainer.get_params()
    bounded = params["causal"].combined(CausalModel.parse("bank_balance: max-change 5"))
    explainer = MC3G(**{**params, "causal": bounded}).fit(load("loan").X_train)
    with live_server(create_app(replace(loan, explainer=explainer))) as url:
        page = text(httpx.get(url).text)
    assert "Money in the bank; the bank requires at least 60,000. Advice moves it by at most 5." in page
    assert "Advice moves it by at most" not in text(client.get("/").text)


def test_the_whatif_form_carries_every_digit_of_the_applicant(client: httpx.Client) -> None:
    html = client.post("/", data=john_form(bank_balance="40000.123456")).text
    assert '<input type="hidden" name="bank_balance" value="40000.123456">' in html
    assert '<input type="hidden" name="credit_score" value="599">' in html
