"""Fitted models read from files, without running code nobody allowed.

A pickle (``.pkl``, ``.pickle``, ``.joblib``) is a program: loading one runs whatever the file
says, a shell command included.  So mc3g reads one only when the caller vouches for the file
(``trust_model=True``, ``--trust-model``).  Two formats carry a model as data and load freely:

- ``.skops``, scikit-learn's safe format: skops rebuilds only the types it trusts by default;
  any other type in the file must be named by the caller (``trusted_types=``, ``--trust-type``),
  or the file is refused with the list of them.
- ``.onnx``, run by ONNX Runtime and seen as a classifier (:class:`OnnxModel`).

Whatever goes wrong (no such file, an empty or corrupt one, an unknown extension, a missing
optional package) is a :class:`~mc3g.exceptions.ModelFileError` naming the file, never a
traceback from inside the loaders.

The file is read once, and the model is built from those bytes: :func:`model_source` gives their
SHA-256, so a saved explainer is checked against the bytes of the model it is handed, wherever
they came from, and not against whatever its old path holds now.
"""

from __future__ import annotations

import hashlib
import importlib
import io
import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ..exceptions import FileRefusedError, InputError, ModelFileError, said
from ..params import Constraints, Flag, Instance, Texts, validate
from ..reading import read_bytes

SKOPS = ".skops"
ONNX = ".onnx"
PICKLES = (".pkl", ".pickle", ".joblib")
CONVERT = 'convert it once, where you trust it, with skops.io.dump(model, "model.skops") (or export it to ONNX)'


def load_model(path: str | Path, *, trust_model: bool = False, trusted_types: Iterable[str] | None = None) -> Any:
    """The model kept in ``path``, chosen by its extension: ``.skops`` and ``.onnx`` load
    without running code from the file; a pickle loads only with ``trust_model=True``.
    ``trusted_types`` names the types beyond skops' defaults that a ``.skops`` file may hold."""
    file = Path(path)
    kind = file.suffix.lower()
    try:
        content = read_bytes(file, "model file")  # read once: the bytes loaded are the bytes whose SHA-256 is kept
    except FileRefusedError as exc:
        raise ModelFileError(file, exc.problem) from None
    if kind not in (SKOPS, ONNX, *PICKLES):
        raise ModelFileError(
            file, f"unknown kind of model file {kind or '(no extension)'}: mc3g reads .skops and .onnx, and {', '.join(PICKLES)} with --trust-model"
        )
    if kind in PICKLES and not trust_model:
        raise ModelFileError(
            file, f"not loaded: loading a pickle runs code from the file; if you trust it, pass --trust-model (trust_model=True), or better {CONVERT}"
        )
    if not content:
        raise ModelFileError(file, "the file is empty")
    trusted: tuple[str, ...] = ()
    if kind == SKOPS:
        model, trusted = _skops(file, content, trusted_types)
    elif kind == ONNX:
        model = OnnxModel(content, source=file)
    else:
        model = _pickle(file, content)
    if not callable(getattr(model, "predict", None)) and not callable(model):
        raise ModelFileError(file, f"holds a {type(model).__name__}, which has no predict method")
    _remember(model, ModelSource(file.resolve(), hashlib.sha256(content).hexdigest(), trusted))
    return model


@dataclass(frozen=True)
class ModelFile:
    """A model file and how it may be read: the one form of ``--model``, ``--trust-model`` and
    ``--trust-type`` on the command line and of ``model``, ``trust_model`` and ``trusted_types``
    in a service file.  How to read a file is said only with a file to read."""

    path: str | PathLike[str] | None = None
    trust_model: bool = False
    trusted_types: tuple[str, ...] = ()

    _parameter_constraints: ClassVar[Constraints] = {
        "path": [None, Instance((str, PathLike), "the path of a model file")],
        "trust_model": [Flag()],
        "trusted_types": [None, Texts("a list of type names")],
    }

    def __post_init__(self) -> None:
        validate(vars(self), self._parameter_constraints)
        object.__setattr__(self, "trusted_types", tuple(self.trusted_types or ()))
        if (self.trust_model or self.trusted_types) and self.path is None:
            raise InputError(
                "trust_model and trusted_types (--trust-model, --trust-type) say how to read a model file: "
                "give them with one (--model; model = FILE in a service file)"
            )

    def load(self) -> Any:
        """The model the file holds (:func:`load_model`), or None without a file."""
        return None if self.path is None else load_model(self.path, trust_model=self.trust_model, trusted_types=self.trusted_types or None)


@dataclass(frozen=True)
class ModelSource:
    """Where :func:`load_model` read a model from: the file, the SHA-256 of the bytes read, and
    the types beyond skops' defaults the caller trusted them to hold (a saved explainer keeps
    them, for exactly these bytes)."""

    path: Path
    sha256: str
    trusted: tuple[str, ...] = ()


_SOURCES: weakref.WeakKeyDictionary[Any, ModelSource] = weakref.WeakKeyDictionary()


def _remember(model: Any, source: ModelSource) -> None:
    try:
        _SOURCES[model] = source
    except TypeError:  # a model that cannot be weakly referenced or hashed: its source is not known
        pass


def model_source(model: Any) -> ModelSource | None:
    """The file and SHA-256 of the bytes :func:`load_model` read ``model`` from; None for a model
    made otherwise (fitted in this process, unpickled by the caller)."""
    try:
        return _SOURCES.get(model)
    except TypeError:
        return None


def _pickle(file: Path, content: bytes) -> Any:
    import joblib

    try:
        return joblib.load(io.BytesIO(content))
    except Exception as exc:  # a corrupt file, or a pickle naming a class that is not installed
        raise ModelFileError(file, f"could not be unpickled ({said(exc)})") from None


def _skops(file: Path, content: bytes, trusted_types: Iterable[str] | None) -> tuple[Any, tuple[str, ...]]:
    """The model, and the types beyond skops' defaults it holds (each one the caller trusts)."""
    skops_io = _optional("skops.io", file)
    allowed = {trusted_types} if isinstance(trusted_types, str) else set(trusted_types or ())
    try:
        found = skops_io.get_untrusted_types(data=content)
    except Exception as exc:
        raise ModelFileError(file, f"not a readable skops file ({said(exc)})") from None
    refused = [name for name in found if name not in allowed]
    if refused:
        flags = " ".join(f"--trust-type {name}" for name in refused)
        raise ModelFileError(
            file,
            f"holds type(s) skops does not trust by default: {', '.join(refused)}; if you trust the file, add {flags} "
            f"(trusted_types={refused!r} in Python); an explainer saved with them trusts them for this file's bytes",
        )
    try:
        return skops_io.loads(content, trusted=list(found)), tuple(found)
    except Exception as exc:
        raise ModelFileError(file, f"could not be loaded by skops ({said(exc)})") from None


class OnnxModel:
    """An ONNX classifier as mc3g asks models: ``predict(frame)`` gives one label per row.

    Rows go in as the graph asks: one input per column, named as the column (how skl2onnx
    exports a pipeline fitted on a DataFrame), or, for a graph with a single input, every column
    in order as one tensor.  Each is cast to the input's element type.  The label is the output
    whose name says ``label``, else the first tensor output; probabilities are not read.  ONNX
    Runtime runs on one thread: mc3g's own processes (``n_jobs``) do the parallel work."""

    def __init__(self, content: bytes, source: str | Path = "<bytes>") -> None:
        self.content = content
        self.source = str(source)
        self._open()

    def _open(self) -> None:
        ort = _optional("onnxruntime", Path(self.source))
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        try:
            self.session = ort.InferenceSession(self.content, sess_options=options, providers=["CPUExecutionProvider"])
        except Exception as exc:
            raise ModelFileError(self.source, f"not a readable ONNX model ({said(exc)})") from None
        self.inputs = [(i.name, i.type, list(i.shape)) for i in self.session.get_inputs()]
        self.label_output = self._label_output()

    def _label_output(self) -> str:
        outputs = self.session.get_outputs()
        tensors = [o for o in outputs if o.type.startswith("tensor(")]
        if not tensors:
            listed = ", ".join(f"{o.name} ({o.type})" for o in outputs)
            raise ModelFileError(self.source, f"none of the ONNX model's outputs is a tensor of labels: {listed}")
        chosen = next((o for o in tensors if "label" in o.name.lower()), tensors[0])
        width = chosen.shape[-1] if len(chosen.shape) >= 2 else 1
        if isinstance(width, int) and width > 1:
            raise ModelFileError(
                self.source, f"the ONNX model's output {chosen.name!r} gives {width} values per row (scores?), not one label; export it with its label output"
            )
        return chosen.name

    def predict(self, frame: pd.DataFrame) -> np.ndarray:
        """The label output for each row of ``frame``."""
        (labels,) = self.session.run([self.label_output], self._feeds(frame))
        labels = np.asarray(labels)
        return labels[:, 0] if labels.ndim == 2 and labels.shape[1] == 1 else labels

    def _feeds(self, frame: pd.DataFrame) -> dict[str, np.ndarray]:
        """The graph's inputs from the rows: per column by name, or all columns as one tensor."""
        named = all(name in frame.columns for name, _, _ in self.inputs)
        if len(self.inputs) == 1 and not (named and self.inputs[0][2][-1:] == [1]):
            name, kind, shape = self.inputs[0]
            width = shape[-1] if len(shape) == 2 else None
            if isinstance(width, int) and width != frame.shape[1]:
                raise InputError(f"the ONNX model's input {name!r} takes {width} values per row; the rows have {frame.shape[1]} columns {list(frame.columns)}")
            return {name: _tensor(frame.to_numpy(), kind)}
        if not named:
            absent = [name for name, _, _ in self.inputs if name not in frame.columns]
            raise InputError(f"the ONNX model's inputs {absent} are not columns of the rows {list(frame.columns)}; it takes one input per column, by name")
        return {name: _tensor(frame[[name]].to_numpy(), kind) for name, kind, _ in self.inputs}

    def __getstate__(self) -> dict[str, Any]:
        """The graph's bytes, not the session: so the model travels to worker processes."""
        return {"content": self.content, "source": self.source}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.content, self.source = state["content"], state["source"]
        self._open()

    def __repr__(self) -> str:
        return f"OnnxModel({self.source!r}, inputs={[name for name, _, _ in self.inputs]}, label={self.label_output!r})"


_ELEMENTS = {
    "tensor(float)": np.float32,
    "tensor(double)": np.float64,
    "tensor(float16)": np.float16,
    "tensor(int64)": np.int64,
    "tensor(int32)": np.int32,
    "tensor(bool)": np.bool_,
}


def _tensor(values: np.ndarray, kind: str) -> np.ndarray:
    """``values`` cast to the element type of an ONNX input (text for a string input)."""
    if kind == "tensor(string)":
        return values.astype(str).astype(object)
    if kind not in _ELEMENTS:
        raise InputError(f"mc3g cannot feed an ONNX input of type {kind}; it feeds {', '.join(['tensor(string)', *_ELEMENTS])}")
    return values.astype(_ELEMENTS[kind])


def _optional(module: str, file: Path) -> ModuleType:
    """An optional package the file's format needs, or an error that says how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        package = module.split(".")[0]
        raise ModelFileError(file, f"reading {file.suffix} files needs {package}: pip install 'mc3g[models]'") from None
