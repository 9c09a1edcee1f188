"""The ``mc3g`` command line: one module per group of commands, all on one Typer ``app``."""

from . import applicants, batch, data, demo, explain, learn, notice, oracle, reproduce, robust, serve  # noqa: F401  (each registers its commands)
from .app import app

__all__ = ["app"]
