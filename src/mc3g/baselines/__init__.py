"""Counterfactual baselines for the MC3G comparison, each an Explainer of :mod:`mc3g.methods`
(registered there as ``dice``, ``cfnow``, ``wachter`` and ``nearest_noncausal``).  None of them
uses causal knowledge.  Importing this package imports neither ``dice-ml`` nor ``cfnow``: each is
loaded when its explainer is fitted."""

from .cfnow import CfnowExplainer
from .dice import DiceExplainer
from .nearest import nearest_noncausal
from .wachter import WachterExplainer

__all__ = ["CfnowExplainer", "DiceExplainer", "WachterExplainer", "nearest_noncausal"]
