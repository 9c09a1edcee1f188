"""The settings a batch's answers were made under, as a results file's header and a Dask batch's
manifest record them, and how two sets of them compare: answers are added to a file or folder
only under the settings its answers were made under, and a refusal names each setting that
differs.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from ..exceptions import ResultsFileError
from ..explain import MC3G
from ..reading import file_sha256
from ..version import __version__

_NOT_SETTINGS = frozenset({"model", "causal", "schema", "candidates", "total_CFs", "n_jobs"})
"""Parameters the settings hold in another form (the model, the knowledge and the schema by
their hashes, the candidate scheme and the count in the run record) or that change no answer."""

OVERWRITE_HINT = "choose another file, or start this one afresh with overwrite=True (--overwrite on the command line; its answers are lost)"


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def frame_sha256(frame: pd.DataFrame) -> str:
    """A fingerprint of a frame's columns, dtypes, index and cells: positions in a resumed file
    refer to the same rows only if the rows are the same."""
    digest = hashlib.sha256(json.dumps([[str(c) for c in frame.columns], [str(d) for d in frame.dtypes]]).encode("utf-8"))
    digest.update(pd.util.hash_pandas_object(frame, index=True).to_numpy().tobytes())
    return digest.hexdigest()


def batch_settings(explainer: MC3G, data: Mapping[str, Any], model_file: str | Path | None = None) -> dict[str, Any]:
    """Everything that shapes a fitted explainer's answers, as a results header records it:
    ``data`` (what the caller knows of the rows: a data set's name, split and fingerprints), the
    SHA-256 of ``model_file`` (a black box's file), of the decision rules, of the causal
    knowledge and of the assembled schema, the run record's settings, the other parameters and
    the mc3g version.  Values are as JSON gives them back, so a header read later compares equal."""
    run = explainer.run_record().settings()
    params = {name: value for name, value in explainer.get_params(deep=False).items() if name not in _NOT_SETTINGS and name not in run}
    settings = {
        "mc3g": __version__,
        "data": dict(data),
        "model_sha256": file_sha256(Path(model_file), "model file") if model_file is not None else None,
        "rules_sha256": text_sha256(explainer.rules_.to_json()),
        "causal_sha256": text_sha256(explainer.causal_.to_text()),
        "schema_sha256": text_sha256(repr(explainer.schema_)),
        "run": run,
        "params": params,
    }
    return json.loads(json.dumps(settings, default=str))


def settings_hash(settings: Mapping[str, Any]) -> str:
    """One name for a set of settings: answers under equal hashes are comparable."""
    return "sha256:" + text_sha256(json.dumps(settings, sort_keys=True, separators=(",", ":")))


def check_settings(name: str, recorded: Any, settings: Mapping[str, Any]) -> None:
    """Refuse to add to answers made under ``recorded`` settings unless they equal ``settings``,
    naming each setting that differs (the recorded value first)."""
    differences = _differences(recorded, dict(settings))
    if differences:
        shown = "; ".join(f"{key}: {old} in the file, {new} now" for key, old, new in differences)
        raise ResultsFileError(f"{name} holds answers made under other settings ({shown}). Rerun with the file's settings to resume it, or {OVERWRITE_HINT}")


def _differences(old: Any, new: Any, key: str = "") -> list[tuple[str, str, str]]:
    """(dotted key, old value, new value) for each setting that differs, as JSON shows them."""
    if isinstance(old, dict) and isinstance(new, dict):
        keys = [*old, *(k for k in new if k not in old)]  # in the header's order: the data set first
        return [d for k in keys for d in _differences(old.get(k, _ABSENT), new.get(k, _ABSENT), f"{key}.{k}" if key else k)]
    if old == new:
        return []
    return [(key or "settings", _shown(old), _shown(new))]


_ABSENT = object()


def _shown(value: Any) -> str:
    """A setting's value as JSON, a hash cut to its first twelve digits."""
    if value is _ABSENT:
        return "(absent)"
    return json.dumps(value[:12] + "…" if isinstance(value, str) and len(value) == 64 else value, ensure_ascii=False)
