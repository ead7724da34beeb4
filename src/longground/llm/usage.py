"""Token and cost accounting for chat clients, totalled for a run summary."""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass

from ..errors import UserError
from .base import Completion

PRICE_ENV = {
    "prompt_usd_per_1k": "LONGGROUND_LLM_PRICE_PROMPT_PER_1K",
    "completion_usd_per_1k": "LONGGROUND_LLM_PRICE_COMPLETION_PER_1K",
}


@dataclass(frozen=True)
class Pricing:
    """What a model charges, in US dollars per 1000 tokens (0 for a local server).

    >>> Pricing(prompt_usd_per_1k=0.5, completion_usd_per_1k=1.5).cost_usd(2000, 100)
    1.15
    """

    prompt_usd_per_1k: float = 0.0
    completion_usd_per_1k: float = 0.0

    def cost_usd(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (
            prompt_tokens * self.prompt_usd_per_1k + completion_tokens * self.completion_usd_per_1k
        ) / 1000.0

    @classmethod
    def from_env(cls) -> Pricing:
        """Prices from `LONGGROUND_LLM_PRICE_PROMPT_PER_1K` and
        `LONGGROUND_LLM_PRICE_COMPLETION_PER_1K` (unset: free)."""
        values = {}
        for field_name, var in PRICE_ENV.items():
            text = os.environ.get(var, "").strip()
            try:
                values[field_name] = float(text) if text else 0.0
            except ValueError:
                raise UserError(f"${var} must be a number of dollars, got {text!r}") from None
        return cls(**values)


class UsageMeter:
    """Thread-safe running totals of requests, cache hits, tokens and cost.

    >>> meter = UsageMeter()
    >>> meter.record(Completion("[]", prompt_tokens=100, completion_tokens=5, cost_usd=0.01))
    >>> meter.record(Completion("[]", prompt_tokens=100, completion_tokens=5, cached=True))
    >>> meter.totals()["requests"], meter.totals()["cache_hits"], meter.totals()["prompt_tokens"]
    (1, 1, 100)
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.requests = 0
        self.cache_hits = 0
        self.retries = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.cost_usd = 0.0

    def record(self, completion: Completion) -> None:
        """Count one answer; a cached answer costs nothing and adds no tokens."""
        with self._lock:
            if completion.cached:
                self.cache_hits += 1
                return
            self.requests += 1
            self.prompt_tokens += completion.prompt_tokens
            self.completion_tokens += completion.completion_tokens
            self.cost_usd += completion.cost_usd

    def record_retry(self) -> None:
        with self._lock:
            self.retries += 1

    def totals(self) -> dict[str, float | int]:
        """A snapshot: requests, cache_hits, retries, prompt/completion tokens, cost_usd."""
        with self._lock:
            return {
                "requests": self.requests,
                "cache_hits": self.cache_hits,
                "retries": self.retries,
                "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens,
                "cost_usd": self.cost_usd,
            }


def completion_usage(completion: Completion) -> dict[str, float | int | bool]:
    """One answer's usage, for a method's trace.

    >>> completion_usage(Completion("[]", prompt_tokens=3, completion_tokens=2))
    {'prompt_tokens': 3, 'completion_tokens': 2, 'cost_usd': 0.0, 'cached': False}
    """
    return {
        "prompt_tokens": completion.prompt_tokens,
        "completion_tokens": completion.completion_tokens,
        "cost_usd": completion.cost_usd,
        "cached": completion.cached,
    }
