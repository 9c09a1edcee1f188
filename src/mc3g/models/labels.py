"""A model's labels as text, the same however the model typed them (1, 1.0 and numpy's 1 are "1")."""

from __future__ import annotations

from typing import Any

import numpy as np

FEW = 8  # distinct labels found by a pass each before sorting them out instead


def label_texts(labels: np.ndarray) -> np.ndarray:
    """Each label as text (:func:`label_text`), found once for each distinct label of a typed
    array (thousands of rows, a few labels); row by row for an array of Python objects."""
    if labels.dtype.kind == "O":
        return np.array([label_text(v) for v in labels], dtype=object)
    distinct, at = _distinct(labels.reshape(-1))
    return np.array([label_text(v) for v in distinct], dtype=object)[at]


def _distinct(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct labels and each row's among them: a comparison of the rows left with each
    label in turn, a classifier's few (sorting a pooled call's hundred thousand strings took
    ten times as long); sorted where there are more than :data:`FEW`."""
    at = np.empty(len(labels), dtype=np.intp)
    distinct: list = []
    left = np.arange(len(labels))
    while len(left):
        if len(distinct) == FEW:
            found, inverse = np.unique(labels, return_inverse=True)
            return found, inverse.reshape(-1)
        same = labels[left] == labels[left[0]]
        same[0] = True  # itself, even where it is no number
        at[left[same]] = len(distinct)
        distinct.append(labels[left[0]])
        left = left[~same]
    return np.array(distinct, dtype=labels.dtype), at


def label_text(value: Any) -> str:
    """A label as text, the same however the model typed it: 1, 1.0 and numpy's 1 are "1"."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value)
