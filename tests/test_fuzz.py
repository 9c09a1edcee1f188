"""Random and broken input at every entrance: causal-knowledge text, people's rows, and models
that misbehave.  The invariant: a valid answer that the independent checker accepts, or an
:class:`~mc3g.exceptions.MC3GError` with a message; never another exception, never a hang.

Each test runs a few dozen examples in the fast tier and a deeper run (``slow``)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mc3g import MC3G, CausalModel
from mc3g.datasets import JOHN, load
from mc3g.exceptions import MC3GError
from mc3g.explain import violations
from mc3g.explain.result import ERROR, REFUSED
from mc3g.reference import reference

DEPTHS = [pytest.param(60, id="fast"), pytest.param(600, id="deep", marks=pytest.mark.slow)]


def fuzzed(examples: int) -> settings:
    """Hypothesis settings for a fuzz test: bounded examples, and a deadline that catches a hang."""
    return settings(max_examples=examples, deadline=timedelta(seconds=5), suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _error_types(base: type = MC3GError) -> set[str]:
    return {base.__name__} | {name for sub in base.__subclasses__() for name in _error_types(sub)}


MC3G_ERRORS = _error_types()


def answer_or_refusal(call: Callable[[], Any]) -> Any:
    """What ``call`` returns, or None when it raised an MC3GError with a message; any other
    exception propagates and fails the test."""
    try:
        return call()
    except MC3GError as e:
        assert str(e).strip(), f"{type(e).__name__} without a message"
        return None


def assert_valid(answer: Any, person: dict[str, Any], explainer: MC3G, flips: Callable[[dict[str, Any]], bool] | None = None) -> None:
    """An answer the checker accepts: an error answer says which MC3GError it was; every
    counterfactual keeps the rules, the knowledge and the metadata (and flips the model)."""
    if answer.status == ERROR:
        assert answer.reasons and answer.reasons[0].split(":")[0] in MC3G_ERRORS, answer.reasons
        return
    costs = [cf.cost for cf in answer]
    assert costs == sorted(costs) and all(math.isfinite(c) for c in costs)
    if answer.status != REFUSED:
        assert not answer.counterfactuals
        return
    decision = explainer.decision_rules_ if flips is None else []
    for cf in answer:
        assert violations(cf, person, decision, explainer.causal_, explainer.schema_) == []
        assert flips is None or flips(cf.values)


@pytest.fixture(scope="module")
def loan():
    ds = load("loan", split="default")
    ref = reference("loan")
    return ds, ref, MC3G(ref.rules, ref.causal(ds), schema=ds.schema, k=2).fit(ds.X_train)


# -- causal knowledge ---------------------------------------------------------------------------
FEATURES = ["age", "debt", "bank_balance", "credit_score", "annual_income", "salary", "'debt'"]
NUMBERS = ["0", "620", "60000", "-5", "0.5", "1e3", "1e15", "1e16", "1e400", "-1e400", "1e-300", "nan", "inf", "10" * 30]
VALUES = ["none", "up_to_10000", "over_10000", "Klingon", "'none'", *NUMBERS]
OPS = ["==", "!=", "<", "<=", ">", ">=", "in", "not in", "=>", "<>"]
ITEMS = [
    "numeric", "categorical", "categorical {none, up_to_10000, over_10000}", "immutable", "not immutable", "consequence-only",
    "must-change", "increase-only", "decrease-only", "any-direction", "targets {none}", "targets {Klingon}", "domain {a, b}",
]  # fmt: skip


PAPER_RULE = "credit_score >= 620 <- debt == none"


@st.composite
def condition(draw: st.DrawFn) -> str:
    op = draw(st.sampled_from(OPS))
    value = "{" + ", ".join(draw(st.lists(st.sampled_from(VALUES), min_size=1, max_size=3))) + "}" if "in" in op else draw(st.sampled_from(VALUES))
    return f"{draw(st.sampled_from(FEATURES))} {op} {value}"


@st.composite
def well_typed(draw: st.DrawFn) -> str:
    """A statement that fits the loan data: most knowledge a user writes is meant to be valid."""
    number = draw(st.sampled_from(["age", "bank_balance", "annual_income", "credit_score"]))
    threshold = draw(st.integers(0, 120000))
    debt = f"debt {draw(st.sampled_from(['==', '!=']))} {draw(st.sampled_from(['none', 'up_to_10000', 'over_10000']))}"
    return draw(
        st.sampled_from(
            [
                f"{number} >= {threshold} <- {debt}",
                f"cause {number} <= {threshold} <- {debt}",
                f"{debt} <- {number} > {threshold}",
                f"forbid {debt}, {number} < {threshold}",
                f"{number}: weight {draw(st.sampled_from(['0', '0.5', '3', '1e6']))}",
                f"{number}: {draw(st.sampled_from(['immutable', 'increase-only', 'decrease-only', 'range [0, 200000]', 'step 0.01']))}",
                f"debt: {draw(st.sampled_from(['immutable', 'must-change', 'targets {none}', 'weight 2']))}",
            ]
        )
    )


@st.composite
def statement(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["well-typed", "declaration", "numbers", "rule", "forbid", "tokens", "text"]))
    if kind == "well-typed":
        return draw(well_typed())
    if kind == "declaration":
        return f"{draw(st.sampled_from(FEATURES))}: " + ", ".join(draw(st.lists(st.sampled_from(ITEMS), min_size=1, max_size=3)))
    if kind == "numbers":
        item = draw(st.sampled_from(["range [{}, {}]", "numeric [{}, {}]", "step {}", "weight {}", "step {}, weight {}"]))
        return f"{draw(st.sampled_from(FEATURES))}: " + item.format(*draw(st.lists(st.sampled_from(NUMBERS), min_size=2, max_size=2)))
    if kind == "rule":
        return draw(st.sampled_from(["", "cause "])) + f"{draw(condition())} <- " + ", ".join(draw(st.lists(condition(), min_size=1, max_size=2)))
    if kind == "forbid":
        return "forbid " + ", ".join(draw(st.lists(condition(), min_size=1, max_size=2)))
    if kind == "tokens":  # the format's own words, mangled
        words = [*FEATURES, *VALUES, *OPS, ":", ",", "<-", "{", "}", "[", "]", "forbid", "cause", "#", "#include", "'", "\\x"]
        return " ".join(draw(st.lists(st.sampled_from(words), max_size=8)))
    return draw(st.text(max_size=20))


@pytest.mark.slow
@pytest.mark.parametrize("examples", DEPTHS)
def test_any_causal_text_gives_a_checked_answer_or_a_named_refusal(loan, examples) -> None:
    ds, ref, _ = loan

    @fuzzed(examples)
    @given(lines=st.one_of(st.lists(well_typed(), max_size=3), st.lists(statement(), min_size=1, max_size=4)))
    def check(lines: list[str]) -> None:
        text = "\n".join([PAPER_RULE, *lines])  # the paper's rule: without it the score cannot move
        causal = answer_or_refusal(lambda: CausalModel.parse(text, file="fuzz.causal", schema=ds.schema))
        if causal is None:
            return
        explainer = answer_or_refusal(lambda: MC3G(ref.rules, causal, schema=ds.schema, k=2).fit(ds.X_train))
        if explainer is None:
            return
        answer = answer_or_refusal(lambda: explainer.explain(JOHN))
        if answer is not None:
            assert_valid(answer, JOHN, explainer)

    check()


# -- people's rows ------------------------------------------------------------------------------
ODD = st.one_of(
    st.sampled_from([math.nan, math.inf, -math.inf, 1e308, -1e308, 1e15, None, True, False, "", "?", "abc", "40000", "1e400", "none", "Klingon"]),
    st.integers(-(10**30), 10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=4),
    st.just([1]),
    st.just({"a": 1}),
)
LEGAL = st.one_of(st.integers(0, 200000), st.floats(0, 1e7), st.sampled_from(["none", "up_to_10000", "over_10000", 10**12, "65000"]))
MISSING = object()


@st.composite
def row(draw: st.DrawFn) -> dict[str, Any]:
    """John with some features odd, some missing, perhaps one too many."""
    person = dict(JOHN)
    for name in draw(st.lists(st.sampled_from(sorted(JOHN)), max_size=2, unique=True)):
        value = draw(st.one_of(LEGAL, LEGAL, ODD, st.just(MISSING)))
        if value is MISSING:
            del person[name]
        else:
            person[name] = value
    if draw(st.booleans()) and draw(st.booleans()):
        person["colour"] = "red"
    return person


@pytest.mark.slow
@pytest.mark.parametrize("examples", DEPTHS)
def test_any_row_gives_a_checked_answer_or_a_named_refusal(loan, examples) -> None:
    _, _, explainer = loan

    @fuzzed(examples)
    @given(person=row(), changes=st.dictionaries(st.sampled_from(["debt", "bank_balance", "age"]), ODD, max_size=2))
    def check(person: dict[str, Any], changes: dict[str, Any]) -> None:
        answer = answer_or_refusal(lambda: explainer.explain(person))
        if answer is not None:
            assert_valid(answer, person, explainer)
        answer_or_refusal(lambda: explainer.whatif(person, changes))
        answer_or_refusal(lambda: explainer.program(person))

    check()


@pytest.mark.slow
@pytest.mark.parametrize("examples", DEPTHS)
def test_a_frame_of_odd_rows_answers_each_row(loan, examples) -> None:
    _, _, explainer = loan

    @fuzzed(examples)
    @given(people=st.lists(row(), max_size=4))
    def check(people: list[dict[str, Any]]) -> None:
        frame = pd.DataFrame(people)
        answers = answer_or_refusal(lambda: explainer.explain(frame))
        if answers is None:
            return
        assert len(answers) == len(frame)
        for (_, person), answer in zip(frame.iterrows(), answers):
            assert_valid(answer, dict(person.items()), explainer)
        answer_or_refusal(lambda: explainer.refuses(frame))

    check()


# -- models that misbehave ----------------------------------------------------------------------
def bank(frame: pd.DataFrame) -> np.ndarray:
    refused = (frame["bank_balance"] < 60000) | (frame["credit_score"] < 620)
    return np.where(refused, "rejected", "approved")


MISDEEDS: dict[str, Callable[[pd.DataFrame], Any]] = {
    "short": lambda f: bank(f)[:-1],
    "long": lambda f: np.append(bank(f), "approved"),
    "unknown label": lambda f: np.full(len(f), "maybe"),
    "raises": lambda f: 1 / 0,
    "None": lambda f: None,
    "no labels": lambda f: np.full(len(f), None),
    "probabilities": lambda f: np.tile([0.3, 0.7], (len(f), 1)),
    "a scalar": lambda f: "rejected",
    "a list": lambda f: list(bank(f)),
    "slow": lambda f: (time.sleep(0.005), bank(f))[1],
}


class Moody:
    """A model that answers as the bank, except on call number ``when``, where it misbehaves."""

    def __init__(self, misdeed: str, when: int) -> None:
        self.misdeed, self.when, self.calls = misdeed, when, 0

    def predict(self, frame: pd.DataFrame) -> Any:
        self.calls += 1
        return MISDEEDS[self.misdeed](frame) if self.calls == self.when else bank(frame)


@pytest.mark.slow
@pytest.mark.parametrize("examples", DEPTHS)
def test_a_misbehaving_model_gives_checked_answers_or_a_named_refusal(loan, examples) -> None:
    ds, ref, _ = loan
    train = ds.X_train.iloc[:600]
    causal = ref.causal(ds)

    def approves(values: dict[str, Any]) -> bool:
        return bank(pd.DataFrame([values]))[0] == "approved"

    @fuzzed(max(examples // 3, 10))
    @given(misdeed=st.sampled_from(sorted(MISDEEDS)), when=st.integers(1, 6), k=st.integers(1, 3), people=st.integers(0, 3))
    def check(misdeed: str, when: int, k: int, people: int) -> None:
        explainer = answer_or_refusal(lambda: MC3G(Moody(misdeed, when), causal, schema=ds.schema, desired_class="approved", k=k).fit(train))
        if explainer is None:
            return
        answer = answer_or_refusal(lambda: explainer.explain(JOHN))
        if answer is not None:
            assert_valid(answer, JOHN, explainer, approves)
        rows = ds.X_test.iloc[:people]
        answers = answer_or_refusal(lambda: explainer.explain(rows))
        for (_, person), each in zip(rows.iterrows(), answers or []):
            assert_valid(each, dict(person.items()), explainer, approves)

    check()
