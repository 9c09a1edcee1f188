"""A split's own shipped files: adult's UCI split has two columns the paper's lacks, ``education``
(the education level in words) and ``capital_loss``, so its knowledge ties the words to the level
(``resources/uci/adult.causal``) and its product settings keep the capital loss and move education
up by at most two levels (``resources/uci/adult.product.causal``), laid over the files every split
reads.  The fast tests explain a few refused people with decision rules (no black box)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mc3g import MC3G, CausalModel
from mc3g.datasets import load, shipped_knowledge, shipped_profiles
from mc3g.exceptions import InputError, InternalError
from mc3g.reference import decision_rules, knowledge
from mc3g.rules import Literal, Rule, RuleSet

RESOURCES = Path(__file__).resolve().parents[1] / "src" / "mc3g" / "resources"
LEVELS = (
    "Preschool", "1st-4th", "5th-6th", "7th-8th", "9th", "10th", "11th", "12th", "HS-grad", "Some-college", "Assoc-voc", "Assoc-acdm",
    "Bachelors", "Masters", "Prof-school", "Doctorate",
)  # fmt: skip
LEVEL = {words: level for level, words in enumerate(LEVELS, 1)}
TEMPTING = RuleSet(
    (
        Rule(
            Literal("income", "==", "<=50K"),
            (Literal("capital_loss", "<=", 1900), Literal("education", "not in", frozenset({"Preschool", "Doctorate"})), Literal("education_num", "<=", 13)),
        ),
    ),
    "income",
    ">50K",
)  # refused unless one takes a capital loss, jumps to a doctorate, falls to preschool or reaches a master's


@pytest.fixture(scope="module")
def uci():
    return load("adult", split="uci")


def wrong_advice(person: dict, values: dict) -> list[str]:
    """What an option tells a person that adult's product settings on the UCI split forbid, or a
    person no one can be (education in words and as a level disagreeing)."""
    found = [] if LEVEL[values["education"]] == values["education_num"] else [f"{values['education']} at level {values['education_num']}"]
    if values["capital_loss"] != person["capital_loss"]:
        found.append(f"capital loss {person['capital_loss']} -> {values['capital_loss']}")
    if not 0 <= LEVEL[values["education"]] - LEVEL[person["education"]] <= 2:
        found.append(f"education {person['education']} -> {values['education']}")
    return found


def told(explainer: MC3G, rows) -> list[tuple[dict, dict]]:
    """Each person with each option they are given."""
    return [(dict(row.items()), cf.values) for (_, row), answer in zip(rows.iterrows(), explainer.explain(rows)) for cf in answer]


@pytest.mark.slow
def test_the_shipped_explainer_on_the_uci_split_keeps_education_whole(uci) -> None:
    """The product's rules for the UCI split refuse married people up to an associate degree: a
    bachelor's is one way out.  Before the split's knowledge, an option raised ``education_num``
    and left ``education`` as it was (Assoc-acdm at level 13); now education moves and its level
    follows, free, as its cause."""
    rules = decision_rules(uci)
    X = uci.X_test
    refused = rules.covers(X) & (X["marital_status"] == "Married-civ-spouse")
    rows = X[refused & X["education_num"].isin([11, 12])].iloc[:3]
    explainer = MC3G(rules, knowledge(uci), schema=uci.schema, k=3).fit(uci.X_train)
    options = told(explainer, rows)
    assert [wrong_advice(person, values) for person, values in options] == [[]] * len(options)
    moved = [(person["education"], values["education"]) for person, values in options if values["education"] != person["education"]]
    assert moved and {after for _, after in moved} == {"Bachelors"}
    answer = explainer.explain(rows.iloc[0])
    caused = [change for cf in answer for change in cf.caused_changes]
    assert caused and {change.feature for change in caused} == {"education_num"}


@pytest.mark.slow
def test_product_on_the_uci_split_gives_no_capital_loss_and_no_leap_of_education(uci) -> None:
    """Rules that a capital loss, a doctorate or preschool would escape: under product a
    bachelor's graduate is told a master's or professional school (one or two levels up), a high
    school graduate nothing, with the reason (some college or an associate degree is not enough); the protections listed name both columns."""
    X = uci.X_test
    refused = TEMPTING.covers(X)
    rows = X[refused & (X["capital_loss"] == 0)]
    rows = rows.loc[[rows.index[(rows["education"] == "Bachelors").argmax()], rows.index[(rows["education"] == "HS-grad").argmax()]]]
    explainer = MC3G(TEMPTING, knowledge(uci), schema=uci.schema, k=3).fit(uci.X_train)
    bachelor, graduate = explainer.explain(rows)
    person = dict(rows.iloc[0].items())
    assert [cf.values["education"] for cf in bachelor] == ["Masters"] and bachelor.fewer  # a master's, or nothing that differs
    assert [wrong_advice(person, cf.values) for cf in bachelor] == [[]]
    assert not graduate.counterfactuals and graduate.reasons
    protections = bachelor.run.protections
    assert protections["capital_loss"] == {"immutable": True}
    moves = protections["education"]["moves"]
    assert moves["Bachelors"] == ["Masters", "Prof-school"] and moves["Prof-school"] == ["Doctorate"] and "Doctorate" not in moves
    assert set(moves) == set(LEVELS) - {"Doctorate"} and all(len(after) == 2 for before, after in moves.items() if LEVEL[before] < 15)


@pytest.mark.slow
def test_the_paper_profile_on_the_uci_split_keeps_education_whole_and_may_take_it_down(uci) -> None:
    """The split's knowledge holds under every profile; the paper's settings (education may fall)
    and no product settings are laid, so a bachelor's graduate may be told preschool, with the
    level following, or a capital loss."""
    X = uci.X_test
    rows = X[TEMPTING.covers(X) & (X["capital_loss"] == 0) & (X["education"] == "Bachelors")].iloc[:1]
    explainer = MC3G(TEMPTING, knowledge(uci), schema=uci.schema, k=3, profile="paper").fit(uci.X_train)
    options = told(explainer, rows)
    assert options and all(LEVEL[values["education"]] == values["education_num"] for _, values in options)
    assert {values["education"] for _, values in options} & {"Preschool", "Masters"}
    assert not {"capital_loss", "education"} & set(explainer.run_record().protections)


@pytest.mark.slow
def test_the_uci_knowledge_joins_on_every_route_and_only_that_split(uci, tmp_path: Path) -> None:
    """``NAME.causal`` and ``uci/NAME.causal``: one rule per education level, a copy of either
    file given as one's own adds nothing, ``only`` leaves both out; another split reads neither
    UCI file."""
    shipped = knowledge(uci)
    adult = shipped_knowledge(uci.schema.under(None), "paper")
    assert shipped.name == "adult" and len(shipped.rules) == len(adult.rules) + 16 and shipped.constraints == adult.constraints
    assert {(rule.effect.value, rule.cause[0].value) for rule in shipped.rules if rule.effect.feature == "education_num"} == {
        (level, words) for words, level in LEVEL.items()
    }
    shutil.copyfile(RESOURCES / "uci" / "adult.causal", tmp_path / "mine.causal")
    added = knowledge(uci, causal_file=tmp_path / "mine.causal")
    assert (added.rules, added.constraints) == (shipped.rules, shipped.constraints) and added.name == "adult + mine"
    assert len(knowledge(uci, causal_file=tmp_path / "mine.causal", only=True).rules) == 16
    paper = shipped_profiles(uci.schema.under(None), "paper")["product"].features
    assert "capital_loss" not in paper and "education" not in paper and uci.schema.profiles["product"].features["capital_loss"] == {"immutable": True}
    assert uci.schema.profiles["product"].where["education"].startswith("mc3g/resources/uci/adult.product.causal:")


@pytest.mark.slow
def test_ones_own_knowledge_may_not_lift_the_uci_splits_product_settings(uci) -> None:
    for text, lifted in (("capital_loss: not immutable", "'capital_loss' immutable"), ("education: moves {HS-grad -> Doctorate}", "'education' moves")):
        mine = CausalModel.parse(f"# mine\n{text}\n", file="mine.causal", schema=uci.schema)
        with pytest.raises(InputError) as refused:
            MC3G(TEMPTING, mine, schema=uci.schema).fit(uci.X_train)
        message = str(refused.value)
        assert message.startswith("mine.causal:2:1: the product profile's settings for adult (mc3g/resources/uci/adult.product.causal:"), message
        assert lifted in message


def _folder(tmp_path: Path, own: str, name: str = "uci/adult.product.causal") -> Path:
    """A resources folder with adult's product file and a split's file ``name`` holding ``own``."""
    shutil.copyfile(RESOURCES / "adult.product.causal", tmp_path / "adult.product.causal")
    (tmp_path / name).parent.mkdir(exist_ok=True)
    (tmp_path / name).write_text(f"# the split's own\n{own}\n", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(
    ("own", "lifted"),
    [
        ("capital_gain: not immutable", "'capital_gain' immutable"),
        ("hours_per_week: max-change 30", "'hours_per_week' max-change 20"),
        ("marital_status: not immutable", "'marital_status' immutable"),
        ("age: max-change 20", "'age' max-change 10"),
        ("workclass: moves {Private -> Never-worked}", "'workclass' moves"),
    ],
)
def test_a_splits_profile_file_may_tighten_never_lift(uci, tmp_path: Path, own: str, lifted: str) -> None:
    folder = _folder(tmp_path, own)
    with pytest.raises(InternalError) as refused:
        shipped_profiles(uci.schema.under(None), "uci", folder)
    message = str(refused.value)
    assert message.startswith(f"mc3g/resources/uci/adult.product.causal:2:1: lifts {lifted}"), message
    assert "never lift them" in message
    assert "capital_gain" in shipped_profiles(uci.schema.under(None), "paper", folder)["product"].features  # another split reads only the shared file


def test_a_splits_profile_file_tightens_and_adds(uci, tmp_path: Path) -> None:
    folder = _folder(tmp_path, "age: max-change 5\ncapital_loss: immutable")
    product = shipped_profiles(uci.schema.under(None), "uci", folder)["product"]
    assert product.features["age"] == {"direction": "increase", "waits": "years", "max_change": 5.0} and product.features["capital_loss"] == {"immutable": True}
    assert product.where["age"] == "mc3g/resources/uci/adult.product.causal:2:1" and product.where["hours_per_week"].startswith("mc3g/resources/adult.product")


@pytest.mark.parametrize(
    ("own", "name", "refusal"),
    [
        ("forbid capital_loss > 0, capital_gain > 0", "uci/adult.product.causal", "holds causal rules or constraints"),
        ("capital_loss: immutable", "adult.uci.product.causal", "a split's files are in its folder"),
        ("capital_loss: immutable", "adult.lender.causal", "PROFILE one of product, paper"),  # no such profile: its settings would never be read
    ],
)
def test_a_misplaced_shipped_file_is_refused(uci, tmp_path: Path, own: str, name: str, refusal: str) -> None:
    with pytest.raises(InternalError, match=refusal):
        shipped_profiles(uci.schema.under(None), "uci", _folder(tmp_path, own, name))
