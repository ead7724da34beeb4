"""Rendering a montage plan (`montage_plan`) to an MP4: each piece's frames decoded at the
montage's rate, scaled into the frame with black bars (letterboxed), hard cuts between
pieces; an AAC track with the kept clips' own sound and the recordings at their places.

Frame `k` of a piece is the clip's frame on screen at `start_s + k / fps`; audio and pictures
share one clock from the montage's start.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np

from ..errors import require
from ..video.writer import write_with_sound
from .montage_audio import RATE_HZ, read_audio
from .montage_manifest import Manifest
from .montage_plan import MontagePlan
from .montage_truth import cut_utterances


def letterbox(frame: np.ndarray, width: int, height: int) -> np.ndarray:
    """`frame` `(h, w, 3)` uint8 scaled to fit `(height, width, 3)`, centred on black.

    >>> out = letterbox(np.full((10, 40, 3), 255, np.uint8), 20, 20)  # 4:1 into a square
    >>> out.shape, np.flatnonzero(out[:, 10, 0]).tolist()  # the picture's rows
    ((20, 20, 3), [7, 8, 9, 10, 11])
    """
    image_mod = require("PIL.Image", "video")
    h, w = frame.shape[:2]
    scale = min(width / w, height / h)
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    out = np.zeros((height, width, 3), np.uint8)
    if size != (w, h):
        frame = np.asarray(image_mod.fromarray(frame).resize(size, image_mod.BILINEAR))
    x, y = (width - size[0]) // 2, (height - size[1]) // 2
    out[y : y + size[1], x : x + size[0]] = frame
    return out


def soundtrack(manifest: Manifest, plan: MontagePlan) -> np.ndarray:
    """The montage's sound, `(n,)` int16 at `RATE_HZ`: kept clips' sound under their pieces
    (less any utterance a piece cuts into), recordings at their overlays, silence elsewhere."""
    track = np.zeros(round(plan.duration_s * RATE_HZ), np.int16)

    def lay(samples: np.ndarray, at_s: float) -> None:
        at = round(at_s * RATE_HZ)
        part = samples[: max(0, len(track) - at)]
        track[at : at + len(part)] = part

    clips = {c.id: c for c in manifest.clips}
    for p in plan.placements:
        if clips[p.clip].keep_audio:
            w0, w1 = plan.window(p)
            lay(read_audio(clips[p.clip].path)[round(w0 * RATE_HZ) : round(w1 * RATE_HZ)], p.at_s)
    for u in cut_utterances(manifest, plan):
        track[max(0, round(u.start_s * RATE_HZ)) : round(u.end_s * RATE_HZ)] = 0
    recordings = {r.id: r for r in manifest.recordings}
    for o in plan.overlays:
        rec = recordings[o.recording]
        lay(
            read_audio(rec.path)[round(rec.trim[0] * RATE_HZ) : round(rec.trim[1] * RATE_HZ)],
            o.at_s,
        )
    return track


def pictures(
    manifest: Manifest, plan: MontagePlan, width: int, height: int
) -> Iterator[np.ndarray]:
    """Every frame of the montage in order, `(height, width, 3)` uint8 RGB."""
    from ..video import sample_frames

    clips = {c.id: c for c in manifest.clips}
    for p in plan.placements:
        w0, w1 = plan.window(p)
        shown = 0
        last = np.zeros((height, width, 3), np.uint8)
        for batch in sample_frames(
            clips[p.clip].path, plan.fps, w0, w1, short_side=None, batch_size=8
        ):
            for frame in batch.frames[: p.n_frames - shown]:
                last = letterbox(frame, width, height)
                shown += 1
                yield last
        for _ in range(p.n_frames - shown):  # a clip that ends a frame early holds its last
            yield last


def write_montage(
    manifest: Manifest,
    plan: MontagePlan,
    path: Path,
    width: int,
    height: int,
    crf: int = 23,
    preset: str = "veryfast",
) -> None:
    """Render `plan` to `path`: H.264 (yuv420p, `crf`, x264 `preset`) and mono AAC."""
    track = soundtrack(manifest, plan)
    n_frames = sum(p.n_frames for p in plan.placements)
    frames = pictures(manifest, plan, width, height)
    write_with_sound(path, frames, n_frames, plan.fps, track, RATE_HZ, width, height, crf, preset)
