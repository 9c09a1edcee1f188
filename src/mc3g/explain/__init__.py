"""The MC3G pipeline: decision rules and causal knowledge in, counterfactuals out."""

from .mc3g import MC3G
from .result import CausedChange, Counterfactual, DirectAction, Recourse

__all__ = ["MC3G", "CausedChange", "Counterfactual", "DirectAction", "Recourse"]
