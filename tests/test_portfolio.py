"""A portfolio at a glance (issue 52, item 3): a recourse summary of at most ten segment -> action
rules whose coverage and cost are recomputed exactly from each person's plans, and the weakest
subgroups, found from the data, with a planted subgroup that has no recourse reported first."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from mc3g.audit import action_of, in_segment, recourse_summary, segments, weakest_subgroups
from mc3g.audit.patterns import segment_words
from mc3g.batch import audited_columns
from mc3g.bench.portfolio import planted_book

REGIONS = ("east", "north", "south", "west")


def _option(cost: float, **moves: tuple[object, object]) -> dict:
    """An option as a batch's results hold it: its direct changes and its cost."""
    direct = [
        {"feature": f, "from": a, "to": b, "cost": cost, "shown": {"feature": f.replace("_", " "), "from": str(a), "to": str(b)}} for f, (a, b) in moves.items()
    ]
    return {"direct": direct, "cost": cost}


def test_a_summary_and_the_weakest_subgroups_of_a_book_whose_every_number_is_known() -> None:
    """Eight refused people: the west has no option; in the east and south, raising income is
    an option of everyone but one, who must change the job instead."""
    options = [
        [_option(1.0, income=(1, 3)), _option(2.0, job=("a", "b"))],
        [_option(3.0, income=(2, 5))],
        [_option(0.5, job=("a", "b"))],
        [_option(2.0, income=(0, 3)), _option(1.0, income=(0, 2), job=("a", "b"))],
        [_option(1.5, income=(4, 6))],
        [], [], [],
    ]  # fmt: skip
    frame = pd.DataFrame(
        {
            "position": range(8), "status": ["refused"] * 5 + ["no_counterfactual"] * 3,
            "cost": [min((o["cost"] for o in p), default=None) for p in options], "options": [json.dumps(p) for p in options],
            "region": ["east", "east", "south", "south", "south", "west", "west", "west"],
        }
    )  # fmt: skip
    summary = recourse_summary(frame, ["region"], fewest=1)
    assert [(r.sentence(), r.positions, r.cost) for r in summary.rules] == [
        ("everyone: raise income", (0, 1, 3, 4), (1.0 + 3.0 + 2.0 + 1.5) / 4),
        ("everyone: change job to b", (0, 2), (2.0 + 0.5) / 2),  # a rule's own people: those covered before too
    ]
    assert (summary.people, summary.covered, summary.coverage) == (5, 5, 1.0)
    weakest = weakest_subgroups(frame, ["region"], budget=1.5, fewest=2)
    assert list(weakest["subgroup"]) == ["people with region = west", "everyone"]  # east and south: no worse than everyone, so not listed
    assert list(weakest["within_budget"]) == [0.0, 0.5] and list(weakest["with_option"]) == [0.0, 0.625]
    assert math.isnan(weakest["mean_cost"].iloc[0]) and weakest["mean_cost"].iloc[1] == (1.0 + 0.5 + 1.0 + 1.5) / 4
    west = weakest_subgroups(frame[frame["region"] == "west"], ["region"], fewest=2)  # nobody with an option: a budget of nothing, not NaN
    assert list(west["budget"]) == [0.0] and list(west["within_budget"]) == [0.0]


@pytest.fixture(scope="module")
def book() -> tuple[pd.DataFrame, pd.DataFrame]:
    """The planted book of ``mc3g bench portfolio`` (160 applicants; nobody of the north has
    recourse): the refused people's answers as a batch's results hold them, beside their columns."""
    answers, refused = planted_book(3, people=160)
    frame = pd.DataFrame(audited_columns(answers)).assign(position=range(len(refused)), **{c: refused[c].to_numpy() for c in refused.columns})
    return frame, refused


@pytest.mark.slow
def test_the_summary_s_coverage_and_costs_are_recomputed_exactly_from_each_person_s_plans(book) -> None:
    frame, refused = book
    summary = recourse_summary(frame, ["region", "income", "savings", "age"])
    answered = frame[frame["status"] == "refused"]
    assert summary.people == len(answered) > 50 and 1 <= len(summary.rules) <= 10
    covered: set[int] = set()
    for rule in summary.rules:
        inside = answered[in_segment(answered, rule.segment)]
        costs = {}
        for position, text in zip(inside["position"], inside["options"]):
            matching = [o["cost"] for o in json.loads(text) if action_of(o) == rule.action]
            if matching:
                costs[int(position)] = min(matching)
        assert set(rule.positions) == set(costs) and math.isclose(rule.cost, float(np.mean(list(costs.values()))))
        assert set(rule.positions) - covered, "each rule covers someone not yet covered"
        covered |= set(rule.positions)
    assert summary.covered == len(covered) and summary.coverage >= 0.8
    best_single = max(rule.covered for rule in summary.rules)
    assert summary.covered >= best_single and summary.rules[0].covered == best_single  # the greedy choice: the widest rule first
    assert all(not segment_words(r.segment).count("region = north") for r in summary.rules)  # nobody of the north has a plan to summarise


@pytest.mark.slow
def test_the_planted_subgroup_with_no_recourse_is_reported_first(book) -> None:
    frame, _ = book
    weakest = weakest_subgroups(frame, ["region", "income", "savings", "age"], fewest=10, most=100)
    first = weakest.iloc[0]
    assert first["subgroup"] == "people with region = north" and first["within_budget"] == 0 and first["with_option"] == 0
    north = frame[frame["region"] == "north"]
    assert first["refused"] == len(north) and (north["status"] == "no_counterfactual").all()
    assert (weakest["within_budget"].diff().dropna() >= 0).all()  # worst first
    assert not any(s.startswith("people with region = north and") for s in weakest["subgroup"])  # no narrower segment that says no more
    budget = float(frame.loc[frame["status"] == "refused", "cost"].median())
    assert math.isclose(float(first["budget"]), budget)
    later = weakest[weakest["with_option"] > 0].iloc[0]
    inside = frame[in_segment(frame, later["segment"])]
    able = inside["cost"].where(inside["status"] == "refused") <= budget
    assert math.isclose(later["within_budget"], able.mean()) and math.isclose(later["mean_cost"], inside["cost"][able].mean())


@pytest.mark.slow
def test_segments_are_frequent_patterns_of_the_people_s_columns(book) -> None:
    frame, _ = book
    found = segments(frame, ["region", "age"], fewest=15)
    assert found[0][0] == () and found[0][1].all()
    assert all(mask.sum() >= 15 for _, mask in found[1:]) and all(len(s) <= 2 for s, _ in found)
    assert all(len({c[0] for c in s}) == len(s) for s, _ in found)  # two conditions on two columns
    assert any(s == (("region", "==", "north"),) for s, _ in found) and any(c[1] == "in" and c[0] == "age" for s, _ in found for c in s)
    for segment, mask in found:
        assert (in_segment(frame, segment) == mask).all()


@pytest.mark.slow
def test_mc3g_audit_prints_and_writes_the_summary_and_the_weakest_subgroups(book, tmp_path) -> None:
    pytest.importorskip("pyarrow")
    from test_audit import HASH, _folder
    from typer.testing import CliRunner

    from mc3g.cli import app

    frame, _ = book
    folder = _folder(tmp_path / "results", frame.assign(settings_hash=HASH), planned=len(frame))
    shown = CliRunner().invoke(app, ["audit", str(folder), "--by", "region", "--budget", "1.0"])
    assert shown.exit_code == 0, shown.output
    said = " ".join(shown.output.split())
    answered = int((frame["status"] == "refused").sum())
    assert f"Recourse summary 1 rule(s) cover {answered} of the {answered} refused people with an option (100%): 1. everyone: raise income" in said
    assert "Weakest subgroups (within a cost of 1.000)" in said and "region = north" in said.split("Weakest subgroups")[1]
    report = (folder / "_audit" / "audit.md").read_text()
    north = int((frame["region"] == "north").sum())
    assert "## Recourse summary" in report and "## Weakest subgroups" in report and f"| people with region = north | {north} | 0.0% | 0.0% | - |" in report
    assert (folder / "_audit" / "weakest-subgroups.png").read_bytes()[:4] == b"\x89PNG"
    printed = CliRunner().invoke(app, ["audit", str(folder), "--by", "region", "--json", "--patterns", "region,age"]).output
    document = json.loads(printed, parse_constant=lambda word: pytest.fail(f"not JSON: {word}"))  # no NaN: the north's mean cost is null
    assert document["summary"]["covered"] == document["summary"]["people"] and document["weakest"][0]["subgroup"] == "people with region = north"
    assert document["weakest"][0]["mean_cost"] is None
    assert set(document["groups"]) == {"region"}
    none = json.loads(CliRunner().invoke(app, ["audit", str(folder), "--by", "region", "--json", "--patterns", "none"]).output)
    assert none["summary"] is None and none["weakest"] is None
