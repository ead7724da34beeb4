"""Boxes of people and faces from the people channel's detectors (`channels.people`).

The channel looks at a frame with its shorter side at `people.SIDE` (360) px, where OpenCV's
HOG pedestrian detector (a 64 x 128 window) finds people at least about a third of the frame
high: the walkers of a CCTV view (85 px of 576 in vtest.avi) are missed. So for people the
localiser looks `detail` times closer: the frame resized to a shorter side of `detail *
SIDE` px and passed whole to the channel's `bodies` (HOG's own image pyramid then finds the
larger people too). Only the detector the target asks for runs: the face cascade costs
about three times HOG's pass (docs/tracks.md), and a query about people never needs it.

HOG gives each box its SVM margin; the channel keeps boxes with a margin above `MARGIN`
(0.5). Here every box with a positive margin is kept, scored `margin / (margin + MARGIN)`,
so the channel's cut is a score of one half, ByteTrack's `START_SCORE`: boxes the channel
would keep start and extend tracks, the weaker ones only extend them (ByteTrack's second
stage). Faces (the cascade gives no score) have 1.0. Boxes found twice are merged
(non-maximum suppression).
"""

from __future__ import annotations

import re

import numpy as np

from ..channels.people import SIDE, PeopleDetector
from ..errors import require
from .detections import Detections

DETAIL = 2.0
MARGIN = 0.5  # the people channel's cut on HOG's margin
MERGE_IOU = 0.3
BODY_WORDS = frozenset(
    "person persons people pedestrian pedestrians walker walkers man men woman women "
    "child children boy boys girl girls someone somebody player players".split()
)
FACE_WORDS = frozenset({"face", "faces", "head", "heads"})


def margin_score(margin) -> np.ndarray:
    """HOG's SVM margins as scores in [0, 1): the channel's cut (`MARGIN`) is one half.

    >>> margin_score([0.0, 0.5, 1.5]).tolist()
    [0.0, 0.5, 0.75]
    """
    margin = np.clip(np.asarray(margin, dtype=np.float64), 0.0, None)
    return margin / (margin + MARGIN)


def nms(boxes: np.ndarray, scores: np.ndarray, iou: float) -> np.ndarray:
    """Indices of the boxes kept by non-maximum suppression (supervision's), best first."""
    sv = require("supervision", "tracks")
    keep = sv.box_non_max_suppression(np.c_[boxes, scores], iou_threshold=iou)
    kept = np.flatnonzero(keep)
    return kept[np.argsort(-scores[kept], kind="stable")]


class PeopleLocaliser:
    """Boxes of people ("a person", "pedestrians", "every man") or faces ("a face").

    Args:
        detail: how many times closer than the people channel to look for people (1: its
            own view).
    """

    name = "people"

    def __init__(self, detail: float = DETAIL):
        self.detail = detail
        self._detector: PeopleDetector | None = None

    def accepts(self, target: str) -> bool:
        return bool(_words(target) & (BODY_WORDS | FACE_WORDS))

    def decode_side(self, target: str) -> int:
        """The shorter side, in pixels, to decode frames at for `target` (no larger is
        looked at)."""
        return SIDE if _names_faces(target) else round(self.detail * SIDE)

    def __call__(self, frames: np.ndarray, target: str) -> Detections:
        """Boxes of people (or faces, when the target names faces) in `(N, H, W, 3)` frames."""
        if self._detector is None:
            self._detector = PeopleDetector()
        look = self._faces if _names_faces(target) else self._bodies
        return Detections.joined([look(frame) for frame in frames])

    def _bodies(self, frame: np.ndarray) -> Detections:
        height, width = frame.shape[:2]
        grey = self._detector.grey(_resized(frame, self.detail * SIDE / min(height, width)))
        xywh, margins = self._detector.bodies(grey)
        return _merged(_normalised(xywh, grey.shape[1], grey.shape[0]), margin_score(margins))

    def _faces(self, frame: np.ndarray) -> Detections:
        height, width = frame.shape[:2]
        grey = self._detector.grey(_resized(frame, min(1.0, SIDE / min(height, width))))
        boxes = _normalised(self._detector.faces(grey), grey.shape[1], grey.shape[0])
        return _merged(boxes, np.ones(len(boxes)))


def _names_faces(target: str) -> bool:
    return bool(_words(target) & FACE_WORDS)


def _words(target: str) -> set[str]:
    return set(re.findall(r"[a-z]+", target.lower()))


def _resized(frame: np.ndarray, scale: float) -> np.ndarray:
    if abs(scale - 1.0) < 1e-3:
        return frame
    cv2 = require("cv2", "channels")
    size = (round(frame.shape[1] * scale), round(frame.shape[0] * scale))
    return cv2.resize(frame, size, interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)


def _merged(boxes: np.ndarray, scores: np.ndarray) -> Detections:
    kept = nms(boxes, scores, MERGE_IOU) if len(boxes) else np.zeros(0, int)
    return Detections(boxes[kept], scores[kept], np.zeros(len(kept), np.int64))


def _normalised(xywh, width: int, height: int) -> np.ndarray:
    """`[x, y, w, h]` pixel boxes as normalised xyxy, cut to the frame."""
    b = np.asarray(xywh, dtype=np.float64).reshape(-1, 4)
    xyxy = np.c_[b[:, :2], b[:, :2] + b[:, 2:]] / [width, height, width, height]
    return np.clip(xyxy, 0.0, 1.0)
