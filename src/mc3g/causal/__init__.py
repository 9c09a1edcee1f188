"""Causal knowledge: feature settings, constraints and causal rules, written by hand in a small
text format (:mod:`mc3g.causal.parser`) or built in Python, and printed back
(:mod:`mc3g.causal.printing`)."""

from ..exceptions import CausalSyntaxError
from .model import CausalModel, CausalRule, Constraint, FeatureSpec, Source
from .parser import load, parse

__all__ = ["CausalModel", "CausalRule", "CausalSyntaxError", "Constraint", "FeatureSpec", "Source", "load", "parse"]
