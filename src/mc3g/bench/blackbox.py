"""MC3G against DiCE random and CFNOW on black boxes of every kind (``mc3g bench blackbox``).

For each data set (adult on the paper's split, German on UCI's) and each black box, the first
``rows`` test rows the model refuses are explained by MC3G and by DiCE random with K options, on
the same rows, interleaved row by row (MC3G, then DiCE, then CFNOW's greedy search on the first
rows, :mod:`.peers`, then the next row), one row per call; then MC3G explains all the rows in
one call (its questions to the model pooled).  Every answer of each is judged again with the
model's own ``predict`` and checked with the independent checker
(:func:`mc3g.explain.violations`) against the causal knowledge and the data's own metadata.

The cost compared is Table 1's L1 of the direct actions (numbers in training standard
deviations, a category 1; MC3G's caused changes are free): per row, MC3G's cheapest option
against DiCE's cheapest valid and consistent one, on the rows where both have one.  A greedy
descent, as CFNOW's local search goes, is also started from each of MC3G's options
(:func:`~.descent.greedy_descent`): the rows whose cheapest option it takes to a cheaper state
(the model accepting it, the knowledge allowing it, priced as MC3G prices), and the later
options it takes to a cheaper state that is none of the answer's, are answers a local search
would have improved.

Each asks the model through a counter, so the run also says how many ``predict`` calls each makes
per query, and what one call of one row costs (and each row more, as ``hunt="measured"`` times
it): a verified search pays at least that per call, which bounds the ratio MC3G could reach
even if its own work cost nothing.  MC3G's run records
say how many rounds of questions each person took and how many rows they held, and how long it
searched (``search_seconds``, the time waiting for the model left out): its own work per person,
also measured in CPU time (less the CPU its model's ``predict`` took), which a shared machine
inflates less than the clock, and split by the part of the search it went to
(``seconds_by_phase``), so the parts worth making cheaper are named by the run itself.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin

from ..causal import CausalModel
from ..datasets import load
from ..explain import ASKING, MC3G, Recourse, violations
from ..methods import explainer
from ..models import BlackBox
from ..profiles import Profile
from ..reference import knowledge
from ..search import spread
from .descent import greedy_cheaper
from .peers import Cfnow, CfnowAsked, CfnowRun
from .table1 import SETTINGS, SURROGATE_TAIL, Labelled, black_box, direct_cost

KINDS = ("gbm", "rf", "lr", "mlp", "xgb")


@dataclass(frozen=True)
class BlackBoxRun:
    dataset: str
    model: str  # the classifier's class (xgboost's, behind its label adapter)
    profile: str
    rows: int  # refused test rows explained by both
    fidelity: float | None  # the surrogate's agreement with the model on held-out training rows, as first learned
    fidelity_refined: float | None  # the same after refinement with counterexamples
    near: float | None  # agreement near refused people (held-out neighbours), as first learned
    near_refined: float | None  # the same after refinement
    rules: int  # the surrogate's rules after refinement
    fit_seconds: float
    mc3g_answered: int  # rows with at least one option
    dice_answered: int
    dice_good: int  # rows where DiCE has a valid, causally consistent counterfactual
    missed: int  # of those, rows MC3G leaves unanswered
    dearer: int  # rows where MC3G's cheapest option costs more than DiCE's cheapest good one
    greedy_cheaper: int  # rows where a greedy descent from MC3G's cheapest option reaches a cheaper one (:func:`greedy_descent`)
    greedy_cheaper_later: int  # MC3G's other options from which one reaches a cheaper state that is none of the row's options
    later_options: int  # MC3G's options after each row's first
    mc3g_validity: float | None  # % of options the model accepts
    dice_validity: float | None
    mc3g_consistency: float | None  # % of options that break no knowledge or metadata
    dice_consistency: float | None
    both: int  # rows where both have a good answer
    mc3g_l1: float | None  # mean cheapest L1 on those rows
    dice_l1: float | None
    judged_mean: float  # states the model judged per person (MC3G)
    judged_most: int
    mc3g_seconds: float  # per query, one row per call
    mc3g_pooled_seconds: float  # per query, all rows in one call
    dice_seconds: float  # per query
    ratio: float  # DiCE's mean seconds per query / MC3G's, one row per call
    median_ratio: float  # the median of the per-row ratios
    mc3g_calls: float  # the model's predict calls per query, one row per call
    dice_calls: float
    rounds_median: float  # MC3G's rounds of questions per person (its run record): its calls when explained alone
    rounds_most: int
    rows_per_round: float  # rows MC3G asks the model per round, over every round of every person
    own_ms: float  # MC3G's own work per person, the median: its search_seconds (the clock, the model's calls left out), in ms
    own_cpu_ms: float  # the same in CPU time: explain's less its model's predict calls', in ms
    call_seconds: float  # the least time one predict call of one row took
    row_seconds: float  # and each row more (BlackBox.cost, as hunt="measured" times it)
    bound: float  # DiCE's mean seconds per query / (MC3G's calls x call_seconds): the ratio if MC3G's own work cost nothing
    rounds_by_phase: dict[str, float]  # MC3G's rounds per person by the part of the search that asked them (run records), the mean
    ms_by_phase: dict[str, float]  # MC3G's own work per person by the part of the search it went to (run records), the mean, in ms
    hunt: dict[str, Any]  # MC3G's black-box search settings that differ from the defaults (``--hunt measured``: priced at fit)
    cfnow: CfnowRun | None  # CFNOW's greedy search on the first rows (:mod:`.peers`); None where it did not run

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def blackbox_benchmark(
    datasets: tuple[str, ...] = ("adult", "german"),
    kinds: tuple[str, ...] = KINDS,
    rows: int = 30,
    k: int = 3,
    profile: str = Profile.PRODUCT,
    progress: Callable[[str], None] | None = None,
    hunt: str | Mapping[str, Any] | None = None,
    cfnow: Cfnow = Cfnow(),
) -> list[BlackBoxRun]:
    """One :class:`BlackBoxRun` per data set and black box, with one thread per native thread
    pool: scikit-learn's OpenMP threads spin on a busy 2-core machine (one histogram-boosting
    ``predict`` took 240 ms instead of 6 ms), and DiCE and MC3G must run alike.  ``hunt`` is
    MC3G's (``"measured"``: its rounds sized by what the model charges for rows; or some of its
    settings); ``cfnow`` how CFNOW's greedy search runs beside them (:mod:`.peers`)."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        return [_run(name, kind, rows, k, profile, progress, hunt, cfnow) for name in datasets for kind in kinds]


def _run(
    name: str, kind: str, n_rows: int, k: int, profile: str, progress: Callable[[str], None] | None, hunt: str | Mapping[str, Any] | None, cfnow: Cfnow
) -> BlackBoxRun:
    fitted = _fit(name, kind, n_rows, k, profile, hunt, cfnow)
    return _judged(fitted, _asked(fitted, progress))


@dataclass(frozen=True)
class _Fitted:
    """One data set's black box, MC3G, DiCE random and CFNOW fitted on it (each asking it through
    its own counter), the refused test rows they explain, and the judge of their answers."""

    name: str
    kind: str
    profile: str
    model: Any
    mc3g: MC3G
    dice: Any
    ours_box: Counted
    their_box: Counted
    fit_seconds: float  # MC3G's
    refused: pd.DataFrame
    judge: _Judge
    cfnow: CfnowAsked | None


def _fit(name: str, kind: str, n_rows: int, k: int, profile: str, hunt: str | Mapping[str, Any] | None = None, cfnow: Cfnow = Cfnow(rows=0)) -> _Fitted:
    dataset, split = SETTINGS[name]
    ds = load(dataset, split=split)
    X_train, X_test = ds.train.drop(columns=[ds.schema.label]), ds.test.drop(columns=[ds.schema.label])
    model = black_box(ds, kind)
    causal = knowledge(ds) or CausalModel()
    schema = causal.schema(ds.schema.under(profile))  # the profile's metadata: DiCE is told its immutable features
    (ours, ours_box), (theirs, their_box) = counted(model), counted(model)
    start = time.perf_counter()
    mc3g = MC3G(ours, causal, schema=ds.schema, k=k, tail=SURROGATE_TAIL[name], profile=profile, hunt=hunt).fit(X_train)
    fit_seconds = time.perf_counter() - start
    numeric = [c for c in X_train.columns if c in ds.schema.numeric]
    vary = [c for c in X_train.columns if not schema.feature(c).immutable]
    dice = explainer("dice", theirs, causal, k=k, method="random", timeout=60, continuous=numeric, features_to_vary=vary).fit(X_train)
    refused = X_test[model.predict(X_test).astype(str) == ds.schema.unfavourable].iloc[:n_rows]
    judge = _Judge(model, X_train.dtypes, ds.schema.unfavourable, causal, schema, {c: spread(X_train[c]) for c in numeric})
    peer = CfnowAsked(cfnow, *counted(model), k, vary, numeric, X_train) if cfnow.rows else None
    return _Fitted(name, kind, profile, model, mc3g, dice, ours_box, their_box, fit_seconds, refused, judge, peer)


@dataclass(frozen=True)
class _Answers:
    """Both methods' answers for the same rows, one row per call, interleaved, with the seconds
    each query took (MC3G's also in CPU, its model's calls left out) and the model's calls per
    query; MC3G's seconds per query with every row in one call; the least one call of one row
    took, and each row more."""

    ours: list[Recourse]
    theirs: list[Recourse]
    t_ours: list[float]
    t_theirs: list[float]
    cpu_ours: list[float]
    calls: tuple[float, float]  # MC3G's, DiCE's
    pooled_seconds: float
    call_seconds: float
    row_seconds: float


def _asked(fitted: _Fitted, progress: Callable[[str], None] | None) -> _Answers:
    """MC3G then DiCE (then CFNOW, on its rows) on each row in turn; then MC3G on every row in one
    call, whose answers must be those it gave one row at a time."""
    refused, ours_box, their_box = fitted.refused, fitted.ours_box, fitted.their_box
    ours, theirs, t_ours, t_theirs, cpu_ours = [], [], [], [], []
    ours_box.calls = their_box.calls = 0
    for i, (_, row) in enumerate(refused.iterrows()):
        if progress:
            progress(f"{fitted.name}, {fitted.kind}: row {i + 1} of {len(refused)}")
        start, cpu, model_cpu = time.perf_counter(), time.process_time(), ours_box.cpu
        ours.append(fitted.mc3g.explain(row))
        t_ours.append(time.perf_counter() - start)
        cpu_ours.append(time.process_time() - cpu - (ours_box.cpu - model_cpu))
        start = time.perf_counter()
        theirs.append(fitted.dice.explain(row))
        t_theirs.append(time.perf_counter() - start)
        if fitted.cfnow is not None:
            fitted.cfnow.ask(i, row)
    calls = (ours_box.calls / max(len(refused), 1), their_box.calls / max(len(refused), 1))
    call_seconds, row_seconds = BlackBox.of(fitted.model, refused).cost(refused, repeats=21) if len(refused) else (math.nan, math.nan)
    start = time.perf_counter()
    pooled = fitted.mc3g.explain(refused)
    pooled_seconds = (time.perf_counter() - start) / max(len(refused), 1)
    if [a.to_dict()["counterfactuals"] for a in pooled] != [a.to_dict()["counterfactuals"] for a in ours]:
        raise AssertionError(f"{fitted.name}, {fitted.kind}: MC3G's pooled answers differ from its answers one row at a time")
    return _Answers(ours, theirs, t_ours, t_theirs, cpu_ours, calls, pooled_seconds, call_seconds, row_seconds)


def _judged(fitted: _Fitted, answers: _Answers) -> BlackBoxRun:
    """The run's figures: every answer judged again by the model and the checker, and the times."""
    model, mc3g, refused, judge = fitted.model, fitted.mc3g, fitted.refused, fitted.judge
    ours, theirs, t_ours, t_theirs, calls, call_seconds = answers.ours, answers.theirs, answers.t_ours, answers.t_theirs, answers.calls, answers.call_seconds
    mine = [judge(row, answer) for (_, row), answer in zip(refused.iterrows(), ours)]
    dices = [judge(row, answer) for (_, row), answer in zip(refused.iterrows(), theirs)]
    good_dice = [min((c for c, valid, consistent in r if valid and consistent), default=None) for r in dices]
    best_mine = [min((c for c, _, _ in r), default=None) for r in mine]
    both = [(m, d) for m, d in zip(best_mine, good_dice) if m is not None and d is not None]
    surrogate = mc3g.surrogate_
    ratios = np.array(t_theirs) / np.array(t_ours)
    judged = [a.run.judged_by_model or 0 for a in ours]
    rounds = [a.run.model_rounds or 0 for a in ours]
    return BlackBoxRun(
        fitted.name, type(model[-1].estimator if isinstance(model[-1], Labelled) else model[-1]).__name__, fitted.profile, len(refused),
        surrogate.first_fidelity if surrogate else None, surrogate.fidelity if surrogate else None,
        surrogate.first_near if surrogate else None, surrogate.near if surrogate else None,
        mc3g.rules_.n_rules, fitted.fit_seconds,
        sum(bool(a.counterfactuals) for a in ours), sum(bool(a.counterfactuals) for a in theirs),
        sum(d is not None for d in good_dice), sum(d is not None and m is None for m, d in zip(best_mine, good_dice)),
        sum(m - d > 1e-9 for m, d in both),
        *greedy_cheaper(mc3g, refused, ours),
        _share([o[1] for r in mine for o in r]), _share([o[1] for r in dices for o in r]),
        _share([o[2] for r in mine for o in r]), _share([o[2] for r in dices for o in r]),
        len(both), float(np.mean([m for m, _ in both])) if both else None, float(np.mean([d for _, d in both])) if both else None,
        float(np.mean(judged)) if judged else 0.0, max(judged, default=0),
        float(np.mean(t_ours)), answers.pooled_seconds, float(np.mean(t_theirs)),
        float(np.mean(t_theirs) / np.mean(t_ours)), float(np.median(ratios)),
        *calls, float(np.median(rounds)) if rounds else 0.0, max(rounds, default=0),
        sum(a.run.rows_asked or 0 for a in ours) / max(sum(rounds), 1),
        _median_ms([a.run.search_seconds or 0.0 for a in ours]), _median_ms(answers.cpu_ours),
        call_seconds, answers.row_seconds, float(np.mean(t_theirs)) / (calls[0] * call_seconds) if calls[0] else math.nan,
        _by_phase([a.run.rounds_by_phase for a in ours]), _by_phase([a.run.seconds_by_phase for a in ours], 1000), mc3g.hunt_.changed(),
        None if fitted.cfnow is None else fitted.cfnow.run(mine, [judge(row, a) for (_, row), a in zip(refused.iterrows(), fitted.cfnow.answers)], t_ours),
    )  # fmt: skip


def counted(model: Any) -> tuple[Any, Counted]:
    """``model`` with its calls counted, and the count: a pipeline's estimator wrapped (the
    pipeline stays one, so mc3g builds its estimator's input as it would for the model itself,
    and each call of the pipeline is one of its estimator), any other model whole."""
    from sklearn.pipeline import Pipeline

    if isinstance(model, Pipeline):
        name, estimator = model.steps[-1]
        counter = Counted(estimator)
        return Pipeline([*model.steps[:-1], (name, counter)]), counter
    counter = Counted(model)
    return counter, counter


class Counted(ClassifierMixin, BaseEstimator):
    """A classifier that counts the calls made to it and the CPU time they took (DiCE's sklearn
    backend needs ``predict_proba`` and ``classes_``; MC3G calls ``predict``)."""

    def __init__(self, model: Any) -> None:
        self.model, self.classes_, self.calls, self.cpu = model, model.classes_, 0, 0.0

    def fit(self, X: Any, y: Any) -> Counted:
        """Fit the model counted (what scikit-learn asks of a pipeline's last step)."""
        self.model.fit(X, y)
        self.classes_ = self.model.classes_
        return self

    def __sklearn_is_fitted__(self) -> bool:
        return True  # it counts a fitted model's calls

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        self.calls += 1
        start = time.process_time()
        try:
            return self.model.predict(X)
        finally:
            self.cpu += time.process_time() - start

    def predict_proba(self, X: pd.DataFrame) -> np.ndarray:
        self.calls += 1
        if hasattr(self.model, "predict_proba"):
            return self.model.predict_proba(X)
        if not hasattr(self.model, "decision_function"):  # its decision, as certain
            return (np.asarray(self.model.predict(X))[:, None] == self.classes_).astype(float)
        # An SVM without Platt scaling: its decision function through a sigmoid, which is 1/2
        # where the decision turns, so a peer that climbs the probability (CFNOW) has a slope.
        score = 1.0 / (1.0 + np.exp(-np.asarray(self.model.decision_function(X), dtype=np.float64)))
        return np.stack([1.0 - score, score], axis=1)


def _by_phase(measured: list[dict[str, Any] | None], scale: float = 1.0) -> dict[str, float]:
    """A person's measure by the part of the search it was taken in (rounds, seconds), the mean
    over the people times ``scale``, in the order the parts run."""
    total: Counter[str] = Counter()
    for m in measured:
        total.update(m or {})
    return {name: scale * total[name] / len(measured) for name in ASKING if total[name]}


def _median_ms(seconds: list[float]) -> float:
    return 1000 * float(np.median(seconds)) if seconds else math.nan


def _share(flags: list[bool]) -> float | None:
    return 100 * float(np.mean(flags)) if flags else None


class _Judge:
    """Each option of an answer as (L1 cost, the model accepts it, it breaks no knowledge or
    metadata)."""

    def __init__(self, model: Any, dtypes: pd.Series, unfavourable: str, causal: CausalModel, schema: Any, spreads: dict[str, float]) -> None:
        self.model, self.dtypes, self.unfavourable = model, dtypes, unfavourable
        self.causal, self.schema, self.spreads = causal, schema, spreads

    def __call__(self, row: pd.Series, answer: Recourse) -> list[tuple[float, bool, bool]]:
        cfs = list(answer.counterfactuals)
        if not cfs:
            return []
        frame = pd.DataFrame([cf.values for cf in cfs], columns=row.index).astype(self.dtypes)
        person = dict(row.items())
        out = []
        for cf, label in zip(cfs, self.model.predict(frame)):
            free = {c.feature for c in cf.caused_changes if c.cost == 0}
            cost = direct_cost(person, cf.values, self.spreads, free)[1]
            out.append((cost, str(label) != self.unfavourable, not violations(cf, person, [], self.causal, self.schema)))
        return out
