"""Point the loaders at the shared data: ``$MC3G_DATA_DIR`` if set (CI sets it), else the
``shared/data`` folder next to the checkout (``<repo>/../shared/data``); and make hypothesis
draw the same examples everywhere."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

# The same examples on every run and every machine: a red CI run is reproducible, not luck.
settings.register_profile("mc3g", derandomize=True)
settings.load_profile("mc3g")

os.environ.setdefault("MC3G_DATA_DIR", str(Path(__file__).resolve().parents[2] / "shared" / "data"))


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The directory with the UCI originals and the paper splits."""
    return Path(os.environ["MC3G_DATA_DIR"])
