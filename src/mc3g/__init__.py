"""mc3g: causally constrained counterfactual explanations for any classifier (MC3G, NeSy 2025)."""

from .causal import CausalModel
from .explain import MC3G, Counterfactual, Recourse
from .foldse import FoldSE
from .models import load_model
from .profiles import Profile
from .rules import Literal, Rule, RuleSet
from .version import __version__

__all__ = ["MC3G", "CausalModel", "Counterfactual", "FoldSE", "Literal", "Profile", "Recourse", "Rule", "RuleSet", "__version__", "load_model"]
