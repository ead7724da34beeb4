"""Who may reach the annotation server, and how much they may send: two ASGI middlewares.

- `BodyLimit` answers 413 to a request body larger than `max_bytes` (by its
  `Content-Length`, or by counting a chunked body) before the app reads it.
- `add_guards` refuses cross-origin writes (403) and writes that are not JSON (415), keeps
  the `Host` header to the server's own names (against DNS rebinding), and makes FastAPI's
  422s one readable line.
- `TokenGate` answers 401 unless the request carries the server's access token: a
  `?token=` query parameter (the address `serve` prints; the answer then sets an HttpOnly,
  SameSite=Strict cookie so the page's own requests carry it), the cookie, or an
  `Authorization: Bearer` header. `serve` requires it for any address that is not loopback.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Sequence
from http.cookies import CookieError, SimpleCookie
from urllib.parse import parse_qs

#: The largest request body accepted (an edit is a few kilobytes; 10000 intervals fit).
MAX_BODY_BYTES = 1 << 20

TOKEN_COOKIE = "longground_token"
TOKEN_PARAM = "token"


def new_token() -> str:
    """A fresh random access token (32 URL-safe characters, 192 bits)."""
    return secrets.token_urlsafe(24)


async def _answer(send, status: int, detail: str, headers: list | None = None) -> None:
    """Send a JSON `{"detail": ...}` answer."""
    import json

    body = json.dumps({"detail": detail}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *(headers or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def _drain(receive) -> None:
    """Read what is left of a request body whose last part said more is coming, so the
    connection stays usable (never past the body's end: that would wait for a disconnect)."""
    while True:
        message = await receive()
        if message["type"] != "http.request" or not message.get("more_body", False):
            return


class BodyLimit:
    """Refuse request bodies over `max_bytes` with 413.

    Args:
        app: the ASGI app inside.
        max_bytes: the largest body accepted.
    """

    def __init__(self, app, max_bytes: int = MAX_BODY_BYTES):
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        too_big = f"the request body is larger than {self.max_bytes} bytes"
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None:
            if not length.isdigit() or int(length) > self.max_bytes:
                return await _answer(send, 413, too_big)
            return await self.app(scope, receive, send)
        messages, total = [], 0  # no length given: read it, counting, then replay it
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            total += len(message.get("body", b""))
            if total > self.max_bytes:
                if message.get("more_body", False):
                    await _drain(receive)
                return await _answer(send, 413, too_big)
            if not message.get("more_body", False):
                break
        replay = iter(messages)

        async def replayed():
            return next(replay, None) or await receive()

        return await self.app(scope, replayed, send)


class TokenGate:
    """Refuse requests without the access token with 401.

    Args:
        app: the ASGI app inside.
        token: the token `serve` generated and printed.
        command: the command that printed it, for the 401's message.
    """

    def __init__(self, app, token: str, command: str = "longground annotate serve"):
        self.app, self.token, self.command = app, token, command

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = dict(scope.get("headers") or [])
        in_query = _from_query(scope.get("query_string", b""))
        given = in_query or _from_cookie(headers) or _from_bearer(headers)
        if given is None or not hmac.compare_digest(given.encode(), self.token.encode()):
            return await _answer(
                send,
                401,
                f"this server needs its access token: open the address `{self.command}` "
                "printed (it ends with ?token=...)",
                [(b"www-authenticate", b"Bearer")],
            )
        if in_query is None:
            return await self.app(scope, receive, send)
        cookie = f"{TOKEN_COOKIE}={self.token}; HttpOnly; SameSite=Strict; Path=/".encode()

        async def with_cookie(message):
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message["headers"], (b"set-cookie", cookie)]}
            await send(message)

        return await self.app(scope, receive, with_cookie)


def _from_query(query: bytes) -> str | None:
    values = parse_qs(query.decode("latin-1")).get(TOKEN_PARAM)
    return values[0] if values else None


def _from_cookie(headers: dict) -> str | None:
    raw = headers.get(b"cookie")
    if raw is None:
        return None
    jar = SimpleCookie()
    try:
        jar.load(raw.decode("latin-1"))
    except CookieError:  # a malformed Cookie header is no token
        return None
    morsel = jar.get(TOKEN_COOKIE)
    return morsel.value if morsel is not None else None


def _from_bearer(headers: dict) -> str | None:
    raw = headers.get(b"authorization", b"").decode("latin-1")
    scheme, _, value = raw.partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


def add_guards(app, allowed_hosts: Sequence[str] | None) -> None:
    """Same-origin JSON writes only, readable 422s, and a Host check against DNS rebinding,
    on a FastAPI `app` (the annotation server's and `longground serve`'s)."""
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import JSONResponse
    from starlette.middleware.trustedhost import TrustedHostMiddleware

    if allowed_hosts is not None:
        app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts))

    @app.middleware("http")
    async def same_origin_writes(request, call_next):
        if request.method not in ("GET", "HEAD"):
            origin = request.headers.get("origin")
            own = f"{request.url.scheme}://{request.headers.get('host', '')}"
            if origin is not None and origin != own:
                return JSONResponse({"detail": "cross-origin writes are refused"}, 403)
            kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
            if kind != "application/json":  # media types are case-insensitive (RFC 9110)
                return JSONResponse({"detail": "send edits as application/json"}, 415)
        response = await call_next(request)
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["X-Frame-Options"] = "DENY"
        return response

    @app.exception_handler(RequestValidationError)
    async def readable_422(request, exc):
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
        message = first.get("msg", "invalid request")
        return JSONResponse({"detail": f"{where}: {message}" if where else message}, 422)
