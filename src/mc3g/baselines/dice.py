"""DiCE (the ``dice-ml`` package) as a counterfactual baseline for the MC3G comparison.

DiCE knows nothing of causal knowledge: :class:`DiceExplainer` takes ``causal`` only to be built
like every method of :mod:`mc3g.methods` and ignores it; every change it proposes is a
direct action.  DiCE is run as published (its own defaults) so that the comparison is fair.  What
this module adds is only what a batch benchmark needs:

* ``fit`` builds the DiCE ``Data``/``Model``/``Dice`` objects once; every ``explain`` reuses them;
* the model sees frames with the training dtypes: DiCE stores categorical values as strings and
  builds its candidates in object-dtype frames, which a pipeline fitted on e.g. integer-coded
  categories would reject;
* answers are :class:`~mc3g.explain.result.Recourse` objects whose values have the training
  columns and dtypes (``no_counterfactual``, with the reason, when DiCE finds none);
* a per-row ``timeout`` really stops a DiCE call that runs too long (its post-hoc sparsity search
  can take up to 10,000 model calls per feature and counterfactual);
* seeds: DiCE draws from the global ``random`` and ``numpy.random`` generators (the genetic method
  has no seed argument), so both are seeded for the call and restored after it.
"""

from __future__ import annotations

import contextlib
import io
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from ..exceptions import InputError
from ._base import Baseline, Timeout, deadline, seeded

Method = Literal["random", "genetic"]
METHODS: tuple[str, ...] = ("random", "genetic")

_OUTCOME = "__dice_outcome__"
_NO_CF_MESSAGE = "No counterfactuals found"
INSTALL = "pip install 'mc3g[bench]' && pip install --no-deps 'dice-ml>=0.12,<0.13'"
"""How DiCE is installed: dice-ml apart and without its dependencies, which name the CUDA build of
xgboost (the extra brings the rest, xgboost as its CPU-only wheel)."""


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


class DiceExplainer(Baseline):
    """DiCE for one fitted classifier (it takes raw rows and has ``predict_proba`` and ``classes_``).

    ``method`` is DiCE's ``"random"`` or ``"genetic"``; ``continuous`` names the numeric columns
    (default: the numeric-dtype columns of the training data), every other column is categorical
    to DiCE; ``permitted_range`` maps a feature to [min, max] (numeric) or to allowed values
    (categorical); ``seed`` seeds each call; after ``timeout`` seconds a call gives up (SIGALRM:
    Unix, main thread only).  ``k``, ``features_to_vary`` and ``desired_class`` are as for MC3G;
    ``causal`` is ignored (DiCE knows no causal knowledge).  The counterfactuals are DiCE's
    post-hoc sparsified set, as DiCE reports it.
    """

    def __init__(
        self,
        model: Any,
        causal: Any = None,
        *,
        k: int = 1,
        features_to_vary: str | Sequence[str] = "all",
        desired_class: Any = "opposite",
        method: Method = "random",
        continuous: Sequence[str] | None = None,
        permitted_range: dict[str, list[Any]] | None = None,
        seed: int = 0,
        timeout: float | None = None,
    ) -> None:
        super().__init__(model, causal, k=k, features_to_vary=features_to_vary, desired_class=desired_class)
        self.method = method
        self.continuous = continuous
        self.permitted_range = permitted_range
        self.seed = seed
        self.timeout = timeout

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"dice_{self.method}"

    def _numeric(self, X: pd.DataFrame) -> list[str]:
        return list(self.continuous_)

    def _fit(self, X: pd.DataFrame) -> None:
        try:
            import dice_ml  # optional, installed apart (:data:`INSTALL`)
        except ModuleNotFoundError as exc:
            raise ImportError(f"DiCE (dice-ml) is not installed: {INSTALL}") from exc

        if self.method not in METHODS:
            raise InputError(f"method must be one of {METHODS}, not {self.method!r}")
        self.continuous_ = continuous = self._told_numeric(X, self.continuous)
        if _OUTCOME in X.columns:
            raise InputError(f"X_train may not have a column named {_OUTCOME!r}")
        self._restore = _Restorer(X, continuous)
        codes = pd.Series(self.model.predict(X)).map({c: i for i, c in enumerate(self.classes_)}).to_numpy(dtype=np.int64)
        frame = X.reset_index(drop=True).assign(**{_OUTCOME: codes})
        data = dice_ml.Data(dataframe=frame, continuous_features=list(continuous), outcome_name=_OUTCOME)
        wrapped = dice_ml.Model(model=_TypedModel(self.model, self._restore), backend="sklearn")
        self.dice_ = dice_ml.Dice(data, wrapped, method=self.method)

    def _search(self, row: pd.Series, desired: Any, k: int) -> tuple[pd.DataFrame, str]:
        from raiutils.exceptions import UserConfigValidationException

        query = self._restore.to_dice(row)
        kwargs: dict[str, Any] = {"random_seed": self.seed} if self.method == "random" else {}
        vary = "all" if len(self.vary_) == len(self.dtypes_) else self.vary_
        none = pd.DataFrame(columns=list(self.dtypes_))
        try:
            with deadline(self.timeout), seeded(self.seed), _quiet():
                result = self.dice_.generate_counterfactuals(
                    query,
                    total_CFs=k,
                    desired_class=self.classes_.index(desired),  # DiCE wants the class index (a Python int)
                    features_to_vary=vary,
                    permitted_range=self.permitted_range,
                    **kwargs,
                )
        except Timeout:
            return none, f"DiCE ({self.method}) gave up after the timeout of {self.timeout} s."
        except UserConfigValidationException as exc:
            if _NO_CF_MESSAGE not in str(exc):
                raise
            return none, f"DiCE ({self.method}) found no counterfactual."
        found = result.cf_examples_list[0]
        cfs = found.final_cfs_df_sparse if found.final_cfs_df_sparse is not None else found.final_cfs_df
        if cfs is None or len(cfs) == 0:
            return none, f"DiCE ({self.method}) found no counterfactual."
        return self._restore(cfs.reset_index(drop=True)), ""
