"""The recourse service (``mc3g serve``): a JSON API and a page for the refused person.

- :func:`embedded`, :func:`load_config`, :func:`service_of`: what to serve (:class:`Service`):
  the loan example, or a TOML file naming the data set or a saved explainer, the model, the
  knowledge and the limits.
- :func:`create_app`: the FastAPI app; :func:`run`: serve it with uvicorn in one process or
  several (a worker that dies is replaced), on loopback unless told otherwise; :func:`listening`
  binds the socket first, so an address in use is refused before anything is announced.

Needs the ``serve`` extra (FastAPI, uvicorn, Jinja2); ``import mc3g`` loads none of them.
"""

from .api import create_app
from .config import LOOPBACK, Limits, Service, embedded, load_config
from .runner import TimeLimit
from .server import address, is_loopback, listening, run, service_of

__all__ = ["LOOPBACK", "Limits", "Service", "TimeLimit", "address", "create_app", "embedded", "is_loopback", "listening", "load_config", "run", "service_of"]
