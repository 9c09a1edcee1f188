"""The principal reasons a person reads (issue 49, item 4): at most four, from the model's own
verdicts, never a protected feature, in plain words, on the command line and the page alike."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pandas as pd
import pytest
from fastapi.testclient import TestClient
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from mc3g import reference as ref
from mc3g.explain import MC3G
from mc3g.explain.principal import MOST_REASONS
from mc3g.serve import Service, create_app

JARGON = r"\b(imitat\w*|surrogate|states? judged|sectioned|rounds?|decision rules?|causal knowledge|proved|solver|candidates?|max_states|read exactly)\b"


def said(answer) -> list[str]:
    """Every sentence the person reads of an answer: the reasons or the plain "no option", the
    plans with their steps, and why there are fewer options than asked for."""
    plans = [cf.plan for cf in answer] + [step.sentence() for cf in answer for step in cf.steps]
    return [*answer.plainly, *plans, *([answer.fewer_plainly] if answer.fewer else [])]


def protected_labels(explainer, ds) -> list[str]:
    """The protected features of the data set, in words (the explainer's own may be fewer)."""
    words = explainer.words_
    return [words.feature(f.name) for f in ds.schema.under("product").features if f.protected]


@pytest.mark.parametrize("name, split", [("adult", None), ("german", "uci"), ("taiwan", None)])
def test_every_sentence_a_person_reads_is_plain_and_names_nothing_protected(name: str, split: str | None) -> None:
    """The refused test rows of each data set, product profile, K = 3: every sentence read for
    jargon and protected features, and every reason that says a change alone would reverse the
    decision tried with the what-if (German's every column: the UCI split)."""
    ds, explainer = ref.fitted_explainer(name, split, k=3)
    X = ds.test.drop(columns=[ds.schema.label])
    refused = X[explainer.refuses(X)].iloc[:80]
    answers = explainer.explain(refused)
    protected = protected_labels(explainer, ds)
    assert protected, "each data set declares its protected features"
    alone = 0
    for (_, person), answer in zip(refused.iterrows(), answers):
        assert answer.status in ("refused", "no_counterfactual") and len(answer.principal) <= MOST_REASONS
        assert not answer.principal or answer.counterfactuals  # a reason is a way out's feature
        for sentence in said(answer):
            assert not re.search(JARGON, sentence, re.IGNORECASE), sentence
        acts = [a.sentence() for cf in answer for a in cf.direct_actions if not a.is_wait]  # a wait may name age: time changes it
        for sentence in [*answer.plainly, answer.fewer_plainly, *acts]:
            for label in protected:
                assert not re.search(rf"\b{re.escape(label)}\b", sentence, re.IGNORECASE), (label, sentence)
        for reason in answer.principal:
            assert not explainer.engine_.schema.feature(reason.feature).protected
            if reason.accepted:
                alone += 1
                assert not explainer.whatif(person, {reason.feature: reason.change.after}).refused, reason.sentence
        ranks = [(-r.responsiveness) for r in answer.principal if r.accepted]
        assert ranks == sorted(ranks)  # the most responsive first
    assert alone, f"no {name} reason says a change alone would do: the test would check nothing"


def test_the_page_gives_at_most_four_reasons_in_plain_words() -> None:
    """German credit's page for a refused person with options: the reasons in a list, no rule's
    text and no word of the search."""
    ds, explainer = ref.fitted_explainer("german", k=3)
    X = ds.test.drop(columns=[ds.schema.label])
    refused = X[explainer.refuses(X)]
    person = next(row for _, row in refused.iterrows() if explainer.explain(row).counterfactuals)
    html = TestClient(create_app(Service(explainer, "german", 3, example={f: person[f] for f in explainer.features_in_play_}))).get("/").text
    reasons = re.search(r'<ol class="reasons">(.*?)</ol>', html, re.S)
    assert reasons is not None and 1 <= reasons.group(1).count("<li>") <= MOST_REASONS
    decision = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html.split('id="decision"', 1)[1].split('id="whatif"', 1)[0]))
    assert "What would change the decision" in decision
    assert not re.search(JARGON, decision, re.IGNORECASE), decision


def test_a_model_read_exactly_gives_the_reasons_its_own_predict_gives() -> None:
    """A gradient boosting behind one-hot categories, read exactly, K = 2: the features given as
    reversing the decision alone are those for which some single change over the whole domain
    does by the model's own ``predict``, each change named is one it accepts, and the reasons cost
    no call beyond the one that confirms the answer."""
    rng = np.random.default_rng(5)
    domain = {"x": list(range(9)), "y": [v / 2 for v in range(7)], "c": ["a", "b", "c"], "d": ["p", "q"]}
    every = pd.DataFrame(list(itertools.product(*domain.values())), columns=list(domain))
    frame = every.sample(300, replace=True, random_state=5).reset_index(drop=True)
    score = frame["x"] / 4 + frame["y"] / 1.5 - (frame["c"] == "b") + (frame["d"] == "q") + rng.normal(scale=0.3, size=len(frame))
    labels = np.where(score > np.median(score), "yes", "no")
    encode = ColumnTransformer([("c", OneHotEncoder(sparse_output=False), ["c", "d"]), ("n", StandardScaler(), ["x", "y"])])
    model = make_pipeline(encode, GradientBoostingClassifier(n_estimators=20, max_depth=2, random_state=0)).fit(frame, labels)
    explainer = MC3G(model, desired_class="yes", k=2, refine=0).fit(frame)
    assert explainer.engine_.glass is not None
    refused = every[model.predict(every) == "no"]
    checked = 0
    for _, person in refused.iloc[::7].iterrows():
        answer = explainer.explain(person)
        assert answer.run.model_rounds == 1
        if not answer.counterfactuals:
            continue
        alone = set()
        for name, values in domain.items():
            rows = pd.DataFrame([{**person.to_dict(), name: v} for v in values if v != person[name]])
            if (model.predict(rows) == "yes").any():
                alone.add(name)
        assert {r.feature for r in answer.principal if r.accepted} == alone
        for reason in answer.principal:
            if reason.accepted:
                checked += 1
                assert model.predict(pd.DataFrame([{**person.to_dict(), reason.feature: reason.change.after}]))[0] == "yes"
    assert checked


@pytest.mark.slow
def test_the_card_issuer_s_demo_answers_a_client_and_its_saved_files_serve_the_page(tmp_path) -> None:
    """``mc3g demo --data taiwan --save``: the card issuer's model read exactly, its first refused
    test client answered with reasons in plain words, and the files it writes serve that client's
    page as the example (issue 49, item 5)."""
    from typer.testing import CliRunner

    from mc3g.cli import app
    from mc3g.serve import load_config

    result = CliRunner().invoke(app, ["demo", "--data", "taiwan", "--save", str(tmp_path)])
    assert result.exit_code == 0, result.output
    shown = " ".join(result.output.split())
    assert "Refused. What would change the decision: 1. " in shown and "least effort first" in shown
    assert not re.search(JARGON, shown.split("Refused.", 1)[1].split("Saved to", 1)[0], re.IGNORECASE)
    service = load_config(tmp_path / "service.toml")
    assert service.explainer.engine_.glass is not None  # the model itself, read exactly
    html = TestClient(create_app(service)).get("/").text
    assert "A card issuer&#39;s clients (Taiwan)" in html or "A card issuer's clients (Taiwan)" in html
    decision = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html.split('id="decision"', 1)[1].split('id="whatif"', 1)[0]))
    assert "What would change the decision" in decision and "ways out asked for" in decision
    assert not re.search(JARGON, decision, re.IGNORECASE), decision
