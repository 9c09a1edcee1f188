"""Causal knowledge: feature settings, constraints and causal rules, written by hand in a small
text format (:mod:`mc3g.causal.parser`) or built in Python, and printed back
(:mod:`mc3g.causal.printing`)."""

from ..exceptions import CausalSyntaxError
from .model import CausalModel, load, parse, parse_all
from .parser import read_file
from .printing import declaration_line, statement_line
from .statements import DECLARABLE, CausalRule, Constraint, Source

__all__ = [
    "DECLARABLE",
    "CausalModel",
    "CausalRule",
    "CausalSyntaxError",
    "Constraint",
    "Source",
    "declaration_line",
    "load",
    "parse",
    "parse_all",
    "read_file",
    "statement_line",
]
