"""Which columns a booster fitted on a frame of pandas categories must be given as pandas
categories again (:meth:`~.blackbox.BlackBox.as_fitted`): LightGBM and XGBoost refuse text where
they were fitted on categories (a histogram boosting codes any frame itself), and a lender's file
read from text has them as text."""

from __future__ import annotations

from typing import Any


def pandas_categories(model: Any) -> list[str]:
    """The columns a LightGBM or XGBoost model (alone or behind a lender's threshold) was fitted
    on as pandas categories."""
    if type(model).__name__ in ("FixedThresholdClassifier", "TunedThresholdClassifierCV"):
        model = getattr(model, "estimator_", model)
    module = type(model).__module__.split(".")[0]
    if module == "lightgbm":
        booster = getattr(model, "booster_", model)
        if not getattr(booster, "pandas_categorical", None):
            return []
        said = next((line for line in booster.model_to_string().splitlines() if line.startswith("[categorical_feature: ")), "]")
        names = booster.feature_name()
        return [names[int(i)] for i in said[len("[categorical_feature: ") : -1].split(",") if i]
    if module == "xgboost":
        booster = model.get_booster() if hasattr(model, "get_booster") else model
        if "c" not in (booster.feature_types or ()) or not hasattr(booster, "get_categories"):
            return []
        try:
            return [name for name, c in booster.get_categories(export_to_arrow=True).to_arrow() if c is not None]
        except ImportError:
            return []  # reading the model says why it cannot
    return []
