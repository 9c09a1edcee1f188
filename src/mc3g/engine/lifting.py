"""A person's problem with some protections lifted, each held alone as a switch
(:class:`~mc3g.search.Lift`): where what would open a way out is found (:mod:`mc3g.search.lifts`)."""

from __future__ import annotations

import math
import weakref
from collections.abc import Collection, Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from ..protections import PROTECTIONS
from ..schema import Feature
from ..search import Lift, Problem, allows, barred, grid_value, numeric_bounds, person_step, units
from ..values import plains
from .engine import LIFTED, Engine

Held = dict[str, list[tuple[str, Feature]]]  # each feature's protections lifted, each as the feature with it alone
_MADE: weakref.WeakKeyDictionary[Engine, dict[frozenset[tuple[str, str]], tuple[list[Feature], Held]]] = weakref.WeakKeyDictionary()


def lifted(engine: Engine, instance: Mapping[str, Any], lifting: Collection[tuple[str, str]]) -> tuple[Problem, list[Lift]]:
    """:meth:`Engine.read_problem` with the protections ``lifting`` (feature, setting) lifted, each
    as a :class:`~mc3g.search.Lift` (what it bars while it holds)."""
    features, held = _without(engine, frozenset(lifting))
    problem = engine._read(features, instance, 1, _held_bounds(engine, held, instance))
    lifts = [
        Lift(fv.name, setting, alone, barred(fv.values, lambda v, a=alone, o=fv.original: allows(a, o, v)), setting == "consequence_only")
        for fv in problem.space.features
        for setting, alone in held[fv.name]
    ]
    return problem, lifts


def _without(engine: Engine, lifting: frozenset[tuple[str, str]]) -> tuple[list[Feature], Held]:
    """The features read with the protections ``lifting`` lifted, and each protection lifted
    held alone: the same for every person, so made once an engine (each feature checks itself
    anew)."""
    made = _MADE.setdefault(engine, {})
    if lifting not in made:
        features, held = [], {}
        for name in engine._read_names:
            f = engine.schema.feature(name)
            kept = [setting for setting in LIFTED if (name, setting) in lifting]
            features.append(free := replace(f, **{setting: PROTECTIONS[setting].free for setting in kept}))
            held[name] = [(setting, replace(free, **{setting: getattr(f, setting)})) for setting in kept]
        made[lifting] = (features, held)
    return made[lifting]


def _held_bounds(engine: Engine, held: Held, instance: Mapping[str, Any]) -> dict[str, list[Any]]:
    """For each number the model's score is linear in, each lifted protection's bounds as
    candidates with the values just past them: a candidate there stands for values the protection
    all allows or all bars (its interval otherwise ran past the bound, and a state it opened
    broke a protection held: "no way out unless" nothing)."""
    assert engine.glass is not None
    out: dict[str, list[Any]] = {}
    for name, kept in held.items():
        if not kept or name not in engine.glass.slopes:
            continue
        original, seen = instance[name], engine.observed.numbers.get(name)
        step = person_step(kept[0][1].step, seen, original)  # the grid the person's problem is read on
        seen = np.zeros(0) if seen is None else seen
        for _, alone in kept:
            lo, hi = numeric_bounds(alone, original)
            if not (math.isfinite(lo) and math.isfinite(hi)):
                continue
            if engine.settings.plausible:  # the training values nearest each bound, on each side
                within = seen[(seen >= lo) & (seen <= hi)]
                out.setdefault(name, []).extend(plains(np.r_[seen[seen < lo][-1:], within[:1], within[-1:], seen[seen > hi][:1]]))
                continue
            first, last = math.ceil(units(lo, step)), math.floor(units(hi, step))
            out.setdefault(name, []).extend(grid_value(k, step) for k in (first - 1, first, last, last + 1))
    return out
