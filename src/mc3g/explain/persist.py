"""A fitted explainer as a versioned JSON document, so a service or a cluster worker starts from
it in a fraction of a second and nothing is unpickled.

The document holds the estimator's parameters, the decision rules, the assembled schema (the
data's metadata with the profile's settings for the data set and the knowledge's laid over it:
every protection in force, so loading gives the same), the causal rules and constraints, what
the training data showed (values and spreads of the features in play), the surrogate's fidelity
and the columns and dtypes the model was fitted on.  Documents saved before the profile's
settings travelled with the schema load as they were: what they hold is what they were fitted
with (the run record lists it).  A black box is never embedded: the document
names the file it is kept in and its SHA-256, and the caller loads the model itself, best from
a ``.skops`` or ``.onnx`` file, which :func:`~mc3g.models.load_model` reads without running code.
A model it read is checked by the bytes it was built from, wherever the file now is: a deployment
that copied the document and the model elsewhere is checked as well as the machine that saved it.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..causal import CausalModel, CausalRule, Constraint
from ..engine import Engine, HuntSettings, SearchSettings
from ..exceptions import InputError, ModelFileError, said
from ..models import BlackBox, ModelFile, Robustness, model_source
from ..params import Constraints, validate
from ..reading import file_sha256, loads, read_text, writable_path
from ..rules import Literal, RuleSet
from ..schema import Feature, Schema
from ..search import Observed, PastApplicants
from ..serialization import check_header, header
from .readable import encoded, glass_of
from .surrogate import Surrogate

JSON_FORMAT = "mc3g.explainer"
JSON_VERSION = 1


@dataclass(frozen=True)
class Saved:
    """What a saved document restores: the estimator's parameters and its fitted state."""

    params: dict[str, Any]
    columns: list[str]
    engine: Engine
    surrogate: Surrogate | None


def save(path: Path, params: Mapping[str, Any], columns: Sequence[str], engine: Engine, surrogate: Surrogate | None, model_file: str | Path | None) -> None:
    """Write the document; ``params`` are the estimator's, without the model, the causal
    knowledge and the schema (the engine holds what they became).  Only a regular file or a new
    path is written: a device or a named pipe there is refused, never replaced."""
    writable_path(path, "saved explainer")
    document = {
        **header(JSON_FORMAT, JSON_VERSION),
        "params": dict(params),
        "columns": list(columns),
        "rules": engine.rules.to_dict(),
        "schema": _schema_to_dict(engine.schema),
        "causal": {
            "name": engine.causal.name,
            "rules": [{"effect": r.effect.to_dict(), "cause": [c.to_dict() for c in r.cause], "constraint": r.constraint} for r in engine.causal.rules],
            "constraints": [[lit.to_dict() for lit in c.literals] for c in engine.causal.constraints],
        },
        "unfavourable": engine.unfavourable,
        "observed": {
            "numbers": {f: values.tolist() for f, values in engine.observed.numbers.items()},
            "tokens": engine.observed.tokens,
            **({"past": engine.observed.past.to_dict()} if engine.observed.past is not None else {}),
        },
        "spreads": engine.spreads,
        "black_box": _black_box_to_dict(engine, surrogate, model_file),
    }
    document[DIGEST] = _digest(document)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")  # written whole, then renamed: never half a document
    try:
        temporary.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
        os.replace(temporary, path)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise InputError(f"cannot write the saved explainer {path}: {exc.strerror or exc}") from None


def load(path: Path, model: Any = None, table: Constraints | None = None) -> Saved:
    """Read a document; a black box's needs the ``model`` (the caller loads it), and its
    parameters are checked against ``table`` (the estimator's).  A document cut short or edited
    by hand is an :class:`InputError` naming the file."""
    try:
        document = loads(read_text(path, "saved explainer"))
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: not a saved explainer (not JSON: {said(exc)})") from None
    check_header(document, JSON_FORMAT, JSON_VERSION, f"saved explainer ({path})")
    if DIGEST in document and document[DIGEST] != _digest({k: v for k, v in document.items() if k != DIGEST}):
        edited = "edited since it was saved (its content no longer has the SHA-256 it was saved with), so no answer could rest on it"
        raise InputError(f"{path}: {edited}: fit and save it again")
    box_doc = document.get("black_box")
    if not isinstance(box_doc, (dict, type(None))):
        raise InputError(f"{path}: a damaged saved explainer (its black_box is a {type(box_doc).__name__}); save the explainer again")
    if box_doc is not None and model is None:
        where = f"kept in {box_doc.get('file')} (SHA-256 {box_doc.get('sha256')})" if box_doc.get("file") else "not named by a file"
        raise InputError(
            f"{path} explains a black box {where}: give its model (--model FILE on the command line, model = FILE in a service file; "
            "in Python, model=mc3g.load_model(FILE), which reads .skops and .onnx without running code)"
        )
    if box_doc is None and model is not None:
        raise InputError(f"{path} explains decision rules, not a black box: load it without a model (no --model on the command line)")
    if box_doc is not None:
        _check_model(path, box_doc, model)
    params = document.get("params", {})
    unknown = sorted(set(params) - set(table)) if isinstance(params, dict) and table else []
    if unknown:
        raise InputError(f"{path}: a damaged saved explainer (its params hold {unknown}, which no explainer takes); save the explainer again")
    try:
        validate(params, table or {})
        return _restored(document, box_doc, model)
    except (InputError, KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
        raise InputError(f"{path}: a damaged saved explainer ({exc if isinstance(exc, InputError) else said(exc)}); save the explainer again") from None


DIGEST = "content_sha256"  # of the rest of the document: an explainer edited by hand is refused on loading, not blamed on a person's row


def _digest(document: Mapping[str, Any]) -> str:
    """The SHA-256 of a document as canonical JSON (keys sorted, no spaces): the same for the
    document written and the document read back."""
    return hashlib.sha256(json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")).hexdigest()


def with_saved_trust(path: Path, model: ModelFile) -> ModelFile:
    """``model`` trusting too the types the explainer saved in ``path`` was fitted trusting,
    when its file is the one the explainer was saved with (the same SHA-256): trust given once,
    at ``mc3g fit``, travels with the explainer, and with those bytes only."""
    if model.path is None:
        return model
    try:
        box_doc = loads(read_text(path, "saved explainer")).get("black_box")
    except (json.JSONDecodeError, AttributeError):
        return model  # :func:`load` names what is wrong with it
    saved = box_doc.get("trusted_types") if isinstance(box_doc, dict) else None
    if not saved or not isinstance(saved, list) or not all(isinstance(t, str) for t in saved):
        return model
    if box_doc.get("sha256") != file_sha256(Path(model.path), "model file"):
        return model  # another model: :func:`load` refuses it, and nothing is trusted for it
    return replace(model, trusted_types=tuple(dict.fromkeys([*model.trusted_types, *saved])))


def _restored(document: Mapping[str, Any], box_doc: Mapping[str, Any] | None, model: Any) -> Saved:
    rules = RuleSet.from_dict(document["rules"])
    params = document["params"]
    columns = document["columns"]
    schema = _schema_from_dict(document["schema"])
    causal_doc = document["causal"]
    causal = CausalModel(
        rules=tuple(CausalRule(Literal.from_dict(r["effect"]), tuple(Literal.from_dict(c) for c in r["cause"]), r["constraint"]) for r in causal_doc["rules"]),
        constraints=tuple(Constraint(tuple(Literal.from_dict(lit) for lit in c)) for c in causal_doc["constraints"]),
        name=causal_doc["name"],
    )
    observed = Observed(
        {f: np.asarray(v, dtype=np.float64) for f, v in document["observed"]["numbers"].items()},
        {f: list(v) for f, v in document["observed"]["tokens"].items()},
        PastApplicants.from_dict(document["observed"]["past"]) if "past" in document["observed"] else None,
    )
    black_box, surrogate = None, None
    if box_doc is not None:
        dtypes = {c: pd.api.types.pandas_dtype(d) for c, d in box_doc["dtypes"].items()}
        black_box = BlackBox(model, columns, dtypes, labels=box_doc["labels"], unfavourable=document["unfavourable"])
        if params.get("margin"):  # saved with a margin (never with retrained models: save refuses them)
            favourable = next(label for label in box_doc["labels"] if label != document["unfavourable"])
            black_box.robust = Robustness.of(model, favourable, margin=params["margin"])
        refined = {name: box_doc[name] for name in _REFINED if name in box_doc}  # documents saved before refinement have none
        surrogate = Surrogate(rules, box_doc["fidelity"], box_doc["n_fit"], box_doc["n_held_out"], **refined)
    settings = SearchSettings.of(params)
    if box_doc is not None and "hunt" in box_doc:  # as fitted (a document saved before it was kept: the parameter's, or the defaults)
        settings = replace(settings, hunt=HuntSettings.of(box_doc["hunt"]))
    fidelity = surrogate.fidelity if surrogate else None
    engine = Engine(rules, causal, schema, document["unfavourable"], observed, document["spreads"], settings, black_box, fidelity)
    if box_doc is not None:
        engine = _read_again(engine, model, params, box_doc)
        black_box.encoded = encoded(engine, model)  # type: ignore[union-attr]
        if black_box is not None and black_box.robust is not None:  # a margin: exact where the model is read
            black_box.robust = replace(black_box.robust, exact=engine.glass is not None)
    return Saved(params, columns, engine, surrogate)


def _read_again(engine: Engine, model: Any, params: Mapping[str, Any], box_doc: Mapping[str, Any]) -> Engine:
    """The model's decision read again as it was when saved (a document saved before mc3g read
    models exactly reads it as ``read_model`` says now), or an error when the reading differs."""
    if "read" in box_doc and box_doc["read"] is None:  # not read when saved: not now either
        return engine.with_glass(None, box_doc.get("opaque", ""))
    glass, opaque = glass_of(engine, model, params.get("read_model", "auto"), margin=params.get("margin", 0.0))
    if "read" in box_doc and (glass is None or glass.fingerprint() != box_doc["read"]):
        raise InputError(f"the model's decision read now differs from the one read when the explainer was saved ({opaque or 'another reading'})")
    return engine.with_glass(glass, opaque)


def _check_model(path: Path, box_doc: Mapping[str, Any], model: Any) -> None:
    """Refuse a model read from bytes other than those the document was saved with, wherever
    they were read from.  A model that :func:`~mc3g.models.load_model` did not read (an object
    the caller made) has no bytes to check: it is taken as given."""
    source = model_source(model)
    if source is None or not box_doc.get("sha256") or source.sha256 == box_doc["sha256"]:
        return
    raise ModelFileError(
        source.path,
        f"is not the model {path} was saved with: its SHA-256 is {source.sha256}, the saved explainer's ({box_doc.get('file')}) was "
        f"{box_doc['sha256']}; fit and save the explainer again with this model, or give the model it was saved with",
    )


def _black_box_to_dict(engine: Engine, surrogate: Surrogate | None, model_file: str | Path | None) -> dict[str, Any] | None:
    box = engine.black_box
    if box is None or surrogate is None:
        return None
    file = Path(model_file).resolve() if model_file is not None else None
    if file is not None and not file.is_file():
        raise InputError(f"model_file {model_file} is not a file")
    sha256 = file_sha256(file, "model file") if file else None
    source = model_source(box.model)
    return {
        "file": str(file) if file else None,
        "sha256": sha256,
        "trusted_types": list(source.trusted) if source is not None and sha256 is not None and source.sha256 == sha256 else [],
        "type": f"{type(box.model).__module__}.{type(box.model).__qualname__}",
        "dtypes": {c: str(d) for c, d in box.dtypes.items()},
        "labels": list(box.labels or ()),
        "fidelity": surrogate.fidelity,
        "n_fit": surrogate.n_fit,
        "n_held_out": surrogate.n_held_out,
        "hunt": engine.settings.hunt.changed(),  # as fitted: hunt="measured" is not measured again on loading
        "read": None if engine.glass is None else engine.glass.fingerprint(),  # the model read exactly: read again on loading, and the same
        "opaque": engine.opaque,
        **{name: getattr(surrogate, name) for name in _REFINED},
    }


_REFINED = ("near", "first_fidelity", "first_near", "rounds", "counterexamples")


def _schema_to_dict(schema: Schema) -> dict[str, Any]:
    return {
        "name": schema.name,
        "label": schema.label,
        "classes": list(schema.classes),
        "unfavourable": schema.unfavourable,
        "notes": schema.notes,
        "features": [{k: v for k, v in asdict(f).items() if v != getattr(_DEFAULTS, k, None) or k in ("name", "kind")} for f in schema.features],
    }


_DEFAULTS = Feature("_", "numeric")


def _schema_from_dict(data: dict[str, Any]) -> Schema:
    features = tuple(Feature(**{k: _frozen(v) for k, v in f.items()}) for f in data["features"])
    return Schema(data["name"], features, data["label"], tuple(data["classes"]), data["unfavourable"], data.get("notes", ""))


def _frozen(value: Any) -> Any:
    """A setting as the feature held it: JSON's lists back to tuples, at any depth (a range, a
    set of targets, pairs of values), so any setting the schema carries comes back unchanged."""
    return tuple(_frozen(v) for v in value) if isinstance(value, list) else value
