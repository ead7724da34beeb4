"""Several model servers behind one chat client: fewest outstanding requests first, and a
request that fails on one server is tried on the others.

`make_chat_client` builds one when `base_url` names several servers (`--base-url` repeated,
or a file of URLs); the response cache wraps the whole, so it is shared by every server.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from ..errors import UserError
from .base import ChatClient, Completion, Message
from .usage import UsageMeter

# A server that failed a request is tried last for this long (seconds).
COOLDOWN_S = 30.0


def split_base_urls(value: str | None) -> list[str]:
    """The servers a `base_url` setting names: whitespace-separated URLs, or a file with
    one URL per line (blank lines and `#` comments skipped).

    >>> split_base_urls("http://a:8000/v1  http://b:8000/v1")
    ['http://a:8000/v1', 'http://b:8000/v1']

    Raises:
        UserError: a file of URLs that cannot be read or holds none.
    """
    if not value:
        return []
    items = value.split()
    if len(items) == 1 and "://" not in items[0] and Path(items[0]).is_file():
        path = Path(items[0])
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise UserError(f"--base-url {path}: cannot read the file of URLs ({exc})") from None
        items = [line.split("#")[0].strip() for line in lines]
        items = [item for item in items if item]
        if not items:
            raise UserError(f"--base-url {path}: the file holds no URL")
    return items


class SpreadChatClient(ChatClient):
    """Sends each request to the server with the fewest requests outstanding (the earliest
    listed among equals); when a server fails a request (unreachable, out of retries, an
    HTTP error), the request goes to the next server, and the failed one is tried last for
    `COOLDOWN_S`. Only when every server failed the request does it raise, naming them all.

    Args:
        clients: one client per server, all serving the same model.
        clock: seconds, for the cool-down (tests pass a fake).

    >>> class Echo(ChatClient):
    ...     def __init__(self, name): self.model, self.name = "m", name
    ...     def complete(self, messages, *, max_tokens=1024, temperature=0.0):
    ...         return Completion(self.name)
    >>> SpreadChatClient([Echo("a"), Echo("b")]).complete([]).text
    'a'
    """

    def __init__(self, clients: Sequence[ChatClient], clock: Callable[[], float] = time.monotonic):
        if not clients:
            raise ValueError("no servers")
        self.clients = list(clients)
        self.model = self.clients[0].model
        self.usage = UsageMeter()
        self._outstanding = [0] * len(self.clients)
        self._failed_at = [-float("inf")] * len(self.clients)
        self._lock = threading.Lock()
        self._clock = clock

    def complete(
        self, messages: list[Message], *, max_tokens: int = 1024, temperature: float = 0.0
    ) -> Completion:
        errors: list[str] = []
        tried: set[int] = set()
        while len(tried) < len(self.clients):
            index = self._acquire(tried)
            tried.add(index)
            try:
                completion = self.clients[index].complete(
                    messages, max_tokens=max_tokens, temperature=temperature
                )
            except UserError as exc:
                errors.append(str(exc))
                with self._lock:
                    self._failed_at[index] = self._clock()
                continue
            finally:
                with self._lock:
                    self._outstanding[index] -= 1
            self.usage.record(completion)
            return completion
        raise UserError(f"all {len(self.clients)} servers failed: " + "; ".join(errors))

    def load(self) -> list[int]:
        """Requests outstanding per server, in the order given."""
        with self._lock:
            return list(self._outstanding)

    def _acquire(self, tried: set[int]) -> int:
        """The server to send to next (not yet tried for this request), counted as busy."""
        with self._lock:
            now = self._clock()
            candidates = [i for i in range(len(self.clients)) if i not in tried]
            index = min(
                candidates,
                key=lambda i: (now - self._failed_at[i] < COOLDOWN_S, self._outstanding[i], i),
            )
            self._outstanding[index] += 1
            return index

    def close(self) -> None:
        for client in self.clients:
            close = getattr(client, "close", None)
            if close is not None:
                close()
