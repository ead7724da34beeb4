"""What the agent needs from one video, as a small interface.

`methods/agent.py` implements it on the real decoder, feature store and encoder; tests hand in
a fake built from arrays. Everything the agent computes goes through its five methods; what it
may also offer is grouped in `Extras`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np

from ..moments import Moments
from ..query import Route

# Timeline feature for the segment embeddings z of the edge weights (CoMET Eq. 15), present
# when a separate segment encoder is configured; otherwise z comes from "embedding".
SEGMENT_FEATURE = "segment"


def segment_features(features: dict[str, np.ndarray]) -> np.ndarray:
    """The per-sample features the edge weights' z are averaged from.

    >>> segment_features({"embedding": np.ones(2), "segment": np.zeros(2)}).tolist()
    [0.0, 0.0]
    """
    return features.get(SEGMENT_FEATURE, features["embedding"])


@dataclass(frozen=True)
class ChannelAnswer:
    """A sub-event answered by an evidence channel rather than the image encoder.

    Attributes:
        channel: "speech", "text" or "people".
        moments: where the sub-event holds, in seconds of the video.
        record: the routing decision and what the channel matched, for the trace.
    """

    channel: str
    moments: Moments
    record: dict = field(default_factory=dict)


@dataclass(frozen=True)
class ScoreScale:
    """What a source's raw text scores mean, where the source knows.

    Attributes:
        threshold: the raw score meaning "visible" (the encoder's default threshold).
        width: score units per unit of log-odds around it (a source scoring in calibrated
            log-odds: 1.0).
    """

    threshold: float | None = None
    width: float | None = None


ViewsFn = Callable[[np.ndarray], dict[str, np.ndarray]]
LooksFn = Callable[[np.ndarray, str], np.ndarray]


@dataclass(frozen=True)
class Extras:
    """The optional parts of a source: evidence channels, and features of views closer than
    the whole frame (regions in any scene, object views in the composited one).

    Attributes:
        channel_answer: the moments of the evidence channel a route names (speech, on-screen
            text, people, the score), or None for the image encoder; None: no channels.
        regions: `regions(times_s) -> {name: (N, R, ...)}`: features of the regions of the
            frames at `times_s` looked at closer (the composited scene's two halves, the
            general scene's five tiles, `methods.agent`), under the timeline's feature
            names; None: none.
        regions_in_index: `regions` only reads the feature index (cheap: no cache file kept).
        objects: `objects(times_s) -> {name: (N, V, ...)}`: features of the frames' object
            views (`composited.object_views.VIEWS`); None: none.
        looks: `looks(spans (K, 2), text) -> (K, D)`: the look of `text`'s target in each
            span, from the crops of its track there (`tracking.identity.TrackedLooks`); a
            row of NaN where it has none, `(K, 0)` when none has. None: not offered.
    """

    channel_answer: Callable[[Route], ChannelAnswer | None] | None = None
    regions: ViewsFn | None = None
    regions_in_index: bool = False
    objects: ViewsFn | None = None
    looks: LooksFn | None = None


#: A window to decode: `(start_s, end_s, fps)`.
Window = tuple[float, float, float]


class VideoSource(ABC):
    """One video, seen through an encoder.

    Attributes:
        duration_s: the video's length in seconds.
        key: identifies the video and encoder for caches (changes when either does).
        scale: what its raw scores mean (`ScoreScale`), where it knows.
        extras: its optional parts (`Extras`).
    """

    duration_s: float
    key: str
    scale: ScoreScale = ScoreScale()
    extras: Extras = Extras()

    @abstractmethod
    def timeline(self, fps: float) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Sample times `(T,)` and features (`"embedding"`, `"appearance"`, optionally
        `"segment"`: `(T, ...)`). "appearance" drives event segmentation, "segment" (else
        "embedding") the edge weights, "embedding" the text scores."""

    def sampled_fps(self, fps: float) -> float:
        """The rate `timeline(fps)` really samples at: a source may cap `fps` at the video's
        own rate. Graph-cache keys and node margins use this rate (default: `fps`)."""
        return fps

    @abstractmethod
    def score(self, features: dict[str, np.ndarray], text: str) -> np.ndarray:
        """Raw relevance `(T,)` of each sample's features to `text`."""

    @abstractmethod
    def frames(
        self, windows: list[Window], short_side: int
    ) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
        """Frames of time-ordered, disjoint windows `(start_s, end_s, fps)`, sampled in
        `[start_s, end_s)`, as batches `(window index, frames (B, H, W, 3) uint8, pts_s (B,))`
        in window order (a source may decode them in one pass)."""

    @abstractmethod
    def frames_at(self, times_s: np.ndarray) -> np.ndarray:
        """Frames `(N, H, W, 3)` uint8 shown at `times_s`."""
