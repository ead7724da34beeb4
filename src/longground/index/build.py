"""Building a `Timeline`: sample frames, encode them batch by batch, keep only the features."""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from ..encoders.base import ImageTextEncoder
from ..progress import progress_bar
from ..video import FrameBatch, sample_frames
from ..video.sampling import as_fraction
from .prefetch import prefetch
from .rows import RowBuffer
from .timeline import Timeline


def build_timeline(
    video: str | Path,
    encoder: ImageTextEncoder,
    fps: float,
    progress: bool = True,
    short_side: int = 224,
    batch_size: int = 64,
    pipeline: bool = True,
) -> Timeline:
    """Encode the frames of `video` sampled at `fps`.

    Memory stays flat in the video's length: frames live only one batch at a time (two more
    are being decoded ahead when `pipeline` is on), and only the features are kept.

    Args:
        video: any video FFmpeg reads.
        encoder: turns `(B, H, W, 3)` uint8 frames into named `(B, ...)` features.
        fps: samples per second.
        progress: show a bar with frames/s and ETA (only on a terminal).
        short_side: frames are scaled so their shorter side has this many pixels.
        batch_size: frames per encoder call.
        pipeline: decode the next batches in a thread while the encoder runs.

    Returns:
        The `Timeline`; its `truncated_at_s` is set when the file was cut short.

    Raises:
        BadVideo: the file cannot be read as a video.

    >>> import os, tempfile
    >>> from longground.video import VideoWriter
    >>> class MeanColour(ImageTextEncoder):
    ...     encoder_id = "mean-colour"
    ...     def encode_images(self, frames):
    ...         return frames.mean(axis=(1, 2)) / 255
    ...     def encode_texts(self, texts):
    ...         return np.ones((len(texts), 3))
    >>> path = os.path.join(tempfile.mkdtemp(), "grey.mp4")
    >>> with VideoWriter(path, 64, 48, fps=10) as writer:
    ...     for _ in range(30):
    ...         writer.write(np.full((48, 64, 3), 100, np.uint8))
    >>> timeline = build_timeline(path, MeanColour(), fps=2, progress=False)
    >>> timeline.times_s.tolist(), timeline.features["embedding"].shape
    ([0.0, 0.5, 1.0, 1.5, 2.0, 2.5], (6, 3))
    """
    stream = sample_frames(video, fps, short_side=short_side, batch_size=batch_size)
    stream.warn_on_damage = False  # warned below, from this thread
    total = None
    if stream.duration_s is not None:
        total = math.ceil(stream.duration_s * as_fraction(fps) - 1e-9)
    batches: Iterable[FrameBatch] = prefetch(stream) if pipeline else stream
    clock, features = RowBuffer(total or 1024), RowBuffer(total or 1024)
    try:
        with progress_bar(total, desc=Path(video).name, unit="frame", enabled=progress) as bar:
            for batch in batches:
                features.append(_checked(encoder.image_features(batch.frames), len(batch)))
                clock.append({"times_s": batch.times_s, "pts_s": batch.pts_s})
                bar.update(len(batch))
    finally:
        if pipeline:
            batches.close()  # stops the decoding thread
        stream.close()
    damage = stream.damage()
    if damage is not None:
        warnings.warn(damage[1], damage[0], stacklevel=2)
    if not len(clock):
        raise ValueError(f"{video}: no frames were sampled")
    times = clock.arrays()
    return Timeline(
        times_s=times["times_s"],
        features=features.arrays(),
        encoder_id=encoder.encoder_id,
        fps=float(fps),
        duration_s=float(stream.duration_s or times["times_s"][-1]),
        pts_s=times["pts_s"],
        truncated_at_s=stream.truncated_at_s,
    )


def _checked(features: dict, n: int) -> dict[str, np.ndarray]:
    """The encoder's features as float32, after checking names and row counts."""
    if "embedding" not in features:
        raise ValueError(f"image_features returned {sorted(features)}, without 'embedding'")
    out = {name: np.asarray(values, dtype=np.float32) for name, values in features.items()}
    for name, values in out.items():
        if len(values) != n:
            raise ValueError(f"image_features gave {len(values)} rows of {name!r} for {n} frames")
    return out
