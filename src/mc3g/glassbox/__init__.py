"""A model's own decision, read exactly: tree ensembles and linear scores over the raw features.

- :func:`read_model`: a scikit-learn, XGBoost or LightGBM classifier (alone, in a pipeline of
  column-wise encoders and scalers, calibrated, behind a lender's threshold) read into a :class:`GlassBox`,
  or :class:`Opaque` with the reason it cannot be.
- :class:`Encoded`: rows as such a pipeline's estimator reads them, built in arrays (any
  estimator behind: a black box asked thousands of rows a person is asked without a frame).
- :class:`GlassBox`: the decision as a margin (positive: favourable) summed over :class:`Trees`
  and linear terms, each tree testing one raw feature at a node (:class:`Splits`).

The search with such a model (:mod:`mc3g.search`) finds the least-cost states the model itself
accepts, or proves there is none.
"""

from .box import GlassBox, Splits, Trees
from .encoded import Encoded
from .opaque import Opaque
from .opening import read_model

__all__ = ["Encoded", "GlassBox", "Opaque", "Splits", "Trees", "read_model"]
