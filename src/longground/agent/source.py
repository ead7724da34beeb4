"""What the agent needs from one video, as a small interface.

`methods/agent.py` implements it on the real decoder, feature store and encoder; tests hand in
a fake built from arrays. Everything the agent computes goes through these members.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
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


class VideoSource(ABC):
    """One video, seen through an encoder.

    Attributes:
        duration_s: the video's length in seconds.
        key: identifies the video and encoder for caches (changes when either does).
        default_threshold: the encoder's raw score meaning "visible", if it has one.
        default_width: score units per unit of log-odds around that threshold, if the
            source knows them (a source scoring in calibrated log-odds: 1.0).
        has_regions: whether `region_features` is available.
        regions_in_index: whether `region_features` only reads the feature index (cheap:
            then the agent keeps no cache file of them).
        has_objects: whether `object_features` is available.
    """

    duration_s: float
    key: str
    default_threshold: float | None = None
    default_width: float | None = None
    has_regions: bool = False
    regions_in_index: bool = False
    has_objects: bool = False

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
        self, start_s: float, end_s: float, fps: float, short_side: int
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Batches of `(frames (B, H, W, 3) uint8, pts_s (B,))` sampled in `[start_s, end_s)`."""

    def frames_in_windows(
        self, windows: list[tuple[float, float, float]], short_side: int
    ) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
        """Frames of several time-ordered, disjoint windows `(start_s, end_s, fps)`, as
        batches `(window index, frames (B, H, W, 3) uint8, pts_s (B,))` in window order: the
        same frames `frames` gives for each window. A source may decode them in one pass
        (default: `frames` once per window)."""
        for i, (start_s, end_s, fps) in enumerate(windows):
            for frames, pts_s in self.frames(start_s, end_s, fps, short_side):
                yield i, frames, pts_s

    @abstractmethod
    def frames_at(self, times_s: np.ndarray) -> np.ndarray:
        """Frames `(N, H, W, 3)` uint8 shown at `times_s`."""

    def channel_answer(self, route: Route) -> ChannelAnswer | None:
        """The moments of the evidence channel `route` names (a sub-event's channel and
        needle: "someone says X", "the slide reads X", "a person", "the score changes"), or
        None when it names the image encoder. The default source has no channels."""
        return None

    def region_features(self, times_s: np.ndarray) -> dict[str, np.ndarray]:
        """Features of the regions (see `regions.REGIONS`) of the frames at `times_s`:
        `(N, R, ...)` arrays under the same names as the timeline's features."""
        raise NotImplementedError(f"{type(self).__name__} has no region features")

    def object_features(self, times_s: np.ndarray) -> dict[str, np.ndarray]:
        """Features of the objects of the frames at `times_s`, each seen closer (the box of
        what the frame's outer ring does not show: `perception.boxes.SIDES`, one per half, or
        `perception.object_views.VIEWS`, those and the largest object whole): `(N, V, ...)`
        arrays under the same names as the timeline's features."""
        raise NotImplementedError(f"{type(self).__name__} has no object features")
