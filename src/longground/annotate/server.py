"""Running the app with uvicorn on a socket bound before the server starts, so a port in use
or a bad host is a one-line error rather than a log message."""

from __future__ import annotations

import ipaddress
import socket

from ..errors import UserError, require

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")


def is_loopback(host: str) -> bool:
    """Whether `host` is reachable only from this machine.

    >>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("0.0.0.0")
    (True, True, False)
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on `host:port`, or a `UserError` saying why not."""
    if not 0 <= port <= 65535:
        raise UserError(f"--port must be in 0..65535, got {port}")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise UserError(f"--host {host}: {exc.strerror}") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        raise UserError(f"cannot listen on {host}:{port} ({exc.strerror})") from None
    sock.listen(128)
    return sock


def url_of(sock: socket.socket, host: str) -> str:
    """The address people open, e.g. `http://127.0.0.1:8765/`."""
    port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


def run(app, sock: socket.socket) -> None:
    """Serve `app` on `sock` until interrupted."""
    uvicorn = require("uvicorn", "annotate")
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    uvicorn.Server(config).run(sockets=[sock])
