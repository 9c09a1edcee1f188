"""What the counterfactual baselines share: the :class:`~mc3g.methods.Explainer` interface
and their answers as :class:`~mc3g.explain.result.Recourse` objects.

A baseline knows no causal knowledge: it takes ``causal`` only to be built like every other
method (``factory(model, causal, **options)``) and ignores it, so every change it proposes is a
direct action of the person and nothing is a caused change.  Each action is priced as MC3G
prices it by default (its L1 term with ``scaling="std"``): a numeric change in units of the
feature's training standard deviation, a category change 1; a counterfactual's cost is their
sum, and the counterfactuals come cheapest first by that cost (not by the baseline's own
objective, which differs from method to method).
"""

from __future__ import annotations

import contextlib
import random
import signal
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..exceptions import InputError
from ..explain import NO_COUNTERFACTUAL, NOT_REFUSED, REFUSED, Counterfactual, DirectAction, Recourse, RunRecord
from ..models import typed_frame
from ..rules import token
from ..search import spread


class Timeout(BaseException):
    """Raised by :func:`deadline`'s SIGALRM handler; a BaseException, so a baseline's own code
    cannot swallow it."""


@contextlib.contextmanager
def deadline(seconds: float | None) -> Iterator[None]:
    """Raise :class:`Timeout` in the block after ``seconds`` (Unix only: SIGALRM, main thread).

    The signal interrupts Python code between bytecodes, so a baseline's loop really stops; a
    single long C call (one ``predict_proba``) finishes first.
    """
    if seconds is None:
        yield
        return
    if seconds <= 0:
        raise InputError(f"timeout must be > 0 seconds, not {seconds}")
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        raise RuntimeError("a baseline's timeout needs SIGALRM on the main thread (Unix); pass timeout=None here")

    def _raise(signum: int, frame: object) -> None:
        raise Timeout

    previous = signal.signal(signal.SIGALRM, _raise)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        try:
            signal.setitimer(signal.ITIMER_REAL, 0)
        finally:  # the one-shot timer may fire just above; the handler is restored all the same
            signal.signal(signal.SIGALRM, previous)


@contextlib.contextmanager
def seeded(seed: int) -> Iterator[None]:
    """Seed Python's and numpy's global generators for one call of a baseline that draws from
    them (DiCE's genetic method and CFNOW's random strategies take no seed), then restore them."""
    py_state, np_state = random.getstate(), np.random.get_state()
    random.seed(seed)
    np.random.seed(seed)
    try:
        yield
    finally:
        random.setstate(py_state)
        np.random.set_state(np_state)


class Baseline(ABC):
    """A counterfactual method without causal knowledge, fitted on training rows.

    ``desired_class`` is ``"opposite"`` (the other class of a binary model, whatever it predicts
    for the row) or a label of ``model.classes_``; a row the model already gives that label is
    ``not_refused``.  Only ``features_to_vary`` (``"all"`` or a list of columns) may change.
    Subclasses set :attr:`name` (the RunRecord's method) and implement :meth:`_fit` and
    :meth:`_search`.
    """

    name = "baseline"

    def __init__(self, model: Any, causal: Any = None, *, k: int = 1, features_to_vary: str | Sequence[str] = "all", desired_class: Any = "opposite") -> None:
        self.model = model
        self.causal = causal  # not used: the baselines know no causal knowledge
        self.k = k
        self.features_to_vary = features_to_vary
        self.desired_class = desired_class

    # -- fitting -------------------------------------------------------------------------------
    def fit(self, X: pd.DataFrame, y: Any = None) -> Baseline:
        """Read the training rows once (``y`` is ignored: the model's own predictions label them)."""
        if not isinstance(X, pd.DataFrame) or X.empty:
            raise InputError("fit needs the training data as a non-empty DataFrame")
        columns = list(X.columns)
        if isinstance(self.features_to_vary, str):
            if self.features_to_vary != "all":
                raise InputError(f"features_to_vary must be 'all' or a list of columns, not {self.features_to_vary!r}")
            self.vary_ = columns
        else:
            unknown = sorted(set(self.features_to_vary) - set(columns))
            if unknown:
                raise InputError(f"features_to_vary names columns not in the training data: {unknown}")
            self.vary_ = [c for c in columns if c in set(self.features_to_vary)]
        self.classes_ = list(self.model.classes_)
        if not (isinstance(self.desired_class, str) and self.desired_class == "opposite") and self.desired_class not in self.classes_:
            raise InputError(f"desired_class must be 'opposite' or one of the model's classes {self.classes_}, not {self.desired_class!r}")
        self.dtypes_ = X.dtypes.to_dict()
        self._fit(X)
        self.spreads_ = {c: spread(X[c]) for c in self._numeric(X)}
        return self

    @abstractmethod
    def _fit(self, X: pd.DataFrame) -> None:
        """Read the training rows (columns and dtypes checked already)."""

    def _numeric(self, X: pd.DataFrame) -> list[str]:
        """The columns priced as numbers (the others as categories)."""
        return [c for c in X.columns if pd.api.types.is_numeric_dtype(X[c]) and not pd.api.types.is_bool_dtype(X[c])]

    def _told_numeric(self, X: pd.DataFrame, told: Sequence[str] | None) -> tuple[str, ...]:
        """The columns a baseline is told are numbers (its ``continuous``, each a column of
        ``X``), by default the numeric-dtype ones."""
        numeric = Baseline._numeric(self, X) if told is None else list(told)
        unknown = sorted(set(numeric) - set(X.columns))
        if unknown:
            raise InputError(f"continuous names columns not in X_train: {unknown}")
        return tuple(numeric)

    # -- explaining ----------------------------------------------------------------------------
    def explain(self, rows: pd.DataFrame | pd.Series | Mapping[str, Any], k: int | None = None) -> Recourse | list[Recourse]:
        """One row (a Series or mapping) gives one :class:`Recourse`, a DataFrame a list in row order."""
        if not hasattr(self, "dtypes_"):
            raise InputError(f"call fit(X_train) before explain on this {type(self).__name__}")
        chosen = self.k if k is None else k
        if chosen < 1:
            raise InputError(f"k must be at least 1, not {chosen}")
        if isinstance(rows, pd.DataFrame):
            return [self._explain_one(row, chosen) for _, row in rows.iterrows()]
        return self._explain_one(rows, chosen)

    def _explain_one(self, row: pd.Series | Mapping[str, Any], k: int) -> Recourse:
        missing = [c for c in self.dtypes_ if c not in row]
        if missing:
            raise InputError(f"the row lacks column(s) {missing}")
        query = typed_frame([[row[c] for c in self.dtypes_]], self.dtypes_)
        instance = query.to_dict("records")[0]
        predicted = self.model.predict(query)[0]
        desired = self._desired(predicted)
        run = RunRecord(method=self.name, norm="l1", scaling="std", k=k)
        if predicted == desired:
            return Recourse(instance, NOT_REFUSED, reasons=(f"the model already predicts {desired!r} for this row.",), run=run)
        start = time.perf_counter()
        found, reason = self._search(pd.Series(instance, name=getattr(row, "name", None)), desired, k)
        phases = found.attrs.get("seconds_by_phase")  # a baseline that times its own parts says so on the frame
        run = RunRecord(method=self.name, norm="l1", scaling="std", k=k, search_seconds=time.perf_counter() - start, seconds_by_phase=phases)
        if found.empty:
            return Recourse(instance, NO_COUNTERFACTUAL, reasons=(reason,), run=run)
        counterfactuals = sorted((self._counterfactual(instance, values) for values in found.to_dict("records")), key=lambda cf: cf.cost)
        return Recourse(instance, REFUSED, tuple(counterfactuals), run=run)

    def _desired(self, predicted: Any) -> Any:
        if not (isinstance(self.desired_class, str) and self.desired_class == "opposite"):
            return self.desired_class
        others = [c for c in self.classes_ if c != predicted]
        if len(others) != 1:
            raise InputError(f"desired_class='opposite' needs a binary model; this one has classes {self.classes_}: name the desired class")
        return others[0]

    @abstractmethod
    def _search(self, row: pd.Series, desired: Any, k: int) -> tuple[pd.DataFrame, str]:
        """Up to ``k`` rows the model gives ``desired`` (training columns and dtypes), and the
        reason when there are none; the frame's ``attrs["seconds_by_phase"]``, where set, the
        search's time by its parts (the run record's)."""

    def _counterfactual(self, instance: dict[str, Any], values: dict[str, Any]) -> Counterfactual:
        """Every changed feature is a direct action, priced as MC3G's L1 term (std units, categories 1)."""
        actions = []
        for col in self.dtypes_:
            before, after = instance[col], values[col]
            if col in self.spreads_:
                delta = abs(float(after) - float(before))
                if delta > 0:
                    actions.append(DirectAction(col, before, after, delta / self.spreads_[col]))
            elif token(after) != token(before):
                actions.append(DirectAction(col, before, after, 1.0))
        return Counterfactual(values, tuple(actions), (), float(sum(a.cost for a in actions)), "l1", "none")
