"""What ``mc3g serve`` serves, decided once at start-up: the explainer (fitted, or loaded from a
saved document), the default K, the applicant the page starts with, and the limits on a request.

Configuration comes only from here: the embedded loan example, or a TOML file the operator
names.  Nothing a request sends reaches this module, so no request can load a model, a rule set
or causal text.  Paths in the file are read relative to the file's own folder.

The file's tables are pydantic models closed to unknown keys (:class:`ServiceFile`); each value is
checked by the kinds :mod:`mc3g.params` declares (those of MC3G's and of :class:`Limits`' tables
where the file sets one of theirs), so a wrong one is said as a wrong parameter is anywhere.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError, ValidationInfo

from ..exceptions import InputError
from ..explain import MC3G, with_saved_trust
from ..models import ModelFile
from ..params import Constraints, Flag, Kind, Number, Text, Texts, Whole, validate
from ..profiles import Profile
from ..reading import read_text
from ..reference import HELD, REFERENCES, ExplainerSettings, fitted_explainer
from ..values import plain, suggest
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

    _parameter_constraints: ClassVar[Constraints] = {
        "max_k": [Whole(1)],
        "timeout_seconds": [Number(0, 3600, closed="right", of="seconds")],
        "max_body_bytes": [Whole(1)],
        "threads": [Whole(1)],
    }

    def __post_init__(self) -> None:
        validate(vars(self), self._parameter_constraints, "[service] ")


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
        k = Whole(1, "max_k", "the most options a request may ask for")
        validate({"max_k": self.limits.max_k, "k": self.k}, {"k": [k]}, "[explainer] ")
        check_example(self.explainer, self.example)  # a bad example stops the start, not a request


def _declared(*kinds: Kind) -> BeforeValidator:
    """A field's value checked by ``kinds`` (a value the file gives; a default is not checked)."""

    def check(value: Any, info: ValidationInfo) -> Any:
        validate({str(info.field_name): value}, {str(info.field_name): kinds})
        return value

    return BeforeValidator(check)


class _Table(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


FILE = _declared(Text("the path of a file (from the configuration file's folder)"))
_MC3G = MC3G._parameter_constraints


class ExplainerTable(_Table):
    """``[explainer]``: a data set to fit on (``dataset``) or a saved explainer (``saved``); the
    model and how to read it, its favourable label, rules and knowledge; the profile, the search's
    settings, what an option must clear beyond the model (``margin``, ``retrains``) and K."""

    dataset: Annotated[str | None, _declared(Text("the name of a data set"))] = None
    split: Annotated[str | None, _declared(Text("the name of a split"))] = None
    saved: Annotated[str | None, FILE] = None
    model: Annotated[str | None, FILE] = None
    trust_model: Annotated[bool, _declared(Flag())] = False
    trusted_types: Annotated[list[str] | None, _declared(Texts("a list of type names"))] = None
    favourable: Annotated[str | int | bool | None, _declared(Text("a label"), Whole(), Flag())] = None
    rules: Annotated[str | None, FILE] = None
    causal: Annotated[str | None, FILE] = None
    causal_only: Annotated[str | None, FILE] = None
    profile: Annotated[str | None, _declared(*_MC3G["profile"])] = None
    mode: Annotated[str | None, _declared(*_MC3G["mode"])] = None
    norm: Annotated[str | None, _declared(*_MC3G["norm"])] = None
    candidates: Annotated[str | None, _declared(*_MC3G["candidates"])] = None
    hunt: Annotated[str | dict[str, int | bool] | None, _declared(*_MC3G["hunt"])] = None
    margin: Annotated[float | None, _declared(*_MC3G["margin"])] = None
    retrains: Annotated[int | None, _declared(*_MC3G["retrains"])] = None  # the model file's own recipe, fitted again on resamples
    k: Annotated[int | None, _declared(Whole())] = None  # its bounds need [service] max_k: Service checks them


_LIMITS = Limits._parameter_constraints


class ServiceTable(_Table):
    """``[service]``: the page's title, where to listen, and the :class:`Limits`."""

    title: Annotated[str | None, _declared(Text())] = None
    host: Annotated[str, _declared(Text("an address"))] = LOOPBACK
    port: Annotated[int, _declared(Whole(1, 65535))] = 8000
    max_k: Annotated[int, _declared(*_LIMITS["max_k"])] = Limits.max_k
    timeout_seconds: Annotated[float, _declared(*_LIMITS["timeout_seconds"])] = Limits.timeout_seconds
    max_body_bytes: Annotated[int, _declared(*_LIMITS["max_body_bytes"])] = Limits.max_body_bytes
    threads: Annotated[int, _declared(*_LIMITS["threads"])] = Limits.threads


class ServiceFile(_Table):
    """A configuration: its three tables, each optional."""

    explainer: ExplainerTable = ExplainerTable()
    service: ServiceTable = ServiceTable()
    example: dict[str, Any] | None = None


def embedded() -> Service:
    """The paper's loan example with its decision rules and causal knowledge, K = 3; the page
    starts with John, the refused applicant."""
    return configured({"explainer": {"dataset": "loan"}})


def configured(document: Mapping[str, Any]) -> Service:
    """The service the tables of a configuration describe, given as a mapping rather than a file
    (paths in it are read from the current folder): ``mc3g serve --explainer FILE``'s way."""
    return _service(document, Path.cwd())


def load_config(path: str | Path) -> Service:
    """The service a TOML file describes (see ``docs/service.md``); every problem is an
    :class:`InputError` that names the file, the table and the key."""
    file = Path(path)
    try:
        document = tomllib.loads(read_text(file, "configuration file"))
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{file}: not TOML: {exc}") from None
    try:
        return _service(document, file.parent)
    except InputError as exc:
        raise InputError(f"{file}: {exc}") from None


def _service(document: Mapping[str, Any], folder: Path) -> Service:
    try:
        config = ServiceFile.model_validate(document)
    except ValidationError as exc:
        raise _refused(exc) from None
    options = config.service
    limits = Limits(**{f.name: getattr(options, f.name) for f in fields(Limits)})
    explainer, title, person = _explainer(config.explainer, folder)
    own = explainer.k if config.explainer.saved is not None else 3  # a saved explainer's K is the lender's choice
    k = config.explainer.k if config.explainer.k is not None else min(own, limits.max_k)
    example = config.example if config.example is not None else person
    return Service(explainer, options.title or title, k, limits, example, options.host, options.port)


def _refused(error: ValidationError) -> InputError:
    """The first problem pydantic found, said as mc3g says a wrong parameter: unknown tables
    first (all of them), then the first table's first unknown key or value."""
    problems = error.errors()
    tables = [p["loc"][0] for p in problems if p["type"] == "extra_forbidden" and len(p["loc"]) == 1]
    if tables:
        return InputError(f"unknown table(s) {tables}; the tables are [explainer], [service] and [example]")
    problem = problems[0]
    table, key = str(problem["loc"][0]), ".".join(map(str, problem["loc"][1:]))
    if problem["type"] == "extra_forbidden":
        keys = sorted(ServiceFile.model_fields[table].annotation.model_fields)  # type: ignore[union-attr]
        return InputError(f"[{table}] has an unknown key {key!r}; the keys are {keys}{suggest(key, keys)}")
    cause = (problem.get("ctx") or {}).get("error")
    if isinstance(cause, InputError):
        return InputError(f"[{table}] {cause}")
    if not key:
        return InputError(f"[{table}] must be a table" + (" of feature = value" if table == "example" else ""))
    return InputError(f"[{table}] {key}: {problem['msg']}")


def _explainer(table: ExplainerTable, folder: Path) -> tuple[MC3G, str, dict[str, Any] | None]:
    """The explainer, a title for the page and the example applicant the data set offers."""

    def path(key: str) -> str | None:
        value = getattr(table, key)
        return None if value is None else str(folder / value)

    given = table.model_fields_set
    if (table.saved is None) == (table.dataset is None):
        raise InputError("[explainer] needs either dataset = NAME (fitted at start-up) or saved = FILE (an MC3G.save document), not both")
    try:
        model = ModelFile(path("model"), table.trust_model, table.trusted_types)
        settings = None if table.saved is not None else ExplainerSettings(
            dataset=table.dataset, split=table.split, model=model, favourable=table.favourable, rules_file=path("rules"), causal_file=path("causal"),
            causal_only=path("causal_only"), profile=table.profile or Profile.PRODUCT,
            params={key: getattr(table, key) for key in ("mode", "norm", "candidates", "hunt", "margin", "retrains") if key in given},
        )  # fmt: skip
    except InputError as exc:
        raise InputError(f"[explainer] {exc}") from None
    if settings is None:
        held = [key for key in HELD if key in given]
        if held:
            raise InputError(f"[explainer] {held} are fixed in the saved explainer {table.saved}: fit and save it again to change them")
        saved = Path(path("saved"))  # type: ignore[arg-type]
        return MC3G.load(saved, model=with_saved_trust(saved, model).load()), saved.stem, None
    ds, explainer = fitted_explainer(settings)
    ref = REFERENCES.get(ds.name)
    person = None
    if ref is not None and ref.split == ds.split:
        person = {name: plain(value) for name, value in ref.person_row(ds).items() if name in explainer.feature_names_in_}
    return explainer, ds.name, person
