"""The model mc3g explains, seen from outside: read from a file, and asked about rows.

- :func:`load_model`: a fitted model from a file (``.skops`` or ``.onnx`` freely, a pickle only
  when trusted); :class:`ModelFile`: a file with how it may be read, as the command line and the
  service say it; :class:`OnnxModel`: an ONNX graph as a classifier; :func:`model_source`: the
  file and SHA-256 of the bytes a model was read from.
- :class:`BlackBox`: the one place mc3g calls a model's ``predict``, and checks the answer;
  :class:`ChangedRows`: rows that are a base row with a few changes each (:class:`Coded`: such
  changes given as codes, as a search draws them by the thousand); :func:`typed_frame`:
  rows built as the model saw its training data; :func:`label_text`: a label as text, however
  the model typed it (`labels.py`); :func:`fitted_categories`: the
  categories a LightGBM or XGBoost model was fitted on, by column (`categories.py`; a frame is
  made to hold them as such by :meth:`BlackBox.as_fitted`), looking through the wrappers that
  predict with a model inside (:data:`SEARCHES` among them).
- :class:`Robustness`: what an option must clear beyond the model's decision (a margin on its
  probability, models retrained on resampled data: :func:`retrained_models`).

Importing this package loads neither skops nor ONNX Runtime: reading such a file does.
"""

from .blackbox import BlackBox, ChangedRows, Coded, typed_frame
from .categories import SEARCHES, fitted_categories
from .files import ModelFile, ModelSource, OnnxModel, load_model, model_source
from .labels import label_text
from .robust import Robustness, retrained_models

__all__ = [
    "SEARCHES", "BlackBox", "ChangedRows", "Coded", "ModelFile", "ModelSource", "OnnxModel", "Robustness", "fitted_categories",
    "label_text", "load_model", "model_source", "retrained_models", "typed_frame",
]  # fmt: skip
