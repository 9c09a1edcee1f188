"""The page in a real browser, as a person uses it: ``mc3g serve`` started as a newcomer would
(no configuration) on 127.0.0.1, Debian's Chromium driven by Playwright.  John types his details,
sees that clearing his debt and raising his balance is the plan and that his credit score
follows to 620, tries a change of his own, and the page works with the keyboard alone and at a
phone's width.  Screenshots go to the test's folder, and to ``$MC3G_SCREENSHOTS`` when set (how
``docs/service-page.png`` was made)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from mc3g.bench.serve import started_server
from mc3g.datasets import JOHN

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# Headless, as root, and quiet on a machine with no network: nothing phones home.
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"]

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with started_server([]) as address:
        yield address


@pytest.fixture(scope="module")
def browser() -> Iterator:
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail("Chromium is missing: .ci/run installs Debian's chromium package")
        pytest.skip("Chromium is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield chromium
        chromium.close()


def shot(page, tmp_path: Path, name: str) -> None:
    page.screenshot(path=tmp_path / name, full_page=True)
    if os.environ.get("MC3G_SCREENSHOTS"):
        page.screenshot(path=Path(os.environ["MC3G_SCREENSHOTS"]) / name, full_page=True)


def test_mc3g_serve_with_no_arguments_answers_john(url: str) -> None:
    answer = httpx.post(f"{url}/v1/explain", json={"applicant": JOHN}, timeout=30).json()
    best = answer["counterfactuals"][0]
    assert [(a["feature"], a["to"]) for a in best["direct"]] == [("debt", "none"), ("bank_balance", 60000)]
    assert [(c["feature"], c["to"]) for c in best["caused"]] == [("credit_score", 620)]


def test_john_enters_his_details_sees_the_plan_and_tries_a_change(url: str, browser, tmp_path: Path) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(url)
    for label, value in (("Bank balance", "40000"), ("Credit score", "599")):  # no rule reads his age, years employed or income
        page.get_by_label(label, exact=True).fill(value)
    page.get_by_label("Debt", exact=True).select_option("over_10000")
    page.get_by_role("button", name="Show my options").click()

    decision = page.locator("#decision")
    assert "Refused." in decision.inner_text() and "what would change the decision" in decision.inner_text().lower()  # a label, in capitals
    card = page.locator(".card").first
    lists = [card.locator("ul").nth(i).inner_text() for i in range(2)]
    assert lists[0].splitlines() == ["Change your debt from over 10,000 to none.", "Raise your bank balance from 40,000 to 60,000."]
    assert lists[1] == "Your credit score rises from 599 to 620."
    steps = card.locator("ol.steps li").all_inner_texts()
    assert steps == [
        "Change your debt from over 10,000 to none. As a consequence, your credit score rises from 599 to 620. Still refused.",
        "Raise your bank balance from 40,000 to 60,000. No longer refused.",
    ]

    page.get_by_label("New debt").select_option("none")
    page.get_by_role("button", name="Try these changes").click()
    outcome = page.locator(".outcome")
    assert outcome.locator(".verdict").inner_text() == "Still refused."
    assert "Your credit score rises from 599 to 620." in outcome.inner_text() and "Still refused." in outcome.inner_text()
    page.get_by_label("New bank balance").fill("60000")
    page.get_by_role("button", name="Try these changes").click()
    assert page.locator(".outcome .verdict").inner_text() == "No longer refused."
    shot(page, tmp_path, "service-page.png")
    page.close()


def test_the_keyboard_alone_reaches_and_sends_the_form(url: str, browser) -> None:
    page = browser.new_page()
    page.goto(url)
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Skip to the decision"
    labels = []
    for _ in range(20):
        page.keyboard.press("Tab")
        labels.append(page.evaluate("document.activeElement.labels?.[0]?.textContent || document.activeElement.textContent"))
        if labels[-1] == "Show my options":
            break
    assert labels == ["Debt", "Bank balance", "Credit score", "How many options to show", "Show my options"]
    page.get_by_label("Bank balance", exact=True).fill("59000")
    page.get_by_label("Bank balance", exact=True).press("Enter")
    assert "Raise your bank balance from 59,000 to 60,000." in page.locator(".card").first.inner_text()
    page.close()


def test_the_page_fits_a_phone(url: str, browser, tmp_path: Path) -> None:
    page = browser.new_page(viewport={"width": 360, "height": 740}, device_scale_factor=2, is_mobile=True, has_touch=True)
    page.goto(url)
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    for name in ("Show my options", "Try these changes"):
        box = page.get_by_role("button", name=name).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 360
    field = page.get_by_label("Bank balance", exact=True).bounding_box()
    assert field is not None and field["width"] >= 250  # a field the width of the screen, not a sliver
    assert page.locator(".card").first.bounding_box()["width"] <= 360
    shot(page, tmp_path, "service-phone.png")
    page.close()
