"""Chat clients for Video-LLMs: OpenAI-compatible HTTP, local transformers, a response cache,
and token/cost accounting. Build one with `make_chat_client(LLMConfig(...))`."""

from __future__ import annotations

import importlib

# Each public name and the module it lives in, imported on first use: `methods` needs only
# `llm.config`, and importing every client with it cost `longground eval` (which asks no
# model) a tenth of a second at start-up.
_HOMES = {
    "ChatClient": "base", "Completion": "base", "Message": "base",
    "CachedChatClient": "cache", "ResponseCache": "cache", "cache_key": "cache",
    "default_cache_path": "cache", "LLMConfig": "config", "CHAT_BACKENDS": "factory",
    "make_chat_client": "factory", "register_backend": "factory",
    "OpenAIChatClient": "openai_client", "RetryPolicy": "retry",
    "TransformersChatClient": "transformers_client", "Pricing": "usage", "UsageMeter": "usage",
}  # fmt: skip


def __getattr__(name: str):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{home}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOMES])


__all__ = [
    "CHAT_BACKENDS",
    "CachedChatClient",
    "ChatClient",
    "Completion",
    "LLMConfig",
    "Message",
    "OpenAIChatClient",
    "Pricing",
    "ResponseCache",
    "RetryPolicy",
    "TransformersChatClient",
    "UsageMeter",
    "cache_key",
    "default_cache_path",
    "make_chat_client",
    "register_backend",
]
