"""A chat client for any OpenAI-compatible `/chat/completions` server.

That covers vLLM, SGLang, Ollama, LM Studio and hosted APIs. Images travel as base64 data
URLs, each preceded by its label (the frame's timestamp). Transient failures (timeouts,
429, 5xx, unreadable bodies) are retried with exponential backoff, honouring `Retry-After`;
failures the user must fix (unreachable server, 401, 403, 404, other 4xx, retries exhausted)
raise `UserError` with one line naming the URL and the model.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import UserError, require
from .base import ChatClient, Completion, Message
from .payload import IMAGE_FORMATS, BadResponse, error_detail, read_completion, request_json
from .retry import RetryPolicy, parse_retry_after, should_retry
from .usage import Pricing, UsageMeter

# What each status the user must fix means, in their terms.
_FATAL_STATUS = {
    401: "the API key was rejected (set --api-key, $LONGGROUND_LLM_API_KEY or $OPENAI_API_KEY)",
    403: "access is forbidden for this API key",
    404: "not found: the server does not serve this model, or the base URL is wrong "
    "(it usually ends in /v1)",
}


@dataclass(frozen=True)
class _Transient:
    """A failed attempt that may succeed if repeated."""

    reason: str
    retry_after_s: float | None = None


class OpenAIChatClient(ChatClient):
    """Chat completions over HTTP. Thread-safe; at most `concurrency` requests in flight.

    Args:
        model: model name the server knows.
        base_url: API root, e.g. `http://127.0.0.1:8000/v1`; requests go to
            `{base_url}/chat/completions`.
        api_key: sent as a bearer token when given.
        timeout_s: per-request timeout in seconds (connect, read, write).
        retry: retry policy for transient failures.
        concurrency: most requests in flight at once, over all threads.
        pricing: dollars per 1000 tokens, for cost accounting.
        image_format: "jpeg" (smaller) or "png" (lossless).
        transport: an `httpx` transport, to run without a network in tests.
        sleep: how to wait between retries (`time.sleep`; tests pass a recorder).

    >>> client = OpenAIChatClient("qwen", "http://127.0.0.1:8000/v1/")
    >>> client.endpoint
    'http://127.0.0.1:8000/v1/chat/completions'
    >>> client.close()
    """

    def __init__(
        self,
        model: str,
        base_url: str,
        api_key: str | None = None,
        *,
        timeout_s: float = 120.0,
        retry: RetryPolicy | None = None,
        concurrency: int = 4,
        pricing: Pricing | None = None,
        image_format: str = "jpeg",
        transport=None,
        sleep: Callable[[float], None] = time.sleep,
        extra_body: dict | None = None,
    ):
        httpx = require("httpx", "llm")
        if image_format not in IMAGE_FORMATS:
            raise UserError(f"image format must be one of {', '.join(IMAGE_FORMATS)}")
        if concurrency < 1:
            raise UserError(f"LLM concurrency must be at least 1, got {concurrency}")
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.endpoint = self.base_url + "/chat/completions"
        self.extra_body = dict(extra_body or {})  # e.g. reasoning_effort, sent with every request
        self.retry = retry or RetryPolicy()
        self.pricing = pricing or Pricing()
        self.image_format = image_format
        self.usage = UsageMeter()
        self._httpx = httpx
        self._timeout_s = timeout_s
        self._sleep = sleep
        self._slots = threading.BoundedSemaphore(concurrency)
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = httpx.Client(
            timeout=httpx.Timeout(timeout_s),
            limits=httpx.Limits(max_connections=concurrency),
            headers=headers,
            transport=transport,
        )

    def complete(
        self, messages: list[Message], *, max_tokens: int = 1024, temperature: float = 0.0
    ) -> Completion:
        """Send `messages`; retry transient failures; return the first choice's text."""
        body = self.request_body(messages, max_tokens, temperature)
        payload = json.dumps(body).encode("utf-8")  # encoded once, reused by every retry
        attempt = 0
        while True:
            outcome = self._attempt(payload)
            if isinstance(outcome, Completion):
                self.usage.record(outcome)
                return outcome
            if attempt == self.retry.max_retries:
                raise self._error(f"gave up after {attempt + 1} attempts; last: {outcome.reason}")
            self.usage.record_retry()
            self._sleep(self.retry.delay_s(attempt, outcome.retry_after_s))
            attempt += 1

    def request_body(self, messages: list[Message], max_tokens: int, temperature: float) -> dict:
        """The JSON body of a chat-completions request (also what a batch line carries)."""
        body = request_json(self.model, messages, max_tokens, temperature, self.image_format)
        return {**body, **self.extra_body}

    @property
    def http(self):
        """The httpx client (authorised), for the other endpoints of the same server."""
        return self._http

    def _attempt(self, payload: bytes) -> Completion | _Transient:
        """One HTTP request: a completion, a transient failure, or a raised `UserError`."""
        httpx = self._httpx
        try:
            with self._slots:
                response = self._http.post(
                    self.endpoint, content=payload, headers={"Content-Type": "application/json"}
                )
        except httpx.TimeoutException:
            return _Transient(f"no answer within {self._timeout_s:g} s")
        except httpx.ConnectError as exc:
            raise self._error(
                f"cannot connect ({_one_line(exc)}); is the server running?"
            ) from None
        except httpx.TransportError as exc:
            return _Transient(f"connection failed: {_one_line(exc)}")
        return self._read(response)

    def _read(self, response) -> Completion | _Transient:
        status = response.status_code
        if should_retry(status):
            retry_after = parse_retry_after(response.headers.get("Retry-After"))
            return _Transient(f"HTTP {status}: {error_detail(response.text)}", retry_after)
        if status in _FATAL_STATUS:
            raise self._error(f"HTTP {status}: {_FATAL_STATUS[status]}")
        if status >= 400:
            raise self._error(f"HTTP {status}: {error_detail(response.text)}")
        try:
            text, prompt_tokens, completion_tokens = read_completion(response.json())
        except (ValueError, BadResponse) as exc:
            return _Transient(f"unreadable response: {_one_line(exc)[:120]}")
        cost = self.pricing.cost_usd(prompt_tokens, completion_tokens)
        return Completion(text, prompt_tokens, completion_tokens, cached=False, cost_usd=cost)

    def _error(self, what: str) -> UserError:
        return UserError(f"{self.endpoint} (model {self.model!r}): {what}")

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> OpenAIChatClient:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__
