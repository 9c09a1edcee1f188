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


@pytest.fixture(scope="module")
def book() -> tuple[pd.DataFrame, pd.DataFrame]:
    """The planted book of ``mc3g bench portfolio`` (160 applicants; nobody of the north has
    recourse): the refused people's answers as a batch's results hold them, beside their columns."""
    answers, refused = planted_book(3, people=160)
    frame = pd.DataFrame(audited_columns(answers)).assign(position=range(len(refused)), **{c: refused[c].to_numpy() for c in refused.columns})
    return frame, refused


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


def test_segments_are_frequent_patterns_of_the_people_s_columns(book) -> None:
    frame, _ = book
    found = segments(frame, ["region", "age"], fewest=15)
    assert found[0][0] == () and found[0][1].all()
    assert all(mask.sum() >= 15 for _, mask in found[1:]) and all(len(s) <= 2 for s, _ in found)
    assert all(len({c[0] for c in s}) == len(s) for s, _ in found)  # two conditions on two columns
    assert any(s == (("region", "==", "north"),) for s, _ in found) and any(c[1] == "in" and c[0] == "age" for s, _ in found for c in s)
    for segment, mask in found:
        assert (in_segment(frame, segment) == mask).all()


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
    document = json.loads(CliRunner().invoke(app, ["audit", str(folder), "--by", "region", "--json", "--patterns", "region,age"]).output)
    assert document["summary"]["covered"] == document["summary"]["people"] and document["weakest"][0]["subgroup"] == "people with region = north"
    assert set(document["groups"]) == {"region"}
    none = json.loads(CliRunner().invoke(app, ["audit", str(folder), "--by", "region", "--json", "--patterns", "none"]).output)
    assert none["summary"] is None and none["weakest"] is None
