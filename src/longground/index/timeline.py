"""`Timeline`: what an encoder saw in a video, one row per sample time."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..video.sampling import as_fraction


@dataclass
class Timeline:
    """Per-sample features of one video under one encoder, at one sampling rate.

    Attributes:
        times_s: `(N,)` float64 sample times in seconds (`k / fps`); row `i` of every feature
            describes the frame on screen at `times_s[i]`.
        features: named `(N, ...)` float32 arrays, as the encoder's `image_features` returns
            them (e.g. "embedding", "appearance").
        encoder_id: the encoder that made them.
        fps: the rate actually sampled, exact (the asked rate capped at the video's own, see
            `index.rate`); floats are read as `video.sampling.as_fraction` does.
        duration_s: length of the video in seconds.
        pts_s: `(N,)` float64, when each sampled frame started being displayed.
        truncated_at_s: where decoding stopped, if the file was cut short.
        encoded: `(N,)` bool, True where the encoder computed the row and False where
            content-adaptive indexing reused the last computed row (the picture had not
            changed); all True when omitted.

    >>> t = Timeline(np.arange(3.0), {"embedding": np.ones((3, 4))}, "fake", 1.0, 3.0)
    >>> len(t), t.features["embedding"].dtype, t.nbytes, t.fps
    (3, dtype('float32'), 48, Fraction(1, 1))
    """

    times_s: np.ndarray
    features: dict[str, np.ndarray]
    encoder_id: str
    fps: Fraction
    duration_s: float
    pts_s: np.ndarray | None = None
    truncated_at_s: float | None = None
    encoded: np.ndarray | None = None

    def __post_init__(self) -> None:
        self.fps = as_fraction(self.fps)
        self.times_s = np.asarray(self.times_s, dtype=np.float64)
        self.pts_s = (
            self.times_s.copy() if self.pts_s is None else np.asarray(self.pts_s, np.float64)
        )
        self.features = {k: np.asarray(v, dtype=np.float32) for k, v in self.features.items()}
        n = len(self.times_s)
        self.encoded = (
            np.ones(n, dtype=bool) if self.encoded is None else np.asarray(self.encoded, bool)
        )
        if self.times_s.ndim != 1 or self.pts_s.shape != (n,) or self.encoded.shape != (n,):
            raise ValueError("times_s, pts_s and encoded must be (N,) arrays of one length")
        for name, values in self.features.items():
            if values.ndim < 1 or len(values) != n:
                raise ValueError(f"feature {name!r} has {len(values)} rows for {n} times")

    def __len__(self) -> int:
        return len(self.times_s)

    @property
    def nbytes(self) -> int:
        """Memory held by the feature arrays."""
        return sum(v.nbytes for v in self.features.values())

    def freeze(self) -> Timeline:
        """Make every array read-only (shared timelines must not be changed in place)."""
        for array in (self.times_s, self.pts_s, self.encoded, *self.features.values()):
            array.flags.writeable = False
        return self
