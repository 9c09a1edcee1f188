"""One representation of rules for the learner, the causal knowledge and the search."""

from .algebra import escape_boxes
from .literal import NUMERIC_OPS, Literal, Value, format_value
from .render import PLAIN, ProgramWriter, Words, predicate
from .rule import Rule, merge_literals
from .ruleset import Explanation, RuleSet
from .table import Column, Table, token

__all__ = [
    "NUMERIC_OPS",
    "PLAIN",
    "Column",
    "Explanation",
    "Literal",
    "ProgramWriter",
    "Rule",
    "RuleSet",
    "Table",
    "Value",
    "Words",
    "escape_boxes",
    "format_value",
    "merge_literals",
    "predicate",
    "token",
]
