"""The FOLD-SE rule learner."""

from .heuristics import HEURISTICS
from .learner import FoldSE

__all__ = ["FoldSE", "HEURISTICS"]
