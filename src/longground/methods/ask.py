"""Asking a Video-LLM for time spans and reading its answer into a `Grounding`: the
method-side use of `longground.llm` (the cached client a method builds, and one ask)."""

from __future__ import annotations

from ..answers import answer_parser
from ..cache.kinds import llm_path
from ..llm.base import ChatClient, Message
from ..llm.config import LLMConfig
from ..llm.factory import make_chat_client
from ..llm.usage import completion_usage
from ..moments import Moments
from .base import Grounding, MethodConfig


def method_chat_client(config: MethodConfig) -> ChatClient:
    """The cached chat client a method uses: `config.llm` (or the environment's model), with
    the cache under `config.cache_dir` when set (`~` expanded)."""
    from ..video import mosaic

    cfg = config.llm if config.llm is not None else LLMConfig()
    return make_chat_client(cfg, llm_path(config.cache_dir), tile=mosaic)


def ask_for_moments(
    client: ChatClient,
    message: Message,
    duration_s: float,
    *,
    max_tokens: int = 2048,
    temperature: float = 0.0,
    parse: str = "lenient",
) -> Grounding:
    """Send one message and parse the answer into moments.

    An answer that cannot be parsed is not an exception: the grounding has empty moments, the
    raw text, and `parse_error`, so evaluation counts it as a parse failure.

    Args:
        client: the chat client.
        message: the prompt with its timestamped frames.
        duration_s: the video's length, used to read the answer.
        max_tokens, temperature: generation settings.
        parse: "lenient" or "strict" (the papers' JSON-only rule), see
            `longground.answers.PARSE_MODES`.

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
    parsed = answer_parser(parse)(completion.text, duration_s)
    trace: dict = {
        "usage": completion_usage(completion),
        "invalid_intervals": parsed.invalid_intervals,
    }
    if parsed.moments is None:
        error = parsed.error or "unparseable answer"
        return Grounding(Moments.empty(), completion.text, trace, parse_error=error)
    return Grounding(moments=parsed.moments, raw=completion.text, trace=trace)
