"""Fakes for the tests of tracks on moments (no tests here): a generated video of white
squares on black, a method that answers fixed moments, and a localiser that boxes bright
patches; each registered in its registry for one test."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
from scipy import ndimage

from longground.methods import Grounding
from longground.moments import Moments
from longground.tracking.detections import Detections

SIZE = (160, 120)  # width, height
FPS = Fraction(10)
#: The moments the fixed method answers, and the squares in them: one moving right in the
#: first, two (one moving right, one moving left, on different rows) in the second.
MOMENTS = [[1.0, 4.0], [6.0, 9.0]]


def square_boxes(t_s: float) -> list[list[float]]:
    """The normalised xyxy boxes of the squares shown at `t_s`."""
    side = 0.15
    boxes = []
    if 1.0 <= t_s < 4.0:
        x = 0.1 + 0.2 * (t_s - 1.0)
        boxes.append([x, 0.2, x + side, 0.2 + side * 4 / 3])
    if 6.0 <= t_s < 9.0:
        x = 0.1 + 0.2 * (t_s - 6.0)
        boxes.append([x, 0.1, x + side, 0.1 + side * 4 / 3])
        x = 0.75 - 0.2 * (t_s - 6.0)
        boxes.append([x, 0.6, x + side, 0.6 + side * 4 / 3])
    return boxes


def squares_video(path: Path) -> Path:
    """10 s at 10 fps, 160 x 120: the squares of `square_boxes` on black."""
    from longground.video import VideoWriter

    width, height = SIZE
    with VideoWriter(path, width, height, fps=FPS) as writer:
        for i in range(round(10 * FPS)):
            frame = np.zeros((height, width, 3), np.uint8)
            for x0, y0, x1, y1 in square_boxes(i / float(FPS)):
                frame[round(y0 * height):round(y1 * height),
                      round(x0 * width):round(x1 * width)] = 255  # fmt: skip
            writer.write(frame)
    return path


class SquareLocaliser:
    """Boxes the bright patches of a frame; knows only "square(s)"."""

    name = "squares"

    def accepts(self, target: str) -> bool:
        return "square" in target.lower()

    def decode_side(self, target: str) -> int:
        return SIZE[1]

    @staticmethod
    def bright(frame: np.ndarray) -> np.ndarray:
        """The pixels that belong to a square: bright in the red channel (white squares)."""
        return frame[..., 0] > 128

    def __call__(self, frames: np.ndarray, target: str) -> Detections:
        parts = []
        for frame in frames:
            labels, _ = ndimage.label(self.bright(frame))
            h, w = labels.shape
            boxes = [[s[1].start / w, s[0].start / h, s[1].stop / w, s[0].stop / h]
                     for s in ndimage.find_objects(labels)]  # fmt: skip
            parts.append(Detections(np.array(boxes).reshape(-1, 4), np.full(len(boxes), 0.9),
                                    np.zeros(len(boxes), np.int64)))  # fmt: skip
        return Detections.joined(parts)


class FixedMethod:
    """A grounding method that answers `MOMENTS` (the speech channel's route for a query
    about what is said, as the real methods' traces name it)."""

    name = "lg-fixed"

    def __init__(self, config=None):
        self.config = config

    def ground(self, video: Path, query: str) -> Grounding:
        channel = "speech" if " say" in query else "visual"
        return Grounding(Moments.from_list(MOMENTS, [0.5, 0.8]),
                         trace={"route": {"channel": channel}})  # fmt: skip


def register(monkeypatch) -> None:
    """`-m lg-fixed` and the square localiser, for one test."""
    from longground.methods import METHODS
    from longground.tracking import localise

    monkeypatch.setitem(METHODS, "lg-fixed", FixedMethod)
    monkeypatch.setitem(localise.LOCALISERS, "squares", SquareLocaliser)
    monkeypatch.setattr(localise, "_MADE", {})
