"""The shared rule representation: evaluation, flattening, printing, JSON."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mc3g.rules import Column, Literal, Rule, RuleSet, Table, merge_literals, token
from mc3g.rules.table import SMALL

FEATURES = {"a": "num", "b": "cat", "c": "num"}
TOKENS = ["x", "y", "z", "?"]


def _frame(rows: list[tuple]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=list(FEATURES)).astype(object)


cells_num = st.one_of(st.integers(-3, 3), st.just("?"))
cells_cat = st.sampled_from(TOKENS)
frames = st.lists(st.tuples(cells_num, cells_cat, cells_num), min_size=1, max_size=25).map(_frame)


def literal_strategy() -> st.SearchStrategy[Literal]:
    numeric = st.builds(Literal, st.sampled_from(["a", "c"]), st.sampled_from(["<", "<=", ">", ">="]), st.integers(-3, 3))
    tokens = st.builds(Literal, st.just("b"), st.sampled_from(["==", "!="]), st.sampled_from(TOKENS))
    sets = st.builds(Literal, st.just("b"), st.sampled_from(["in", "not in"]), st.lists(st.sampled_from(TOKENS), min_size=1, max_size=3))
    missing = st.builds(Literal, st.sampled_from(["a", "c"]), st.sampled_from(["==", "!="]), st.just("?"))
    return st.one_of(numeric, tokens, sets, missing)


def rule_strategy(depth: int = 2) -> st.SearchStrategy[Rule]:
    body = st.lists(literal_strategy(), min_size=1, max_size=3)
    if depth == 0:
        return st.builds(Rule, st.none(), body)
    return st.builds(Rule, st.none(), body, st.lists(rule_strategy(depth - 1), max_size=2))


def _slow_covers(rule: Rule, row: dict) -> bool:
    """Row-at-a-time reference semantics of a rule with exceptions."""
    return all(lit.holds(row[lit.feature]) for lit in rule.body) and not any(_slow_covers(e, row) for e in rule.exceptions)


@pytest.mark.slow
@given(literal_strategy(), frames)
def test_negation_is_exact_complement(lit: Literal, frame: pd.DataFrame) -> None:
    table = Table.from_frame(frame)
    assert np.array_equal(lit.negated().mask(table[lit.feature]), ~lit.mask(table[lit.feature]))
    assert lit.negated().negated() == lit


@pytest.mark.slow
@given(rule_strategy(), frames)
def test_vectorised_cover_matches_row_at_a_time(rule: Rule, frame: pd.DataFrame) -> None:
    fast = rule.covers(Table.from_frame(frame))
    slow = [_slow_covers(rule, row) for row in frame.to_dict("records")]
    assert fast.tolist() == slow


@pytest.mark.slow
@given(rule_strategy(), frames)
def test_flattening_keeps_the_meaning(rule: Rule, frame: pd.DataFrame) -> None:
    table = Table.from_frame(frame)
    flat = rule.flattened()
    assert np.array_equal(flat.covers(table), rule.covers(table))
    assert all(len(e.body) > 1 or e.exceptions for e in flat.exceptions)


@pytest.mark.slow
@given(st.lists(literal_strategy(), min_size=1, max_size=6), frames)
def test_merging_literals_keeps_the_conjunction(body: list[Literal], frame: pd.DataFrame) -> None:
    table = Table.from_frame(frame)
    merged = merge_literals(body)
    assert np.array_equal(Rule(None, tuple(merged)).covers(table), Rule(None, tuple(body)).covers(table))
    bounds = [(lit.feature, lit.op in ("<", "<=")) for lit in merged if lit.op in ("<", "<=", ">", ">=")]
    assert len(bounds) == len(set(bounds)), "at most one upper and one lower bound per feature"


@pytest.mark.slow
@settings(max_examples=60)
@given(st.lists(rule_strategy(), min_size=1, max_size=3))
def test_json_round_trips_exactly(rules: list[Rule]) -> None:
    head = Literal("label", "==", "bad")
    rs = RuleSet(tuple(Rule(head, r.body, r.exceptions) for r in rules), "label", "good")
    again = RuleSet.from_json(rs.to_json())
    assert again == rs
    assert again.to_json() == rs.to_json()


def test_json_keeps_number_types_and_numeric_looking_tokens() -> None:
    rule = Rule(Literal("y", "==", "1"), (Literal("persons", "==", "2"), Literal("age", "<=", 30), Literal("gain", ">", 5013.5)))
    rs = RuleSet((rule,), "y", "0")
    again = RuleSet.from_json(rs.to_json())
    lits = again.rules[0].body
    assert lits[0].value == "2" and isinstance(lits[0].value, str)
    assert isinstance(lits[1].value, int) and isinstance(lits[2].value, float)


def test_json_rejects_other_formats_and_versions() -> None:
    rs = RuleSet((), "y", "0")
    data = json.loads(rs.to_json())
    with pytest.raises(ValueError, match="version"):
        RuleSet.from_dict({**data, "version": 99})
    with pytest.raises(ValueError, match="not an mc3g rule set"):
        RuleSet.from_dict({**data, "format": "other"})


def test_refined_operator_puts_non_numbers_above_every_threshold() -> None:
    col = Column.from_values(pd.Series([1, "?", None, 10], dtype=object))
    assert Literal("a", "<=", 5).mask(col).tolist() == [True, False, False, False]
    assert Literal("a", ">", 5).mask(col).tolist() == [False, True, True, True]
    assert Literal("a", "==", "?").mask(col).tolist() == [False, True, True, False]


def test_tokens_are_canonical() -> None:
    assert token(2.0) == token(2) == token("2") == "2"
    assert token(np.nan) == token(None) == "?"
    col = Column.from_values(pd.Series([2, 2.0, "2", "more"], dtype=object))
    assert Literal("p", "==", "2").mask(col).tolist() == [True, True, True, False]


def test_bad_literals_name_the_problem() -> None:
    with pytest.raises(ValueError, match="unknown operator"):
        Literal("a", "=<", 3)
    with pytest.raises(ValueError, match="must be a number"):
        Literal("a", "<=", "three")
    with pytest.raises(ValueError, match="set is empty"):
        Literal("a", "in", [])


ADULT = RuleSet(
    (
        Rule(Literal("income", "==", "<=50K"), (Literal("marital_status", "!=", "Married-civ-spouse"), Literal("capital_gain", "<=", 6849.0))),
        Rule(
            Literal("income", "==", "<=50K"),
            (
                Literal("marital_status", "==", "Married-civ-spouse"),
                Literal("capital_gain", "<=", 5013.0),
                Literal("education_num", "<=", 12.0),
            ),
        ),
    ),
    "income",
    ">50K",
)


def test_prints_the_published_adult_program() -> None:
    assert ADULT.to_asp().splitlines() == [
        "income(X,'<=50K') :- not marital_status(X,'Married-civ-spouse'), capital_gain(X,N1), N1=<6849.0.",
        "income(X,'<=50K') :- marital_status(X,'Married-civ-spouse'), capital_gain(X,N1), N1=<5013.0, education_num(X,N2), N2=<12.0.",
    ]


def test_prints_exceptions_as_named_abnormality_predicates() -> None:
    exc = Rule(None, (Literal("property", "==", "car or other"), Literal("credit_amount", "<=", 1345.0)))
    rule = Rule(
        Literal("label", "==", "good"),
        (Literal("duration_months", "<=", 21.0), Literal("credit_amount", ">", 428.0)),
        (exc,),
    )
    other = Rule(Literal("label", "==", "good"), (Literal("duration_months", ">", 40.0),), (exc,))
    lines = RuleSet((rule, other), "label", "bad").to_asp().splitlines()
    assert lines == [
        "label(X,'good') :- duration_months(X,N1), N1=<21.0, credit_amount(X,N2), not(N2=<428.0), not ab1(X,'True').",
        "ab1(X,'True') :- property(X,'car or other'), credit_amount(X,N1), N1=<1345.0.",
        "label(X,'good') :- duration_months(X,N1), not(N1=<40.0), not ab1(X,'True').",
    ]


def test_english_and_explanations() -> None:
    text = ADULT.to_english()
    assert "1. income is <=50K when marital status is not Married-civ-spouse and capital gain is at most 6,849." in text
    assert text.endswith("Otherwise income is >50K.")
    person = {"marital_status": "Divorced", "capital_gain": 7298, "education_num": 9}
    exp = ADULT.explain(person)
    assert exp.label == ">50K" and exp.fired is None
    assert "rule 1 fails on capital gain is at most 6,849 (capital gain = 7,298)" in str(exp)
    exp = ADULT.explain({**person, "capital_gain": 0})
    assert exp.fired == 0 and "rule 1 fires" in str(exp)


def test_explanation_names_the_exception_that_blocks() -> None:
    rs = RuleSet((Rule(Literal("y", "==", "1"), (Literal("a", "<=", 5),), (Rule(None, (Literal("b", "==", "x"), Literal("c", ">", 0))),)),), "y", "0")
    exp = rs.explain({"a": 1, "b": "x", "c": 3})
    assert exp.label == "0"
    assert "the exception (b is x and c is above 0) applies" in str(exp)


def test_decision_list_takes_the_first_rule() -> None:
    rs = RuleSet(
        (Rule(Literal("y", "==", "A"), (Literal("a", "<=", 0),)), Rule(Literal("y", "==", "B"), (Literal("a", "<=", 5),))),
        "y",
        "C",
    )
    frame = pd.DataFrame({"a": [-1, 3, 9]})
    assert rs.predict(frame).tolist() == ["A", "B", "C"]
    with pytest.raises(KeyError, match=r"lacks column\(s\) \['a'\]"):
        rs.predict(pd.DataFrame({"b": [1]}))


def test_a_column_of_extreme_numbers_gets_the_tokens_each_cell_gets(recwarn) -> None:
    """Whole numbers past what int64 holds, and infinities, are read as one cell at a time reads them."""
    from mc3g.rules.table import _tokens

    values = np.array([1.0, 2.5, np.nan, np.inf, -np.inf, 1e20, -3.0, 1e308, -(2.0**63)])
    assert list(_tokens(values)) == [token(v) for v in values]
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


CELLS = st.one_of(st.integers(-5, 5), st.floats(-5, 5), st.sampled_from(["a", "b", "2", "2.0", "?", None, float("nan"), 1e300]))


@given(st.lists(CELLS, min_size=1, max_size=SMALL))
def test_a_small_column_gets_the_tokens_a_large_one_gets(cells: list) -> None:
    """Up to SMALL cells are tokenized one by one, more through pandas: the same tokens."""
    small = Column.from_values(np.array(cells, dtype=object))
    large = Column.from_values(np.array(cells * (SMALL // len(cells) + 1), dtype=object))
    assert list(small.categories) == list(large.categories)
    assert small.codes.tolist() == large.codes[: len(cells)].tolist()
