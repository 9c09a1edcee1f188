"""What a request may hold, generated from the explainer's schema at start-up.

Each feature becomes a field of the ``Applicant`` model: a finite number within the feature's
valid values (else mc3g's bounds) for a numeric feature (a person may lie outside the training
range: it is their own state), one of the domain's values for a categorical one.  Unknown
features, wrong types, values outside a domain or the valid values and non-finite numbers are
refused with a 422 that names the field before any search starts.  The same description, as
plain JSON, is ``GET /v1/schema``: enough to build a form.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, TypeAdapter, ValidationError, create_model, model_validator
from pydantic.json_schema import SkipJsonSchema
from pydantic_core import PydanticCustomError

from ..exceptions import InputError
from ..explain import MC3G, MOST_REASONS, fixed_here
from ..rules import PLAIN, Words
from ..schema import Feature
from ..values import LARGEST

MAX_TEXT = 200  # characters of a category whose domain is open


@dataclass(frozen=True)
class Input:
    """One feature a request may give: ``required`` when the explainer cannot answer without it
    (every column a black box reads; the features in play for rules), ``in_play`` when a
    counterfactual may touch it, ``changeable`` when the person may change it themselves;
    ``words`` say it as a person reads it."""

    feature: Feature
    required: bool
    in_play: bool
    words: Words = PLAIN

    @property
    def name(self) -> str:
        return self.feature.name

    @property
    def changeable(self) -> bool:
        return self.in_play and not self.feature.immutable and not self.feature.consequence_only

    @property
    def label(self) -> str:
        said = self.words.feature(self.name)
        return said[:1].upper() + said[1:]

    @property
    def choices(self) -> list[tuple[Any, str]] | None:
        """The values a form offers, each with its words: a category's domain, or every value of a
        numeric feature whose values are all labelled (adult's education levels); else None."""
        f = self.feature
        if f.domain is not None:  # a set: in the order of its words
            return sorted(((v, self.words.value(self.name, v)) for v in f.domain), key=lambda choice: (choice[1].casefold(), choice[0]))
        return [(v, label) for v, label in sorted(f.value_labels)] if f.labels_every_value else None

    def describe(self) -> dict[str, Any]:
        f = self.feature
        return {
            "name": self.name, "label": self.label, "kind": f.kind, "description": f.description, "required": self.required, "in_play": self.in_play,
            "changeable": self.changeable, "values": list(f.domain) if f.domain is not None else None, "range": list(f.range) if f.range else None,
            "valid": list(f.valid) if f.valid else None, "step": f.step, "immutable": f.immutable, "consequence_only": f.consequence_only,
            "direction": f.direction, "max_change": f.max_change, "targets": list(f.targets) if f.targets is not None else None,
            "moves": f.protections().get("moves"), "unknown": list(f.unknown) or None,
            "value_labels": [{"value": v, "label": label} for v, label in f.value_labels] or None,
        }  # fmt: skip


def inputs_of(explainer: MC3G) -> list[Input]:
    """The features a request may give, in the order the explainer was fitted on."""
    schema = explainer.schema_
    in_play = set(explainer.engine_.triable)  # a what-if may try any feature advice may change
    box = explainer.black_box_
    needed = set(box.columns) if box is not None else in_play
    words = explainer.words_
    return [Input(schema.feature(name), name in needed, name in in_play, words) for name in explainer.feature_names_in_ if name in schema]


def _value_type(feature: Feature) -> Any:
    if feature.is_numeric:
        low, high = feature.valid or (-LARGEST, LARGEST)
        return Annotated[float, Field(strict=True, allow_inf_nan=False, ge=low, le=high)]
    if feature.domain is not None:
        return Literal[feature.domain]  # type: ignore[valid-type]
    return Annotated[str, Field(strict=True, min_length=1, max_length=MAX_TEXT)]


def _fixed(feature: Feature, in_play: list[str]) -> Any:
    """A change a person gives of a feature outside play: refused, saying why (not as an unknown
    key), and left out of the documented schema."""

    def refuse(_: Any) -> Any:
        raise PydanticCustomError("not_changeable", fixed_here(feature, in_play))

    return SkipJsonSchema[Annotated[_value_type(feature), BeforeValidator(refuse)]]


def _without_defaults(schema: dict[str, Any]) -> None:
    """An optional field has no value until given (``null`` is refused), so its JSON Schema shows
    no ``default: null``."""
    for prop in schema.get("properties", {}).values():
        prop.pop("default", None)


class _Closed(BaseModel):
    """Features are named by alias, so any column name works; anything unnamed is refused."""

    model_config = ConfigDict(extra="forbid", populate_by_name=False, json_schema_extra=_without_defaults)

    def values(self) -> dict[str, Any]:
        """The fields given, by feature name."""
        return self.model_dump(by_alias=True, exclude_unset=True)


def _at_least_one(schema: dict[str, Any]) -> None:
    _without_defaults(schema)
    schema["minProperties"] = 1


class _Changes(_Closed):
    """The person's own changes: at least one."""

    model_config = ConfigDict(extra="forbid", populate_by_name=False, json_schema_extra=_at_least_one)

    @model_validator(mode="after")
    def _some(self) -> _Changes:
        if not self.model_fields_set:
            raise ValueError("name at least one change (feature: new value)")
        return self


@dataclass(frozen=True)
class RequestModels:
    """The models FastAPI validates bodies with: ``Explain`` (``applicant``, ``k``), ``WhatIf``
    (``applicant``, ``changes`` of the features in play) and ``Notice`` (``applicant``, ``k``, and
    the lender's name and own ``reasons``, at most four), ``Portfolio`` (``applicants``, at most
    :data:`MOST_APPLICANTS`, ``k``, a cost ``budget``, the ``patterns`` columns and the ``fewest``
    refused people of a subgroup); ``count``, their ``k`` alone, which the page's form is checked
    with too."""

    applicant: type[_Closed]
    changes: type[_Closed]
    explain: type[BaseModel]
    whatif: type[BaseModel]
    notice: type[BaseModel]
    portfolio: type[BaseModel]
    count: TypeAdapter[int]


MOST_APPLICANTS = 500  # applicants in one portfolio request, at most (a batch is for more: mc3g batch)


def request_models(inputs: list[Input], k: int, max_k: int) -> RequestModels:
    in_play = [x.name for x in inputs if x.in_play]

    def fields(required: bool) -> dict[str, Any]:
        return {
            f"f{i}": (_value_type(x.feature) if required or x.in_play else _fixed(x.feature, in_play),
                      Field(... if required and x.required else None, alias=x.name, title=x.name, description=x.feature.description))
            for i, x in enumerate(inputs)
        }  # fmt: skip

    applicant = create_model("Applicant", __base__=_Closed, **fields(True))
    changes = create_model("Changes", __base__=_Changes, **fields(False))
    closed = ConfigDict(extra="forbid")
    count = Annotated[int, Field(strict=True, ge=1, le=max_k, description=f"How many options, least effort first (1 to {max_k})."), BeforeValidator(_whole)]
    explain = create_model("ExplainRequest", __config__=closed, applicant=(applicant, ...), k=(count, k))
    whatif = create_model("WhatIfRequest", __config__=closed, applicant=(applicant, ...), changes=(changes, ...))
    reason = Annotated[str, Field(min_length=3, max_length=300)]
    reasons = Annotated[list[reason], Field(max_length=MOST_REASONS, description="The lender's own principal reasons, instead of the model's.")]
    lender = Annotated[str | None, Field(max_length=200, description="The lender's name, as the notice's heading gives it.")]
    notice = create_model("NoticeRequest", __config__=closed, applicant=(applicant, ...), k=(count, k), lender=(lender, None), reasons=(reasons, []))
    return RequestModels(applicant, changes, explain, whatif, notice, _portfolio(applicant, count, k, [x.name for x in inputs]), TypeAdapter(count))


def _portfolio(applicant: type[_Closed], count: Any, k: int, names: list[str]) -> type[BaseModel]:
    """``POST /v1/portfolio``'s body: applicants, each as ``/v1/explain`` takes one."""
    many = Annotated[list[applicant], Field(min_length=1, max_length=MOST_APPLICANTS, description=f"The applicants (1 to {MOST_APPLICANTS}).")]  # type: ignore[valid-type]
    within = "The cost a refused person may reverse the decision within (default: the median)."
    budget = Annotated[float | None, Field(strict=True, ge=0, allow_inf_nan=False, description=within)]
    named = Literal[tuple(names)] if names else str  # type: ignore[valid-type]
    columns = Annotated[list[named] | None, Field(max_length=len(names) or 1, description="The features subgroups are found over (default: every one).")]  # type: ignore[valid-type]
    fewest = Annotated[
        int, Field(strict=True, ge=1, le=MOST_APPLICANTS, description="The fewest refused people a weakest subgroup holds."), BeforeValidator(_whole)
    ]
    return create_model(
        "PortfolioRequest", __config__=ConfigDict(extra="forbid"),
        applicants=(many, ...), k=(count, k), budget=(budget, None), patterns=(columns, None), fewest=(fewest, 20),
    )  # fmt: skip


def check_example(explainer: MC3G, example: Mapping[str, Any] | None) -> None:
    """Refuse, at start-up, a page example no request could hold."""
    if example is None:
        return
    try:
        request_models(inputs_of(explainer), 1, 1).applicant.model_validate(example)
    except ValidationError as exc:
        raise InputError(f"[example] is not an applicant this explainer takes: {named(exc)}") from None


def named(error: ValidationError) -> str:
    """Each problem pydantic found, with the field it is in."""
    return "; ".join(f"{'.'.join(map(str, p['loc']))}: {p['msg']}" for p in error.errors())


def _whole(value: Any) -> Any:
    """3.0 is the whole number JSON Schema says it is; "3" and true stay refused."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def schema_document(explainer: MC3G, inputs: list[Input], title: str, k: int, limits: Any, example: dict[str, Any] | None) -> dict[str, Any]:
    """``GET /v1/schema``: the features with their kinds, allowed values, ranges seen in training
    and protections, the causal knowledge's name and the protections in force (as every answer's
    run record lists them), the defaults and limits of a request, and the page's example applicant."""
    run = explainer.run_record(k)
    schema = explainer.schema_
    return {
        "format": "mc3g.service-schema",
        "version": 1,
        "title": title,
        "label": schema.label,
        "classes": list(schema.classes),
        "unfavourable": explainer.unfavourable_,
        "model": "black box" if explainer.black_box_ is not None else "decision rules",
        "defaults": {"k": k, "profile": run.profile, "mode": run.mode, "norm": run.norm},
        "knowledge": explainer.causal_.name,
        "protections": run.protections,
        "limits": {"max_k": limits.max_k, "timeout_seconds": limits.timeout_seconds, "max_body_bytes": limits.max_body_bytes},
        "features": [x.describe() for x in inputs],
        "example": example,
    }
