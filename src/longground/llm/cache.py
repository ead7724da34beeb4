"""A persistent response cache, so re-running a benchmark costs no requests.

Answers are stored in SQLite under a key that hashes everything that decides the answer:
the model name, every message's role, text and image labels, the pixels of every image,
`max_tokens` and `temperature`. Only successful answers are stored.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from pathlib import Path

import numpy as np

from ..cache.kinds import LLM_FILE, llm_path
from .base import ChatClient, Completion, Message
from .usage import UsageMeter

# The database's name under the cache root (`longground.cache.kinds` owns it).
CACHE_FILE = LLM_FILE


def default_cache_path() -> Path:
    """`$LONGGROUND_CACHE/llm_cache.sqlite`, else `~/.cache/longground/llm_cache.sqlite`.

    >>> default_cache_path().name
    'llm_cache.sqlite'
    """
    return llm_path()


def image_digest(frame: np.ndarray) -> str:
    """sha256 of an image's shape, dtype and pixels.

    >>> a = np.zeros((2, 2, 3), np.uint8)
    >>> image_digest(a) == image_digest(a.copy()), image_digest(a) == image_digest(a + 1)
    (True, False)
    """
    frame = np.ascontiguousarray(frame)
    h = hashlib.sha256(f"{frame.shape}{frame.dtype}".encode())
    h.update(frame.tobytes())
    return h.hexdigest()


def cache_key(model: str, messages: list[Message], max_tokens: int, temperature: float) -> str:
    """The sha256 key of one request.

    >>> m = [Message("user", "hi")]
    >>> cache_key("a", m, 10, 0.0) == cache_key("a", m, 10, 0.0) != cache_key("b", m, 10, 0.0)
    True
    """
    described = {
        "model": model,
        "max_tokens": max_tokens,
        "temperature": temperature,
        "messages": [_message_described(m) for m in messages],
    }
    return hashlib.sha256(json.dumps(described, sort_keys=True).encode()).hexdigest()


def _message_described(m: Message) -> dict:
    """What identifies one message; a video part only adds keys, so keys of requests
    without one are as before."""
    out = {
        "role": m.role,
        "text": m.text,
        "labels": m.image_labels,
        "images": [image_digest(f) for f in m.images],
    }
    if m.video is not None:
        times = None if m.video.pts_s is None else np.asarray(m.video.pts_s).tolist()
        out["video"] = {"frames": image_digest(m.video.frames), "pts_s": times}
    return out


class ResponseCache:
    """Answers stored in one SQLite file; safe to share between threads and processes.

    >>> import tempfile
    >>> cache = ResponseCache(Path(tempfile.mkdtemp()) / "c.sqlite")
    >>> cache.put("k", "m", Completion("[[1, 2]]", prompt_tokens=9))
    >>> cache.get("k").text, cache.get("k").cached, cache.get("other")
    ('[[1, 2]]', True, None)
    >>> cache.close()
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, timeout=60.0, check_same_thread=False)
        with self._lock, self._db:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, model TEXT,"
                " text TEXT, prompt_tokens INTEGER, completion_tokens INTEGER,"
                " cost_usd REAL, created_s REAL)"
            )

    def get(self, key: str) -> Completion | None:
        """The stored answer, marked `cached=True` and costing nothing; None if absent."""
        with self._lock:
            row = self._db.execute(
                "SELECT text, prompt_tokens, completion_tokens FROM responses WHERE key = ?",
                (key,),
            ).fetchone()
        if row is None:
            return None
        return Completion(row[0], row[1], row[2], cached=True, cost_usd=0.0)

    def put(self, key: str, model: str, completion: Completion) -> None:
        with self._lock, self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    key,
                    model,
                    completion.text,
                    completion.prompt_tokens,
                    completion.completion_tokens,
                    completion.cost_usd,
                    time.time(),
                ),
            )

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()


class CachedChatClient(ChatClient):
    """Wraps a client: answers seen before come from the cache without a request.

    `usage` counts every call: requests that reached the model and cache hits.

    >>> import tempfile
    >>> class Echo(ChatClient):
    ...     model = "echo"
    ...     calls = 0
    ...     def complete(self, messages, *, max_tokens=1024, temperature=0.0):
    ...         self.calls += 1
    ...         return Completion(messages[-1].text)
    >>> inner = Echo()
    >>> client = CachedChatClient(inner, ResponseCache(Path(tempfile.mkdtemp()) / "c.sqlite"))
    >>> [client.complete([Message("user", "[]")]).cached for _ in range(2)], inner.calls
    ([False, True], 1)
    """

    def __init__(self, inner: ChatClient, cache: ResponseCache, key_tag: str = ""):
        self.inner = inner
        self.cache = cache
        self.model = inner.model
        self.key_tag = key_tag  # what else, besides the model, sets the answers
        self.usage = UsageMeter()

    def key(self, messages: list[Message], max_tokens: int, temperature: float) -> str:
        """The cache key of a request."""
        return cache_key(self.model + self.key_tag, messages, max_tokens, temperature)

    def complete(
        self, messages: list[Message], *, max_tokens: int = 1024, temperature: float = 0.0
    ) -> Completion:
        key = self.key(messages, max_tokens, temperature)
        completion = self.cache.get(key)
        if completion is None:
            completion = self.inner.complete(
                messages, max_tokens=max_tokens, temperature=temperature
            )
            self.cache.put(key, self.model, completion)
        self.usage.record(completion)
        return completion

    def refresh(
        self, messages: list[Message], *, max_tokens: int = 1024, temperature: float = 0.0
    ) -> Completion:
        """Ask the model again, whatever the cache holds, and keep the new answer (for
        re-asking replies that could not be read)."""
        key = cache_key(self.model, messages, max_tokens, temperature)
        completion = self.inner.complete(messages, max_tokens=max_tokens, temperature=temperature)
        self.cache.put(key, self.model, completion)
        self.usage.record(completion)
        return completion

    def close(self) -> None:
        close = getattr(self.inner, "close", None)
        if close is not None:
            close()
        self.cache.close()
