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


def host_names(host: str) -> list[str]:
    """The `Host` header values a server on `host` accepts: the loopback names, `host`, and
    for a wildcard or other address this machine's names and addresses (the Host check
    against DNS rebinding stays on everywhere; the token guards the rest).

    >>> "localhost" in host_names("127.0.0.1") and "[::1]" in host_names("::1")
    True
    """
    names = {*LOOPBACK_NAMES, "[::1]", host, f"[{host}]" if ":" in host else host}
    if not is_loopback(host):
        for name in (socket.gethostname(), socket.getfqdn()):
            names.add(name)
            try:
                names.update(i[4][0] for i in socket.getaddrinfo(name, None))
            except OSError:
                continue
        names.update(f"[{n}]" for n in list(names) if ":" in n)
    return sorted(names)


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
