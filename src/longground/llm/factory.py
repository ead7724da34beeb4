"""Building a chat client from an `LLMConfig`: a registry of backends plus the cache.

Settings left empty in the config come from the environment:

| setting  | environment, in order                                          |
|----------|----------------------------------------------------------------|
| model    | `LONGGROUND_LLM_MODEL`                                         |
| base URL | `LONGGROUND_LLM_BASE_URL`, `OPENAI_BASE_URL`, then the OpenAI API |
| API key  | `LONGGROUND_LLM_API_KEY`, `OPENAI_API_KEY`                     |
| prices   | `LONGGROUND_LLM_PRICE_PROMPT_PER_1K`, `..._COMPLETION_PER_1K`  |
| device   | `LONGGROUND_LLM_DEVICE` (transformers backend)                 |
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from ..errors import UserError
from .base import ChatClient
from .cache import CachedChatClient, ResponseCache, default_cache_path
from .config import LLMConfig
from .retry import RetryPolicy
from .usage import Pricing
from .video_input import Tiler, VideoInput, with_video_input

DEFAULT_BASE_URL = "https://api.openai.com/v1"

ChatFactory = Callable[[LLMConfig], ChatClient]
CHAT_BACKENDS: dict[str, ChatFactory] = {}


def register_backend(name: str) -> Callable[[ChatFactory], ChatFactory]:
    """Register a function `LLMConfig -> ChatClient` under `name`."""

    def wrap(factory: ChatFactory) -> ChatFactory:
        CHAT_BACKENDS[name] = factory
        return factory

    return wrap


def _env(*names: str) -> str | None:
    for name in names:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return None


def resolve_model(cfg: LLMConfig) -> str:
    """The model name from the config or `$LONGGROUND_LLM_MODEL`.

    >>> resolve_model(LLMConfig(model="Qwen/Qwen2.5-VL-7B-Instruct"))
    'Qwen/Qwen2.5-VL-7B-Instruct'
    """
    model = cfg.model or _env("LONGGROUND_LLM_MODEL")
    if not model:
        raise UserError("no Video-LLM model given: pass --model or set $LONGGROUND_LLM_MODEL")
    return model


def resolve_base_url(cfg: LLMConfig) -> str:
    """The API root from the config, `$LONGGROUND_LLM_BASE_URL`, `$OPENAI_BASE_URL`, or the
    OpenAI API."""
    return cfg.base_url or _env("LONGGROUND_LLM_BASE_URL", "OPENAI_BASE_URL") or DEFAULT_BASE_URL


@register_backend("openai")
def _openai_backend(cfg: LLMConfig) -> ChatClient:
    """One server, or a `SpreadChatClient` over several when `base_url` names several
    (whitespace-separated URLs, or a file of URLs)."""
    from .openai_client import OpenAIChatClient
    from .spread import SpreadChatClient, split_base_urls

    def client(url: str) -> OpenAIChatClient:
        return OpenAIChatClient(
            resolve_model(cfg),
            url,
            cfg.api_key or _env("LONGGROUND_LLM_API_KEY", "OPENAI_API_KEY"),
            timeout_s=cfg.timeout_s,
            retry=RetryPolicy(max_retries=cfg.max_retries),
            concurrency=cfg.concurrency,
            pricing=Pricing.from_env(),
            extra_body={"reasoning_effort": cfg.reasoning_effort} if cfg.reasoning_effort else None,
        )

    urls = split_base_urls(resolve_base_url(cfg))
    return client(urls[0]) if len(urls) == 1 else SpreadChatClient([client(u) for u in urls])


@register_backend("transformers")
def _transformers_backend(cfg: LLMConfig) -> ChatClient:
    from .transformers_client import TransformersChatClient

    return TransformersChatClient(resolve_model(cfg), device=_env("LONGGROUND_LLM_DEVICE"))


def make_chat_client(
    cfg: LLMConfig,
    cache_path: str | Path | None = None,
    *,
    use_cache: bool = True,
    tile: Tiler | None = None,
) -> ChatClient:
    """The client for `cfg.backend`, wrapped in the persistent response cache, and outside
    it in a `VideoInputClient` when `cfg.video_input` is not "frames".

    Args:
        cfg: backend, model, URL, key, timeout, retries, concurrency, video input.
        cache_path: SQLite file; default `default_cache_path()`.
        use_cache: False returns the bare client.
        tile: the mosaic function for `video_input="grid"` (`longground.video.mosaic`).

    Raises:
        UserError: unknown backend, or no model given.

    >>> import tempfile
    >>> client = make_chat_client(LLMConfig(model="m", base_url="http://127.0.0.1:9/v1"),
    ...                           cache_path=Path(tempfile.mkdtemp()) / "c.sqlite")
    >>> type(client).__name__, type(client.inner).__name__, client.model
    ('CachedChatClient', 'OpenAIChatClient', 'm')
    >>> client.close()
    """
    factory = CHAT_BACKENDS.get(cfg.backend)
    if factory is None:
        raise UserError(
            f"unknown Video-LLM backend {cfg.backend!r}; choose one of: {', '.join(CHAT_BACKENDS)}"
        )
    video_input = VideoInput(cfg.video_input, cfg.grid_side)
    if video_input.mode == "grid" and tile is None:
        raise UserError("--video-input grid: no mosaic function was handed to the client")
    client = factory(cfg)
    if use_cache:
        # answers at another reasoning effort are other answers
        tag = f"|reasoning_effort={cfg.reasoning_effort}" if cfg.reasoning_effort else ""
        client = CachedChatClient(client, ResponseCache(cache_path or default_cache_path()), tag)
    return with_video_input(client, video_input, tile)
