"""The one fake chat client of the tests, and a wrapper that crashes after n answers.

Tests of code that only needs *a* chat client (stages, roles, pipelines) pass a
`ScriptedChat` instead of starting the HTTP stub; tests of the HTTP client itself keep
`tests.support.openai_stub`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from longground.llm.base import ChatClient, Completion, Message
from longground.llm.cache import CachedChatClient, ResponseCache


class ScriptedChat(ChatClient):
    """Answers without a server: from `replies` (cycling the last one), or from
    `responder(messages)`; remembers every conversation in `calls`.

    A reply that is not a string is sent as JSON; `responder` may return a `Completion` to set
    token counts.
    """

    def __init__(
        self,
        replies: list | None = None,
        *,
        responder: Callable[[list[Message]], str | Completion] | None = None,
        model: str = "scripted",
    ):
        if replies is None and responder is None:
            raise ValueError("ScriptedChat needs replies or a responder")
        self.replies, self.responder, self.model = list(replies or []), responder, model
        self.calls: list[list[Message]] = []

    @property
    def request_count(self) -> int:
        return len(self.calls)

    def complete(self, messages, *, max_tokens=1024, temperature=0.0) -> Completion:
        self.calls.append(messages)
        if self.responder is not None:
            answer = self.responder(messages)
        else:
            answer = self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
        if isinstance(answer, Completion):
            return answer
        return Completion(answer if isinstance(answer, str) else json.dumps(answer))

    def cached(self, path: Path) -> CachedChatClient:
        """This client behind the response cache at `path`, as the commands use it."""
        return CachedChatClient(self, ResponseCache(path))


class CrashAfter(ChatClient):
    """Passes `n` calls through, then raises `error` on the next one (after it was answered
    and cached), as a Ctrl-C or a crash would."""

    def __init__(self, inner: ChatClient, n: int, error: BaseException | type = KeyboardInterrupt):
        self.inner, self.n, self.model, self.error = inner, n, inner.model, error

    def complete(self, messages, **kwargs):
        answer = self.inner.complete(messages, **kwargs)
        self.n -= 1
        if self.n < 0:
            raise self.error
        return answer
