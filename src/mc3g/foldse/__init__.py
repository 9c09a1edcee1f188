"""The FOLD-SE rule learner."""

from .covering import described
from .heuristics import HEURISTICS
from .learner import FoldSE

__all__ = ["HEURISTICS", "FoldSE", "described"]
