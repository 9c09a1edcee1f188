"""Counterfactual baselines for the MC3G comparison, each an Explainer of :mod:`mc3g.methods`
(registered there as ``dice``, ``wachter`` and ``nearest_noncausal``).  None of them uses causal
knowledge.  Importing this package does not import ``dice-ml``: DiCE is loaded when a
:class:`~mc3g.baselines.dice.DiceExplainer` is fitted."""

from .dice import DiceExplainer
from .nearest import nearest_noncausal
from .wachter import WachterExplainer

__all__ = ["DiceExplainer", "WachterExplainer", "nearest_noncausal"]
