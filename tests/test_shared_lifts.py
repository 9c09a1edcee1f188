"""What would open a way out, from the program grounded once for a model read exactly
(``mc3g.search.shared``): each person gets what a program of their own gives, whatever the
order people come in, and an explainer that has answered still travels to a worker."""

from __future__ import annotations

import pickle
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import RandomForestClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder
from test_glassbox import EVERY, _predicted

import mc3g.explain.exact as exact
import mc3g.search.shared as shared_module
from mc3g import MC3G
from mc3g.rules import Column, Literal
from mc3g.schema import Feature, Schema
from mc3g.search import SharedLifts, units
from mc3g.search.shared import cells_of


@pytest.fixture(scope="module")
def kept_out():
    """A forest that accepts high x with d = q or c = b, people for whom x may only rise by 2 and
    d may not change: many are kept out, and more than one protection would let them in."""
    frame = EVERY.sample(400, replace=True, random_state=1).reset_index(drop=True)
    labels = np.where((frame["x"] >= 6) & ((frame["d"] == "q") | (frame["c"] == "b")), "yes", "no")
    encode = ColumnTransformer([("c", OneHotEncoder(sparse_output=False), ["c", "d"])], remainder="passthrough")
    model = make_pipeline(encode, RandomForestClassifier(n_estimators=8, max_depth=6, random_state=0)).fit(frame, labels)
    features = (
        Feature("x", "numeric", range=(0, 8), step=1, direction="increase", max_change=2),
        Feature("y", "numeric", range=(0, 3), step=0.5, immutable=True),
        Feature("c", "categorical", domain=("a", "b", "c"), moves=(("a", "c"), ("c", "a"))),
        Feature("d", "categorical", domain=("p", "q"), immutable=True),
    )
    schema = Schema("small", features, "label", ("no", "yes"), "no")
    people = [row.to_dict() for _, row in EVERY[_predicted(model, EVERY) == "no"].sample(frac=1, random_state=2).iloc[:24].iterrows()]
    return model, frame, schema, people


def _blocking(model, frame, schema, people, shared: bool, monkeypatch) -> list:
    explainer = MC3G(model, schema=schema, desired_class="yes", read_model="always", refine=0).fit(frame)
    with monkeypatch.context() as patch:
        if not shared:
            patch.setattr(exact, "_shared", lambda engine, problem, lifts: None)
        answers = [explainer.explain(person) for person in people]
    return [(a.status, a.blocking) for a in answers], explainer


def test_each_person_gets_what_their_own_program_gives_in_any_order(kept_out, monkeypatch) -> None:
    model, frame, schema, people = kept_out
    used = []
    person = SharedLifts.person
    monkeypatch.setattr(SharedLifts, "person", lambda self, *args: used.append(found := person(self, *args)) or found)
    own, _ = _blocking(model, frame, schema, people, False, monkeypatch)
    assert not used  # no program shared: each person's own
    shared, explainer = _blocking(model, frame, schema, people, True, monkeypatch)
    backwards, _ = _blocking(model, frame, schema, people[::-1], True, monkeypatch)
    kept = sum(status == "no_counterfactual" for status, _ in own)
    assert kept >= 8 and sum(found is not None for found in used) == 2 * kept  # every person kept out was searched in the shared program
    assert any(blocking and len(blocking) > 1 for _, blocking in own)  # more than one way in, for some
    assert shared == own and backwards[::-1] == own
    pickle.loads(pickle.dumps(explainer))  # the program shared is the process's, not the explainer's: it still travels to a worker


def test_the_program_is_grounded_afresh_after_so_many_people_and_answers_the_same(kept_out, monkeypatch) -> None:
    """The rules added for each person stay in the program after their solves, and the solves
    slowed as they piled up (a portfolio's precluded adults took twice as long after 1,300): the
    program is grounded again every ``FRESH_FOR`` people, and the answers stay each person's
    own program's."""
    model, frame, schema, people = kept_out
    own, _ = _blocking(model, frame, schema, people, False, monkeypatch)
    grounded = []
    ground = SharedLifts._ground
    monkeypatch.setattr(SharedLifts, "_ground", lambda self: grounded.append(1) or ground(self))
    monkeypatch.setattr(shared_module, "FRESH_FOR", 3)
    fresh, _ = _blocking(model, frame, schema, people, True, monkeypatch)
    kept = sum(status == "no_counterfactual" for status, _ in own)
    assert fresh == own and len(grounded) == 1 + (kept - 1) // 3


def test_a_value_between_grid_points_is_answered_as_by_its_own_program(kept_out, monkeypatch) -> None:
    """x = 2.5 on a grid of whole numbers: where the cells do not read it as the person's own
    program does, that program answers."""
    model, frame, schema, people = kept_out
    person = {"x": 2.5, "y": 1.0, "c": "c", "d": "p"}
    own, _ = _blocking(model, frame, schema, [people[0], person], False, monkeypatch)
    shared, _ = _blocking(model, frame, schema, [people[0], person], True, monkeypatch)
    assert own[1][0] == "no_counterfactual" and shared == own


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(["<=", "<", ">", ">=", "==", "!="]), st.integers(0, 40).map(lambda n: n / 4)), min_size=1, max_size=8),
    st.lists(st.integers(-8, 88).map(lambda n: n / 16), min_size=1, max_size=6),  # between grid points too
)
def test_a_value_is_in_a_cell_exactly_when_every_literal_holds_for_both_alike(tests: list[tuple[str, float]], values: list[float]) -> None:
    """:meth:`Cells.of` reads thresholds by how many lie below a value: a value is given a cell
    exactly when each literal's mask says the same of it and of the cell's value."""
    literals = [Literal("x", op, v) for op, v in tests]
    observed = SimpleNamespace(numbers={"x": np.array([0.0, 0.25, 10.0])}, tokens={})
    cells = cells_of(Feature("x", kind="numeric", step=0.125), literals, observed)  # type: ignore[arg-type]
    assert cells is not None
    found = cells.of(values)
    at = np.searchsorted(np.array([float(c) for c in cells.cuts]), [float(units(v, 0.125)) for v in values])

    def truth(xs: list[float]) -> np.ndarray:
        column = Column(np.array(xs, dtype=object), numbers=np.array(xs, dtype=np.float64))
        return np.array([lit.mask(column) for lit in literals])

    alike = np.array_equal(truth(values), truth([cells.values[c] for c in at]))
    event(f"in a cell: {found is not None}")
    assert (found is not None) == alike
    assert found is None or found.tolist() == at.tolist()
