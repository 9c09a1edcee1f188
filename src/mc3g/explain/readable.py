"""Whether a black box's own decision can be read exactly, and the reading when it can.

A model mc3g can read (:func:`mc3g.glassbox.read_model`: tree ensembles and linear classifiers
in column-wise pipelines) is searched as it is; any other, or one larger than
:data:`READ_LIMIT` nodes, is searched through the rules that imitate it, and its answers say so.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from ..engine import Engine
from ..exceptions import InputError, said
from ..glassbox import Encoded, GlassBox, Opaque, read_model
from ..models import BlackBox, ChangedRows, Robustness

READ_MODEL = ("auto", "always", "never")
READ_LIMIT = 400_000  # nodes (after the tests no value can split are gone): past it, the surrogate's search
CHECKED_ROWS = 2000  # training rows the reading must agree with predict on
MIXED_ROWS = 500  # rows of values seen, drawn feature by feature, an encoding must agree with the preprocessing on


def glass_of(engine: Engine, model: Any, how: str, X: pd.DataFrame | None = None, seed: int = 0, margin: float = 0.0) -> tuple[GlassBox | None, str]:
    """The engine's black box read exactly under ``how`` (``auto``: when it can be; ``always``:
    or an error; ``never``), checked against its ``predict`` on rows of ``X`` when given, an
    option's margin past the decision by ``margin`` of probability; or None and why not ('' when
    not tried)."""
    box = engine.black_box
    if box is None or how == "never":
        return None, ""
    try:
        glass = read_model(
            model, box.dtypes, baseline(engine, box.columns), categories(engine), engine.observed.numbers, favourable(engine),
            _check(box, model, X, seed), margin,
        )  # fmt: skip
        if glass.size > READ_LIMIT:
            raise Opaque(f"the {glass.kind} has {glass.size:,} nodes, past the {READ_LIMIT:,} mc3g searches exactly")
    except Exception as error:  # a model mc3g cannot take apart is searched as before, and says why
        why = error if isinstance(error, Opaque) else f"reading it failed ({said(error)})"
        if how == "always":
            raise InputError(f"read_model='always', and the model's decision cannot be read exactly: {why}") from None
        return None, str(why)
    return glass, ""


def encoded(engine: Engine, model: Any, X: pd.DataFrame | None = None, seed: int = 0) -> Encoded | None:
    """The engine's black box's rows as its pipeline's estimator reads them, built in arrays
    (:class:`~mc3g.glassbox.Encoded`), where the pipeline can be taken apart so and the input
    built equals its preprocessing's own on rows of ``X`` (when given) and rows mixing values
    seen; else None (asked with frames, as any model)."""
    box = engine.black_box
    if box is None:
        return None
    rng = np.random.default_rng(seed)
    seen = {name: v for name in box.columns if (v := engine.observed.numbers.get(name, engine.observed.tokens.get(name))) is not None and len(v)}
    picks = {name: rng.integers(len(values), size=MIXED_ROWS) for name, values in seen.items()}
    mixed = [tuple((name, seen[name][picks[name][i]]) for name in seen) for i in range(MIXED_ROWS)]
    start = baseline(engine, box.columns)
    parts = [(start, mixed)] + ([(row, [()]) for row in _check(box, model, X, seed)[0].to_dict("records")] if X is not None else [])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            built = Encoded(model, box.dtypes, start, categories(engine), engine.observed.numbers)
            built.check(ChangedRows(parts))
    except Exception:  # any model mc3g cannot take apart so is asked as before
        return None
    return built


def with_retrained(engine: Engine, robust: Robustness, X: pd.DataFrame, seed: int) -> tuple[GlassBox, Robustness]:
    """The engine's reading with the numbers' tests of every retrained model that can be read
    (candidates too, so the least-cost state that holds is among those searched), and
    ``robust`` with those readings as its judges (each checked against its model's ``predict``
    on rows of ``X``) and whether the search is exact for what an option must clear: the
    model's trees read, and every retrained model's (a linear score's states are completed box
    by box for the model alone)."""
    assert engine.glass is not None
    cuts: dict[str, list[np.ndarray]] = {}
    judges: list[Any] = []
    choosing = bool(robust.retrained and robust.survive)  # retrained models that choose the options, not only measure them
    exact = not (choosing and engine.glass.slopes)
    for model in robust.retrained:
        glass, _ = glass_of(engine, model, "auto", X, seed, robust.margin)
        exact = exact and not (choosing and (glass is None or glass.slopes))
        judges.append(None if glass is None else functools.partial(_verdicts, glass.for_options()))
        for name, split in zip(glass.features, glass.splits) if glass is not None else ():
            if split.numeric:
                cuts.setdefault(name, []).append(split.points)
    glass = replace(engine.glass, other_cuts={name: np.concatenate(parts) for name, parts in cuts.items()})
    return glass, replace(robust, exact=exact, judges=tuple(judges))


def _verdicts(box: GlassBox, columns: Mapping[str, list[Any]]) -> np.ndarray:
    return box.verdicts(box.margins(columns))


def favourable(engine: Engine) -> str:
    labels = engine.black_box.labels if engine.black_box is not None else None
    return next(label for label in labels or () if label != engine.unfavourable)


def categories(engine: Engine) -> dict[str, tuple[str, ...]]:
    """The values each category of the model's columns may take: its domain."""
    return {f.name: tuple(f.domain) for f in engine.schema.features if not f.is_numeric and f.domain is not None}


def baseline(engine: Engine, columns: list[str]) -> dict[str, Any]:
    """A row of every column from what the training data showed: a category's first value, a
    number's middle one (the preprocessing maps each column on its own, so any row does)."""
    row: dict[str, Any] = {}
    for name in columns:
        numbers, tokens = engine.observed.numbers.get(name), engine.observed.tokens.get(name)
        row[name] = float(numbers[len(numbers) // 2]) if numbers is not None and len(numbers) else tokens[0] if tokens else 0
    return row


def _check(box: BlackBox, model: Any, X: pd.DataFrame | None, seed: int) -> Any:
    """Rows of ``X`` and how ``model`` labels rows (the engine's black box's, or a model retrained like it)."""
    if X is None:
        return None
    rows = X[box.columns] if len(X) <= CHECKED_ROWS else X[box.columns].sample(CHECKED_ROWS, random_state=np.random.RandomState(seed))
    return rows, (box if model is box.model else BlackBox(model, box.columns, box.dtypes)).labels_of
