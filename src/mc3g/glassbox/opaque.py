"""Why a model's decision cannot be read."""

from __future__ import annotations


class Opaque(Exception):
    """The model's decision cannot be read exactly (its kind, its preprocessing, or a check of
    the reading against its own ``predict``); the message says why.  Not an error: such a model
    is searched through rules that imitate it, and its answers say so."""
