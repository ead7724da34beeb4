"""The scripted OpenAI-compatible server for tests: `longground.llm.stub_server` (also behind
`longground serve-stub`), plus the pytest fixture and a URL where nothing listens.

    with OpenAIStub([Reply.error(429), Reply("[[1, 2]]")]) as stub:
        client = OpenAIChatClient("m", stub.url)
        ...
        assert stub.request_count == 2
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from longground.llm.stub_server import (
    OpenAIStub,
    Reply,
    SeenMessage,
    SeenRequest,
    decode_image,
    decode_messages,
    decode_video,
    openai_stub,
)

__all__ = [
    "OpenAIStub", "Reply", "SeenMessage", "SeenRequest", "closed_port_url", "decode_image",
    "decode_messages", "decode_video", "openai_server", "openai_stub",
]  # fmt: skip


@pytest.fixture
def openai_server() -> Iterator[OpenAIStub]:
    """A running stub (empty script, default reply `[]`); push replies with `.push`."""
    with openai_stub() as stub:
        yield stub


def closed_port_url() -> str:
    """A base URL on 127.0.0.1 where nothing listens (connection refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"
