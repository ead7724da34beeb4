"""The time signal: every frame sent to a Video-LLM carries its timestamp, and every prompt
states the video's duration, in seconds and as HH:MM:SS."""

from __future__ import annotations

import numpy as np

from ..timecode import format_time
from .base import Message


def frame_label(pts_s: float) -> str:
    """The text placed just before a frame.

    >>> frame_label(754.5)
    'Frame at 754.5 s (00:12:34.5):'
    """
    return f"Frame at {pts_s:.1f} s ({format_time(pts_s)}):"


def duration_fields(duration_s: float) -> dict[str, str]:
    """Template fields `duration_s` and `duration_hms`.

    >>> duration_fields(3600)
    {'duration_s': '3600.0', 'duration_hms': '01:00:00.0'}
    """
    return {"duration_s": f"{duration_s:.1f}", "duration_hms": format_time(duration_s)}


def span_text(start_s: float, end_s: float) -> str:
    """A span for a prompt, in seconds and clock time.

    >>> span_text(600, 720)
    '600.0 s to 720.0 s (00:10:00.0 to 00:12:00.0)'
    """
    return f"{start_s:.1f} s to {end_s:.1f} s ({format_time(start_s)} to {format_time(end_s)})"


def timed_frames_message(text: str, frames: np.ndarray, pts_s: np.ndarray) -> Message:
    """One user message: the prompt, then each frame after its timestamp label.

    Args:
        text: the prompt.
        frames: `(N, H, W, 3)` uint8 RGB.
        pts_s: `(N,)` presentation time of each frame in seconds from the video start.

    >>> msg = timed_frames_message("Q", np.zeros((2, 4, 4, 3), np.uint8), np.array([0.5, 1.5]))
    >>> len(msg.images), msg.image_labels
    (2, ['Frame at 0.5 s (00:00:00.5):', 'Frame at 1.5 s (00:00:01.5):'])
    """
    if len(frames) != len(pts_s):
        raise ValueError(f"{len(frames)} frames but {len(pts_s)} timestamps")
    return Message(
        role="user",
        text=text,
        images=[np.asarray(f) for f in frames],
        image_labels=[frame_label(float(t)) for t in pts_s],
        image_times_s=[float(t) for t in pts_s],
    )
