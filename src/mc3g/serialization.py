"""Versioned JSON documents: every document mc3g writes starts with its format and version."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .exceptions import InputError


def header(fmt: str, version: int) -> dict[str, Any]:
    return {"format": fmt, "version": version}


def check_header(data: Mapping[str, Any], fmt: str, version: int, what: str) -> None:
    """Refuse a document of another format, or of a version this mc3g cannot read."""
    if data.get("format") != fmt:
        raise InputError(f"not an mc3g {what}: 'format' is {data.get('format')!r}, expected {fmt!r}")
    if data.get("version") != version:
        raise InputError(f"{what} version {data.get('version')!r} is not supported (this mc3g reads {version})")
