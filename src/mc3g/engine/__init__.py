"""The fitted counterfactual engine: what every person's search shares.

- :class:`Engine`: the decision rules, the causal knowledge, the schema and the search settings
  of a fitted explainer, and the problems it builds for one person; :class:`SearchSettings`: how
  a search prices and reads states (:data:`K` and :func:`checked_k`: how many options may be asked;
  :func:`person`: a row as a mapping and the words that name it); :func:`lifted`: a person's
  problem with protections lifted, each held alone as a switch.
- :class:`HuntSettings`: how far a black box's search goes for one person, and how many rows it
  asks at once (:data:`DEFAULT`, or :data:`MEASURED`: sized by the model's cost at ``fit``).

The search with a black box is :mod:`mc3g.hunt`; the estimator around both, :mod:`mc3g.explain`.
"""

from .engine import Engine, K, SearchSettings, checked_k, person
from .lifting import lifted
from .tuning import DEFAULT, MEASURED, HuntSettings

__all__ = ["DEFAULT", "K", "MEASURED", "Engine", "HuntSettings", "SearchSettings", "checked_k", "lifted", "person"]
