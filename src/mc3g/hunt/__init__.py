"""One person's search with a black box: the rules' states and the rows around the person,
each judged by the model in few rounds of questions (MC3G, Dasgupta et al., NeSy 2025).

- :func:`hunted`: the search, its phases (:data:`PHASES`) run in order, each taking the search's
  :class:`Progress` and returning a new one, with what one :class:`Hunt` gives them all (the
  person, the settings, the verdicts); a generator that yields each round's rows for the model
  and takes back its refusals;
  :data:`ASKING` names the parts that ask (a run record counts each one's rounds, the options'
  steps, :data:`STEPS`, last).
- :class:`Verdicts`: the model's verdicts on one person's rows, remembered by the changes each
  row makes, so no row is asked twice.
- :func:`verified`: a problem's states read in exact cost order, each judged by the model;
  :class:`Outcome`: what a search found and why it stopped (:data:`FOUND`, :data:`BUDGET`,
  :data:`READ_ALL`).
- :func:`neighbours`: rows drawn around a person, as DiCE random draws them.
- :func:`protected_changes`: a protected characteristic alone set where the protections bar it
  (:data:`PROTECTED`: the part that asks them, where no option was found).

The settings that bound it are :class:`mc3g.engine.HuntSettings`; the session that drives it,
:class:`mc3g.explain.Session`.
"""

from .hunt import Hunt
from .local import neighbours
from .phases import ASKING, PHASES, STEPS, hunted
from .progress import Progress
from .protected import PROTECTED, protected_changes
from .verdicts import Asking, Row, Verdicts
from .verified import BUDGET, FOUND, READ_ALL, Outcome, verified

__all__ = [
    "ASKING", "BUDGET", "FOUND", "PHASES", "PROTECTED", "READ_ALL", "STEPS",
    "Asking", "Hunt", "Outcome", "Progress", "Row", "Verdicts", "hunted", "neighbours", "protected_changes", "verified",
]  # fmt: skip
