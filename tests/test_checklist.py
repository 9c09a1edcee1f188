"""The lender's checklist (docs/checklist.md) judges an option by what it changes and how it reads,
and a state's plausibility by its distance to past applicants."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mc3g.bench.checklist import LINES, Checklist, plausibility
from mc3g.explain import CausedChange, Counterfactual, DirectAction
from mc3g.rules import Words

WAITS = Words(waits={"age": "years"})


def _option(*actions: DirectAction, caused: tuple[CausedChange, ...] = ()) -> Counterfactual:
    return Counterfactual({a.feature: a.after for a in actions}, actions, caused, 1.0, "l1", "derived")


def test_every_shipped_checklist_reads_and_names_only_its_own_lines() -> None:
    for dataset in ("adult", "german"):
        checklist = Checklist.shipped(dataset)
        assert checklist.protected and checklist.time and all(start and end for _, start, end in checklist.jumps)
        assert all(len(set(values)) == len(values) for values in checklist.order.values())
        assert set(checklist.better.values()) <= {"increase", "decrease"}
    assert len(set(LINES)) == len(LINES)


@pytest.mark.parametrize(
    ("actions", "failed"),
    [
        ((DirectAction("sex", "Female", "Male", 1.0),), {"protected"}),
        ((DirectAction("native_country", "Mexico", "Canada", 1.0),), {"protected"}),
        ((DirectAction("relationship", "Unmarried", "Husband", 1.0), DirectAction("hours_per_week", 40, 45, 0.3)), {"household"}),
        ((DirectAction("age", 30, 34, 0.3),), {"older"}),
        ((DirectAction.of(WAITS, "age", 30, 34, 0.3),), set()),  # a wait is not an action
        ((DirectAction("occupation", "Craft-repair", "Exec-managerial", 1.0),), {"jump"}),
        ((DirectAction("occupation", "Sales", "Exec-managerial", 1.0),), set()),
        ((DirectAction("workclass", "Private", "Self-emp-inc", 1.0),), {"new employer"}),
        ((DirectAction("capital_gain", 0, 5000, 0.7),), {"windfall"}),
        ((DirectAction("capital_gain", 0, 5000, 0.7), DirectAction("hours_per_week", 40, 45, 0.3)), set()),  # not the only action
        ((DirectAction("education", "Bachelors", "HS-grad", 1.0),), {"worse"}),
        ((DirectAction("education_num", 13, 10, 1.0),), {"worse"}),
        ((DirectAction("education_num", 10, 12, 1.0),), set()),
    ],
)
def test_an_adult_option_fails_the_lines_it_breaks(actions: tuple[DirectAction, ...], failed: set[str]) -> None:
    assert Checklist.shipped("adult").failed(_option(*actions), {}) == failed


def test_the_data_s_own_protections_and_caused_changes_count() -> None:
    checklist = Checklist.shipped("adult")
    fnlwgt = _option(DirectAction("fnlwgt", 1000, 2000, 0.1))
    assert checklist.failed(fnlwgt, {}) == set() and checklist.failed(fnlwgt, {}, frozenset({"fnlwgt"})) == {"protected"}
    caused = CausedChange("relationship", "Unmarried", "Husband", "a rule")
    assert checklist.failed(_option(DirectAction("hours_per_week", 40, 45, 0.3), caused=(caused,)), {}) == {"household"}


def test_a_german_option_toward_a_worse_category_fails() -> None:
    checklist = Checklist.shipped("german")
    worse = DirectAction("credit_history", "existing_dues_cleared_for_now", "delay_in_paying_off", 1.0)
    better = DirectAction("savings_account_or_bonds", "less_than100", "100equalsless_than_and_less_than500", 1.0)
    assert checklist.failed(_option(worse), {}) == {"worse"} and checklist.failed(_option(better), {}) == set()
    assert checklist.failed(_option(DirectAction("installment_rate", 2, 4, 1.0)), {}) == {"worse"}


def test_a_state_far_from_every_past_applicant_is_implausible() -> None:
    rng = np.random.default_rng(0)
    past = pd.DataFrame({"x": rng.normal(0, 1, 400), "c": rng.choice(["a", "b"], 400)})
    reference = plausibility(past, ["x"])
    person = {"x": 0.0, "c": "a"}
    states = [{"x": 0.1, "c": "a"}, {"x": 40.0, "c": "a"}, {"x": 0.2, "c": "never seen"}]
    near, far, unseen = reference.remoteness(person, states)
    assert near <= 1 < far and far > 30 and unseen >= 1  # a category no one has is a unit away: the floor itself
