"""The exact counterfactual search: candidate values, the reference semantics, the ASP program.

- :mod:`.space`: the candidate values of each feature (candidate schemes ``exact`` and ``data``).
- :mod:`.distance`: how a change is priced (norms, spreads).
- :mod:`.problem`: one question and its reference semantics in each cost mode.
- :mod:`.encoding`: the problem as an ASP program; :mod:`.solver`: the states in exact cost order.
- :mod:`.reasons`: why a problem has no answer, in words.

Code outside this package imports from here only.
"""

from .completion import Completion
from .distance import NORMS, SCALINGS, Distance, change_size, spread
from .encoding import Program
from .grid import Domain, decimal, grid_value, infer_step, person_step, units
from .lifts import MOST_CONFLICTS, Lift, barred, openings
from .past import PastApplicants
from .problem import COST_MODES, Assessment, Consequences, Problem, State
from .reasons import why_none
from .shared import SharedLifts, model_literals
from .solver import ActionSets, StateStream, search
from .space import (
    CANDIDATE_SCHEMES,
    CandidateSpace,
    FeatureValues,
    Observed,
    Region,
    SpaceSettings,
    allows,
    build_space,
    numeric_bounds,
)

__all__ = [
    "CANDIDATE_SCHEMES",
    "COST_MODES",
    "MOST_CONFLICTS",
    "NORMS",
    "SCALINGS",
    "ActionSets",
    "Assessment",
    "CandidateSpace",
    "Completion",
    "Consequences",
    "Distance",
    "Domain",
    "Lift",
    "FeatureValues",
    "Observed",
    "PastApplicants",
    "Problem",
    "Program",
    "Region",
    "SpaceSettings",
    "SharedLifts",
    "State",
    "StateStream",
    "allows",
    "barred",
    "build_space",
    "change_size",
    "decimal",
    "grid_value",
    "infer_step",
    "model_literals",
    "numeric_bounds",
    "openings",
    "person_step",
    "search",
    "spread",
    "units",
    "why_none",
]
