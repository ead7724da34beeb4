"""The Video-LLM methods and the agent on a crop of a video, as if the crop were the video.

Each sees only `[start_s, end_s]`, with times counted from the crop's start (the model is
told the crop's length, its frames carry crop-relative timestamps), as when a GT-centred clip
is cut out of the video and handed to the method. The answer is moved back to video time; a
Video-LLM's spans are otherwise kept as given (not clipped), so the model is scored on what
it said.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np

from ..agent.source import Extras, VideoSource
from ..methods.agent import AgentMethod
from ..methods.base import Grounding
from ..methods.hybrid import HybridMethod
from ..methods.monolithic import MonolithicMethod, uniform_times, video_frames
from ..methods.retrieval import frame_scores


class CropMixin:
    """`ground_crop` for a method whose `ground` looks at `self.crop_s` when it is set."""

    crop_s: tuple[float, float] | None = None

    def ground_crop(self, video: Path, query: str, start_s: float, end_s: float) -> Grounding:
        """Ground `query` on `[start_s, end_s]` of `video`; moments in video time."""
        self.crop_s = (float(start_s), float(end_s))
        try:
            grounding = self.ground(video, query)
        finally:
            self.crop_s = None
        grounding.moments = grounding.moments.shift(float(start_s))
        grounding.trace["crop_s"] = [float(start_s), float(end_s)]
        return grounding


class CroppedMonolithic(CropMixin, MonolithicMethod):
    """The monolithic method's N uniform frames spread over the crop only."""

    def frames(self, video: Path) -> tuple[np.ndarray, np.ndarray, float]:
        if self.crop_s is None:
            return super().frames(video)
        from ..video import probe

        key = (str(Path(video).resolve()), *self.crop_s)
        if self._last_frames is None or self._last_frames[0] != key:
            info = probe(video)
            start_s, end_s = self.crop_s[0], min(self.crop_s[1], info.duration_s)
            times_s = start_s + uniform_times(end_s - start_s, self.params.n_frames)
            frames, pts_s = video_frames(video, info, times_s, self.params.short_side)
            self._last_frames = (key, frames, pts_s - start_s, end_s - start_s)
        return self._last_frames[1:]


class CroppedHybrid(CropMixin, HybridMethod):
    """Retrieval windows picked inside the crop; the Video-LLM sees crop-relative times."""

    def __init__(self, config, client=None):
        super().__init__(config, client=client, scorer=self._crop_scores)

    def _crop_scores(self, video: Path, query: str, config) -> tuple[np.ndarray, np.ndarray, float]:
        times_s, scores, duration_s = frame_scores(video, query, config)
        if self.crop_s is None:
            return times_s, scores, duration_s
        times_s, scores = np.asarray(times_s), np.asarray(scores)
        start_s, end_s = self.crop_s[0], min(self.crop_s[1], float(duration_s))
        keep = (times_s >= start_s) & (times_s <= end_s)
        if not keep.any() and len(times_s):  # a crop shorter than a frame step
            keep[np.argmin(np.abs(times_s - (start_s + end_s) / 2))] = True
        return times_s[keep] - start_s, scores[keep], end_s - start_s

    def frames_at(self, video: Path, times_s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        offset_s = 0.0 if self.crop_s is None else self.crop_s[0]
        frames, pts_s = super().frames_at(video, np.asarray(times_s) + offset_s)
        return frames, pts_s - offset_s


class CropSource(VideoSource):
    """`[start_s, end_s]` of another `VideoSource`, with times counted from `start_s`."""

    def __init__(self, inner: VideoSource, start_s: float, end_s: float):
        self.inner, self.start_s = inner, float(start_s)
        end_s = min(float(end_s), float(inner.duration_s))
        self.duration_s = end_s - self.start_s
        self.key = f"{inner.key}@crop{self.start_s:.3f}-{end_s:.3f}"
        self.scale = inner.scale
        halves = inner.extras.regions
        self.extras = Extras(regions=None if halves is None else self._shifted(halves))

    def timeline(self, fps: float) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        times_s, features = self.inner.timeline(fps)
        times_s = np.asarray(times_s)
        keep = (times_s >= self.start_s) & (times_s < self.start_s + self.duration_s)
        if not keep.any():
            keep[np.argmin(np.abs(times_s - (self.start_s + self.duration_s / 2)))] = True
        return times_s[keep] - self.start_s, {k: np.asarray(v)[keep] for k, v in features.items()}

    def score(self, features: dict[str, np.ndarray], text: str) -> np.ndarray:
        return self.inner.score(features, text)

    def frames(
        self, windows: list[tuple[float, float, float]], short_side: int
    ) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
        shifted = [(self.start_s + a, self.start_s + b, fps) for a, b, fps in windows]
        for i, frames, pts_s in self.inner.frames(shifted, short_side):
            yield i, frames, np.asarray(pts_s) - self.start_s

    def frames_at(self, times_s: np.ndarray) -> np.ndarray:
        return self.inner.frames_at(np.asarray(times_s) + self.start_s)

    def _shifted(self, views):
        """`views(times)` of the inner source, with times counted from `start_s`."""
        return lambda times_s: views(np.asarray(times_s) + self.start_s)


class CroppedAgent(CropMixin, AgentMethod):
    """The agent on a `CropSource` of the video (its graph is cached per crop)."""

    def source(self, video: Path) -> VideoSource:
        whole = super().source(video)
        return whole if self.crop_s is None else CropSource(whole, *self.crop_s)
