"""The MC3G pipeline: decision rules (or a black box and its surrogate) and causal knowledge in,
counterfactuals out.

- :class:`MC3G`: the estimator users see (``fit``, ``explain``, ``session``, ``save``/``load``).
- :class:`BlackBox`: the one place a model's ``predict`` is called, and checked.
- :func:`build_surrogate`: FOLD-SE rules of a black box, with their held-out fidelity.
- :class:`Engine`: what every person's search shares; :class:`Session`: one person's search,
  driven from outside (batch runs, services and cluster workers ask the model themselves).
- :class:`Recourse`: the answer for one person, with its :class:`RunRecord`; :class:`WhatIf`:
  what follows from a person's own changes (:func:`fixed_here`: why a feature may not be one).
- :class:`Explainer` and :func:`explainer`: one interface for MC3G and the baselines.
- :func:`open_results`: a results file of a batch, resumed only under the settings
  (:func:`batch_settings`) its answers were made under (:func:`check_settings` names what
  differs, :func:`lock_file` keeps out a second writer); :func:`usable_cores` bounds ``n_jobs``.
- :func:`explain_chunk`: many people's searches with their questions to the model pooled;
  :class:`PeopleBar`: a progress bar of people and people per second.
- :func:`load_model`: a fitted model from a file (``.skops`` or ``.onnx`` freely, a pickle only
  when trusted); :class:`ModelFile`: a file with how it may be read, as the command line and the
  service say it; :class:`OnnxModel`: an ONNX graph as a classifier.
"""

from ..values import plain, show
from .batch import PeopleBar, explain_chunk, usable_cores
from .blackbox import BlackBox, typed_frame
from .changes import CausedChange, DirectAction, Shown
from .check import forbidden_in, violations
from .engine import Engine, SearchSettings
from .mc3g import MC3G
from .modelfile import ModelFile, OnnxModel, load_model
from .persist import file_sha256
from .protocol import Explainer, explainer
from .result import ERROR, NO_COUNTERFACTUAL, NOT_REFUSED, REFUSED, Counterfactual, Recourse, RunRecord
from .results import ResultsFile, batch_settings, check_settings, frame_sha256, lock_file, open_results, settings_hash
from .session import Session
from .surrogate import Surrogate, build_surrogate
from .whatif import WhatIf, fixed_here

__all__ = [
    "ERROR",
    "MC3G",
    "NOT_REFUSED",
    "NO_COUNTERFACTUAL",
    "REFUSED",
    "BlackBox",
    "CausedChange",
    "Counterfactual",
    "DirectAction",
    "Engine",
    "Explainer",
    "ModelFile",
    "OnnxModel",
    "PeopleBar",
    "Recourse",
    "ResultsFile",
    "RunRecord",
    "SearchSettings",
    "Session",
    "Shown",
    "Surrogate",
    "WhatIf",
    "batch_settings",
    "build_surrogate",
    "check_settings",
    "explain_chunk",
    "explainer",
    "file_sha256",
    "fixed_here",
    "forbidden_in",
    "frame_sha256",
    "load_model",
    "lock_file",
    "open_results",
    "settings_hash",
    "plain",
    "show",
    "typed_frame",
    "usable_cores",
    "violations",
]
