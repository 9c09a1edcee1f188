"""The MC3G pipeline: decision rules (or a black box and its surrogate) and causal knowledge in,
counterfactuals out.

- :class:`MC3G`: the estimator users see (``fit``, ``explain``, ``session``, ``whatif``,
  ``save``/``load``), under a profile of :mod:`mc3g.profiles`.
- :class:`Recourse`: the answer for one person (its :class:`Counterfactual` options of
  :class:`DirectAction` and :class:`CausedChange`, each :class:`Shown` in words), with its
  :class:`RunRecord`; :class:`WhatIf`: what follows from a person's own changes
  (:func:`fixed_here`: why a feature may not be one).
- :func:`violations` and :func:`forbidden_in`: an independent check of an answer.
- :func:`build_surrogate`: FOLD-SE rules of a black box, with their held-out fidelity.
- :class:`Engine`: what every person's search shares; :class:`Session`: one person's search,
  driven from outside (batch runs, services and cluster workers ask the model themselves).
- :data:`ASKING`: the parts of a black box's search that ask the model (a run record counts
  each one's rounds).
- :func:`explain_chunk`: many people's searches with their questions to the model pooled;
  :class:`PeopleBar`: a progress bar of people and people per second; :func:`usable_cores`
  bounds ``n_jobs``.

The model itself, read from a file and asked about rows, is :mod:`mc3g.models`; a batch's
results file is :mod:`mc3g.records`; MC3G beside the baselines, :mod:`mc3g.methods`.
"""

from ..engine import Engine, SearchSettings
from ..hunt import ASKING
from .batch import PeopleBar, explain_chunk, usable_cores
from .changes import CausedChange, DirectAction, Shown, apply_again
from .check import forbidden_in, violations
from .mc3g import MC3G
from .persist import with_saved_trust
from .principal import MOST_REASONS
from .result import ERROR, NO_COUNTERFACTUAL, NOT_REFUSED, REFUSED, TIMINGS, Counterfactual, Recourse, RunRecord
from .session import Session
from .surrogate import Surrogate, build_surrogate
from .whatif import WhatIf, fixed_here

__all__ = [
    "ASKING",
    "ERROR",
    "MC3G",
    "MOST_REASONS",
    "NOT_REFUSED",
    "NO_COUNTERFACTUAL",
    "REFUSED",
    "TIMINGS",
    "CausedChange",
    "Counterfactual",
    "DirectAction",
    "Engine",
    "PeopleBar",
    "Recourse",
    "RunRecord",
    "SearchSettings",
    "Session",
    "Shown",
    "Surrogate",
    "WhatIf",
    "apply_again",
    "build_surrogate",
    "explain_chunk",
    "fixed_here",
    "forbidden_in",
    "usable_cores",
    "violations",
    "with_saved_trust",
]
