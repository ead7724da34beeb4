"""When and how long to wait before retrying a failed request."""

from __future__ import annotations

import random
from dataclasses import dataclass
from email.utils import parsedate_to_datetime

# Request timeout, conflict, rate limit and 5xx (server trouble) may succeed later, as the
# OpenAI clients also assume; other codes need the user to change something.
RETRY_STATUS = frozenset({408, 409, 429})


def should_retry(status: int) -> bool:
    """Whether an HTTP status is worth another try.

    >>> [should_retry(s) for s in (200, 400, 401, 404, 429, 500, 503)]
    [False, False, False, False, True, True, True]
    """
    return status in RETRY_STATUS or status >= 500


def parse_retry_after(value: str | None, now_s: float | None = None) -> float | None:
    """Seconds to wait from a `Retry-After` header (seconds or an HTTP date); None if absent
    or unreadable.

    >>> parse_retry_after("3"), parse_retry_after("0.5"), parse_retry_after("soon")
    (3.0, 0.5, None)
    >>> parse_retry_after("Thu, 01 Jan 1970 00:01:40 GMT", now_s=90.0)
    10.0
    """
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    if now_s is None:
        import time

        now_s = time.time()
    return max(0.0, when.timestamp() - now_s)


@dataclass(frozen=True)
class RetryPolicy:
    """Bounded retries with exponential backoff and jitter.

    Attempt `i` (0-based) that fails waits `backoff_s * 2**i`, times a random factor in
    `[0.5, 1]`, at most `max_backoff_s`; a server's `Retry-After` wins when it is longer
    (also capped at `max_backoff_s`).

    Args:
        max_retries: retries after the first attempt (so `max_retries + 1` attempts).
        backoff_s: base delay in seconds.
        max_backoff_s: longest single wait in seconds.

    >>> policy = RetryPolicy(max_retries=3, backoff_s=1.0, max_backoff_s=5.0)
    >>> [policy.delay_s(i, jitter=1.0) for i in range(4)]
    [1.0, 2.0, 4.0, 5.0]
    >>> policy.delay_s(0, retry_after_s=3.0, jitter=1.0)
    3.0
    """

    max_retries: int = 4
    backoff_s: float = 1.0
    max_backoff_s: float = 60.0

    def delay_s(
        self, attempt: int, retry_after_s: float | None = None, jitter: float | None = None
    ) -> float:
        """Seconds to sleep after failed attempt number `attempt` (0-based)."""
        factor = random.uniform(0.5, 1.0) if jitter is None else jitter
        delay = min(self.max_backoff_s, self.backoff_s * 2.0**attempt) * factor
        if retry_after_s is not None:
            delay = max(delay, min(retry_after_s, self.max_backoff_s))
        return delay
