"""Causal knowledge: feature settings, constraints and causal rules, written by hand in a small
text format (:mod:`mc3g.causal.parser`) or built in Python, and printed back
(:mod:`mc3g.causal.printing`)."""

from ..exceptions import CausalSyntaxError
from .model import CausalModel, load, parse
from .statements import DECLARABLE, CausalRule, Constraint, Source

__all__ = ["DECLARABLE", "CausalModel", "CausalRule", "CausalSyntaxError", "Constraint", "Source", "load", "parse"]
