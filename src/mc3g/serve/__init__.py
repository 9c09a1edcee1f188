"""The recourse service (``mc3g serve``): a JSON API and a page for the refused person.

- :func:`embedded`, :func:`load_config`: what to serve (:class:`Service`): the loan example, or
  a TOML file naming the data set or a saved explainer, the model, the knowledge and the limits.
- :func:`create_app`: the FastAPI app; :func:`run`: serve it with uvicorn, on loopback unless
  told otherwise.

Needs the ``serve`` extra (FastAPI, uvicorn, Jinja2); ``import mc3g`` loads none of them.
"""

from __future__ import annotations

import os
from pathlib import Path

from .api import create_app
from .config import LOOPBACK, Limits, Service, embedded, load_config
from .runner import TimeLimit

CONFIG_VARIABLE = "MC3G_SERVE_CONFIG"  # how worker processes learn the configuration file


def service_of(config: str | Path | None) -> Service:
    """The service a configuration file describes, or the embedded loan example."""
    return load_config(config) if config else embedded()


def app_from_environment():  # noqa: ANN201 - FastAPI, imported with the app
    """The app for a uvicorn worker process: each worker fits or loads its explainer once."""
    return create_app(service_of(os.environ.get(CONFIG_VARIABLE)))


def run(service: Service, config: str | Path | None = None, workers: int = 1) -> None:
    """Serve ``service`` on its host and port.  With several ``workers`` (processes), each builds
    its own explainer from ``config``; one worker serves the app made here."""
    import uvicorn

    if workers == 1:
        uvicorn.run(create_app(service), host=service.host, port=service.port, log_level="info")
        return
    if config is not None:
        os.environ[CONFIG_VARIABLE] = str(Path(config).resolve())
    uvicorn.run("mc3g.serve:app_from_environment", factory=True, host=service.host, port=service.port, workers=workers, log_level="info")


__all__ = [
    "CONFIG_VARIABLE",
    "LOOPBACK",
    "Limits",
    "Service",
    "TimeLimit",
    "app_from_environment",
    "create_app",
    "embedded",
    "load_config",
    "run",
    "service_of",
]
