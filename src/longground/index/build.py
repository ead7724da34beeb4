"""Building a `Timeline`: sample frames, encode them batch by batch, keep only the features."""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import nullcontext
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

from ..encoders.base import ImageTextEncoder
from ..encoders.onnx_net import decoding_beside
from ..progress import progress_bar
from ..video import FrameBatch, sample_frames
from ..video.sampling import as_fraction
from .change import ChangeGate, expand_rows
from .prefetch import prefetch
from .rows import RowBuffer
from .timeline import Timeline

# How far decoding may run ahead of the encoder, in batches' worth of frames waiting to be
# encoded (each batch also counts one): two full batches, as before the gate moved into the
# decoding thread (34 MB at 64 frames of 398x224), but a run of unchanged samples now waits
# at almost no cost, so decoding goes on through a still stretch.
_AHEAD_BATCHES = 2


def build_timeline(
    video: str | Path,
    encoder: ImageTextEncoder,
    fps: float,
    progress: bool = True,
    short_side: int = 224,
    batch_size: int = 64,
    pipeline: bool = True,
    resume: Timeline | None = None,
    checkpoint: Callable[[Timeline], None] | None = None,
    checkpoint_every_s: float = 60.0,
    gate: ChangeGate | None = None,
    keyframes_only: bool = False,
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
        resume: the first rows of this same timeline, from an earlier interrupted build;
            sampling continues after its last row.
        checkpoint: called with the timeline so far every `checkpoint_every_s` seconds and
            when the build is interrupted (an exception, Ctrl-C), so that it can be saved and
            passed back as `resume`.
        checkpoint_every_s: wall time between checkpoints.
        gate: when set, only frames it finds changed since the last encoded one are
            encoded; the others reuse that frame's features, and the timeline's `encoded`
            mask says which rows were computed. None encodes every frame.
        keyframes_only: decode keyframes only, each sample the last keyframe at or before it
            (lossy, an opt-in mode; see `video.picker.KeyframesOnly`).

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
    >>> zeros = {name: np.zeros((2, 3)) for name in timeline.features}
    >>> first_two = Timeline(timeline.times_s[:2], zeros, "mean-colour", 2.0,
    ...                      timeline.duration_s, timeline.pts_s[:2])
    >>> resumed = build_timeline(path, MeanColour(), fps=2, progress=False, resume=first_two)
    >>> resumed.times_s.tolist(), resumed.features["embedding"][:, 0].astype(float).round(2)
    ([0.0, 0.5, 1.0, 1.5, 2.0, 2.5], array([0.  , 0.  , 0.38, 0.38, 0.38, 0.38]))
    """
    rate = as_fraction(fps)
    done = len(resume) if resume is not None else 0
    start = Fraction(done) / rate
    if done and _at_or_past_end(video, start):
        return resume
    stream = sample_frames(video, rate, start_s=start, short_side=short_side,
                           batch_size=batch_size, keyframes_only=keyframes_only)  # fmt: skip
    stream.warn_on_damage = False  # warned below, from this thread
    total = None
    if stream.duration_s is not None:
        total = math.ceil(stream.duration_s * rate - 1e-9)
    gated = _gated(stream, gate)
    batches: Iterable[_Gated] = (
        prefetch(gated, depth=_AHEAD_BATCHES * (batch_size + 1), weigh=_Gated.weight)
        if pipeline
        else gated
    )
    clock, features = RowBuffer(total or 1024), RowBuffer(total or 1024)
    if done:
        clock.append({"times_s": resume.times_s, "pts_s": resume.pts_s, "encoded": resume.encoded})
        features.append(resume.features)
    encode = _Encode(encoder)

    def so_far() -> Timeline:
        times = clock.arrays()
        return Timeline(
            times_s=times["times_s"],
            features=features.arrays(),
            encoder_id=encoder.encoder_id,
            fps=rate,
            duration_s=float(stream.duration_s or times["times_s"][-1]),
            pts_s=times["pts_s"],
            truncated_at_s=stream.truncated_at_s,
            encoded=times["encoded"],
        )

    saved_at, saved_rows = time.monotonic(), len(clock)
    try:
        beside = decoding_beside() if pipeline else nullcontext()
        bar = progress_bar(total, desc=Path(video).name, unit="frame", enabled=progress)
        with bar, beside:
            bar.update(done)
            for batch in batches:
                features.append(encode(batch))
                clock.append(
                    {"times_s": batch.times_s, "pts_s": batch.pts_s, "encoded": batch.encoded}
                )
                bar.update(len(batch.times_s))
                if checkpoint and time.monotonic() - saved_at > checkpoint_every_s:
                    checkpoint(so_far())
                    saved_at, saved_rows = time.monotonic(), len(clock)
    except BaseException:
        if checkpoint and len(clock) > saved_rows:
            checkpoint(so_far())
        raise
    finally:
        if pipeline:
            batches.close()  # stops the decoding thread
        stream.close()
    damage = stream.damage()
    if damage is not None:
        warnings.warn(damage[1], damage[0], stacklevel=2)
    if not len(clock):
        raise ValueError(f"{video}: no frames were sampled")
    return so_far()


@dataclass
class _Gated:
    """One batch of samples after the change gate: their times, which are to be encoded,
    and only those frames (the others are dropped in the decoding thread, so that a run of
    unchanged samples costs no memory while it waits for the encoder).

    Attributes:
        times_s, pts_s: `(B,)` as in `FrameBatch`.
        encoded: `(B,)` bool, True for the samples to encode.
        frames: `(K, H, W, 3)` uint8, the `K = encoded.sum()` frames to encode.
    """

    times_s: np.ndarray
    pts_s: np.ndarray
    encoded: np.ndarray
    frames: np.ndarray

    def weight(self) -> int:
        """What it holds while waiting: its frames, plus one so empty batches count too."""
        return len(self.frames) + 1


def _gated(stream: Iterable[FrameBatch], gate: ChangeGate | None) -> Iterator[_Gated]:
    """The batches of `stream` through `gate` (every frame kept when None), carrying the
    last encoded thumbnail from batch to batch. Runs in the decoding thread."""
    last_thumb = None
    for batch in stream:
        if gate is None:
            encoded = np.ones(len(batch), dtype=bool)
            yield _Gated(batch.times_s, batch.pts_s, encoded, batch.frames)
            continue
        encoded, last_thumb = gate.select(gate.thumbnails(batch.frames), last_thumb)
        chosen = batch.frames[encoded] if not encoded.all() else batch.frames
        yield _Gated(batch.times_s, batch.pts_s, encoded, chosen)


class _Encode:
    """Features of each gated batch: its chosen frames encoded, the other rows copied from
    the last encoded one (carried from batch to batch)."""

    def __init__(self, encoder: ImageTextEncoder):
        self.encoder = encoder
        self.last_row: dict[str, np.ndarray] | None = None

    def __call__(self, batch: _Gated) -> dict[str, np.ndarray]:
        """Named `(B, ...)` float32 features of the batch's samples."""
        computed = {}
        if len(batch.frames):
            computed = _checked(self.encoder.image_features(batch.frames), len(batch.frames))
        if batch.encoded.all():
            rows = computed
        else:
            rows = expand_rows(computed, batch.encoded, self.last_row)
        self.last_row = {name: values[-1].copy() for name, values in rows.items()}
        return rows


def _at_or_past_end(video: str | Path, start: Fraction) -> bool:
    """True when `start` is at or after the end the headers announce (nothing left to sample),
    judged exactly as `sample_frames` judges it."""
    from ..video.container import open_video

    with open_video(video) as opened:
        duration_s = opened.duration_s
    return duration_s is not None and start >= as_fraction(duration_s)


def _checked(features: dict, n: int) -> dict[str, np.ndarray]:
    """The encoder's features as float32, after checking names and row counts."""
    if "embedding" not in features:
        raise ValueError(f"image_features returned {sorted(features)}, without 'embedding'")
    out = {name: np.asarray(values, dtype=np.float32) for name, values in features.items()}
    for name, values in out.items():
        if len(values) != n:
            raise ValueError(f"image_features gave {len(values)} rows of {name!r} for {n} frames")
    return out
