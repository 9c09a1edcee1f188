"""mc3g: causally constrained counterfactual explanations for any classifier (MC3G, NeSy 2025)."""

from .foldse import FoldSE
from .rules import Literal, Rule, RuleSet

__version__ = "0.1.0"

__all__ = ["FoldSE", "Literal", "Rule", "RuleSet", "__version__"]
