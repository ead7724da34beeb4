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

from ..llm.config import LLMConfig
from ..moments import Moments
from ..params import parse_params as _parse_params


@dataclass
class MethodConfig:
    """Settings shared by every method, plus method-specific `params` (`-p key=value`)."""

    encoder: str = "label-bridge"
    fps: float = 1.0
    single: bool = False
    params: dict[str, Any] = field(default_factory=dict)
    llm: LLMConfig | None = None
    cache_dir: Path | None = None
    parse: str = "lenient"
    #: `--device` and `--batch-size` of the encoders (None: each encoder's default).
    device: str | None = None
    batch_size: int | None = None
    # Evidence channels a query may be routed to (`--channels`); None: every installed one.
    channels: str | None = None
    #: Put the transcript and on-screen text into Video-LLM prompts (`methods.subtitles`).
    subtitles: bool = False

    def fingerprint(self, method: str) -> dict[str, Any]:
        """What identifies the answers this configuration produces (for resuming runs).
        The API key, the cache location, the device and the batch size never change answers
        (half precision changes the encoder id, which keys the features), so they are left
        out; settings at their defaults (lenient parsing, frames input) are left out too, so
        runs started before those settings existed still resume."""
        out = {"method": method, **asdict(self)}
        for where in ("cache_dir", "device", "batch_size"):
            out.pop(where)
        if out["parse"] == "lenient":
            out.pop("parse")
        if out["channels"] is None:  # answers recorded before channels existed stay valid
            out.pop("channels")
        if not out["subtitles"]:  # and before subtitles existed
            out.pop("subtitles")
        if out["llm"] is not None:
            out["llm"].pop("api_key")
            out["llm"].pop("concurrency")
            if out["llm"]["video_input"] == "frames":
                out["llm"].pop("video_input")
                out["llm"].pop("grid_side")
        return out


@dataclass
class Grounding:
    """A method's answer: the moments, the raw model text if any, and a trace of the work.

    Moment scores are probabilities that the moment is right (`methods.confidence`);
    `raw_scores` keeps what the channel or method scored before that mapping.

    `parse_error` says why the model's answer could not be read; the moments are then empty
    and mean "no answer", never "no such event" (`find` exits 2, `run` records a failure).

    >>> Grounding(Moments.empty(), raw="Sure!", parse_error="no times found").failed
    True
    """

    moments: Moments
    raw: str | None = None
    trace: dict[str, Any] = field(default_factory=dict)
    parse_error: str | None = None
    #: The moments' scores before calibration (`methods.confidence`), when they were mapped.
    raw_scores: list[float] | None = None

    @property
    def channel(self) -> str | None:
        """What answered: "visual", "speech", "text", "people" or "combined" (the trace's
        routing decision), or None when the method routes nothing (Video-LLM methods)."""
        return self.trace.get("route", {}).get("channel")

    @property
    def failed(self) -> bool:
        """True when the answer could not be read (see `parse_error`)."""
        return self.parse_error is not None


class Grounder(ABC):
    """Answers `ground(video, query)` with every matching moment (empty: no such event)."""

    name: str

    @abstractmethod
    def ground(self, video: Path, query: str) -> Grounding:
        """Find the moments of `video` that match `query`."""


class IndexedGrounder(Grounder):
    """A method that reads the feature index: it loads the configured encoder and opens the
    feature store on first use (or uses the ones handed to its constructor, as tests do)."""

    config: MethodConfig
    _encoder = None
    _store = None

    @property
    def encoder(self):
        if self._encoder is None:
            from ..encoders import load_encoder

            config = self.config
            self._encoder = load_encoder(config.encoder, config.device, config.batch_size)
        return self._encoder

    @property
    def store(self):
        if self._store is None:
            from ..index import FeatureStore

            self._store = FeatureStore(self.config.cache_dir)
        return self._store


MethodFactory = Callable[[MethodConfig], Grounder]
METHODS: dict[str, MethodFactory] = {}


def register_method(name: str) -> Callable[[MethodFactory], MethodFactory]:
    def wrap(factory: MethodFactory) -> MethodFactory:
        METHODS[name] = factory
        return factory

    return wrap


def parse_params(cls: type, params: dict[str, Any], method: str):
    """A method's params dataclass `cls` from its `-p KEY=VALUE` settings: the one parser,
    `longground.params.parse_params` (types from the dataclass's hints; unknown keys listed).

    Raises:
        UserError: an unknown key, or a value that is not of the field's type.
    """
    return _parse_params(cls, params, method)
