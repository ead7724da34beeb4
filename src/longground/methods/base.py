"""The grounding-method interface and registry.

A method is built once from a `MethodConfig` and then answers many queries; it may keep
per-video state (feature timelines, graphs) between calls so queries on one video share work.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..moments import Moments


@dataclass
class LLMConfig:
    """Where a Video-LLM is reached. `backend` is "openai" (HTTP) or "transformers"."""

    backend: str = "openai"
    model: str = ""
    base_url: str | None = None
    api_key: str | None = None
    timeout_s: float = 120.0
    max_retries: int = 4
    concurrency: int = 4


@dataclass
class MethodConfig:
    """Settings shared by every method, plus method-specific `params` (`-p key=value`)."""

    encoder: str = "label-bridge"
    fps: float = 1.0
    single: bool = False
    params: dict[str, Any] = field(default_factory=dict)
    llm: LLMConfig | None = None
    cache_dir: Path | None = None

    def fingerprint(self, method: str) -> dict[str, Any]:
        """What identifies the answers this configuration produces (for resuming runs).
        The API key and the cache location never change answers, so they are left out."""
        out = {"method": method, **asdict(self)}
        out.pop("cache_dir")
        if out["llm"] is not None:
            out["llm"].pop("api_key")
            out["llm"].pop("concurrency")
        return out


@dataclass
class Grounding:
    """A method's answer: the moments, the raw model text if any, and a trace of the work."""

    moments: Moments
    raw: str | None = None
    trace: dict[str, Any] = field(default_factory=dict)


class Grounder(ABC):
    """Answers `ground(video, query)` with every matching moment (empty: no such event)."""

    name: str

    @abstractmethod
    def ground(self, video: Path, query: str) -> Grounding:
        """Find the moments of `video` that match `query`."""


MethodFactory = Callable[[MethodConfig], Grounder]
METHODS: dict[str, MethodFactory] = {}


def register_method(name: str) -> Callable[[MethodFactory], MethodFactory]:
    def wrap(factory: MethodFactory) -> MethodFactory:
        METHODS[name] = factory
        return factory

    return wrap
