"""CFNOW (the ``cfnow`` package, Mazzine de Oliveira and Martens) as a counterfactual baseline.

CFNOW searches a vector of numbers: its greedy strategy changes one feature at a time, the one
that raises the other class's probability most (a number by a share of its value, a category to
another of its one-hot columns), until the model's class flips, then tunes the answer towards the
person.  It knows no causal knowledge and no immutable feature; :class:`CfnowExplainer` takes
``causal`` only to be built like every method of :mod:`mc3g.methods`.  What this module adds is
what running it on a lender's raw rows needs, and nothing of its search:

* the rows as CFNOW reads them: each number as it is (CFNOW's own examples use raw values), each
  category as one-hot columns named ``feature_index`` (CFNOW groups one-hot columns by the text
  before the first underscore, so the feature's name is written without its underscores);
* the model as CFNOW calls it: each vector it tries read back as a raw row (a category, its
  largest column; an integer column, rounded; the columns not in ``features_to_vary`` held at the
  person's values), asked of the model's ``predict_proba``;
* its answers read back the same way, cast to the training dtypes, cheapest first by MC3G's L1;
* ``timeout`` stops a search that runs too long (CFNOW's own ``limit_seconds``, here
  ``tuning_seconds``, bounds its tuning only), and its progress messages are kept quiet.

CFNOW is installed apart, without its requirements (:data:`INSTALL`): they name OpenCV's build
for desktops, which needs a display library; the headless build serves it the same.  At import it
tries to download a word list for text counterfactuals; without a network it says so once and
goes on (tabular counterfactuals never use it).
"""

from __future__ import annotations

import contextlib
import io
import logging
import warnings
from collections.abc import Iterator, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from ..exceptions import InputError
from ._base import Baseline, Timeout, deadline, seeded

Strategy = Literal["greedy", "random", "random-sequential"]
STRATEGIES: tuple[str, ...] = ("greedy", "random", "random-sequential")
INSTALL = "pip install 'mc3g[bench]' && pip install --no-deps 'cfnow==0.0.6'"
"""How CFNOW is installed: apart and without its requirements, whose OpenCV is the desktop build
(the extra brings the headless one, NLTK, scikit-image and CounterPlots)."""


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Keep CFNOW's prints, its log lines ('No CF found.') and its numpy warnings out of the output."""
    logger = logging.getLogger()
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        logger.setLevel(level)


class _Vectors:
    """The person's row as CFNOW's vector and back: numbers as they are, categories one-hot."""

    def __init__(self, X: pd.DataFrame, numeric: Sequence[str]) -> None:
        self.columns = list(X.columns)
        self.dtypes = X.dtypes.to_dict()
        self.domains = {c: list(pd.unique(X[c].dropna())) for c in self.columns if c not in set(numeric)}
        names = [c.replace("_", "") or "feature" for c in self.columns]
        if len(set(names)) < len(names):
            raise InputError(f"CFNOW groups one-hot columns by their names' text before '_': the columns {self.columns} clash without their underscores")
        self.names: list[str] = []  # CFNOW's columns, in order
        self.types: dict[str, str] = {}
        self.places: dict[str, slice] = {}
        for column, name in zip(self.columns, names):
            start = len(self.names)
            if column in self.domains:
                self.names += [f"{name}_{i}" for i in range(len(self.domains[column]))]
                self.types.update({n: "cat" for n in self.names[start:]})
            else:
                self.names.append(name)
                self.types[name] = "num"
            self.places[column] = slice(start, len(self.names))

    def vector(self, row: pd.Series) -> pd.Series:
        """``row`` as CFNOW's factual: a value the training rows never held is an error."""
        out = np.zeros(len(self.names))
        for column in self.columns:
            place = self.places[column]
            if column in self.domains:
                if row[column] not in self.domains[column]:
                    raise InputError(f"{column} = {row[column]!r} is no value of the training rows: CFNOW cannot one-hot encode it")
                out[place.start + self.domains[column].index(row[column])] = 1.0
            else:
                out[place.start] = float(row[column])
        return pd.Series(out, index=self.names)

    def rows(self, vectors: np.ndarray, person: pd.Series, held: Sequence[str]) -> pd.DataFrame:
        """CFNOW's vectors as raw rows in the training dtypes, the columns ``held`` the person's."""
        vectors = np.atleast_2d(np.asarray(vectors, dtype=np.float64))
        out: dict[str, Any] = {}
        for column in self.columns:
            place = self.places[column]
            if column in held:
                out[column] = np.full(len(vectors), person[column], dtype=object if column in self.domains else np.float64)
            elif column in self.domains:
                out[column] = np.asarray(self.domains[column], dtype=object)[vectors[:, place].argmax(axis=1)]
            else:
                numbers = vectors[:, place.start]
                out[column] = np.round(numbers) if pd.api.types.is_integer_dtype(self.dtypes[column]) else numbers
        return pd.DataFrame(out).astype(self.dtypes)


class CfnowExplainer(Baseline):
    """CFNOW for one fitted classifier that takes raw rows and has ``predict_proba``.

    ``strategy`` is CFNOW's ``"greedy"`` (the default here: the search the MC3G issue compares
    with), ``"random"`` or ``"random-sequential"``; ``continuous`` names the numeric columns
    (default: the numeric-dtype columns), every other column is a category; ``tuning_seconds`` is
    CFNOW's ``limit_seconds``, the time its tuning of the counterfactuals found may take (CFNOW's
    default, 120 s; its examples use 10), after which it answers with the best so far; after
    ``timeout`` seconds a search gives up with no answer (SIGALRM: Unix, main thread only);
    ``seed`` seeds numpy's global generator, which the random strategies draw from.
    ``k``, ``features_to_vary`` and ``desired_class`` are as for MC3G; ``causal`` is ignored."""

    def __init__(
        self,
        model: Any,
        causal: Any = None,
        *,
        k: int = 1,
        features_to_vary: str | Sequence[str] = "all",
        desired_class: Any = "opposite",
        strategy: Strategy = "greedy",
        continuous: Sequence[str] | None = None,
        tuning_seconds: int = 120,
        seed: int = 0,
        timeout: float | None = None,
    ) -> None:
        super().__init__(model, causal, k=k, features_to_vary=features_to_vary, desired_class=desired_class)
        self.strategy = strategy
        self.continuous = continuous
        self.tuning_seconds = tuning_seconds
        self.seed = seed
        self.timeout = timeout

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"cfnow_{self.strategy}"

    def _numeric(self, X: pd.DataFrame) -> list[str]:
        return list(self.continuous_)

    def _fit(self, X: pd.DataFrame) -> None:
        if self.strategy not in STRATEGIES:
            raise InputError(f"strategy must be one of {STRATEGIES}, not {self.strategy!r}")
        if not isinstance(self.tuning_seconds, int) or self.tuning_seconds < 1:
            raise InputError(f"tuning_seconds must be a whole number of seconds, at least 1, not {self.tuning_seconds!r}")
        self.continuous_ = self._told_numeric(X, self.continuous)
        self.vectors_ = _Vectors(X, self.continuous_)
        try:
            with _quiet():
                from cfnow import find_tabular  # optional, installed apart (:data:`INSTALL`)
        except ModuleNotFoundError as exc:
            raise ImportError(f"CFNOW (cfnow) is not installed: {INSTALL}") from exc
        self._find = find_tabular

    def _search(self, row: pd.Series, desired: Any, k: int) -> tuple[pd.DataFrame, str]:
        vectors, held = self.vectors_, [c for c in self.dtypes_ if c not in set(self.vary_)]

        def proba(candidates: Any) -> np.ndarray:
            return self.model.predict_proba(vectors.rows(np.asarray(candidates), row, held))

        factual, none = vectors.vector(row), pd.DataFrame(columns=list(self.dtypes_))
        try:
            with deadline(self.timeout), seeded(self.seed), _quiet():
                found = self._found(factual, proba, k)
        except Timeout:
            return none, f"CFNOW ({self.strategy}) gave up after the timeout of {self.timeout} s."
        except (ValueError, IndexError) as exc:  # its own code failed (cfnow 0.0.6's tuning, once more for one counterfactual)
            return none, f"CFNOW ({self.strategy}) failed inside its own search ({type(exc).__name__}: {exc})."
        answers = vectors.rows(np.array(found.cfs), row, held).drop_duplicates().iloc[:k].reset_index(drop=True) if len(found.cfs) else none
        # CFNOW's own clock: its search for counterfactuals, then their tuning (the search alone when it found none).
        answers.attrs["seconds_by_phase"] = {self.strategy: found.time_cf_not_optimized, "tuning": found.time_cf - found.time_cf_not_optimized}
        return answers, "" if len(answers) else f"CFNOW ({self.strategy}) found no counterfactual."

    def _found(self, factual: pd.Series, proba: Any, k: int) -> Any:
        """CFNOW's answer for ``k`` counterfactuals.  cfnow 0.0.6's tuning of several fails when a
        round's candidates were all found before (it joins an empty array of another shape):
        then it is asked again for one, as a user of it would."""
        types = self.vectors_.types
        for count in dict.fromkeys((k, 1)):
            try:
                return self._find(factual, proba, count_cf=count, feat_types=types, cf_strategy=self.strategy, has_ohe=True, limit_seconds=self.tuning_seconds)
            except ValueError as exc:
                if count == 1 or "same number of dimensions" not in str(exc):
                    raise
        raise AssertionError("unreachable: the last count raises or returns")
