"""Serving the app: uvicorn in one process, or in several that share one listening socket.

The socket is made here, as a TCP socket: asyncio switches off Nagle's algorithm only on such
sockets, and without that a reply written in two parts waits for the client's delayed
acknowledgement, about 40 ms per request (uvicorn's own ``--workers`` binds a socket of
unnamed protocol).  Each worker process builds its explainer once, from the same configuration.
"""

from __future__ import annotations

import multiprocessing
import signal
import socket
from pathlib import Path
from typing import Any

from .api import create_app
from .config import Service, embedded, load_config


def service_of(config: str | Path | None) -> Service:
    """The service a configuration file describes, or the embedded loan example."""
    return load_config(config) if config else embedded()


def listening(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    return sock


def _serve(service: Service, sock: socket.socket) -> None:
    import uvicorn

    uvicorn.Server(uvicorn.Config(create_app(service), log_level="info")).run(sockets=[sock])


def _worker(config: str | None, sock: socket.socket) -> None:
    """One of several processes: its own explainer, the shared socket."""
    _serve(service_of(config), sock)


def run(service: Service, config: str | Path | None = None, workers: int = 1) -> None:
    """Serve ``service`` on its host and port; with several ``workers``, each process builds its
    explainer from ``config`` (the embedded example when None).  Ends when the processes end, or
    on SIGINT or SIGTERM, which it passes on to them."""
    sock = listening(service.host, service.port)
    if workers == 1:
        _serve(service, sock)
        return
    context = multiprocessing.get_context("spawn")  # no fork of a process that already holds threads
    processes = [context.Process(target=_worker, args=(str(config) if config else None, sock), daemon=False) for _ in range(workers)]
    for process in processes:
        process.start()

    def stop(*_: Any) -> None:
        for process in processes:
            process.terminate()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    for process in processes:
        process.join()
