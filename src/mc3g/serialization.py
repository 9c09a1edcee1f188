"""Versioned JSON documents: every document mc3g writes starts with its format and version.

``version`` is the major version: a reader reads its own and refuses any other.  ``minor``
(absent: 0) counts additions since: new keys that a reader of an older minor version ignores, and
a reader of this one takes as empty when an older document lacks them.  So adding a key is a
minor version, and renaming, removing or changing the meaning of one is a major version.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from importlib import resources
from typing import Any

from .exceptions import InputError


def header(fmt: str, version: int, minor: int = 0) -> dict[str, Any]:
    """The keys that start a document: its format, its (major) version and, past 0, its minor version."""
    return {"format": fmt, "version": version} | ({"minor": minor} if minor else {})


def check_header(data: Mapping[str, Any], fmt: str, version: int, what: str) -> None:
    """Refuse a document of another format, or of a version this mc3g cannot read."""
    if not isinstance(data, Mapping):
        raise InputError(f"not an mc3g {what}: the document is a JSON {type(data).__name__}, not an object")
    if data.get("format") != fmt:
        raise InputError(f"not an mc3g {what}: 'format' is {data.get('format')!r}, expected {fmt!r}")
    if data.get("version") != version:
        raise InputError(f"{what} version {data.get('version')!r} is not supported (this mc3g reads {version})")


SCHEMA_FILES = {"mc3g.recourse": "recourse.schema.json", "mc3g.whatif": "whatif.schema.json", "mc3g.notice": "notice.schema.json"}
"""The JSON Schema (draft 2020-12) shipped for each document a person receives."""


def json_schema(fmt: str) -> dict[str, Any]:
    """The JSON Schema of documents of format ``fmt`` (``mc3g.recourse``, ``mc3g.whatif`` or ``mc3g.notice``), as
    shipped in ``mc3g/resources``: the contract the CLI's ``--json`` and the service keep."""
    if fmt not in SCHEMA_FILES:
        raise InputError(f"no JSON Schema ships for format {fmt!r}; there are {list(SCHEMA_FILES)}")
    return json.loads(resources.files("mc3g.resources").joinpath(SCHEMA_FILES[fmt]).read_text(encoding="utf-8"))
