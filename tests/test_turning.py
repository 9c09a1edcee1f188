"""A model that cannot be read leaves a person with no option, unproved: whether a protected
characteristic alone turns its refusal is asked of it, and the lender reads the answer
(mc3g.explain.turning, the audit's turned share and warnings)."""

from __future__ import annotations

import itertools
from dataclasses import replace

import jsonschema
import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder
from sklearn.tree import DecisionTreeClassifier

from mc3g import MC3G
from mc3g.batch.work import audited_columns
from mc3g.explain import Recourse
from mc3g.explain.turning import TURNED
from mc3g.hunt import protected_changes
from mc3g.schema import Feature, Schema
from mc3g.serialization import json_schema

RECOURSE = jsonschema.Draft202012Validator(json_schema("mc3g.recourse"))
DOMAIN = {"x": list(range(9)), "c": ["a", "b", "c"], "d": ["p", "q", "r"], "e": ["u", "v"]}
EVERY = pd.DataFrame(list(itertools.product(*DOMAIN.values())), columns=list(DOMAIN))
FEATURES = (
    Feature("x", "numeric", range=(0, 8), step=1, direction="increase", max_change=3),
    Feature("c", "categorical", domain=("a", "b", "c")),
    Feature("d", "categorical", domain=("p", "q", "r"), immutable=True, protected=True),
    Feature("e", "categorical", domain=("u", "v"), protected=True),
)


def _explainer(read_model: str, frame: pd.DataFrame | None = None) -> MC3G:
    """A tree that accepts only people with d = q and x of 4 or more, behind one-hot categories;
    d is an immutable protected characteristic, e a protected one advice may change."""
    frame = EVERY.sample(400, replace=True, random_state=0).reset_index(drop=True) if frame is None else frame
    labels = np.where((frame["d"] == "q") & (frame["x"] >= 4), "yes", "no")
    encode = ColumnTransformer([("c", OneHotEncoder(sparse_output=False), ["c", "d", "e"])], remainder="passthrough")
    model = make_pipeline(encode, DecisionTreeClassifier(random_state=0)).fit(frame, labels)
    schema = Schema("small", FEATURES, "label", ("no", "yes"), "no")
    return MC3G(model, schema=schema, desired_class="yes", refine=0, read_model=read_model).fit(frame)


def test_a_protected_characteristic_that_alone_turns_an_unproved_refusal_is_named_for_the_lender_only() -> None:
    explainer = _explainer("never")
    answer = explainer.explain({"x": 5, "c": "a", "d": "p", "e": "u"})
    assert answer.status == "no_counterfactual" and answer.run.guarantee == "surrogate"
    assert answer.reasons[0].startswith("rule 1 of the rules learned to imitate the model (d is not q) cannot be escaped")  # not the model's own
    assert answer.turns_on == (("d", "q"),)  # d = r is refused too; e may change, so it is never asked
    assert answer.reasons[-1] == TURNED  # said to be there, named only in the lender's record
    assert not any("d" in sentence.split() for sentence in answer.plainly)  # the applicant is not told
    assert answer.run.wider_draws == 1 and "protected" not in (answer.run.rounds_by_phase or {})  # asked with the widest draw, held back
    document = answer.to_dict()
    RECOURSE.validate(document)
    assert Recourse.from_dict(document).turns_on == answer.turns_on
    assert audited_columns([answer])["turns_on"] == [["d = q"]]
    low = explainer.explain({"x": 0, "c": "a", "d": "p", "e": "u"})  # x rises 3 at most: d = q alone is refused too
    assert low.status == "no_counterfactual" and low.turns_on == () and TURNED not in low.reasons


def test_with_no_wider_draw_the_protected_characteristics_are_asked_in_a_call_of_their_own() -> None:
    explainer = _explainer("never")
    narrow = MC3G(explainer.model, schema=explainer.schema, desired_class="yes", refine=0, read_model="never", hunt={"widest_draw": 1000})
    answer = narrow.fit(EVERY).explain({"x": 5, "c": "a", "d": "p", "e": "u"})
    assert answer.status == "no_counterfactual" and answer.turns_on == (("d", "q"),)
    assert answer.run.wider_draws == 0 and answer.run.rounds_by_phase is not None and answer.run.rounds_by_phase["protected"] == 1


def test_a_category_never_seen_in_training_is_never_asked() -> None:
    """d = r is in d's domain but in no training row: the model's encoder refuses it (an error
    for the person, before mc3g asked only categories seen in training)."""
    explainer = _explainer("never", EVERY[EVERY["d"] != "r"].reset_index(drop=True))
    answer = explainer.explain({"x": 5, "c": "a", "d": "p", "e": "u"})
    assert answer.status == "no_counterfactual" and answer.turns_on == (("d", "q"),)
    assert protected_changes(explainer.engine_, {"x": 5, "c": "a", "d": "p", "e": "u"}) == [("d", "q")]


def test_only_values_the_protections_bar_are_asked_and_a_model_read_exactly_is_not_asked() -> None:
    explainer = _explainer("never")
    engine = explainer.engine_
    assert protected_changes(engine, {"x": 5, "c": "a", "d": "p", "e": "u"}) == [("d", "q"), ("d", "r")]
    aged = replace(engine.schema.feature("x"), protected=True)
    engine.schema = Schema("small", (aged, *FEATURES[1:]), "label", ("no", "yes"), "no")
    assert protected_changes(engine, {"x": 5, "c": "a", "d": "q", "e": "u"}) == [(("x", v)) for v in (0, 1, 2, 3, 4)] + [("d", "p"), ("d", "r")]
    read = _explainer("auto").explain({"x": 5, "c": "a", "d": "p", "e": "u"})
    assert read.status == "no_counterfactual" and read.run.guarantee == "exact" and read.turns_on is None
    answered = explainer.explain({"x": 3, "c": "a", "d": "q", "e": "u"})
    assert answered.status == "refused" and answered.turns_on is None


def test_bench_advice_counts_an_unproved_no_option_as_no_proof() -> None:
    """The reason a person turned by a protected characteristic is given says "not proved": the
    lender's checklist counted it as a proof on the model (a Taiwan MLP's 14 people with none)."""
    from mc3g.bench.advice import _fewer

    answer = _explainer("never").explain({"x": 5, "c": "a", "d": "p", "e": "u"})
    assert TURNED in answer.reasons
    assert "none: proved on the model" not in _fewer([answer], 3)
    proved = _explainer("auto").explain({"x": 5, "c": "a", "d": "p", "e": "u"})
    assert list(_fewer([proved], 3)) == ["none: proved on the model"]
