"""The shipped experiments: decision rules, causal knowledge and the person the paper explains.

Each reference names its data set and split, the decision rules the MC3G paper published
(``resources/NAME.rules.json``), the causal knowledge (``resources/NAME.causal``, with a split's
own in ``resources/SPLIT/NAME.causal``) and the person the paper explains.  The profiles' own
feature settings for a data set (the paper's: sex may change, German's employment must; the
product's: adult's capital gain may only rise, its census weight may not change) are kept apart
in ``resources/NAME.PROFILE.causal`` (and ``SPLIT/NAME.PROFILE.causal``); they travel
with the data set's schema (:func:`mc3g.datasets.load`), and ``MC3G.fit`` lays the chosen
profile's over it, on every route.  ``PAPER_TABLE2`` holds the numbers the paper published, so
that ``mc3g reproduce table2`` can print them beside the recomputed ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from importlib import resources
from os import PathLike
from pathlib import Path
from typing import Any, ClassVar

import pandas as pd

from .causal import CausalModel
from .datasets import JOHN, Dataset, load, shipped_knowledge
from .exceptions import InputError, UnknownNameError
from .explain import MC3G
from .models import ModelFile
from .params import Constraints, Flag, Instance, OneOf, Text, Whole, validate
from .profiles import Profile
from .reading import read_text
from .rules import RuleSet
from .values import suggest


def resource_text(filename: str) -> str:
    return resources.files("mc3g.resources").joinpath(filename).read_text(encoding="utf-8")


def knowledge(ds: Dataset, *, causal_file: str | Path | None = None, only: bool = False) -> CausalModel | None:
    """The causal knowledge of a run on ``ds``: the knowledge shipped for its data set and split
    (``NAME.causal`` and the split's ``SPLIT/NAME.causal``: :func:`~mc3g.datasets.shipped_knowledge`),
    with the file ``causal_file`` added (its rules and constraints join,
    each once, so a copy of the shipped file changes nothing; its feature settings win), or with
    ``only`` that file alone; None when there is none.

    The profiles' settings are not in it: they come with ``ds.schema``, and ``MC3G.fit`` lays the
    chosen profile's over the data's metadata before the knowledge, so they hold either way
    (Table 1 judges its peers by the shipped knowledge over ``ds.schema.under(None)``: neither
    profile's)."""
    if only and causal_file is None:
        raise InputError("only=True uses a causal-knowledge file instead of the knowledge shipped for the data set: name it (causal_file=, --causal-only FILE)")
    mine = CausalModel.load(causal_file, schema=ds.schema) if causal_file is not None else None
    shipped = None if only else shipped_knowledge(ds.schema, ds.split)
    if shipped is None or mine is None:
        return mine if shipped is None else shipped
    return shipped.combined(mine, name=f"{shipped.name} + {mine.name}")


def decision_rules(ds: Dataset, profile: str = Profile.PRODUCT) -> RuleSet:
    """The decision rules for ``ds``.  The rules the paper published for this data set and split
    when they apply: always under ``paper``, under ``product`` only when they describe the data's
    refusal.  Otherwise, under ``product``, FOLD-SE rules of the refusal learned on the training
    split (deterministic; German's take 0.02 s)."""
    from .foldse import FoldSE

    ref = REFERENCES.get(ds.name)
    published = ref.rules if ref is not None and ref.split == ds.split else None
    chosen = Profile.named(profile)
    if published is not None and (not chosen.guarded or {str(r.head.value) for r in published.rules} == {ds.schema.unfavourable}):  # type: ignore[union-attr]
        return published
    if not chosen.guarded:
        raise InputError(
            f"the paper published no decision rules for {ds.name} ({ds.split} split): pass --rules FILE (e.g. the 'rules' of "
            f"`mc3g learn {ds.name} --json`), --model FILE, or use the product profile, which learns them"
        )
    if len(ds.schema.classes) != 2:
        raise InputError(
            f"no decision rules for {ds.name} ({ds.split} split): it has {len(ds.schema.classes)} classes and MC3G explains a "
            "decision between two; pass --rules FILE or --model FILE"
        )
    learner = FoldSE(target=ds.schema.unfavourable, numeric=ds.schema.numeric)
    return learner.fit(ds.X_train, ds.y_train).rules_


FILE = [None, Instance((str, PathLike), "the path of a file")]
RESERVED = {
    "model": "model", "retrain": "retrains (the model's own recipe)", "causal": "causal_file or causal_only", "schema": "the data set",
    "desired_class": "favourable", "profile": "profile",
}  # fmt: skip
"""MC3G's parameters that :class:`ExplainerSettings` sets itself, and the setting that says each."""
HELD = (
    "split", "rules", "causal", "causal_only", "favourable", "profile", "mode", "norm", "candidates", "distinct", "squared", "scaling", "plausible", "hunt",
    "margin", "retrains",
)  # fmt: skip
"""What a saved explainer already holds the answer to, by the names the command line's options and
a service file's ``[explainer]`` keys give them: said again beside a saved explainer, each is refused."""


@dataclass(frozen=True, kw_only=True)
class ExplainerSettings:
    """What an explainer of a data set mc3g knows is fitted from and with: the one typed form of
    the command line's options (``mc3g explain DATASET ...``) and of a service file's
    ``[explainer]`` table, read by :func:`fitted_explainer` alone.  A black box (``model``, with
    its ``favourable`` label when its labels are its own) or decision rules (``rules_file``, else
    the profile's: :func:`decision_rules`); the knowledge shipped for the data set with
    ``causal_file`` added, or the file ``causal_only`` instead of it (:func:`knowledge`); the
    ``profile``; and MC3G's other parameters (``params``: mode, norm, k...), which its own table
    checks at ``fit``.  Each setting and how they combine are checked here, once for both."""

    dataset: str
    split: str | None = None
    model: ModelFile = ModelFile()
    favourable: Any = None
    rules_file: str | PathLike[str] | None = None
    causal_file: str | PathLike[str] | None = None
    causal_only: str | PathLike[str] | None = None
    profile: str = Profile.PRODUCT
    params: Mapping[str, Any] = field(default_factory=dict)

    _parameter_constraints: ClassVar[Constraints] = {
        "dataset": [Text("the name of a data set")],
        "split": [None, Text("the name of a split")],
        "model": [Instance(ModelFile, "a ModelFile")],
        "favourable": [None, Text("a label"), Whole(), Flag()],
        "rules_file": FILE,
        "causal_file": FILE,
        "causal_only": FILE,
        "profile": [OneOf(tuple(Profile))],
        "params": [Instance(Mapping, "a mapping of MC3G's parameters")],
    }

    def __post_init__(self) -> None:
        validate(vars(self), self._parameter_constraints)
        object.__setattr__(self, "profile", Profile(self.profile))
        if self.model.path is not None and self.rules_file is not None:
            raise InputError(
                f"give a model file ({self.model.path}) or a rules file ({self.rules_file}), not both: "
                "a black box is explained through rules learned from its own answers"
            )
        if self.causal_file is not None and self.causal_only is not None:
            raise InputError(
                "causal (--causal) adds a file to the knowledge shipped for the data set and causal_only (--causal-only) uses a file "
                "instead of it: give one of them"
            )
        if self.favourable is not None and self.model.path is None:
            raise InputError("favourable (--favourable) names a label of a model's answers: give it with --model (model = FILE in a service file)")
        taken = [f"{name} (say it as {RESERVED[name]})" for name in self.params if name in RESERVED]
        if taken:
            raise InputError(f"params may not set {', '.join(taken)}")
        known = list(MC3G._parameter_constraints)
        unknown = [name for name in self.params if name not in known]
        if unknown:
            raise UnknownNameError(f"params: {unknown[0]!r} is not a parameter of MC3G; they are {', '.join(known)}{suggest(unknown[0], known)}")
        validate(MC3G(None).get_params() | dict(self.params), MC3G._parameter_constraints)  # a bound may name a parameter not given

    @classmethod
    def of(
        cls, dataset: str, split: str | None = None, *, model_file: Any = None, trust_model: bool = False, trusted_types: Any = None, **options: Any
    ) -> ExplainerSettings:
        """The settings from keywords: the model file and how to read it, the other settings by
        their names, and MC3G's parameters."""
        names = {f.name for f in fields(cls)} - {"dataset", "split", "model", "params"}
        settings = {k: v for k, v in options.items() if k in names}
        params = {k: v for k, v in options.items() if k not in names}
        return cls(dataset=dataset, split=split, model=ModelFile(model_file, trust_model, trusted_types), **settings, params=params)

    def explainer_params(self) -> dict[str, Any]:
        """MC3G's keyword parameters: ``params`` with the profile, and ``favourable`` as ``desired_class``."""
        return {**self.params, "profile": self.profile} | ({"desired_class": self.favourable} if self.favourable is not None else {})


def fitted_explainer(settings: str | ExplainerSettings, split: str | None = None, **options: Any) -> tuple[Dataset, Any]:
    """The data set and an MC3G explainer fitted on its training split, as ``settings`` say (or,
    from Python, a data set's name with the keywords of :meth:`ExplainerSettings.of`): the CLI
    and the service assemble theirs here.  ``split`` defaults to the reference's split (the
    paper's, where it has one)."""
    from .explain import MC3G

    s = settings if isinstance(settings, ExplainerSettings) else ExplainerSettings.of(settings, split, **options)
    ref = REFERENCES.get(s.dataset)
    ds = load(s.dataset, split=s.split or (ref.split if ref else "uci"))
    model: Any
    if s.model.path is not None:
        model = s.model.load()
    elif s.rules_file is not None:
        model = _rules_file(s.rules_file)
    else:
        model = decision_rules(ds, s.profile)
    causal = knowledge(ds, causal_file=s.causal_only or s.causal_file, only=s.causal_only is not None)
    X_train = ds.train.drop(columns=[ds.schema.label]) if s.model.path is not None else ds.X_train  # a black box may read every column
    _check_split(model, X_train, ds, s.model.path)
    params, y = s.explainer_params(), None
    if "retrains" in params:  # the model file's own recipe, fitted again on resamples of the training split
        if s.model.path is None:
            raise InputError("retrains fits the model again on resampled data: give the model's file (--model)")
        params["retrain"], y = model, ds.train[ds.schema.label]
    return ds, MC3G(model, causal, schema=ds.schema, **params).fit(X_train, y)


def _check_split(model: Any, X: pd.DataFrame, ds: Dataset, path: Any) -> None:
    """A model file fitted on columns this split of the data set lacks is refused before it is
    asked anything, naming them and the split that has them (adult's paper split has no
    ``education`` or ``capital_loss``; Python's ``load`` gives the UCI split by default)."""
    wanted = [str(c) for c in getattr(model, "feature_names_in_", ())]
    absent = [c for c in wanted if c not in X.columns]
    if not absent:
        return
    other = [split for split in ("uci", "paper") if split != ds.split]
    hint = f"; its {other[0]} split has them: give --split {other[0]}" if other and set(absent) <= set(load(ds.name, split=other[0]).train.columns) else ""
    raise InputError(f"the model {path} was fitted on columns the {ds.name} {ds.split} split lacks: {absent}{hint}")


def encoded(estimator: Any, X: pd.DataFrame, numeric: list[str], numbers: Any = None) -> Any:
    """``estimator`` behind dense one-hot categories and scaled numbers (or ``numbers``, a
    transformer of them: a scorecard's bins): how a lender's model of a data set is built in the
    examples and the benchmarks."""
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    categories = [c for c in X.columns if c not in numeric]
    numbers = StandardScaler() if numbers is None else numbers
    encode = ColumnTransformer([("categories", OneHotEncoder(handle_unknown="ignore", sparse_output=False), categories), ("numbers", numbers, numeric)])
    return make_pipeline(encode, estimator)


def card_issuer(k: int = 3) -> tuple[Dataset, MC3G, pd.Series]:
    """The card issuer's example (``mc3g demo --data taiwan``): a histogram gradient boosting of
    whether a client of the Taiwan data set defaults next month, fitted on the 24,000 training
    clients behind one-hot categories and scaled numbers, explained under the product profile
    with its decision read exactly; and the first test client it refuses."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    ds = load("taiwan")
    X = ds.train.drop(columns=[ds.schema.label])
    model = encoded(HistGradientBoostingClassifier(max_iter=100, random_state=0), X, list(ds.schema.numeric)).fit(X, ds.train[ds.schema.label])
    favourable = next(c for c in ds.schema.classes if c != ds.schema.unfavourable)
    explainer = MC3G(model, knowledge(ds), schema=ds.schema, k=k, desired_class=favourable).fit(X)
    test = ds.test.drop(columns=[ds.schema.label])
    return ds, explainer, test[explainer.refuses(test)].iloc[0]


def _rules_file(path: str | Path) -> RuleSet:
    """Decision rules from a JSON file (``RuleSet.to_json``); every problem names the file."""
    text = read_text(path, "rules file")  # names the file itself: not one, too large, not UTF-8
    try:
        return RuleSet.from_json(text)
    except InputError as exc:
        raise InputError(f"{path}: {exc}") from None


@dataclass(frozen=True)
class Reference:
    name: str
    dataset: str
    split: str
    person: int | None  # the paper's person: a test-row position (German: the row with id 11), or None for John
    description: str

    @property
    def rules(self) -> RuleSet:
        """The decision rules the paper published."""
        return RuleSet.from_json(resource_text(f"{self.name}.rules.json"))

    def data(self) -> Dataset:
        return load(self.dataset, split=self.split)

    def causal(self, ds: Dataset | None = None) -> CausalModel:
        """The knowledge shipped for the data set (the profile's settings come with its schema)."""
        return knowledge(ds or self.data()) or CausalModel()

    def person_row(self, ds: Dataset | None = None) -> pd.Series:
        if self.person is None:
            return pd.Series(JOHN)
        ds = ds or self.data()
        return ds.X_test.iloc[self.person]  # German's published id is the row's position in its file

    def explainer(self, ds: Dataset | None = None, *, profile: str = Profile.PRODUCT, **params: Any):
        """An MC3G explainer fitted on the training split with the profile's rules and knowledge."""
        from .explain import MC3G

        ds = ds or self.data()
        rules = decision_rules(ds, profile)
        return MC3G(rules, self.causal(ds), schema=ds.schema, profile=profile, **params).fit(ds.X_train)


REFERENCES = {
    "adult": Reference("adult", "adult", "paper", 1, "Adult: marital status, relationship, sex, capital gain, education"),
    "german": Reference("german", "german", "paper", 11, "German credit: the paper leaves the FOLD-SE rules of 'good' credit (its quirk)"),
    "cars": Reference("cars", "cars", "paper", 2, "Cars: persons, safety, buying, maint; no causal rules"),
    "loan": Reference("loan", "loan", "default", None, "The paper's running example: John and his loan"),
}


def reference(name: str) -> Reference:
    try:
        return REFERENCES[name]
    except KeyError:
        raise InputError(f"no reference experiment {name!r}; there are {list(REFERENCES)}") from None


# The paper's Table 2: (nearest K=1, furthest K=20, average of the 20) per data set, mode, norm.
PAPER_TABLE2: dict[str, dict[str, dict[str, tuple[float, float, float]]]] = {
    "adult": {
        "none": {"l1": (1.012, 1.470, 1.296), "l2": (1.012, 1.221, 1.113), "l0": (1, 1, 1)},
        "explained": {"l1": (0.701, 1.031, 0.907), "l2": (0.701, 0.903, 0.829), "l0": (1, 1, 1)},
    },
    "german": {
        "none": {"l1": (3.334, 3.341, 3.337), "l2": (1.764, 1.764, 1.764), "l0": (4, 4, 4)},
        "explained": {"l1": (2.334, 2.341, 2.337), "l2": (1.453, 1.453, 1.453), "l0": (3, 3, 3)},
    },
    "cars": {
        "none": {"l1": (1, 3, 2.3), "l2": (1, 1.732, 1.499), "l0": (1, 3, 2.3)},
        "explained": {"l1": (1, 3, 2.3), "l2": (1, 1.732, 1.499), "l0": (1, 3, 2.3)},
    },
}
