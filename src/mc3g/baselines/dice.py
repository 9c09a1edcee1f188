"""DiCE (the ``dice-ml`` package) as a counterfactual baseline for the MC3G comparison.

DiCE knows nothing of causal constraints; it is run as published (its own defaults) so that the
comparison is fair.  What this module adds is only what a batch benchmark needs:

* the DiCE ``Data``/``Model``/``Dice`` objects are built once per (model, training frame, method)
  by :class:`DiceExplainer` and reused for every query row (:func:`dice_counterfactuals` keeps
  a few explainers cached, so calling it row by row does not rebuild them);
* the model sees frames with the training dtypes: DiCE stores categorical values as strings and
  builds its candidates in object-dtype frames, which a pipeline fitted on e.g. integer-coded
  categories would reject;
* results come back as a frame with the training columns and dtypes (empty when DiCE finds none);
* a per-row ``timeout`` really stops a DiCE call that runs too long (its post-hoc sparsity search
  can take up to 10,000 model calls per feature and counterfactual);
* seeds: DiCE draws from the global ``random`` and ``numpy.random`` generators (the genetic method
  has no seed argument), so both are seeded for the call and restored after it.
"""

from __future__ import annotations

import contextlib
import io
import random
import signal
import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from ..exceptions import InputError

Method = Literal["random", "genetic"]
METHODS: tuple[str, ...] = ("random", "genetic")

_OUTCOME = "__dice_outcome__"
_NO_CF_MESSAGE = "No counterfactuals found"
_CACHE_SIZE = 8


class _Timeout(BaseException):
    """Raised by the SIGALRM handler; a BaseException so that DiCE's code cannot swallow it."""


@contextlib.contextmanager
def _deadline(seconds: float | None) -> Iterator[None]:
    """Raise :class:`_Timeout` in the block after ``seconds`` (Unix only: SIGALRM, main thread).

    The signal interrupts Python code between bytecodes, so a DiCE loop really stops; a single
    long C call (one ``predict_proba``) finishes first.
    """
    if seconds is None:
        yield
        return
    if seconds <= 0:
        raise InputError(f"timeout must be > 0 seconds, not {seconds}")
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        raise RuntimeError("a DiCE timeout needs SIGALRM on the main thread (Unix); pass timeout=None here")

    def _raise(signum: int, frame: object) -> None:
        raise _Timeout

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
def _seeded(seed: int) -> Iterator[None]:
    """Seed Python's and numpy's global generators for one DiCE call, then restore them."""
    py_state, np_state = random.getstate(), np.random.get_state()
    random.seed(seed)
    np.random.seed(seed)
    try:
        yield
    finally:
        random.setstate(py_state)
        np.random.set_state(np_state)


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Swallow DiCE's progress bar (stderr), its 'No Counterfactuals found' prints (stdout) and the
    pandas deprecation warnings its code triggers (``inplace=True``), once per query otherwise."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=DeprecationWarning, module=r"dice_ml\.")
        warnings.filterwarnings("ignore", category=FutureWarning, module=r"dice_ml\.")
        yield


class _Restorer:
    """Casts frames that DiCE builds back to the training columns and dtypes."""

    def __init__(self, X_train: pd.DataFrame, continuous: Sequence[str]) -> None:
        self.columns = list(X_train.columns)
        self.dtypes = X_train.dtypes.to_dict()
        self.continuous = set(continuous)
        # DiCE turns every categorical value into str(value), and a row taken from a frame with
        # iloc turns integer codes into floats: map both back where a column is not all strings.
        self.decode: dict[str, dict[Any, Any]] = {}
        for col in self.columns:
            values = X_train[col].dropna().unique()
            if col not in self.continuous and not all(isinstance(v, str) for v in values):
                self.decode[col] = {**{str(v): v for v in values}, **{v: v for v in values}}

    def __call__(self, frame: pd.DataFrame) -> pd.DataFrame:
        out = pd.DataFrame(index=frame.index)
        for col in self.columns:
            values = frame[col]
            dtype = self.dtypes[col]
            if col in self.continuous:
                values = pd.to_numeric(values)
                if pd.api.types.is_integer_dtype(dtype):
                    values = values.round()
            elif col in self.decode:
                values = values.map(self.decode[col])
            out[col] = values.astype(dtype)
        return out

    def to_dice(self, row: pd.Series) -> pd.DataFrame:
        """``row`` as DiCE's query: one row, categorical values as str in object columns.

        DiCE random copies the query's ``.values`` into candidate rows and writes sampled (str)
        categories into them; pandas 3 refuses that if those values form a numeric array.
        """
        query = self(row.to_frame().T.reset_index(drop=True))
        for col in self.columns:
            if col not in self.continuous:
                query[col] = query[col].map(str).astype(object)
        return query

    def empty(self) -> pd.DataFrame:
        return pd.DataFrame({col: pd.Series(dtype=dtype) for col, dtype in self.dtypes.items()})


class _TypedModel:
    """The user's classifier behind a cast to the training dtypes (what DiCE's sklearn backend calls)."""

    def __init__(self, model: Any, restore: Callable[[pd.DataFrame], pd.DataFrame]) -> None:
        self.model = model
        self.restore = restore
        self.classes_ = model.classes_  # DiCE decodes class indices through it

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        return self.model.predict(self.restore(X))

    def predict_proba(self, X: pd.DataFrame) -> np.ndarray:
        return self.model.predict_proba(self.restore(X))


def _class_codes(model: Any, y: pd.Series | np.ndarray) -> np.ndarray:
    """DiCE's outcome column: the index of each label in ``model.classes_`` (0/1 for binary)."""
    classes = list(model.classes_)
    values = pd.Series(np.asarray(y))
    codes = values.map({c: i for i, c in enumerate(classes)})
    if codes.isna().any():  # not labels: accept class indices as given
        if not values.isin(range(len(classes))).all():
            raise InputError(f"y_train_pred must hold labels from {classes} or class indices 0..{len(classes) - 1}")
        codes = values
    return codes.to_numpy(dtype=np.int64)


class DiceExplainer:
    """DiCE set up once for one fitted model and training frame; ask it for one row at a time.

    ``model`` takes the raw frame (it encodes itself) and has ``predict_proba`` and ``classes_``.
    ``y_train_pred`` is the model's prediction on ``X_train`` (labels or class indices).
    ``continuous`` names the numeric columns; every other column is categorical to DiCE.
    """

    def __init__(self, model: Any, X_train: pd.DataFrame, y_train_pred: pd.Series | np.ndarray, continuous: Sequence[str], method: Method = "random") -> None:
        import dice_ml  # optional dependency (the `bench` extra)

        if method not in METHODS:
            raise InputError(f"method must be one of {METHODS}, not {method!r}")
        unknown = sorted(set(continuous) - set(X_train.columns))
        if unknown:
            raise InputError(f"continuous names columns not in X_train: {unknown}")
        if _OUTCOME in X_train.columns:
            raise InputError(f"X_train may not have a column named {_OUTCOME!r}")
        self.method = method
        self.model = model
        self.X_train = X_train
        self.continuous = tuple(continuous)
        self.codes = _class_codes(model, y_train_pred)
        self._restore = _Restorer(X_train, continuous)
        frame = X_train.reset_index(drop=True).assign(**{_OUTCOME: self.codes})
        data = dice_ml.Data(dataframe=frame, continuous_features=list(continuous), outcome_name=_OUTCOME)
        wrapped = dice_ml.Model(model=_TypedModel(model, self._restore), backend="sklearn")
        self._dice = dice_ml.Dice(data, wrapped, method=method)

    def counterfactuals(
        self,
        row: pd.Series,
        *,
        k: int = 3,
        features_to_vary: list[str] | str = "all",
        permitted_range: dict | None = None,
        desired_class: Any = "opposite",
        seed: int = 0,
        timeout: float | None = None,
    ) -> pd.DataFrame:
        """Up to ``k`` counterfactuals for ``row`` (DiCE's post-hoc sparsified set, as DiCE reports it).

        ``desired_class`` is "opposite" (binary models) or a label of ``model.classes_``.
        ``permitted_range`` maps a feature to [min, max] (numeric) or to allowed values (categorical).
        Returns an empty frame with the training columns when DiCE finds none or ``timeout`` seconds
        pass (the timeout uses SIGALRM: Unix, main thread only).
        """
        from raiutils.exceptions import UserConfigValidationException

        query = self._restore.to_dice(row)
        kwargs: dict[str, Any] = {"random_seed": seed} if self.method == "random" else {}
        try:
            with _deadline(timeout), _seeded(seed), _quiet():
                result = self._dice.generate_counterfactuals(
                    query,
                    total_CFs=k,
                    desired_class=self._class_index(desired_class),
                    features_to_vary=features_to_vary,
                    permitted_range=permitted_range,
                    **kwargs,
                )
        except _Timeout:
            return self._restore.empty()
        except UserConfigValidationException as exc:
            if _NO_CF_MESSAGE not in str(exc):
                raise
            return self._restore.empty()
        found = result.cf_examples_list[0]
        cfs = found.final_cfs_df_sparse if found.final_cfs_df_sparse is not None else found.final_cfs_df
        if cfs is None or len(cfs) == 0:
            return self._restore.empty()
        return self._restore(cfs.reset_index(drop=True))

    def _class_index(self, desired_class: Any) -> str | int:
        """DiCE wants "opposite" or the class index (a Python int), not the label."""
        if isinstance(desired_class, str) and desired_class == "opposite":
            return desired_class
        classes = list(self.model.classes_)
        if desired_class not in classes:
            raise InputError(f"desired_class must be 'opposite' or one of {classes}, not {desired_class!r}")
        return classes.index(desired_class)


_cache: OrderedDict[tuple[int, int, tuple[str, ...], str], DiceExplainer] = OrderedDict()


def _explainer(model: Any, X_train: pd.DataFrame, y_train_pred: pd.Series | np.ndarray, continuous: Sequence[str], method: Method) -> DiceExplainer:
    """The cached explainer for these objects, or a new one (least recently used ones are dropped).

    The model and frame are matched by identity (the cache holds them, so their ids stay theirs):
    a frame changed in place is not noticed.  The predictions are matched by value.
    """
    key = (id(model), id(X_train), tuple(continuous), method)
    explainer = _cache.get(key)
    if explainer is None or not np.array_equal(explainer.codes, _class_codes(model, y_train_pred)):
        explainer = DiceExplainer(model, X_train, y_train_pred, continuous, method)
    _cache[key] = explainer
    _cache.move_to_end(key)
    while len(_cache) > _CACHE_SIZE:
        _cache.popitem(last=False)
    return explainer


def dice_counterfactuals(
    model: Any,
    X_train: pd.DataFrame,
    y_train_pred: pd.Series | np.ndarray,
    row: pd.Series,
    *,
    continuous: list[str],
    method: Method = "random",
    **options: Any,
) -> pd.DataFrame:
    """One row's DiCE counterfactuals, DiCE set up once per (model, X_train, continuous, method);
    ``options`` are those of :meth:`DiceExplainer.counterfactuals` (``k``, ``features_to_vary``,
    ``permitted_range``, ``desired_class``, ``seed``, ``timeout``)."""
    return _explainer(model, X_train, y_train_pred, continuous, method).counterfactuals(row, **options)
