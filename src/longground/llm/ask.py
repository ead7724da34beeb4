"""Asking a Video-LLM for time spans and reading its answer into a `Grounding`."""

from __future__ import annotations

from ..answers import parse_answer
from ..methods.base import Grounding
from ..moments import Moments
from .base import ChatClient, Message
from .usage import completion_usage


def ask_for_moments(
    client: ChatClient,
    message: Message,
    duration_s: float,
    *,
    max_tokens: int = 2048,
    temperature: float = 0.0,
) -> Grounding:
    """Send one message and parse the answer into moments.

    An answer that cannot be parsed is not an exception: the grounding has empty moments, the
    raw text, and `parse_error`, so evaluation counts it as a parse failure.

    Args:
        client: the chat client.
        message: the prompt with its timestamped frames.
        duration_s: the video's length, used to read the answer.
        max_tokens, temperature: generation settings.

    Returns:
        `Grounding` with `raw` = the model text, `parse_error` when parsing failed, and
        `trace` holding `usage` (tokens, cost, cached) and `invalid_intervals`.

    >>> from longground.llm.base import Completion
    >>> class Fixed(ChatClient):
    ...     model = "fixed"
    ...     def complete(self, messages, *, max_tokens=1024, temperature=0.0):
    ...         return Completion("[[10, 20]]")
    >>> ask_for_moments(Fixed(), Message("user", "When?"), 60.0).moments.to_list()
    [[10.0, 20.0]]
    """
    completion = client.complete([message], max_tokens=max_tokens, temperature=temperature)
    parsed = parse_answer(completion.text, duration_s=duration_s)
    trace: dict = {
        "usage": completion_usage(completion),
        "invalid_intervals": parsed.invalid_intervals,
    }
    if parsed.moments is None:
        error = parsed.error or "unparseable answer"
        return Grounding(Moments.empty(), completion.text, trace, parse_error=error)
    return Grounding(moments=parsed.moments, raw=completion.text, trace=trace)
