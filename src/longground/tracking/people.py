"""Boxes of people and faces from the people channel's detectors (`channels.people`).

The channel looks at a frame with its shorter side at `people.SIDE` (360) px, where OpenCV's
HOG pedestrian detector (a 64 x 128 window) finds people at least about a third of the frame
high: the walkers of a CCTV view (85 px of 576 in vtest.avi) are missed. So the localiser
looks `detail` times closer: the frame is resized to a shorter side of `detail * SIDE` and
cut across its shorter side into strips `SIDE` px wide overlapping by `OVERLAP` (a person up
to that high is whole in one strip; the channel does not shrink a strip, whose shorter side
is `SIDE`), each passed to the channel's own `count`, plus one pass over the whole frame for
people larger than a strip; boxes found twice are merged (non-maximum suppression). With
`detail` 1 it is the channel's view. The detectors give no scores: every box has 1.0.
"""

from __future__ import annotations

import re

import numpy as np

from ..channels.people import SIDE, PeopleDetector
from ..errors import require
from .detections import Detections

DETAIL = 2.0
OVERLAP = 144
MERGE_IOU = 0.3
BODY_WORDS = frozenset(
    "person persons people pedestrian pedestrians walker walkers man men woman women "
    "child children boy boys girl girls someone somebody player players".split()
)
FACE_WORDS = frozenset({"face", "faces", "head", "heads"})


def tile_origins(length: int, tile: int, overlap: int) -> list[int]:
    """Start offsets of tiles of `tile` px covering `length` px with at least `overlap`.

    >>> tile_origins(960, 360, 144), tile_origins(300, 360, 144)
    ([0, 216, 432, 600], [0])
    """
    if length <= tile:
        return [0]
    step = tile - overlap
    starts = list(range(0, length - tile, step))
    return [*starts, length - tile]


def nms(boxes: np.ndarray, scores: np.ndarray, iou: float) -> np.ndarray:
    """Indices of the boxes kept by non-maximum suppression (supervision's), best first."""
    sv = require("supervision", "tracks")
    keep = sv.box_non_max_suppression(np.c_[boxes, scores], iou_threshold=iou)
    kept = np.flatnonzero(keep)
    return kept[np.argsort(-scores[kept], kind="stable")]


class PeopleLocaliser:
    """Boxes of people ("a person", "pedestrians", "every man") or faces ("a face").

    Args:
        detail: how many times closer than the people channel to look (1: its own view).
    """

    name = "people"

    def __init__(self, detail: float = DETAIL):
        self.detail = detail
        self._detector: PeopleDetector | None = None

    def accepts(self, target: str) -> bool:
        return bool(_words(target) & (BODY_WORDS | FACE_WORDS))

    def __call__(self, frames: np.ndarray, target: str) -> Detections:
        """Boxes of people (or faces, when the target names faces) in `(N, H, W, 3)` frames."""
        if self._detector is None:
            self._detector = PeopleDetector()
        which = 0 if _words(target) & FACE_WORDS else 1  # count() returns [faces, bodies]
        return Detections.joined([self._frame(frame, which) for frame in frames])

    def _frame(self, frame: np.ndarray, which: int) -> Detections:
        height, width = frame.shape[:2]
        found = [_normalised(self._detector.count(frame)[2][which], width, height)]
        scale = self.detail * SIDE / min(height, width)
        if scale * min(height, width) > SIDE:
            found.append(self._tiles(frame, scale, which))
        boxes = np.concatenate(found)
        scores = np.ones(len(boxes))
        kept = nms(boxes, scores, MERGE_IOU) if len(boxes) else np.zeros(0, int)
        return Detections(boxes[kept], scores[kept], np.zeros(len(kept), np.int64))

    def _tiles(self, frame: np.ndarray, scale: float, which: int) -> np.ndarray:
        cv2 = require("cv2", "channels")
        size = (round(frame.shape[1] * scale), round(frame.shape[0] * scale))
        big = cv2.resize(frame, size, interpolation=cv2.INTER_LINEAR)
        across = size[0] >= size[1]  # strips run along the longer side
        found = []
        for start in tile_origins(min(size), SIDE, OVERLAP):
            strip = big[start : start + SIDE] if across else big[:, start : start + SIDE]
            xywh = np.array(self._detector.count(strip)[2][which], float).reshape(-1, 4)
            found.append(xywh + ([0, start, 0, 0] if across else [start, 0, 0, 0]))
        return _normalised(np.concatenate(found), size[0], size[1])


def _words(target: str) -> set[str]:
    return set(re.findall(r"[a-z]+", target.lower()))


def _normalised(xywh, width: int, height: int) -> np.ndarray:
    """`[x, y, w, h]` pixel boxes as normalised xyxy, cut to the frame."""
    b = np.asarray(xywh, dtype=np.float64).reshape(-1, 4)
    xyxy = np.c_[b[:, :2], b[:, :2] + b[:, 2:]] / [width, height, width, height]
    return np.clip(xyxy, 0.0, 1.0)
