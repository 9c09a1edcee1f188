"""One representation of rules for the learner, the causal knowledge and the search."""

from .algebra import escape_boxes
from .literal import Literal
from .rule import Rule, merge_literals
from .ruleset import Explanation, RuleSet
from .table import Column, Table, token

__all__ = ["Column", "Explanation", "Literal", "Rule", "RuleSet", "Table", "escape_boxes", "merge_literals", "token"]
