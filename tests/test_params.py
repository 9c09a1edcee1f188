"""Parameters declared once (:mod:`mc3g.params`): each kind says what it accepts, one function
checks a table, and every estimator declares each of its parameters."""

from __future__ import annotations

import numpy as np
import pytest

from mc3g import MC3G, FoldSE
from mc3g.exceptions import InputError, UnknownNameError
from mc3g.explain import SearchSettings
from mc3g.models import ModelFile
from mc3g.params import Flag, Number, OneOf, Text, Texts, Whole, validate, whole
from mc3g.profiles import Profile
from mc3g.reference import ExplainerSettings

TABLE = {
    "most": [Whole(1)],
    "k": [Whole(1, "most", "no more than most")],
    "share": [Number(0, 1, closed="right")],
    "speed": [Number(0)],
    "colour": [OneOf(("red", "green", "blue"))],
    "on": [Flag(), None],
    "names": [Text(), Texts()],
}


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"most": 0}, "most must be a whole number at least 1, not 0"),
        ({"most": 1.0}, "most must be a whole number at least 1, not 1.0 (a float)"),
        ({"most": 3, "k": 4}, "k must be a whole number from 1 to 3 (most = 3: no more than most), not 4"),
        ({"share": 0}, "share must be a number in (0, 1], not 0"),
        ({"share": np.float64("nan")}, "share must be a number in (0, 1], not nan (a float64)"),
        ({"speed": -1}, "speed must be a number at least 0, not -1"),
        ({"speed": True}, "speed must be a number at least 0, not True (a bool)"),
        ({"colour": "gren"}, "colour must be one of 'red', 'green' or 'blue', not 'gren'; did you mean 'green'?"),
        ({"on": 1}, "on must be True or False, or None, not 1 (an int)"),
        ({"names": ["a", 2]}, "names must be text or a list of text, not ['a', 2] (a list)"),
    ],
)
def test_a_refused_value_is_one_error_naming_the_parameter_what_it_accepts_and_the_value(params, message) -> None:
    with pytest.raises(InputError) as refused:
        validate(params, TABLE)
    assert str(refused.value) == message


def test_accepted_values_pass_and_undeclared_ones_are_not_looked_at() -> None:
    validate({"most": np.int64(3), "k": 3, "share": 1, "speed": 0.0, "colour": "red", "on": None, "names": ("a",), "other": object()}, TABLE)
    validate({}, TABLE)
    with pytest.raises(UnknownNameError):  # a name none of the choices has is also a KeyError
        validate({"colour": "mauve"}, TABLE)
    assert whole(np.int64(2), "n", 1) == 2 and type(whole(np.int64(2), "n", 1)) is int
    with pytest.raises(InputError, match=r"^\[service\] speed must be"):
        validate({"speed": "fast"}, TABLE, "[service] ")


@pytest.mark.parametrize("estimator", [MC3G(None), FoldSE()], ids=["MC3G", "FoldSE"])
def test_every_parameter_of_an_estimator_is_declared(estimator) -> None:
    """scikit-learn's check_param_validation, which its public checks do not run."""
    assert set(estimator._parameter_constraints) == set(estimator.get_params(deep=False))
    assert set(SearchSettings._parameter_constraints) <= set(MC3G._parameter_constraints)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: MC3G(None, k=0), r"^k must be a whole number from 1 to 2000 \(max_states = 2000: .*\), not 0$"),
        (lambda: MC3G(None, norm="l3"), r"^norm must be one of 'l0', 'l1' or 'l2', not 'l3'$"),
        (lambda: FoldSE(ratio=2), r"^ratio must be a number in \[0, 1\], not 2$"),
    ],
)
def test_the_estimators_refuse_from_their_tables_at_fit(make, message) -> None:
    """Refused before the data are looked at: the tables are checked first."""
    with pytest.raises(InputError, match=message):
        make().fit(None, None)


def test_one_registry_of_profiles() -> None:
    assert [str(p) for p in Profile] == ["product", "paper"] and Profile.named("paper") is Profile.PAPER
    assert Profile.PRODUCT.distinct and Profile.PRODUCT.guarded and not Profile.PAPER.distinct and not Profile.PAPER.guarded
    with pytest.raises(UnknownNameError, match="^profile must be one of 'product' or 'paper', not 'lender'$"):
        Profile.named("lender")


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: ExplainerSettings(dataset="loan", favourable="yes"), r"favourable \(--favourable\) names a label of a model's answers: give it with --model"),
        (lambda: ExplainerSettings(dataset="loan", model=ModelFile("m.skops"), rules_file="r.json"), r"or a rules file \(r.json\), not both"),
        (lambda: ExplainerSettings(dataset="loan", causal_file="a", causal_only="b"), "give one of them"),
        (lambda: ExplainerSettings(dataset="loan", params={"desired_class": 1}), r"params may not set desired_class \(say it as favourable\)"),
        (lambda: ExplainerSettings(dataset="loan", profile="lender"), "^profile must be one of 'product' or 'paper', not 'lender'$"),
        (lambda: ExplainerSettings(dataset=None), "^dataset must be the name of a data set, not None$"),
        (lambda: ModelFile(None, trust_model=True), "say how to read a model file: give them with one"),
        (lambda: ModelFile("m.skops", trusted_types="sklearn.tree._tree.Tree"), "^trusted_types must be a list of type names, or None"),
    ],
)
def test_an_explainer_s_settings_are_checked_once_for_the_command_line_and_the_service(make, message) -> None:
    with pytest.raises(InputError, match=message):
        make()


def test_the_favourable_label_becomes_desired_class_in_one_place() -> None:
    settings = ExplainerSettings.of("loan", model_file="m.skops", trusted_types=["T"], favourable=1, mode="none", k=2)
    assert settings.model == ModelFile("m.skops", False, ("T",)) and settings.profile is Profile.PRODUCT
    assert settings.explainer_params() == {"mode": "none", "k": 2, "profile": Profile.PRODUCT, "desired_class": 1}


def test_the_explainer_settings_check_mc3gs_parameters_where_they_are_made() -> None:
    """A misspelt or wrong parameter is refused with the explainer's settings, named, before any
    data is read or anything fitted (a misspelt one was a TypeError from deep inside MC3G)."""
    from mc3g.reference import ExplainerSettings

    with pytest.raises(UnknownNameError, match=r"'mdoe' is not a parameter of MC3G.*did you mean 'mode'"):
        ExplainerSettings(dataset="loan", params={"mdoe": "none"})
    with pytest.raises(InputError, match=r"^k must be a whole number from 1 to 2000 \(max_states = 2000"):
        ExplainerSettings(dataset="loan", params={"k": 0})
    assert ExplainerSettings(dataset="loan", params={"k": 3, "root": False}).params == {"k": 3, "root": False}
