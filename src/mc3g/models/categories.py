"""The categories a LightGBM or XGBoost model was fitted on as pandas categories, column by
column.  Such a model refuses text in those columns, and a lender's file read from text has them
as text, so it is given them as pandas categories again (:meth:`~.blackbox.BlackBox.as_fitted`);
and its trees read each value's place among them (:mod:`mc3g.glassbox`).  A histogram boosting
codes any frame itself."""

from __future__ import annotations

from typing import Any

SEARCHES = ("GridSearchCV", "RandomizedSearchCV", "HalvingGridSearchCV", "HalvingRandomSearchCV")  # searches of settings: their best predicts
CATEGORICAL = "[categorical_feature: "  # LightGBM's model text names the columns it took as categories on this line


def fitted_categories(model: Any) -> dict[str, list[Any]]:
    """Each column ``model`` (LightGBM or XGBoost, alone or behind a lender's threshold or a
    calibration) was fitted on as pandas categories, with those categories in their order;
    XGBoost's are read through pyarrow (ImportError without it)."""
    model = _booster(model)
    module = type(model).__module__.split(".")[0]
    if module == "lightgbm":
        booster = getattr(model, "booster_", model)
        fitted = getattr(booster, "pandas_categorical", None)
        if not fitted:
            return {}
        said = next((line for line in booster.model_to_string().splitlines() if line.startswith(CATEGORICAL)), "]")
        names = booster.feature_name()
        return {names[int(i)]: list(values) for i, values in zip([i for i in said[len(CATEGORICAL) : -1].split(",") if i], fitted)}
    if module == "xgboost":
        booster = model.get_booster() if hasattr(model, "get_booster") else model
        if "c" not in (booster.feature_types or ()) or not hasattr(booster, "get_categories"):
            return {}
        return {name: values.to_pylist() for name, values in booster.get_categories(export_to_arrow=True).to_arrow() if values is not None}
    return {}


def _booster(model: Any) -> Any:
    """The model inside a lender's threshold, a calibration (its first fit: every fit of a
    calibration sees the same columns, so the same categories), a frozen estimator and a search
    of settings (its best, refitted)."""
    while True:
        name = type(model).__name__
        if name in ("FixedThresholdClassifier", "TunedThresholdClassifierCV"):
            inner = getattr(model, "estimator_", None)
        elif name == "CalibratedClassifierCV":
            inner = next((fit.estimator for fit in getattr(model, "calibrated_classifiers_", ())), None)
        elif name == "FrozenEstimator":
            inner = model.estimator
        elif name in SEARCHES:
            inner = getattr(model, "best_estimator_", None)
        else:
            return model
        if inner is None:
            return model
        model = inner


def pandas_categories(model: Any) -> list[str]:
    """The columns of :func:`fitted_categories` (none where they cannot be read: reading the
    model says why)."""
    try:
        return list(fitted_categories(model))
    except ImportError:
        return []
