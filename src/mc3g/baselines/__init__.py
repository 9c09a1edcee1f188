"""Counterfactual baselines for the MC3G comparison."""

from .wachter import wachter_counterfactuals

__all__ = ["wachter_counterfactuals"]
