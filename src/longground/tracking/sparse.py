"""Localising fewer frames: coarse to fine, where the boxes change.

Of a batch of frames sampled evenly inside a moment, the localiser sees every `STEP`-th one
(and the last); between two it saw whose boxes *agree* (as many boxes, matched one to one
with an IoU of at least `AGREE_IOU`) the frames in between get the matched boxes moved
linearly from one to the other, scored as the lower of the pair; where they disagree (an
object came, went or jumped) it sees the frame halfway, and so on until neighbours agree or
are next to each other. A coarse frame whose picture did not change since the last one
seen (the change gate) keeps that frame's boxes. So a still or smoothly moving object
costs a localisation every two seconds, and the frames where something happens cost every
frame; the tracker still gets a box list for every sampled frame.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment

from ..index.change import ChangeGate
from ..track import box_iou
from .detections import Detections

#: Sampled frames between two coarse ones (2 s at 5 fps). On a generated benchmark's true
#: appearances (perf/tracks_synth.py --oracle) 10 and 5 gave the same counts and the same
#: boxes (m_vIoU 37.06), and the same 29 tracks on vtest.avi's walkers.
STEP = 10
#: Boxes of two frames that overlap at least this much are the same object, moved smoothly.
AGREE_IOU = 0.5


def match(a: Detections, b: Detections, iou: float = AGREE_IOU) -> list[tuple[int, int]] | None:
    """The one-to-one pairing of `a`'s and `b`'s boxes (most overlap in all), or None when
    they do not agree: a different number of boxes, or a pair under `iou`.

    >>> a = Detections([[0.1, 0.1, 0.3, 0.3], [0.6, 0.6, 0.9, 0.9]], [1, 1], [0, 0])
    >>> b = Detections([[0.6, 0.6, 0.9, 0.9], [0.12, 0.1, 0.32, 0.3]], [1, 1], [0, 0])
    >>> match(a, b), match(a, b[:1])
    ([(0, 1), (1, 0)], None)
    """
    if len(a) != len(b):
        return None
    if not len(a):
        return []
    overlap = box_iou(np.repeat(a.boxes, len(b), axis=0), np.tile(b.boxes, (len(a), 1)))
    overlap = overlap.reshape(len(a), len(b))
    rows, cols = linear_sum_assignment(-overlap)
    if (overlap[rows, cols] < iou).any():
        return None
    return [(int(r), int(c)) for r, c in zip(rows, cols)]


def between(a: Detections, b: Detections, pairs: list[tuple[int, int]], w: float) -> Detections:
    """The boxes a fraction `w` of the way from `a` to `b` (paired by `match`)."""
    if not pairs:
        return Detections.empty()
    rows, cols = (np.array(v) for v in zip(*pairs))
    boxes = (1 - w) * a.boxes[rows] + w * b.boxes[cols]
    scores = np.minimum(a.scores[rows], b.scores[cols])
    return Detections(np.clip(boxes, 0.0, 1.0), scores, np.zeros(len(pairs), np.int64))


class SparseLocaliser:
    """A localiser called coarse to fine on the frames of one moment, batch after batch.

    Args:
        localiser: `(frames, target) -> Detections`.
        target: what it looks for.
        gate: the change gate for the coarse frames.
        step: sampled frames between coarse ones.

    Attributes:
        localised: how many frames the localiser has seen so far.

    >>> class Fixed:
    ...     def __call__(self, frames, target):
    ...         return Detections.joined([Detections([[0, 0, 0.5, 0.5]], [1.0], [0])] * len(frames))
    >>> sparse = SparseLocaliser(Fixed(), "x", ChangeGate(0, 0))
    >>> found = sparse(np.random.default_rng(0).integers(0, 255, (12, 36, 64, 3), np.uint8))
    >>> sparse.localised, found.frames.tolist()
    (3, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
    """

    def __init__(self, localiser, target: str, gate: ChangeGate, step: int = STEP):
        self.localiser, self.target, self.gate, self.step = localiser, target, gate, step
        self.localised = 0
        self._thumb = None  # the gate's last thumbnail, across batches
        self._kept = Detections.empty()  # the boxes of the last coarse frame, across batches

    def __call__(self, frames: np.ndarray) -> Detections:
        """Boxes for every one of `(B, H, W, 3)` frames (`frames` indexing them)."""
        coarse = sorted({*range(0, len(frames), self.step), len(frames) - 1})
        found = self._coarse(frames, coarse)
        gaps = list(zip(coarse, coarse[1:]))
        while gaps:
            split = [(a, b) for a, b in gaps if b - a > 1 and match(found[a], found[b]) is None]
            self._look(frames, [(a + b) // 2 for a, b in split], found)
            gaps = [g for a, b in split for g in ((a, (a + b) // 2), ((a + b) // 2, b))]
        seen = sorted(found)
        parts = []
        for k in range(len(frames)):
            if k in found:
                parts.append(found[k])
                continue
            at = int(np.searchsorted(seen, k))
            a, b = found[seen[at - 1]], found[seen[at]]
            parts.append(between(a, b, match(a, b), (k - seen[at - 1]) / (seen[at] - seen[at - 1])))
        return Detections.joined(parts)

    def _coarse(self, frames: np.ndarray, coarse: list[int]) -> dict[int, Detections]:
        """The coarse frames' boxes: seen when the picture changed, else kept."""
        changed, self._thumb = self.gate.select(self.gate.thumbnails(frames[coarse]), self._thumb)
        found: dict[int, Detections] = {}
        self._look(frames, [k for k, new in zip(coarse, changed) if new], found)
        for k in coarse:
            found[k] = self._kept = found.get(k, self._kept)
        return found

    def _look(self, frames: np.ndarray, indices: list[int], found: dict) -> None:
        if not indices:
            return
        seen = self.localiser(frames[indices], self.target)
        self.localised += len(indices)
        for n, k in enumerate(indices):
            here = seen.in_frame(n)
            found[k] = Detections(here.boxes, here.scores, np.zeros(len(here), np.int64))
