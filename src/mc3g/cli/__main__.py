"""``python -m mc3g.cli``."""

from .app import app

app()
