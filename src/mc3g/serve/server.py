"""Serving the app: uvicorn in one process, or in several that share one listening socket.

The socket is made here, as a TCP socket: asyncio switches off Nagle's algorithm only on such
sockets, and without that a reply written in two parts waits for the client's delayed
acknowledgement, about 40 ms per request (uvicorn's own ``--workers`` binds a socket of
unnamed protocol).  Several workers run under uvicorn's own supervisor, which logs a worker that
dies ("Child process [PID] died") and starts another in its place; the listening socket stays
open in the parent meanwhile, so connections wait in its queue rather than being refused.  Each
worker process builds its explainer once, from the same configuration.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
import sys
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Any

from ..exceptions import InputError, MC3GError
from .api import create_app
from .config import Service, configured, embedded, load_config

HEALTH_CHECK_SECONDS = 30  # a worker that does not answer the supervisor's ping for this long is replaced


def service_of(config: str | Path | Mapping[str, Any] | None) -> Service:
    """The service a configuration file describes, or a configuration's tables given as a mapping
    (``mc3g serve --explainer``), or the embedded loan example."""
    if isinstance(config, Mapping):
        return configured(config)
    return load_config(config) if config else embedded()


def is_loopback(host: str) -> bool:
    """Whether ``host`` is reachable from this machine only: 127.0.0.0/8, ::1 or localhost."""
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return host.lower() == "localhost"


def address(host: str, port: int) -> str:
    """``host:port`` as a URL writes it (an IPv6 address in brackets)."""
    host = host.strip("[]")
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def listening(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host`` and ``port``; an address the system refuses (in use, not
    this machine's, a port that needs privileges) is an :class:`InputError` naming it."""
    host = host.strip("[]")
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise InputError(f"cannot listen on {address(host, port)}: {exc.strerror or exc} (choose another --port or --host)") from None
    return sock


def _config(app: Any, **options: Any) -> Any:
    import uvicorn

    return uvicorn.Config(app, log_level="info", **options)


def _worker_app(config: str | Mapping[str, Any] | None) -> Any:
    """One worker's app: its own explainer from the configuration.  A configuration that fails
    here (a file changed since the parent read it) stops the service instead of a worker being
    started again and again."""
    from uvicorn.config import STARTUP_FAILURE

    try:
        return create_app(service_of(config))
    except MC3GError as exc:
        logging.getLogger("uvicorn.error").error("the worker cannot start: %s", exc)
        sys.exit(STARTUP_FAILURE)


def run(service: Service, config: str | Path | Mapping[str, Any] | None = None, workers: int = 1, *, sock: socket.socket | None = None) -> None:
    """Serve ``service`` on ``sock`` (bound to its host and port when None); with several
    ``workers``, each process builds its explainer from ``config`` (the embedded example when
    None), and a worker that dies is replaced.  Ends on SIGINT or SIGTERM."""
    import uvicorn
    from uvicorn.supervisors import Multiprocess

    sock = sock or listening(service.host, service.port)
    if workers == 1:
        uvicorn.Server(_config(create_app(service))).run(sockets=[sock])
        return
    factory = partial(_worker_app, config if isinstance(config, Mapping) else str(config) if config else None)
    Multiprocess(_config(factory, factory=True, workers=workers, timeout_worker_healthcheck=HEALTH_CHECK_SECONDS), sockets=[sock]).run()
