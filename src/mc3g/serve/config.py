"""What ``mc3g serve`` serves, decided once at start-up: the explainer (fitted, or loaded from a
saved document), the default K, the applicant the page starts with, and the limits on a request.

Configuration comes only from here: the embedded loan example, or a TOML file the operator
names.  Nothing a request sends reaches this module, so no request can load a model, a rule set
or causal text.  Paths in the file are read relative to the file's own folder.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from ..exceptions import InputError
from ..explain import MC3G, load_model, plain
from ..reading import read_text
from ..reference import REFERENCES, fitted_explainer
from .inputs import check_example

LOOPBACK = "127.0.0.1"


@dataclass(frozen=True)
class Limits:
    """Bounds on one request: the most options it may ask for, the seconds it may take (queueing
    for a search thread included), the bytes of its body; and the threads that run searches."""

    max_k: int = 10
    timeout_seconds: float = 10.0
    max_body_bytes: int = 64 * 1024
    threads: int = 2

    def __post_init__(self) -> None:
        for name in ("max_k", "max_body_bytes", "threads"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InputError(f"[service] {name} must be a whole number of at least 1, not {value!r}")
        if isinstance(self.timeout_seconds, bool) or not isinstance(self.timeout_seconds, (int, float)) or not 0 < self.timeout_seconds <= 3600:
            raise InputError(f"[service] timeout_seconds must be a number of seconds above 0 and at most 3600, not {self.timeout_seconds!r}")


@dataclass(frozen=True)
class Service:
    """A fitted explainer and how to serve it: ``title`` names the decision on the page, ``k``
    is the number of options a request gets unless it asks, ``example`` the applicant the page
    starts with (None: an empty form)."""

    explainer: MC3G
    title: str
    k: int
    limits: Limits = field(default_factory=Limits)
    example: dict[str, Any] | None = None
    host: str = LOOPBACK
    port: int = 8000

    def __post_init__(self) -> None:
        if isinstance(self.k, bool) or not isinstance(self.k, int) or not 1 <= self.k <= self.limits.max_k:
            raise InputError(f"[explainer] k must be a whole number from 1 to max_k = {self.limits.max_k}, not {self.k!r}")
        check_example(self.explainer, self.example)  # a bad example stops the start, not a request


def embedded() -> Service:
    """The paper's loan example with its decision rules and causal knowledge, K = 3; the page
    starts with John, the refused applicant."""
    return configured({"explainer": {"dataset": "loan"}})


def configured(document: Mapping[str, Any]) -> Service:
    """The service the tables of a configuration describe, given as a mapping rather than a file
    (paths in it are read from the current folder): ``mc3g serve --explainer FILE``'s way."""
    return _service(document, Path.cwd())


# The keys each table of the file may hold, and the type of each value.
_EXPLAINER = {
    "dataset": str, "split": str, "saved": str, "model": str, "trust_model": bool, "trusted_types": list, "favourable": (str, int, bool),
    "rules": str, "causal": str, "causal_only": str, "profile": str, "mode": str, "norm": str, "candidates": str, "k": int,
}  # fmt: skip
_SERVICE = {"title": str, "host": str, "port": int} | {f.name: (int, float) if f.name == "timeout_seconds" else int for f in fields(Limits)}
_FITTED = ("split", "rules", "causal", "causal_only", "profile", "mode", "norm", "candidates")  # settings a saved explainer already holds


def load_config(path: str | Path) -> Service:
    """The service a TOML file describes (see ``docs/service.md``); every problem is an
    :class:`InputError` that names the file, the table and the key."""
    file = Path(path)
    try:
        document = tomllib.loads(read_text(file, "configuration file"))
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{file}: not TOML: {exc}") from None
    unknown = sorted(set(document) - {"explainer", "service", "example"})
    if unknown:
        raise InputError(f"{file}: unknown table(s) {unknown}; the tables are [explainer], [service] and [example]")
    try:
        return _service(document, file.parent)
    except InputError as exc:
        raise InputError(f"{file}: {exc}") from None


def _service(document: Mapping[str, Any], folder: Path) -> Service:
    settings = _checked(document.get("explainer", {}), _EXPLAINER, "explainer")
    options = _checked(document.get("service", {}), _SERVICE, "service")
    example = document.get("example")
    if example is not None and not isinstance(example, dict):
        raise InputError("[example] must be a table of feature = value")
    limits = Limits(**{f.name: options[f.name] for f in fields(Limits) if f.name in options})
    explainer, title, person = _explainer(settings, folder)
    k = settings.get("k", min(3, limits.max_k))
    host, port = options.get("host", LOOPBACK), options.get("port", 8000)
    if not 0 < port < 65536:
        raise InputError(f"[service] port must be from 1 to 65535, not {port}")
    return Service(explainer, options.get("title", title), k, limits, example if example is not None else person, host, port)


def _checked(table: Any, allowed: Mapping[str, Any], name: str) -> dict[str, Any]:
    if not isinstance(table, dict):
        raise InputError(f"[{name}] must be a table")
    for key, value in table.items():
        if key not in allowed:
            raise InputError(f"[{name}] has an unknown key {key!r}; the keys are {sorted(allowed)}")
        kind = allowed[key]
        if not isinstance(value, kind) or (isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,))):
            raise InputError(f"[{name}] {key} is {value!r}, which is not a {_kind_name(kind)}")
    return dict(table)


def _kind_name(kind: Any) -> str:
    names = {str: "text", bool: "true or false", int: "whole number", float: "number", list: "list"}
    return " or ".join(names[k] for k in (kind if isinstance(kind, tuple) else (kind,)))


def _explainer(settings: dict[str, Any], folder: Path) -> tuple[MC3G, str, dict[str, Any] | None]:
    """The explainer, a title for the page and the example applicant the data set offers."""

    def path(key: str) -> str | None:
        return str(folder / settings[key]) if key in settings else None

    if not all(isinstance(name, str) for name in settings.get("trusted_types", [])):
        raise InputError(f"[explainer] trusted_types must list type names as text, not {settings['trusted_types']!r}")
    reading = {"trust_model": settings.get("trust_model", False), "trusted_types": settings.get("trusted_types")}
    params = {"desired_class": settings["favourable"]} if "favourable" in settings else {}
    if ("saved" in settings) == ("dataset" in settings):
        raise InputError("[explainer] needs either dataset = NAME (fitted at start-up) or saved = FILE (an MC3G.save document), not both")
    if "saved" in settings:
        held = [key for key in (*_FITTED, "favourable") if key in settings]
        if held:
            raise InputError(f"[explainer] {held} are fixed in the saved explainer {settings['saved']}: fit and save it again to change them")
        model = load_model(path("model"), **reading) if "model" in settings else None  # type: ignore[arg-type]
        return MC3G.load(path("saved"), model=model), Path(settings["saved"]).stem, None  # type: ignore[arg-type]
    if "causal" in settings and "causal_only" in settings:
        raise InputError("[explainer] causal = FILE adds to the knowledge shipped for the data set, causal_only = FILE replaces it: give one")
    fitted = {key: settings[key] for key in ("profile", "mode", "norm", "candidates") if key in settings}
    ds, explainer = fitted_explainer(
        settings["dataset"], settings.get("split"), rules_file=path("rules"), causal_file=path("causal") or path("causal_only"),
        causal_only="causal_only" in settings, model_file=path("model"), **reading, **fitted, **params,
    )  # fmt: skip
    ref = REFERENCES.get(ds.name)
    person = None
    if ref is not None and ref.split == ds.split:
        person = {name: plain(value) for name, value in ref.person_row(ds).items() if name in explainer.feature_names_in_}
    return explainer, ds.name, person
