"""The grounding-method interface and registry.

A method is built once from a `MethodConfig` and then answers many queries; it may keep
per-video state (feature timelines, graphs) between calls so queries on one video share work.
"""

from __future__ import annotations

import math
import types
import typing
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from ..errors import UserError
from ..llm.config import LLMConfig
from ..moments import Moments


@dataclass
class MethodConfig:
    """Settings shared by every method, plus method-specific `params` (`-p key=value`)."""

    encoder: str = "label-bridge"
    fps: float = 1.0
    single: bool = False
    params: dict[str, Any] = field(default_factory=dict)
    llm: LLMConfig | None = None
    cache_dir: Path | None = None
    # Evidence channels a query may be routed to (`--channels`); None: every installed one.
    channels: str | None = None

    def fingerprint(self, method: str) -> dict[str, Any]:
        """What identifies the answers this configuration produces (for resuming runs).
        The API key and the cache location never change answers, so they are left out."""
        out = {"method": method, **asdict(self)}
        out.pop("cache_dir")
        if out["channels"] is None:  # answers recorded before channels existed stay valid
            out.pop("channels")
        if out["llm"] is not None:
            out["llm"].pop("api_key")
            out["llm"].pop("concurrency")
        return out


@dataclass
class Grounding:
    """A method's answer: the moments, the raw model text if any, and a trace of the work.

    `parse_error` says why the model's answer could not be read; the moments are then empty
    and mean "no answer", never "no such event" (`find` exits 2, `run` records a failure).

    >>> Grounding(Moments.empty(), raw="Sure!", parse_error="no times found").failed
    True
    """

    moments: Moments
    raw: str | None = None
    trace: dict[str, Any] = field(default_factory=dict)
    parse_error: str | None = None

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

            self._encoder = load_encoder(self.config.encoder)
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


_TRUE, _FALSE = {"1", "true", "yes", "on"}, {"0", "false", "no", "off"}


def _convert(kind: type, value: str):
    if kind is bool:
        if value.lower() in _TRUE | _FALSE:
            return value.lower() in _TRUE
        raise ValueError(value)
    result = kind(value)
    if kind is float and not math.isfinite(result):  # a setting is never inf or nan
        raise ValueError(value)
    return result


def parse_params(cls: type, params: dict[str, Any], method: str):
    """A params dataclass `cls` from `-p KEY=VALUE` settings, each string converted to the
    field's annotated type (`int`, `float`, `bool`, `str`, or `X | None`, where "none" or
    "auto" give None).

    Raises:
        UserError: an unknown key, or a value that does not convert.

    >>> @dataclass(frozen=True)
    ... class P:
    ...     k: int = 3
    ...     threshold: float | None = None
    >>> parse_params(P, {"k": "5", "threshold": "auto"}, "demo")
    P(k=5, threshold=None)
    """
    hints = typing.get_type_hints(cls)
    known = [f.name for f in fields(cls)]
    unknown = sorted(set(params) - set(known))
    if unknown:
        raise UserError(
            f"{method}: unknown parameter(s) {', '.join(unknown)}; known: {', '.join(known)}"
        )
    values = {}
    for name, value in params.items():
        kinds = [k for k in typing.get_args(hints[name]) if k is not type(None)]
        optional = isinstance(hints[name], types.UnionType) and len(kinds) == 1
        kind = kinds[0] if optional else hints[name]
        if not isinstance(value, str) or kind is str:
            values[name] = value
        elif optional and value.lower() in ("", "none", "auto"):
            values[name] = None
        else:
            try:
                values[name] = _convert(kind, value)
            except ValueError:
                what = "a finite number" if kind is float else kind.__name__
                raise UserError(f"{method}: parameter {name}={value!r} is not {what}") from None
    return cls(**values)
