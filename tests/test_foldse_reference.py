"""FOLD-SE against the rule sets it is known to produce (design notes, foldse.md)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from mc3g import FoldSE
from mc3g.bench.learn import foldse_for, run_foldse
from mc3g.datasets import load
from mc3g.rules import Literal, Rule, RuleSet, Table


def _body_sets(rules: RuleSet) -> set[frozenset[Literal]]:
    return {frozenset(r.body) for r in rules.rules}


@pytest.fixture(scope="module")
def adult(adult_paper):
    return adult_paper


@pytest.mark.slow
def test_adult_gives_exactly_the_two_published_rules(adult) -> None:
    result = run_foldse(adult)
    assert result.rules is not None
    assert all(not r.exceptions for r in result.rules.rules)
    assert _body_sets(result.rules) == {
        frozenset({Literal("marital_status", "!=", "Married-civ-spouse"), Literal("capital_gain", "<=", 6849)}),
        frozenset(
            {
                Literal("marital_status", "==", "Married-civ-spouse"),
                Literal("capital_gain", "<=", 5013),
                Literal("education_num", "<=", 12),
            }
        ),
    }
    assert result.accuracy >= 0.84
    assert result.precision == pytest.approx(0.862, abs=0.002)
    assert result.recall == pytest.approx(0.951, abs=0.002)


@pytest.mark.slow
def test_adult_rules_do_not_depend_on_row_order(adult) -> None:
    shuffled = adult.train.sample(frac=1.0, random_state=1)
    model = foldse_for(adult).fit(shuffled[adult.schema.feature_names], shuffled[adult.schema.label])
    assert _body_sets(model.rules_) == _body_sets(foldse_for(adult).fit(adult.X_train, adult.y_train).rules_)


def test_cars_paper_split_five_rules_and_accuracy() -> None:
    result = run_foldse(load("cars", split="paper"))
    assert result.n_rules == 5 and result.n_exceptions == 0
    assert result.accuracy >= 0.93


PUBLISHED_CARS = [
    {Literal("persons", "==", "2")},
    {Literal("safety", "==", "low")},
    {Literal("buying", "==", "vhigh"), Literal("maint", "==", "vhigh")},
    {Literal("buying", "not in", ("low", "med")), Literal("maint", "==", "vhigh")},
    {Literal("buying", "==", "vhigh"), Literal("maint", "==", "high")},
]


def test_cars_on_all_uci_rows_decides_every_car_as_the_published_rules() -> None:
    """On the whole UCI file (the four features), FOLD-SE's program agrees with the five
    published rules on every one of the 144 possible cars."""
    ds = load("cars")
    frame = pd.concat([ds.train, ds.test])
    features = ["persons", "safety", "buying", "maint"]
    model = foldse_for(ds.__class__(ds.name, ds.split, frame, ds.test, ds.schema.select(features))).fit(frame[features], frame[ds.schema.label])
    assert model.rules_.n_rules == 5
    domain = pd.DataFrame(list(itertools.product(*(sorted(frame[f].unique()) for f in features))), columns=features)
    published = RuleSet(tuple(Rule(Literal("class", "==", "negative"), tuple(b)) for b in PUBLISHED_CARS), "class", "positive")
    assert len(domain) == 144
    assert np.array_equal(model.rules_.covers(domain), published.covers(Table.from_frame(domain)))
    assert model.score(frame[features], frame[ds.schema.label]) == pytest.approx(0.94, abs=0.005)


def test_german_paper_split_reaches_the_target_for_either_class() -> None:
    """The data's refusal is 'bad' credit; the paper learned rules of 'good' on the same split."""
    ds = load("german", split="paper")
    result = run_foldse(ds)
    assert result.target == "bad" and result.accuracy >= 0.70
    paper = FoldSE(target="good", numeric=ds.schema.numeric).fit(ds.X_train, ds.y_train)
    assert paper.score(ds.X_test, ds.y_test) >= 0.70


def test_multiclass_cars_is_a_decision_list_over_the_four_classes() -> None:
    ds = load("cars4")
    result = run_foldse(ds)
    assert result.rules is not None
    assert {r.head.value for r in result.rules.rules} <= {"unacc", "acc", "good", "vgood"}
    assert result.accuracy >= 0.85
