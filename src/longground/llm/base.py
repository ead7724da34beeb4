"""The chat interface every Video-LLM backend implements."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class VideoClip:
    """Frames sent as one video part (`--video-input video`), with their times.

    Args:
        frames: `(N, H, W, 3)` uint8 RGB, all one size, in time order.
        pts_s: `(N,)` seconds from the start of the video, or None when unknown.
        labels: one text label per frame (its timestamp), listed in the prompt.

    >>> clip = VideoClip(np.zeros((3, 2, 2, 3), np.uint8), np.array([10.0, 12.0, 14.0]))
    >>> clip.sample_fps
    0.5
    """

    frames: np.ndarray
    pts_s: np.ndarray | None = None
    labels: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        frames = np.asarray(self.frames)
        if frames.dtype != np.uint8 or frames.ndim != 4 or frames.shape[3] != 3 or not len(frames):
            raise ValueError(f"video frames must be (N, H, W, 3) uint8, got {frames.shape}")
        if self.pts_s is not None and np.shape(self.pts_s) != (len(frames),):
            raise ValueError(f"{len(frames)} frames but pts_s of shape {np.shape(self.pts_s)}")

    @property
    def sample_fps(self) -> float | None:
        """Frames per second of video time, `(N - 1) / (last - first)`; None when the times
        are unknown or span nothing."""
        if self.pts_s is None or len(self.pts_s) < 2:
            return None
        span_s = float(self.pts_s[-1] - self.pts_s[0])
        return (len(self.pts_s) - 1) / span_s if span_s > 0 else None


@dataclass
class Message:
    """One chat message. `images` are `(H, W, 3)` uint8 RGB arrays sent after the text.

    `image_labels`, when given, is one text label per image (e.g. its timestamp), sent just
    before that image so the model sees the time signal; `image_times_s` the same times in
    seconds, when known (the video and grid input modes use them). `video`, when set, is
    sent after the text as one video part (`longground.llm.video_input`).
    """

    role: str
    text: str
    images: list[np.ndarray] = field(default_factory=list)
    image_labels: list[str] | None = None
    image_times_s: list[float] | None = None
    video: VideoClip | None = None


@dataclass
class Completion:
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: bool = False
    cost_usd: float = 0.0


class ChatClient(ABC):
    """Sends a conversation to a model and returns its text answer.

    Raises `UserError` (one line naming the URL and model) for failures the user must fix:
    unreachable server, 401, 404.
    """

    model: str

    @abstractmethod
    def complete(
        self, messages: list[Message], *, max_tokens: int = 1024, temperature: float = 0.0
    ) -> Completion:
        """The model's answer to `messages`."""
