"""Which scene a video's footage is (`AgentSettings.scene="auto"`, the default): composited
(pictures pasted on plain backdrops, as the project's generator and many studio or slide
layouts make them) or general (camera footage).

A composited frame's outer ring is its backdrop: nearly one colour all round. A camera's
frame edge shows the world: walls, grass, sky and people, of many colours. `RING_SAMPLES`
frames spread over the video are looked at small, and a frame counts as composited when at
least `UNIFORM_SHARE` of its ring's pixels lie within `LEVELS` grey levels (each channel) of
the ring's median colour. The video is composited when at least `COMPOSITED_SHARE` of its
sampled frames are.

Measured on 12 generated renderings, the 19 real clips of `make real-media`, the four
real-footage montages and the audio-visual renderings' slides: generated videos had 38-79 %
composited frames, every real video and slide rendering 0 % (docs/agent.md, "Scenes"). The
thresholds sit between those; they were not fitted further.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

#: Version of the rule below, in the name of its cache files.
VERSION = 1
RING_SAMPLES = 24
RING_SIDE = 90
#: The ring is this share of the frame's shorter side, at least 2 pixels.
RING_WIDTH = 0.05
LEVELS = 16
UNIFORM_SHARE = 0.8
COMPOSITED_SHARE = 0.25


@dataclass(frozen=True)
class Footage:
    """The scene read from a video: `scene` ("general" or "composited") and the share of
    sampled frames whose ring was one colour."""

    scene: str
    uniform_frames: float
    frames: int

    def to_dict(self) -> dict:
        return {"scene": self.scene, "uniform_frames": round(self.uniform_frames, 3),
                "frames": self.frames, "rule": f"composited when >= {COMPOSITED_SHARE} of "
                f"{self.frames} frames have >= {UNIFORM_SHARE} of their ring within "
                f"{LEVELS} levels of its median colour"}  # fmt: skip


def ring_uniformity(frame: np.ndarray) -> float:
    """Share of the outer ring's pixels of an `(H, W, 3)` frame within `LEVELS` of the ring's
    median colour.

    >>> plain = np.zeros((40, 60, 3), np.uint8); plain[10:30, 20:40] = 200
    >>> ring_uniformity(plain)
    1.0
    >>> noisy = np.random.default_rng(0).integers(0, 255, (40, 60, 3), dtype=np.uint8)
    >>> ring_uniformity(noisy) < 0.1
    True
    """
    f = frame.astype(np.int16)
    height, width = f.shape[:2]
    b = max(2, int(RING_WIDTH * min(height, width)))
    ring = np.concatenate([f[:b].reshape(-1, 3), f[-b:].reshape(-1, 3),
                           f[b:-b, :b].reshape(-1, 3), f[b:-b, -b:].reshape(-1, 3)])  # fmt: skip
    median = np.median(ring, axis=0)
    return float((np.abs(ring - median).max(axis=1) <= LEVELS).mean())


def read_footage(video: str | Path, duration_s: float) -> Footage:
    """The scene of `video` (`duration_s` long) from `RING_SAMPLES` frames spread over it."""
    from ..video import sample_frames

    starts = (np.arange(RING_SAMPLES) + 0.5) * duration_s / RING_SAMPLES
    shares = []
    for start_s in starts:
        end_s = min(float(start_s) + 0.5, duration_s)
        batch = next(iter(sample_frames(video, 2.0, float(start_s), end_s, short_side=RING_SIDE)),
                     None)  # fmt: skip
        if batch is not None and len(batch.frames):
            shares.append(ring_uniformity(batch.frames[0]))
    uniform = float(np.mean(np.array(shares) >= UNIFORM_SHARE)) if shares else 0.0
    scene = "composited" if uniform >= COMPOSITED_SHARE else "general"
    return Footage(scene, uniform, len(shares))


def cached_footage(video: str | Path, root: Path | None) -> Footage:
    """`read_footage` of `video`, kept beside the agent's graph files under `root` (the
    agent's cache folder; None: not kept), so later queries on the video do not seek through
    it again (8 s on a 20-minute generated video)."""
    from ..atomic import atomic_open
    from ..cache.fingerprint import video_fingerprint
    from ..video import probe

    path = None if root is None else root / f"{video_fingerprint(video)}-footage-v{VERSION}.json"
    if path is not None and path.is_file():
        try:
            data = json.loads(path.read_text())
            return Footage(data["scene"], float(data["uniform_frames"]), int(data["frames"]))
        except (OSError, ValueError, KeyError, TypeError):
            pass  # unreadable: read the footage again and write it anew
    footage = read_footage(video, float(probe(video).duration_s))
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_open(path) as handle:
            json.dump(footage.to_dict(), handle)
    return footage
