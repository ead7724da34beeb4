"""Chat clients for Video-LLMs: OpenAI-compatible HTTP, local transformers, a response cache,
and token/cost accounting. Build one with `make_chat_client(LLMConfig(...))`."""

from __future__ import annotations

from .base import ChatClient, Completion, Message
from .cache import CachedChatClient, ResponseCache, cache_key, default_cache_path
from .config import LLMConfig
from .factory import CHAT_BACKENDS, make_chat_client, register_backend
from .openai_client import OpenAIChatClient
from .retry import RetryPolicy
from .transformers_client import TransformersChatClient
from .usage import Pricing, UsageMeter

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
