"""A model's labels as text, the same however the model typed them (1, 1.0 and numpy's 1 are "1")."""

from __future__ import annotations

from typing import Any

import numpy as np


def label_texts(labels: np.ndarray) -> np.ndarray:
    """Each label as text (:func:`label_text`), found once for each distinct label of a typed
    array (thousands of rows, a few labels); row by row for an array of Python objects."""
    if labels.dtype.kind == "O":
        return np.array([label_text(v) for v in labels], dtype=object)
    distinct, at = np.unique(labels, return_inverse=True)
    return np.array([label_text(v) for v in distinct], dtype=object)[at.reshape(-1)]


def label_text(value: Any) -> str:
    """A label as text, the same however the model typed it: 1, 1.0 and numpy's 1 are "1"."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value)
