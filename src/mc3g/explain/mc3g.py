"""The MC3G estimator: least-effort counterfactuals that respect the causal knowledge.

Dasgupta, Halim, Arias, Salazar, Gupta: "MC3G: Model Agnostic Causally Constrained
Counterfactual Generation", NeSy 2025 (arXiv 2508.17221).  ``fit`` reads the data once (the
surrogate rules of a black box, feature spreads and domains) into an :class:`Engine`;
``explain`` answers one person or a frame of people; ``session`` hands one person's search to a
driver that asks the model itself (a batch, a service, a cluster worker).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from os import PathLike
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from ..causal import CausalModel
from ..engine import MEASURED, Engine, HuntSettings, K, SearchSettings, checked_k, person
from ..exceptions import InputError, listed
from ..foldse import FoldSE
from ..models import BlackBox
from ..params import Constraints, Free, Instance, Number, OneOf, Text, Texts, Whole, validate
from ..profiles import check_protections
from ..rules import Rule, RuleSet, Words
from ..schema import Schema
from ..search import Problem, Program
from . import persist
from .batch import explain_rows
from .metadata import causal_model, check_frame, covering, schema_of_rules, unfavourable_class, unfavourable_label, with_data_bounds, with_dice_settings
from .readable import READ_MODEL, encoded, glass_of
from .refine import refine
from .result import Recourse, RunRecord
from .robust import robust_engine
from .session import Session
from .surrogate import Surrogate, build_surrogate
from .whatif import WhatIf, what_if


class MC3G(BaseEstimator):
    """Counterfactual explanations under causal knowledge, for rules or for any classifier.

    Parameters
    ----------
    model : the decision.  A :class:`~mc3g.rules.RuleSet` whose rules describe the unfavourable
        outcome is used as it is; anything else with ``predict`` (a scikit-learn estimator or
        pipeline, xgboost, lightgbm) or a plain function from a DataFrame to labels is a black
        box: ``fit`` learns FOLD-SE rules of its predictions (the surrogate), and every
        counterfactual is checked with the black box before it is returned.
    causal : a :class:`CausalModel`, a path to a causal-knowledge file, or None.
    mode : the cost mode: ``"derived"`` (MC3G: changes that follow from the person's actions are
        free), ``"explained"`` (the authors' published code) or ``"none"`` (C3G: every change costs).
    norm : ``"l0"``, ``"l1"`` or ``"l2"`` (``root=False`` for the squared L2).
    k : how many counterfactuals, least cost first (``total_CFs`` is DiCE's name for it).
    candidates : the candidate scheme: ``"exact"`` (the true optimum over each domain) or
        ``"data"`` (the authors' scheme: the ``data_k`` nearest training values per region).
    scaling : numeric changes in units of the training ``"std"`` or ``"mad"``.
    plausible : only values seen in the training data.
    schema : feature kinds and metadata (and the unfavourable class); by default read off the
        data given to ``fit``.  A shipped data set's schema (``load(name).schema``) also carries
        each profile's settings for it, and ``fit`` lays the chosen profile's over the metadata
        before the causal knowledge (see :meth:`~mc3g.schema.Schema.under`).
    desired_class : ``"opposite"`` (leave the unfavourable class) or the favourable label.
    features_to_vary, permitted_range, feature_weights : DiCE's names: the features that may
        change (the others are immutable), ``{feature: [low, high]}`` or ``{feature: [values]}``,
        and ``{feature: weight}``.
    ratio, tail : FOLD-SE's settings for the surrogate; ``holdout`` is the share of the data kept
        aside to measure the surrogate's fidelity (``random_state`` picks it).
    max_states : how many candidate states the model may judge for one person.
    refine : rounds of refining a black box's surrogate at ``fit`` with rows drawn around refused
        training rows and judged by the model, the rules' mistakes among them counterexamples
        (see :mod:`mc3g.explain.refine`); 0 keeps the rules first learned.
    local : where a black box's surrogate does not refuse a refused person, or the model keeps
        rejecting what it lets through, learn rules from rows around the person (see
        :mod:`mc3g.hunt`).
    profile : ``"product"`` (advice for an applicant: the schema's immutable and one-way features,
        and the product's settings for a shipped data set, hold whatever the causal knowledge
        says (it may add protections, not lift them), decision rules must describe the schema's
        refusal, distinct options) or ``"paper"`` (the MC3G paper's settings, to reproduce its
        tables: the knowledge may lift protections, the K nearest states); see
        :mod:`mc3g.profiles`.
    distinct : options that truly differ: each option's set of direct actions contains the set of
        no cheaper option, and each is the least-cost state of its set (see
        :class:`~mc3g.search.ActionSets`); ``False``: the K cheapest states; ``None``: as the
        profile says.
    hunt : how far a black box's search goes and how many rows a round asks: None (the defaults),
        a mapping of :class:`~mc3g.engine.HuntSettings`' fields, or ``"measured"``: the
        defaults with fewer rows a round where ``fit`` times the model's rows as dear (kept in
        ``hunt_`` and saved; they depend on the machine). Not with decision rules: their search
        asks no model.
    n_jobs : processes for explaining a DataFrame of people (-1 or below: every core).
    read_model : a black box's own decision read exactly and searched as it is (tree ensembles and
        linear classifiers of scikit-learn, XGBoost and LightGBM, alone or behind column-wise
        encoders and scalers, see :mod:`mc3g.glassbox`): ``"auto"`` where it can be,
        ``"always"`` (an error where it cannot), ``"never"`` (the surrogate's search).  Each
        answer's run record says which: ``rules`` is ``model`` when it was read.
    margin, retrain, retrains, survive : options that hold (:mod:`mc3g.models.robust`): the model's
        probability of approval at least ``margin`` past where its decision turns; ``retrain``,
        the lender's recipe (an estimator, cloned, or a function of ``(X, y)``), fitted again on
        ``retrains`` bootstrap resamples at ``fit``, each option's ``survival`` the share of them
        that accept it, at least ``survive`` (None: ``product`` all, ``paper`` measured only).
    What each parameter accepts is declared once, in ``_parameter_constraints``, and checked at
    ``fit`` (:func:`mc3g.params.validate`).
    """

    _parameter_constraints: ClassVar[Constraints] = {
        **SearchSettings._parameter_constraints,
        "model": [Free("a RuleSet, a model with predict or a function of a DataFrame (checked at fit)")],
        "causal": [None, Instance((CausalModel, str, PathLike), "a CausalModel or the path of a causal-knowledge file")],
        "k": K,
        "total_CFs": [None, *K],
        "schema": [None, Instance(Schema, "a Schema")],
        "desired_class": [Free("'opposite' or the label of the model's favourable class (checked at fit)")],
        "features_to_vary": [Text("'all' or a feature's name"), Texts("a list of feature names")],
        "permitted_range": [None, Instance(Mapping, "a mapping of feature -> [low, high] or [values]")],
        "feature_weights": [None, Instance(Mapping, "a mapping of feature -> weight")],
        "ratio": FoldSE._parameter_constraints["ratio"],
        "tail": FoldSE._parameter_constraints["tail"],
        "holdout": [Number(0, 1, closed="left")],
        "refine": [Whole(0, 20)],
        "n_jobs": [Whole(1, because="processes"), Whole(high=-1, because="every core")],
        "read_model": [OneOf(READ_MODEL)],
        "margin": [Number(0, 0.5, closed="left", of="probability")],
        "retrain": [None, Free("an estimator to clone or a function of (X, y) returning a fitted model")],
        "retrains": [Whole(1, 100)],
        "survive": [None, Number(0, 1)],
    }

    def __init__(
        self,
        model: Any,
        causal: CausalModel | str | Path | None = None,
        *,
        mode: str = "derived",
        norm: str = "l1",
        k: int = 1,
        candidates: str = "exact",
        scaling: str = "std",
        root: bool = True,
        plausible: bool = False,
        data_k: int = 20,
        schema: Schema | None = None,
        total_CFs: int | None = None,  # noqa: N803 - DiCE's name
        desired_class: Any = "opposite",
        features_to_vary: str | list[str] = "all",
        permitted_range: dict[str, list[Any]] | None = None,
        feature_weights: dict[str, float] | None = None,
        ratio: float = 0.5,
        tail: float = 0.005,
        holdout: float = 0.2,
        random_state: int = 0,
        max_states: int = 2000,
        refine: int = 2,
        local: bool = True,
        profile: str = "product",
        distinct: bool | None = None,
        hunt: str | Mapping[str, Any] | None = None,
        n_jobs: int = 1,
        read_model: str = "auto",
        margin: float = 0.0,
        retrain: Any = None,
        retrains: int = 10,
        survive: float | None = None,
    ) -> None:
        for name, value in dict(locals()).items():  # scikit-learn's way: every parameter kept as given, checked at fit
            if name != "self":
                setattr(self, name, value)

    # -- fitting -------------------------------------------------------------------------------
    def fit(self, X: pd.DataFrame, y: Any = None) -> MC3G:
        """Read the data: the surrogate rules of a black box (and their fidelity), the spreads and
        domains of the features, the causal knowledge checked against them; ``y``, the training
        labels, only to retrain the model (``retrain``)."""
        params = self.get_params(deep=False)
        validate(params, self._parameter_constraints)
        settings = SearchSettings.of(params)
        if not isinstance(X, pd.DataFrame) or X.empty:
            raise InputError("fit needs the training data as a non-empty DataFrame")
        self.feature_names_in_ = np.array(X.columns, dtype=object)
        self.n_features_in_ = X.shape[1]
        black_box: BlackBox | None = None
        self.surrogate_: Surrogate | None = None
        if isinstance(self.model, RuleSet):
            if self.hunt is not None:
                raise InputError(f"hunt={self.hunt!r} sizes the search with a black box, and the model is decision rules: leave hunt out")
            rules = self.model
            base = self.schema or schema_of_rules(X, rules)
        else:
            black_box = BlackBox.of(self.model, X)
            X = black_box.as_fitted(X)  # what fit hands the model itself (retrained, the reading's check) as the model takes it
            base = covering(self.schema, X)
            labels, learn = self._surrogate(black_box, X, base)
            if self.hunt == MEASURED:
                settings = replace(settings, hunt=settings.hunt.priced(*black_box.cost(X)))
            self.surrogate_ = learn(None)
            rules = self.surrogate_.rules
        causal = causal_model(self.causal, self.schema)
        guarded = settings.profile.guarded
        schema = causal.schema(base.under(settings.profile))  # the profile's settings for the data set, then the knowledge
        if guarded:
            check_protections(base, schema, causal, settings.profile)
        schema = with_data_bounds(schema, X)
        schema = with_dice_settings(schema, self.features_to_vary, self.permitted_range, self.feature_weights)
        unfavourable = unfavourable_class(rules, schema, guarded=guarded and black_box is None)
        if black_box is not None:
            black_box.unfavourable = unfavourable
        fidelity = self.surrogate_.fidelity if self.surrogate_ else None
        self.engine_ = Engine.from_data(X, rules, causal, schema, unfavourable, settings, black_box, fidelity)
        if self.surrogate_ is not None and self.refine:
            self.engine_, self.surrogate_ = refine(self.engine_, X, labels, self.surrogate_, learn, self.refine, self.holdout)
        self.engine_ = self.engine_.with_glass(*glass_of(self.engine_, self.model, self.read_model, X, self.random_state, self.margin))
        if black_box is not None:
            black_box.encoded = encoded(self.engine_, self.model, X, self.random_state)
        self.engine_ = robust_engine(self.engine_, self.get_params(deep=False), X, y)
        return self

    def _surrogate(self, black_box: BlackBox, X: pd.DataFrame, base: Schema) -> tuple[np.ndarray, Callable[[Any], Surrogate]]:
        """The black box's labels of ``X``, and MC3G's extract_logic: FOLD-SE rules of them,
        learned with the extra rows and labels it is given (the model's verdicts on rows it
        judged), if any."""
        labels = black_box.labels_of(X)
        classes = sorted(set(labels))
        if len(classes) != 2:
            raise InputError(f"the model predicts {len(classes):,} class(es) [{listed(classes)}] on the data; MC3G needs two")
        black_box.labels = tuple(classes)
        return labels, lambda extra: build_surrogate(
            X, labels, unfavourable=unfavourable_label(self.desired_class, classes, base), numeric=[c for c in base.numeric if c in X.columns],
            label=base.label if base.label != "__label__" else "decision",
            ratio=self.ratio, tail=self.tail, holdout=self.holdout, random_state=self.random_state, extra=extra,
        )  # fmt: skip

    # -- what fit learned ------------------------------------------------------------------------
    @property
    def rules_(self) -> RuleSet:
        """The decision rules: the model itself, or its surrogate."""
        return self._engine().rules

    @property
    def fidelity_(self) -> float | None:
        """The surrogate's agreement with the black box on held-out rows (None for rules)."""
        return self._engine().fidelity

    @property
    def black_box_(self) -> BlackBox | None:
        return self._engine().black_box

    @property
    def hunt_(self) -> HuntSettings:
        """The black-box search's settings in use (``hunt``'s, or priced at ``fit``)."""
        return self._engine().settings.hunt

    @property
    def schema_(self) -> Schema:
        return self._engine().schema

    @property
    def causal_(self) -> CausalModel:
        return self._engine().causal

    @property
    def unfavourable_(self) -> str:
        return self._engine().unfavourable

    @property
    def decision_rules_(self) -> list[Rule]:
        """The rules of the unfavourable class: the ones a counterfactual must escape."""
        return self._engine().decision

    @property
    def words_(self) -> Words:
        """How a person reads the features and their values: the schema's labels."""
        return self._engine().words

    @property
    def features_in_play_(self) -> list[str]:
        """The features a counterfactual may touch; the others keep the person's values."""
        return self._engine().features

    def _engine(self) -> Engine:
        check_is_fitted(self, "engine_")
        return self.engine_

    # -- explaining ----------------------------------------------------------------------------
    def explain(self, rows: pd.DataFrame | pd.Series | Mapping[str, Any], k: int | None = None, progress: bool = False) -> Recourse | list[Recourse]:
        """Counterfactuals for one row (a Series or mapping) or for every row of a DataFrame (in
        ``n_jobs`` processes, with a progress bar when ``progress``)."""
        if isinstance(rows, pd.DataFrame):
            return [result for _, result in self.explain_each(rows, k, progress=progress)]
        return self.session(rows, k).run(self.refuses_rows)

    def explain_each(self, rows: pd.DataFrame, k: int | None = None, progress: bool = False) -> Iterator[tuple[Any, Recourse]]:
        """(index, answer) for every row, in order, as they are ready.  A row whose answer fails
        (a black box that raises, a bad value) gets an ``error`` answer; the others go on."""
        self._engine()
        return explain_rows(self, rows, self._k(k), n_jobs=self.n_jobs, progress=progress)

    def session(self, row: pd.Series | Mapping[str, Any], k: int | None = None, where: str | None = None) -> Session:
        """One person's search, for a driver that asks the model itself (see :class:`Session`);
        ``where`` names the row in an error (by default its label, for a Series)."""
        values, named = person(row)
        return Session(self._engine(), values, self._k(k), where or named)

    def whatif(self, row: pd.Series | Mapping[str, Any], changes: Mapping[str, Any]) -> WhatIf:
        """What follows if the person makes ``changes`` (feature -> value) themselves: the state,
        what it forces, what it breaks, the decision there and its cost (see :class:`WhatIf`)."""
        values, where = person(row)
        return what_if(self._engine(), values, changes, where)

    def refuses_rows(self, rows: Sequence[Mapping[str, Any]]) -> list[bool]:
        """Whether the model refuses each row: one ``predict`` call for a black box, the decision
        rules otherwise."""
        engine = self._engine()
        if engine.black_box is not None:
            return engine.black_box.refuses(rows)
        return [bool(engine.firing(engine.instance(row, f"row {i}"))) for i, row in enumerate(rows)]

    def refuses(self, X: pd.DataFrame) -> np.ndarray:
        """Which rows of ``X`` the model refuses (one ``predict`` call for a black box); the
        features in play are checked as a person's are."""
        engine = self._engine()
        check_frame(engine.schema.select([f for f in engine.features if f in X.columns]), X, "X")
        box = engine.black_box
        if box is not None:
            box.check_columns(dict.fromkeys(X.columns))
            return box.labels_of(X[box.columns]) == engine.unfavourable
        return engine.refuses(X)

    def run_record(self, k: int | None = None) -> RunRecord:
        """The settings part of an answer's run record (what every answer with ``k`` shares)."""
        return RunRecord.of(self._engine(), self._k(k))

    def _k(self, k: int | None) -> int:
        name, chosen = ("k", k) if k is not None else ("total_CFs", self.total_CFs) if self.total_CFs is not None else ("k", self.k)
        return checked_k(chosen, self._engine().settings.max_states, name)

    def problem(self, row: pd.Series | Mapping[str, Any], k: int | None = None) -> Problem:
        """The search problem for one person (what :meth:`explain` solves)."""
        engine = self._engine()
        return engine.problem(engine.instance(*person(row)), self._k(k))

    def program(self, row: pd.Series | Mapping[str, Any], k: int | None = None) -> str:
        """The ASP program (decision rules, causal knowledge, the person, the query) for clingo."""
        return Program(self.problem(row, k)).text()

    # -- saving --------------------------------------------------------------------------------
    def save(self, path: str | Path, model_file: str | Path | None = None) -> None:
        """Write the fitted explainer as a versioned JSON document (no pickle).  A black box is
        not embedded: ``model_file`` names the file it is kept in, and its SHA-256 is recorded; a
        ``.skops`` or ``.onnx`` file is one :func:`~mc3g.models.load_model` reads without running code."""
        engine = self._engine()
        if self.retrain is not None:
            raise InputError("an explainer with retrained models cannot be saved (they would need files of their own): save one fitted without retrain")
        params = {k: v for k, v in self.get_params(deep=False).items() if k not in ("model", "causal", "schema", "retrain")}
        persist.save(Path(path), params, list(self.feature_names_in_), engine, self.surrogate_, model_file)

    @classmethod
    def load(cls, path: str | Path, model: Any = None) -> MC3G:
        """An explainer saved with :meth:`save`, ready to explain; a black box's explainer needs
        the ``model``: ``load_model(model_file)`` (a pickle only with ``trust_model=True``), whose
        bytes must have the SHA-256 the document records (a model object made otherwise is taken
        as given)."""
        saved = persist.load(Path(path), model, cls._parameter_constraints)
        explainer = cls(saved.engine.rules if model is None else model, **saved.params)
        explainer.feature_names_in_ = np.array(saved.columns, dtype=object)
        explainer.n_features_in_ = len(saved.columns)
        explainer.surrogate_ = saved.surrogate
        explainer.engine_ = saved.engine
        return explainer
