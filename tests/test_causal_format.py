"""The causal-knowledge text format: parsing, errors at exact positions, printing back."""

from __future__ import annotations

import functools
import itertools
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from conftest import tiered
from hypothesis import strategies as st

from mc3g.causal import CausalModel, CausalRule, CausalSyntaxError, Constraint, Source, load, parse, parse_all
from mc3g.causal.printing import to_asp, to_text
from mc3g.datasets import load as load_data
from mc3g.exceptions import InputError
from mc3g.explain.metadata import with_dice_settings
from mc3g.moves import effort
from mc3g.rules import Literal
from mc3g.schema import Feature, Schema
from mc3g.values import LARGEST

LOAN = """\
# loan.causal — causal knowledge for the loan example
debt:          categorical {none, up_to_10000, over_10000}
bank_balance:  numeric [0, 1000000], step 100, weight 1
credit_score:  numeric [300, 850], consequence-only
age:           increase-only          # kind comes from the data
sex:           immutable
job:           targets {skilled_employee/official, unemployed/unskilled-non_resident}, must-change

credit_score >= 620  <-  debt == none          # a causal rule that is also a constraint
cause relationship == Husband <- sex == Male   # 'cause': a causal rule that is NOT a constraint
marital_status in {Married-civ-spouse, Married-AF-spouse} <- relationship in {Husband, Wife}
forbid relationship == Husband, sex == Female  # no consistent state has all of these
"""

ADULT = """\
## adult.causal — the authors' causal knowledge for adult (mc3g.md, "Reference facts")
marital_status: categorical
relationship:   categorical
sex:            not immutable        # the authors' runs let every feature change
capital_gain:   numeric [-4356, 99999]
education_num:  numeric [1, 16]

# allowed marital_status x relationship pairs, written as the pairs that are not allowed
forbid marital_status == Married-civ-spouse, relationship == Unmarried
forbid marital_status == Married-AF-spouse, relationship in {Not-in-family, Unmarried}
forbid marital_status in {Never-married, Divorced, Separated, Widowed, Married-spouse-absent},
       relationship in {Husband, Wife}
forbid relationship == Husband, sex == Female
forbid relationship == Wife, sex == Male

marital_status in {Married-civ-spouse, Married-AF-spouse} <- relationship in {Husband, Wife}
# Unmarried is also allowed with Widowed and Married-spouse-absent, so this one only explains
cause marital_status in {Never-married, Divorced, Separated} <- relationship == Unmarried
cause relationship == Husband <- sex == Male
cause relationship == Wife <- sex == Female
"""


@functools.cache
def loan_schema() -> Schema:
    return load_data("loan").schema


def src(line: int, column: int = 1) -> Source:
    return Source("<string>", line, column)


# -- parsing ---------------------------------------------------------------------------------------
def test_loan_example_parses_into_the_expected_objects() -> None:
    model = parse(LOAN)
    assert model == CausalModel(
        features={
            "debt": {"kind": "categorical", "domain": ("none", "up_to_10000", "over_10000")},
            "bank_balance": {"kind": "numeric", "range": (0.0, 1e6), "step": 100.0, "weight": 1.0},
            "credit_score": {"kind": "numeric", "range": (300.0, 850.0), "consequence_only": True},
            "age": {"direction": "increase"},
            "sex": {"immutable": True},
            "job": {"targets": ("skilled_employee/official", "unemployed/unskilled-non_resident"), "must_change": True},
        },
        rules=(
            CausalRule(Literal("credit_score", ">=", 620), (Literal("debt", "==", "none"),)),
            CausalRule(Literal("relationship", "==", "Husband"), (Literal("sex", "==", "Male"),), constraint=False),
            CausalRule(
                Literal("marital_status", "in", ("Married-civ-spouse", "Married-AF-spouse")),
                (Literal("relationship", "in", ("Husband", "Wife")),),
            ),
        ),
        constraints=(Constraint((Literal("relationship", "==", "Husband"), Literal("sex", "==", "Female"))),),
    )
    assert list(model.features) == ["debt", "bank_balance", "credit_score", "age", "sex", "job"]
    assert list(model.sources.values()) == [src(n) for n in range(2, 8)] and list(model.sources) == list(model.features)
    assert [r.source for r in model.rules] == [src(9), src(10), src(11)]
    assert model.rules[0].comment == "a causal rule that is also a constraint"
    assert model.rules[2].comment == ""
    assert model.constraints[0].source == src(12) and model.constraints[0].comment == "no consistent state has all of these"
    assert model.features["age"] == {"direction": "increase"}  # kind, weight, ...: as the data has them


@pytest.mark.slow
def test_adult_reference_knowledge_validates_against_the_paper_schema() -> None:
    schema = load_data("adult", split="paper").schema
    model = parse(ADULT, file="adult.causal", schema=schema)
    assert len(model.constraints) == 5 and [r.constraint for r in model.rules] == [True, False, False, False]
    assert model.features["sex"]["immutable"] is False and model.schema(schema).feature("sex").immutable is False
    assert model.rules_for("relationship")[0].cause == (Literal("sex", "==", "Male"),)
    # mc3g.md: 54 consistent (marital_status, relationship, sex) triples
    names = ("marital_status", "relationship", "sex")
    triples = itertools.product(*(schema.feature(n).domain for n in names))  # type: ignore[misc]
    consistent = [t for t in triples if not any(all(lit.holds(dict(zip(names, t))[lit.feature]) for lit in combo) for combo in model.forbidden)]
    assert len(consistent) == 54
    assert ("Widowed", "Unmarried", "Female") in consistent and ("Divorced", "Husband", "Male") not in consistent


def test_continuation_lines_and_comments_join_into_one_statement() -> None:
    model = parse(
        "forbid a == 1,       # first part\n"
        "  # a comment line inside the statement\n"
        "       b == 2\n"
        "x in {p,\n q}  <-\n  y == 3\n"
        "z: categorical {\n  u, v\n}, weight 2\n"
        "w: numeric\n"
    )
    assert model.constraints == (Constraint((Literal("a", "==", 1), Literal("b", "==", 2))),)
    assert model.constraints[0].comment == "first part a comment line inside the statement"
    assert model.rules == (CausalRule(Literal("x", "in", ("p", "q")), (Literal("y", "==", 3),)),)
    assert model.rules[0].source == src(4)
    assert list(model.features.items()) == [("z", {"kind": "categorical", "domain": ("u", "v"), "weight": 2.0}), ("w", {"kind": "numeric"})]


def test_quoted_values_and_escapes() -> None:
    model = parse(
        "income == '<=50K' <- property == \"car or other\"\n"
        r"""forbid a == 'it\'s', b == "say \"hi\"", c == 'tab\there\\', d == '\u00e9\x41', e == 'x # not a comment'"""
    )
    assert model.rules[0].effect == Literal("income", "==", "<=50K")
    assert model.rules[0].cause == (Literal("property", "==", "car or other"),)
    assert [lit.value for lit in model.constraints[0].literals] == ["it's", 'say "hi"', "tab\there\\", "éA", "x # not a comment"]


def test_values_are_typed_by_the_feature_kind() -> None:
    untyped = parse("forbid a == 60000, b == -4356, c == 0.5, d == 1e3, e == 60_000, f == none, g in {1, two}")
    assert [lit.value for lit in untyped.constraints[0].literals] == [60000, -4356, 0.5, 1000.0, 60000, "none", (1, "two")]
    assert isinstance(untyped.constraints[0].literals[0].value, int) and isinstance(untyped.constraints[0].literals[3].value, float)
    declared = parse("persons: categorical {2, 4, more}\nforbid persons == 2, persons not in {4, more}")
    assert declared.features["persons"]["domain"] == ("2", "4", "more")
    assert [lit.value for lit in declared.constraints[0].literals] == ["2", ("4", "more")]
    schema = Schema("cars", (Feature("persons", "categorical", domain=("2", "4", "more")), Feature("safety", "numeric")), "y", ("a", "b"), "a")
    assert parse("forbid persons == 2, safety == 2", schema=schema).constraints[0].literals == (
        Literal("persons", "==", "2"),
        Literal("safety", "==", 2),
    )
    assert parse("present_employment_since == 1equalsless_than_and_less_than4 <- job == unemployed/unskilled-non_resident").rules[0].effect.value == (
        "1equalsless_than_and_less_than4"
    )


def test_features_that_are_never_declared_are_accepted_without_a_schema() -> None:
    model = parse("credit_score >= 620 <- debt == none")
    assert model.features == {} and model.mentioned == ["credit_score", "debt"]


def test_a_features_items_may_run_over_several_declarations() -> None:
    """Issue 50, item 10: a long declaration split over lines reads as the one line."""
    whole = "job: categorical {clerk, nurse, pilot}, targets {nurse, pilot}, moves {clerk -> nurse: 2}, values {pilot: \"a pilot\"}\nincome: numeric\n"
    split = "job: categorical {clerk, nurse, pilot}\nincome: numeric\njob: targets {nurse, pilot}\njob: moves {clerk -> nurse: 2}, values {pilot: \"a pilot\"}"
    assert parse(split).features == parse(whole).features
    assert parse(split).sources["job"].line == 1


def test_valid_declares_the_values_a_person_may_have_apart_from_the_range() -> None:
    model = parse("age: valid [0, 120], range [18, 90]")
    assert model.features["age"] == {"valid": (0.0, 120.0), "range": (18.0, 90.0)}
    assert "age: range [18, 90], valid [0, 120]" in model.to_text() and parse(model.to_text()) == model


def test_a_file_declares_a_feature_the_data_lacks_only_without_a_schema() -> None:
    assert parse("savings: numeric [0, 10]").features["savings"]["range"] == (0.0, 10.0)
    with pytest.raises(CausalSyntaxError, match="unknown feature 'savings'; the features are age, "):
        parse("savings: numeric [0, 10]", schema=loan_schema())


# -- feature settings over a schema ----------------------------------------------------------------
def test_schema_updated_lays_settings_over_the_data_and_adds_declared_features() -> None:
    base = Schema(
        "s",
        (Feature("age", "numeric", range=(18.0, 90.0), step=1.0, direction="increase"), Feature("job", "categorical", domain=("a", "b"))),
        "y",
        ("no", "yes"),
        "no",
    )
    new = base.updated({"age": {"direction": "any", "weight": 2}, "job": {"kind": "numeric"}, "savings": {"kind": "numeric", "range": (0, 5)}})
    assert new.feature_names == ["age", "job", "savings"]
    assert new.feature("age") == Feature("age", "numeric", range=(18.0, 90.0), step=1.0, weight=2)
    assert new.feature("job") == Feature("job", "numeric")  # a re-declared kind drops the data's domain
    assert new.feature("savings") == Feature("savings", "numeric", range=(0, 5))
    assert base.updated({}) == base and base.feature("age").direction == "increase"
    assert base.feature("age").updated(kind="categorical") == Feature("age", "categorical", direction="increase")
    with pytest.raises(InputError, match=r"^feature 'savings': not in the data, so its kind \(numeric or categorical\) must be declared$"):
        base.updated({"savings": {"range": (0, 5)}})
    with pytest.raises(InputError, match=r"^loan.causal:3:1: feature 'age': weight must be >= 0, not -1$"):
        base.updated({"age": {"weight": -1}}, where={"age": Source("loan.causal", 3)})
    with pytest.raises(InputError, match=r"^permitted_range: feature 'age': unknown setting\(s\) \['colour'\]"):
        base.updated({"age": {"colour": "red"}}, where={"age": "permitted_range"})


def test_causal_model_settings_are_plain_mappings_checked_on_construction() -> None:
    settings = {"age": {"direction": "increase", "weight": None}}
    model = CausalModel(features=settings)
    settings["age"]["immutable"] = True  # the model keeps its own copy, without the None
    assert model.features == {"age": {"direction": "increase"}} and model == parse("age: increase-only")
    with pytest.raises(InputError, match=r"feature 'age': causal knowledge cannot set \['description'\]"):
        CausalModel(features={"age": {"description": "years"}})
    located = CausalModel(features={"extra": {"weight": 1.0}}, sources={"extra": Source("k.causal", 4)})
    with pytest.raises(InputError, match=r"^k.causal:4:1: feature 'extra': not in the data"):
        located.schema(loan_schema())


def test_dice_parameters_and_causal_knowledge_give_the_same_schema() -> None:
    schema = loan_schema()
    dice = with_dice_settings(schema, ["bank_balance", "credit_score"], {"debt": ["none"]}, {"bank_balance": 2})
    text = "".join(f"{f}: immutable\n" for f in schema.feature_names if f not in ("bank_balance", "credit_score", "debt"))
    text += "debt: immutable, targets {none}\nbank_balance: weight 2\n"
    assert dice == parse(text, schema=schema).schema(schema)


# -- errors ----------------------------------------------------------------------------------------
LOAN_SCHEMA_ERRORS = [
    ("crdit_score >= 620 <- debt == none", 1, 1, "unknown feature 'crdit_score'; did you mean 'credit_score'?"),
    (
        "credit_score >= 620 <- debt == 'none '",
        1,
        32,
        "'none ' is not a value of debt; its values are {'none', 'over_10000', 'up_to_10000'}; did you mean 'none'?",
    ),
    ("credit_score >= 620 <- debt < 5", 1, 29, "debt is categorical, so it cannot be compared with '<'; use ==, !=, in or not in"),
    ("bank_balance == lots <- debt == none", 1, 17, "expected a number for the numeric feature bank_balance, found 'lots'"),
    ("forbid debt == none,\n  bank_balance in {1, '2'}", 2, 23, "expected a number for the numeric feature bank_balance, found \"'2'\""),
    ("debt: targets {none, nothing}", 1, 22, "'nothing' is not a value of debt; its values are {'none', 'over_10000', 'up_to_10000'}"),
    ("debt: categorical, step 1", 1, 1, "feature 'debt': a categorical feature has no range, valid values, step or max-change"),
    ("debt: categorical, max-change 2", 1, 1, "feature 'debt': a categorical feature has no range, valid values, step or max-change"),
    ("bank_balance: max-change 0", 1, 1, "feature 'bank_balance': max-change must be > 0, not 0.0"),
    ("debt: valid [0, 1]", 1, 1, "feature 'debt': a categorical feature has no range, valid values, step or max-change"),
    ("bank_balance: valid [10, 0]", 1, 1, "feature 'bank_balance': empty valid values (10.0, 0.0)"),
    ("credit_score: weight -1", 1, 1, "feature 'credit_score': weight must be >= 0, not -1.0"),
]


@pytest.mark.parametrize(("text", "line", "column", "message"), LOAN_SCHEMA_ERRORS)
def test_errors_against_a_schema_point_at_the_exact_column(text: str, line: int, column: int, message: str) -> None:
    with pytest.raises(CausalSyntaxError) as info:
        parse(text, file="loan.causal", schema=loan_schema())
    err = info.value
    assert (err.file, err.line, err.column, err.message) == ("loan.causal", line, column, message)
    assert str(err) == f"loan.causal:{line}:{column}: {message}"


SYNTAX_ERRORS = [
    ("credit_score => 620 <- debt == none", 1, 14, "expected an operator (==, !=, <, <=, >, >=, in, not in) after 'credit_score', found '=>'"),
    ("\n\ncredit_score >= 620", 3, 20, "expected '<-' and the cause (a causal rule is EFFECT <- CAUSE, ...) after '620', found end of line"),
    ("a == 1, b == 2 <- c == 3", 1, 7, "expected '<-' and the cause (a causal rule is EFFECT <- CAUSE, ...) after '1', found ','"),
    ("x < big <- y == 1", 1, 5, "expected a number after '<', found 'big'"),
    ("x == <=50K <- y == 1", 1, 6, "expected a value (a number, a word, or text in quotes) after '==', found '<='"),
    ("x not {a} <- y == 1", 1, 7, "expected 'in' after 'not', found '{'"),
    ("forbid x in a, y == 1", 1, 13, "expected '{' and a set of values after 'in', found 'a'"),
    ("forbid x in {a b}", 1, 16, "expected ',' or '}' after 'a', found 'b'"),
    ("forbid x in {a,\n  b", 2, 4, "expected ',' or '}' after 'b', found end of file"),
    ("forbid x == 1 y == 2", 1, 15, "expected ',' or the end of the statement after '1', found 'y'"),
    ("== 1 <- y == 1", 1, 1, "expected a feature declaration (NAME: ...), a causal rule (EFFECT <- CAUSE) or 'forbid', found '=='"),
    ("forbid x == 'abc", 1, 13, "unterminated string: expected a closing ' before the end of the line"),
    (r"forbid x == 'a\qb'", 1, 15, r"unknown escape '\q' in a string; write a backslash as '\\'"),
    (r"forbid x == '\x4g'", 1, 14, r"'\x' needs 2 hex digits of a character code, found '4g'"),
    ("x: numeric [0 10]", 1, 15, "expected ',' after '0', found '10'"),
    (
        "x: consequence_only",
        1,
        4,
        "expected a feature item (numeric, categorical, range, valid, domain, targets, moves, unknown, step, weight, max-change, immutable, "
        "protected, consequence-only, must-change, increase-only, decrease-only, any-direction, waits, label, values) after ':', found 'consequence_only'; "
        "did you mean 'consequence-only'?",
    ),
    ("x: increase-only, decrease-only", 1, 19, "'decrease-only' contradicts 'increase-only' in this declaration"),
    ("x: step 1, weight 2, step 3", 1, 22, "'step' is given twice in this declaration"),
    ("x: immutable, not immutable", 1, 15, "'not immutable' contradicts 'immutable' in this declaration"),
    ("x: not increase-only", 1, 8, "expected immutable or protected or consequence-only or must-change after 'not', found 'increase-only'"),
    ("x: numeric 5", 1, 12, "expected ',' or the end of the statement after 'numeric', found '5'"),
    ("a: numeric, immutable\nb: categorical\na: immutable", 3, 1, "feature 'a' sets immutable twice: on line 1 and on line 3"),
    ("a: numeric\na: categorical", 2, 1, "feature 'a' sets kind twice: on line 1 and on line 2"),
    ("a: numeric, immutable\na: must-change", 1, 1, "a is declared immutable and must-change: no state could keep both (every person would have no option)"),
    ("x == 1 <- y == 2, x == 3", 1, 1, "causal rule x == 1 <- y == 2, x == 3: the effect's feature 'x' cannot also be in its cause"),
    ("p: categorical\nforbid q == 1\nforbid p > 1", 3, 10, "p is categorical, so it cannot be compared with '>'; use ==, !=, in or not in"),
]


@pytest.mark.parametrize(("text", "line", "column", "message"), SYNTAX_ERRORS)
def test_errors_say_what_was_expected_and_found_at_the_exact_position(text: str, line: int, column: int, message: str) -> None:
    with pytest.raises(CausalSyntaxError) as info:
        parse(text)
    assert (info.value.line, info.value.column, info.value.message) == (line, column, message)
    assert isinstance(info.value, ValueError) and str(info.value).startswith(f"<string>:{line}:{column}: ")


@pytest.mark.parametrize(
    ("text", "column", "start"),
    [
        ('a: numeric, label "' + "x" * 201 + '"', 19, "feature 'a': the label must be 1 to 200 printable characters on one line, not 'xxx"),
        ('a: categorical {p, q}, values {p: "one\\ttwo"}', 35, "feature 'a': the label of 'p' must be 1 to 200 printable characters on one line, not 'one"),
    ],
)
def test_a_label_no_sentence_can_hold_is_refused_where_it_is_written(text: str, column: int, start: str) -> None:
    """Issue 50, item 11: a 300-character label failed without its file, line and column."""
    with pytest.raises(CausalSyntaxError) as info:
        parse(text)
    assert (info.value.line, info.value.column) == (1, column) and info.value.message.startswith(start)


def test_the_first_error_in_file_order_is_reported() -> None:
    with pytest.raises(CausalSyntaxError) as info:
        parse("forbid debt == nothing\nforbid crdit_score > 1\nx == 1 <- debt == never", schema=loan_schema())
    assert (info.value.line, info.value.column) == (1, 16)


@pytest.mark.parametrize("directive", ["#script (python)", '  #include "other.lp".', "#const n=3.", "#show explained/3."])
def test_asp_directives_are_rejected(directive: str) -> None:
    message = "looks like an ASP directive, but this file is causal knowledge, not an ASP program: its text is never executed"
    with pytest.raises(CausalSyntaxError, match=message) as info:
        parse(f"# fine\n{directive}\nx == 1 <- y == 2\n")
    assert info.value.line == 2 and info.value.column == directive.index("#") + 1


def test_ordinary_comments_are_fine() -> None:
    model = parse("# script below\n##section\n#\n#1 more\nx == 1 <- y == 2  #script here is only a trailing comment\n")
    assert len(model.rules) == 1 and model.rules[0].comment == "script here is only a trailing comment"


def test_load_reads_utf8_and_names_the_model_after_the_file(tmp_path: Path) -> None:
    path = tmp_path / "loan.causal"
    path.write_bytes(b"\xef\xbb\xbf" + LOAN.encode("utf-8"))  # with a byte-order mark
    model = load(path)
    assert model.name == "loan" and replace(model, name="causal knowledge") == parse(LOAN)
    assert model.rules[0].source == Source(str(path), 9, 1)
    with pytest.raises(FileNotFoundError, match="missing.causal"):
        load(tmp_path / "missing.causal")
    bad = tmp_path / "bad.causal"
    bad.write_bytes(b"x == 1 <- y == 2\nforbid z == caf\xe9\n")
    with pytest.raises(CausalSyntaxError, match=r"bad.causal:2:16: the file is not UTF-8 text: byte 0xe9") as info:
        load(bad)
    assert (info.value.line, info.value.column) == (2, 16)


# -- printing --------------------------------------------------------------------------------------
def test_to_asp_prints_the_loan_rule() -> None:
    model = parse("credit_score >= 620 <- debt == none  # clearing debt lifts the score\nforbid relationship == Husband, sex == Female")
    assert to_asp(model).splitlines() == [
        "% causal knowledge",
        "% credit_score >= 620 <- debt == none  # clearing debt lifts the score",
        "explained(X,credit_score,r1) :- debt(X,'none'), credit_score(X,N1), not(N1<620.0).",
        ":- debt(X,'none'), credit_score(X,N1), N1<620.0.",
        "% forbid relationship == Husband, sex == Female",
        ":- relationship(X,'Husband'), sex(X,'Female').",
    ]
    assert model.to_asp() == to_asp(model)


def test_to_asp_explains_but_does_not_constrain_with_a_cause_rule_and_writes_sets_once() -> None:
    lines = to_asp(parse(ADULT)).splitlines()
    assert lines.count("in_set1('Husband').") == 1 and lines.count("in_set1('Wife').") == 1
    assert "explained(X,relationship,r3) :- sex(X,'Male'), relationship(X,'Husband')." in lines
    assert sum(line.startswith(":-") for line in lines) == 5 + 1  # five forbids and one constraining rule
    assert "% sex: not immutable" in lines


def test_to_text_quotes_what_would_not_read_back() -> None:
    model = CausalModel(
        features={"forbid": {"kind": "categorical", "domain": ("2", "a b")}, "my feature": {"range": (0, 1.5), "immutable": False}},
        rules=(CausalRule(Literal("income", "==", "<=50K"), (Literal("n", "==", "2"), Literal("forbid", "==", "2")), comment="two\nlines"),),
    )
    text = to_text(model)
    assert text == (
        "'forbid':     categorical {2, 'a b'}\n'my feature': range [0, 1.5], not immutable\n\nincome == '<=50K' <- n == '2', 'forbid' == 2  # two lines\n"
    )
    assert parse(text) == model and model.to_text() == text


NAMES = st.one_of(st.sampled_from(["debt", "x-y", "a/b.c", "forbid", "cause", "in", "not", "2nd", "1e3", "my feature"]), st.text(min_size=1, max_size=6))
TEXTS = st.one_of(
    st.sampled_from(["none", "<=50K", "car or other", "2", "1e3", "+5", "1_0", "it's", 'say "hi"', "a\\b", "new\nline", "", " none", "#x"]),
    st.text(max_size=6),
)
LABELS = st.one_of(  # words a sentence can hold
    st.sampled_from(["education level", "0 to 200 DM", "bachelor's degree", 'say "hi"', "a\\b", "#x", "married (civilian spouse)"]),
    st.text(st.characters(blacklist_categories=("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs")), min_size=1, max_size=6).filter(str.strip),
)
NUMBERS = st.one_of(st.integers(-(10**9), 10**9), st.floats(-LARGEST, LARGEST))  # what mc3g takes (tests/test_validation.py: the rest)
FLAG = st.sampled_from([None, True, False])


@st.composite
def feature_settings(draw: st.DrawFn, kind: str | None) -> dict[str, Any]:
    domain = draw(st.none() | st.lists(TEXTS, min_size=1, max_size=4, unique=True).map(tuple)) if kind != "numeric" else None
    if domain is not None and kind == "categorical":
        targets = draw(st.none() | st.lists(st.sampled_from(domain), min_size=1, unique=True).map(tuple))
    else:
        targets = draw(st.none() | st.lists(TEXTS, min_size=1, max_size=3, unique=True).map(tuple)) if kind != "numeric" else None
    moves = unknown = None
    if domain is not None and kind == "categorical":  # moves between values, none to a value that means unknown
        unknown = draw(st.none() | st.lists(st.sampled_from(domain), min_size=1, unique=True).map(tuple))
        known = [v for v in domain if v not in (unknown or ())]
        targets = None if targets is None else tuple(v for v in targets if v in known) or None
        pairs = [(a, b) for a in domain for b in known if a != b]
        moves = draw(st.none() | st.lists(st.sampled_from(pairs), unique=True).map(lambda p: tuple(sorted(p)))) if pairs else None
    bounds = st.lists(st.floats(-1e9, 1e9), min_size=2, max_size=2).map(lambda b: (min(b), max(b)))
    settings = {
        "kind": kind,
        "domain": domain,
        "targets": targets,
        "moves": moves,
        "unknown": unknown,
        "range": draw(st.none() | bounds) if kind != "categorical" else None,
        "valid": draw(st.none() | bounds) if kind != "categorical" else None,
        "step": draw(st.none() | st.floats(1e-5, 1e6)) if kind != "categorical" else None,  # a grid of at most 1e15 steps
        "immutable": draw(FLAG),
        "consequence_only": draw(FLAG),
        "direction": draw(st.sampled_from([None, "increase", "decrease", "any"])),
        "max_change": draw(st.none() | st.floats(1e-5, 1e6)) if kind != "categorical" else None,
        "weight": draw(st.none() | st.floats(0, 100)),
        "must_change": draw(FLAG),
        "label": draw(st.none() | LABELS),
    }
    if settings["immutable"] and settings["must_change"]:
        settings["must_change"] = None  # refused as a contradiction (test_errors_say_what_was_expected_...)
    keys = (st.sampled_from(domain) if domain else TEXTS) if kind == "categorical" else NUMBERS if kind == "numeric" else NUMBERS | TEXTS
    settings["value_labels"] = draw(st.none() | st.dictionaries(keys, LABELS, min_size=1, max_size=3))
    return {k: v for k, v in settings.items() if v is not None}


@st.composite
def models(draw: st.DrawFn) -> CausalModel:
    names = draw(st.lists(NAMES, min_size=2, max_size=5, unique=True))
    specs = {}
    for name in names:
        kind = draw(st.sampled_from([None, "numeric", "categorical"]))
        if kind is not None or draw(st.booleans()):
            specs[name] = draw(feature_settings(kind))

    def literal(name: str) -> Literal:
        spec = specs.get(name, {})
        kind = spec.get("kind")
        ops = ["==", "!=", "in", "not in"] + (["<", "<=", ">", ">="] if kind != "categorical" else [])
        op = draw(st.sampled_from(ops))
        if kind == "categorical":
            values = st.sampled_from(spec["domain"]) if spec.get("domain") else TEXTS
        else:
            values = NUMBERS if kind == "numeric" or op in ("<", "<=", ">", ">=") else NUMBERS | TEXTS
        return Literal(name, op, tuple(draw(st.lists(values, min_size=1, max_size=3))) if op in ("in", "not in") else draw(values))

    comments = st.text(max_size=10)
    rules = []
    for _ in range(draw(st.integers(0, 3))):
        effect, *others = draw(st.permutations(names))
        cause = tuple(literal(n) for n in draw(st.lists(st.sampled_from(others), min_size=1, max_size=3)))
        rules.append(CausalRule(literal(effect), cause, draw(st.booleans()), comment=draw(comments)))
    constraints = [
        Constraint(tuple(literal(n) for n in draw(st.lists(st.sampled_from(names), min_size=1, max_size=3))), comment=draw(comments))
        for _ in range(draw(st.integers(0, 3)))
    ]
    return CausalModel(specs, tuple(rules), tuple(constraints))


@pytest.mark.slow
@tiered(50, 200, models())
def test_printing_and_parsing_round_trip(model: CausalModel) -> None:
    parsed = parse(to_text(model))
    assert parsed == model and list(parsed.features.items()) == list(model.features.items())


def test_loan_and_adult_round_trip_through_text() -> None:
    for text in (LOAN, ADULT):
        model = parse(text)
        assert parse(to_text(model)) == model


def test_moves_read_as_pairs_and_print_grouped_by_the_value_they_leave() -> None:
    """A side may be a set ({a, b} -> {a, b}: any move between them, none to itself), moves are
    kept as sorted pairs, printed one value at a time, and read back the same."""
    text = "m: categorical {a, b, c, '?'}, moves {a -> b, {b, c} -> {b, c}, c->a}, unknown {'?'}\n"
    model = parse(text)
    assert model.features["m"]["moves"] == (("a", "b"), ("b", "c"), ("c", "a"), ("c", "b")) and model.features["m"]["unknown"] == ("?",)
    assert model.to_text() == "m: categorical {a, b, c, '?'}, moves {a -> b, b -> c, c -> {a, b}}, unknown {'?'}\n"
    assert parse(model.to_text()) == model and parse("m: categorical {a, b}, moves {}").features["m"]["moves"] == ()
    assert CausalModel(features={"m": {"moves": {"b": "a", "a": "b"}}}).features["m"]["moves"] == (("a", "b"), ("b", "a"))


def test_a_move_may_state_its_effort_and_prints_it_back() -> None:
    """``: EFFORT`` after a move (or a set of them) prices it; a move without one costs 1."""
    model = parse("m: categorical {a, b, c, d}, moves {a -> b: 2, a -> c, {b, c} -> d: 1.5}\n")
    assert model.features["m"]["efforts"] == (("a", "b", 2.0), ("b", "d", 1.5), ("c", "d", 1.5))
    assert model.to_text() == "m: categorical {a, b, c, d}, moves {a -> b: 2, a -> c, b -> d: 1.5, c -> d: 1.5}\n"
    assert parse(model.to_text()) == model
    feature = model.schema(Schema("s", (Feature("m", "categorical"),), "y", ("0", "1"), "0")).feature("m")
    assert [effort(feature.efforts, "a", to) for to in "abcd"] == [0.0, 2.0, 1.0, 1.0]


@pytest.mark.parametrize(
    ("text", "column", "message"),
    [
        ("m: categorical {a, b}, moves {a -> b: 0}", 1, "feature 'm': the effort of a -> b must be a positive number, not 0"),
        ("m: categorical {a, b}, moves {a -> b: 1, a -> b: 2}", 1, "feature 'm': the move a -> b is given two efforts, 1 and 2"),
        ("m: categorical {a, b}, moves {a -> b: x}", 39, "expected the move's effort after ':', found 'x'"),
        ("m: categorical {a, b}, moves {a -> a}", 36, "the move a -> a goes nowhere"),
        ("m: categorical {a, b}, moves {a -> d}", 36, "'d' is not a value of m; its values are {'a', 'b'}"),
        ("m: categorical {a, b}, moves {a b}", 33, "expected '->' and the value(s) it may move to after 'a', found 'b'"),
        ("m: categorical {a, b, x}, moves {a -> x}, unknown {x}", 34, "feature 'm': the move a -> x goes to a value that means unknown, which is never advice"),
        ("m: categorical {a, x}, targets {a, x}, unknown {x}", 33, "feature 'm': 'x' means unknown, so it cannot be a target of advice"),
        ("n: numeric [0, 1], moves {a -> b}", 27, "feature 'n': a numeric feature has a range, not a set of values, moves or unknown values"),
    ],
)
def test_a_wrong_move_is_named_at_its_file_line_and_column(text: str, column: int, message: str) -> None:
    with pytest.raises(CausalSyntaxError) as info:
        parse(text, file="moves.causal")
    assert (info.value.file, info.value.line, info.value.column, info.value.message) == ("moves.causal", 1, column, message)


def test_every_problem_is_collected_in_file_order_and_the_first_raised_alone() -> None:
    """mc3g check reports them all: syntax errors statement by statement, every unknown name and
    value; the statements with a problem are left out of the knowledge read."""
    schema = Schema("s", (Feature("a", "numeric"), Feature("b", "categorical", domain=("x", "y"))), "label", ("0", "1"), "0")
    text = "a: numeric\nforbid a >> 3\nforbid b == z, c == 1\nforbid b == x, a > 2\nb: categorical {x, q}\n"
    with pytest.raises(CausalSyntaxError, match="<string>:2:"):
        parse(text, schema=schema)
    model, errors = parse_all(text, schema=schema)
    assert [(e.line, e.column) for e in errors] == [(2, 10), (3, 13), (3, 16)]  # 'q' declares b's values: it is no error
    assert [str(c) for c in model.constraints] == ["forbid b == 'x', a > 2"] and set(model.features) == {"a", "b"}


def test_an_open_end_of_valid_values_is_printed_as_people_write_it() -> None:
    model = CausalModel(features={"age": {"kind": "numeric", "valid": (0, LARGEST)}, "x": {"kind": "numeric", "valid": (-LARGEST, 5)}})
    assert "valid [0, 1e15]" in model.to_text() and "valid [-1e15, 5]" in model.to_text()
    assert parse(model.to_text()) == model


def test_a_category_compared_as_a_number_is_one_problem_at_its_place_when_problems_are_collected() -> None:
    """Issue 50, item 11: mc3g check's `forbid sex > 5` failed without file, line and column."""
    _, errors = parse_all("forbid debt > 5\ncredit_score >= 620 <- debt == none", "loan.causal", loan_schema())
    assert [str(e) for e in errors] == ["loan.causal:1:13: debt is categorical, so it cannot be compared with '>'; use ==, !=, in or not in"]


def test_immutable_and_must_change_is_refused_from_python_as_from_a_file() -> None:
    with pytest.raises(InputError, match="feature 'x' is immutable and must-change: no state could keep both"):
        CausalModel(features={"x": {"kind": "numeric", "immutable": True, "must_change": True}})
