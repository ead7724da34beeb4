"""A scripted OpenAI-compatible chat-completions server: try every command that asks a
Video-LLM (`reproduce`, `find --method monolithic`, `build`) without a model, and test the
clients against it.

It listens on 127.0.0.1 (a free port unless one is given), answers `POST
/v1/chat/completions` (any path) from a script of `Reply`s, then a default reply, and records
every request with its decoded messages, images and image labels. `longground serve-stub`
runs it from the command line; in Python use it as a context manager, which always stops it.

    with OpenAIStub([Reply.error(429), Reply("[[1, 2]]")]) as stub:
        client = OpenAIChatClient("m", stub.url)
        ...
        assert stub.request_count == 2

Nothing here imports pytest; the tests' fixture lives in tests/support/openai_stub.py.
"""

from __future__ import annotations

import base64
import io
import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np

from ..errors import require


@dataclass
class Reply:
    """One scripted answer.

    Attributes:
        content: the assistant text of a normal completion.
        status: HTTP status.
        delay_s: wait this long before answering (longer than the client timeout: a timeout).
        headers: extra response headers (e.g. `Retry-After`).
        body: sent verbatim instead of a completion (malformed JSON, error bodies).
        prompt_tokens, completion_tokens: reported usage.
    """

    content: str | None = "[]"
    status: int = 200
    delay_s: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    body: str | None = None
    prompt_tokens: int = 100
    completion_tokens: int = 10

    @classmethod
    def error(cls, status: int, message: str = "scripted error", **kwargs) -> Reply:
        """An error status with an OpenAI-style JSON error body."""
        body = json.dumps({"error": {"message": message, "code": status}})
        return cls(content=None, status=status, body=body, **kwargs)

    def payload(self, model: str) -> bytes:
        if self.body is not None:
            return self.body.encode("utf-8")
        completion = {
            "id": "chatcmpl-stub",
            "object": "chat.completion",
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": self.content},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens,
                "total_tokens": self.prompt_tokens + self.completion_tokens,
            },
        }
        return json.dumps(completion).encode("utf-8")


@dataclass
class SeenMessage:
    """A request message as the server saw it; `labels[i]` is the text part just before
    image `i` (None if the image had none)."""

    role: str
    texts: list[str]
    images: list[np.ndarray]
    labels: list[str | None]
    videos: list[np.ndarray] = field(default_factory=list)  # each (N, H, W, 3) uint8


@dataclass
class SeenRequest:
    path: str
    headers: dict[str, str]
    body: dict | None
    messages: list[SeenMessage]

    @property
    def images(self) -> list[np.ndarray]:
        return [image for m in self.messages for image in m.images]

    @property
    def labels(self) -> list[str | None]:
        return [label for m in self.messages for label in m.labels]

    @property
    def text(self) -> str:
        """All text parts of all messages, joined by newlines."""
        return "\n".join(t for m in self.messages for t in m.texts)


def decode_image(url: str) -> np.ndarray:
    """A `data:image/...;base64,` URL back to an `(H, W, 3)` uint8 array."""
    image = require("PIL.Image", "video")
    _, _, data = url.partition("base64,")
    return np.asarray(image.open(io.BytesIO(base64.b64decode(data))).convert("RGB"))


def decode_video(url: str) -> np.ndarray:
    """A `data:video/jpeg;base64,F1,F2,...` URL (vLLM's list-of-frames form) back to
    `(N, H, W, 3)` uint8 frames."""
    head, _, data = url.partition("base64,")
    if head != "data:video/jpeg;":
        raise ValueError(f"not a JPEG-frames video URL: {head!r}")
    image = require("PIL.Image", "video")
    frames = [image.open(io.BytesIO(base64.b64decode(f))).convert("RGB") for f in data.split(",")]
    return np.stack([np.asarray(f) for f in frames])


def decode_messages(body: dict) -> list[SeenMessage]:
    seen = []
    for message in body.get("messages", []):
        content = message.get("content")
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
        texts, images, labels, videos = [], [], [], []
        previous_text = None
        for part in parts or []:
            if part.get("type") == "text":
                texts.append(part["text"])
                previous_text = part["text"]
            elif part.get("type") == "image_url":
                images.append(decode_image(part["image_url"]["url"]))
                labels.append(previous_text)
                previous_text = None
            elif part.get("type") == "video_url":
                videos.append(decode_video(part["video_url"]["url"]))
        seen.append(SeenMessage(message.get("role", ""), texts, images, labels, videos))
    return seen


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, *args) -> None:  # keep test output clean
        pass

    def do_POST(self) -> None:
        stub = self.server.stub
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        reply = stub._begin(self.path, dict(self.headers), body)
        try:
            stopped = bool(reply.delay_s) and stub._stopping.wait(reply.delay_s)
        finally:
            # The request stops counting as in flight before its answer leaves: once the client
            # has the answer it may send the next one, which must not overlap this one.
            stub._end()
        if stopped:
            return
        payload = reply.payload((body or {}).get("model", ""))
        try:
            self.send_response(reply.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)
        except OSError:  # the client gave up (timeout) and closed the socket
            pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    stub: OpenAIStub

    def handle_error(self, request, client_address) -> None:
        pass


class OpenAIStub:
    """The scripted server. `url` is the base URL to give a client (ends in `/v1`).

    Args:
        script: replies given in order, one per request.
        default: the reply once the script is used up.
        responder: optional `SeenRequest -> Reply` used instead of the default.
        port: the port to listen on (0: a free one).
        record: keep every request in `requests` (decoded); a long-running server started
            for people (`longground serve-stub`) only counts them.
    """

    def __init__(
        self,
        script: list[Reply] | None = None,
        default: Reply | None = None,
        responder: Callable[[SeenRequest], Reply] | None = None,
        port: int = 0,
        record: bool = True,
    ):
        self._script = list(script or [])
        self.default = default or Reply()
        self.responder = responder
        self.record = record
        self.requests: list[SeenRequest] = []
        self._count = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._wanted_port = port
        self._port: int | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        """The port it listens on (kept after `stop`, for checking messages)."""
        assert self._port is not None, "the stub was never started"
        return self._port

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def request_count(self) -> int:
        with self._lock:
            return self._count

    def push(self, *replies: Reply) -> None:
        """Append replies to the script."""
        with self._lock:
            self._script.extend(replies)

    def start(self) -> OpenAIStub:
        self._server = _Server(("127.0.0.1", self._wanted_port), _Handler)
        self._server.stub = self
        self._port = self._server.server_address[1]
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = self._thread = None

    def __enter__(self) -> OpenAIStub:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def _begin(self, path: str, headers: dict, body: dict | None) -> Reply:
        wanted = self.record or self.responder is not None
        seen = SeenRequest(path, headers, body, decode_messages(body) if body and wanted else [])
        with self._lock:
            self._count += 1
            if self.record:
                self.requests.append(seen)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            if self._script:
                return self._script.pop(0)
        return self.responder(seen) if self.responder else self.default

    def _end(self) -> None:
        with self._lock:
            self.in_flight -= 1


@contextmanager
def openai_stub(*script: Reply, default: Reply | None = None) -> Iterator[OpenAIStub]:
    """A running stub that is always stopped on exit."""
    stub = OpenAIStub(list(script), default)
    stub.start()
    try:
        yield stub
    finally:
        stub.stop()
