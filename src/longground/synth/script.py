"""The scene script of a synthetic video: shots, what appears in them and how it moves.

The script is the single source of truth. The renderer draws it and the ground truth is read
from it with the same geometry (`boxes_at`), so the two cannot disagree.

Coordinates are "world" units in which the frame is 1 high and `aspect` wide, y pointing down;
a camera maps world to frame. Times inside a shot are local seconds from the shot's first frame.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from .catalog import CATEGORIES


@dataclass(frozen=True)
class Instance:
    """One specific thing: a category in one look ("the mirrored cat photo")."""

    category: str
    variant: str = "original"

    @property
    def source(self) -> str:
        return CATEGORIES[self.category].source

    @property
    def kind(self) -> str:
        return CATEGORIES[self.category].kind


@dataclass(frozen=True)
class Path:
    """Piecewise-linear motion through keyframes (held constant outside them).

    Args:
        times_s: `(K,)` local keyframe times, increasing.
        xs, ys: `(K,)` centre of the unrotated sprite, world units.
        heights: `(K,)` sprite height, world units.
        angles_deg: `(K,)` clockwise rotation about the centre.

    >>> p = Path.still(1.0, 0.5, 0.8).moved_to(2.0, 3.0)
    >>> p.at(np.array([0.0, 1.0, 9.0]))[0].tolist()
    [1.0, 2.0, 3.0]
    """

    times_s: tuple[float, ...]
    xs: tuple[float, ...]
    ys: tuple[float, ...]
    heights: tuple[float, ...]
    angles_deg: tuple[float, ...]

    @classmethod
    def still(cls, x: float, y: float, height: float) -> Path:
        return cls((0.0,), (x,), (y,), (height,), (0.0,))

    def moved_to(
        self, time_s: float, x: float, y: float | None = None, angle_deg: float | None = None
    ) -> Path:
        """This path, extended by a straight move ending at `(x, y)` at `time_s`."""
        if time_s <= self.times_s[-1]:
            raise ValueError(f"keyframe at {time_s}s is not after {self.times_s[-1]}s")
        return Path(
            self.times_s + (time_s,),
            self.xs + (x,),
            self.ys + (self.ys[-1] if y is None else y,),
            self.heights + (self.heights[-1],),
            self.angles_deg + (self.angles_deg[-1] if angle_deg is None else angle_deg,),
        )

    def held_until(self, time_s: float) -> Path:
        """This path with its last pose held until `time_s`, so a later move starts there."""
        if time_s <= self.times_s[-1]:
            return self
        return self.moved_to(time_s, self.xs[-1], self.ys[-1])

    def at(self, t_s: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Centre x, centre y, height and angle at local times `t_s` `(N,)`; each `(N,)`."""
        times = np.asarray(self.times_s)
        return tuple(np.interp(t_s, times, np.asarray(v)) for v in self._values())

    def moving(self, t_s: np.ndarray) -> np.ndarray:
        """`(N,)` bool: the keyframe segment holding each time changes the pose."""
        times = np.asarray(self.times_s)
        pose = np.stack([np.asarray(v) for v in self._values()], axis=1)
        changes = np.any(pose[1:] != pose[:-1], axis=1)
        if not len(changes):
            return np.zeros(np.shape(t_s), bool)
        segment = np.searchsorted(times, t_s, side="right") - 1
        inside = (segment >= 0) & (segment < len(changes))
        return inside & changes[np.clip(segment, 0, len(changes) - 1)]

    def _values(self):
        return (self.xs, self.ys, self.heights, self.angles_deg)


@dataclass(frozen=True)
class Appearance:
    """An instance drawn in a shot along a path, between local times `start_s` and `end_s`.

    `aspect` is the sprite's width over height. `motion` names the scripted movement ("still",
    "cross", "enter", "exit", "roll", "fall") and `direction` its sense for horizontal moves
    ("left-to-right" or "right-to-left").
    """

    instance: Instance
    path: Path
    aspect: float
    motion: str = "still"
    direction: str | None = None
    start_s: float = 0.0
    end_s: float = math.inf


@dataclass(frozen=True)
class Camera:
    """A linear camera move from `(zoom0, x0, y0)` at `t0_s` to `(zoom1, x1, y1)` at `t1_s`.

    `x`, `y` are the world point shown at the frame centre; zoom 2 shows half the width.
    """

    zoom0: float = 1.0
    zoom1: float = 1.0
    x0: float | None = None
    y0: float = 0.5
    x1: float | None = None
    y1: float = 0.5
    t0_s: float = 0.0
    t1_s: float = 1.0

    def at(self, t_s: np.ndarray, aspect: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Zoom, centre x, centre y at local times `t_s` `(N,)`; each `(N,)`."""
        x0 = aspect / 2 if self.x0 is None else self.x0
        x1 = x0 if self.x1 is None else self.x1
        span = (self.t0_s, self.t1_s)
        return (
            np.interp(t_s, span, (self.zoom0, self.zoom1)),
            np.interp(t_s, span, (x0, x1)),
            np.interp(t_s, span, (self.y0, self.y1)),
        )

    @property
    def moves(self) -> bool:
        """Whether the camera zooms or pans at all."""
        x_moves = self.x1 is not None and self.x1 != self.x0
        return self.zoom0 != self.zoom1 or x_moves or self.y0 != self.y1


@dataclass(frozen=True)
class Background:
    """What fills the frame behind the objects: a pattern ("grass", "gravel", "brick",
    "gradient", or a filler photo name) tinted with a colour name (None for filler photos)."""

    pattern: str
    color: str | None = None


@dataclass(frozen=True)
class Causal:
    """A scripted cause and effect in a shot: the ball hits the target and the target falls
    ("hit", effect over at local `end_s`), or the ball rolls past it ("miss")."""

    outcome: str
    target: Instance
    end_s: float | None = None


@dataclass(frozen=True)
class Shot:
    """Frames `[start_frame, start_frame + n_frames)` of one continuous camera shot."""

    kind: str
    start_frame: int
    n_frames: int
    background: Background
    camera: Camera = field(default_factory=Camera)
    appearances: tuple[Appearance, ...] = ()
    causal: Causal | None = None

    @property
    def stop_frame(self) -> int:
        return self.start_frame + self.n_frames

    @property
    def categories(self) -> frozenset[str]:
        return frozenset(a.instance.category for a in self.appearances)


@dataclass(frozen=True)
class VideoScript:
    """A whole synthetic video: consecutive shots at a constant frame rate.

    `composition` names how photos are laid on their backdrops (`rendering.COMPOSITIONS`).
    """

    name: str
    fps: Fraction
    aspect: float
    shots: tuple[Shot, ...]
    composition: str = "opaque"

    @property
    def n_frames(self) -> int:
        return self.shots[-1].stop_frame if self.shots else 0

    @property
    def duration_s(self) -> float:
        return float(self.n_frames / self.fps)

    def local_times(self, shot: Shot) -> np.ndarray:
        """Local time of each frame of `shot`, `(shot.n_frames,)` seconds."""
        return np.arange(shot.n_frames) / float(self.fps)


def boxes_at(
    appearance: Appearance, shot: Shot, t_s: np.ndarray, aspect: float
) -> tuple[np.ndarray, np.ndarray]:
    """Where an appearance is on screen at local times `t_s` `(N,)`.

    Returns:
        boxes: `(N, 4)` `[x0, y0, x1, y1]` of the unrotated sprite in frame units (frame is 1
            high and `aspect` wide).
        angles_deg: `(N,)` clockwise rotation about the box centre.

    >>> shot = Shot("still", 0, 5, Background("grass", "green"))
    >>> app = Appearance(Instance("cat"), Path.still(0.8, 0.5, 0.5), aspect=1.0)
    >>> boxes_at(app, shot, np.zeros(1), 1.6)[0].round(2).tolist()
    [[0.55, 0.25, 1.05, 0.75]]
    """
    x, y, h, angle = appearance.path.at(t_s)
    zoom, cam_x, cam_y = shot.camera.at(t_s, aspect)
    w = h * appearance.aspect
    cx = (x - cam_x) * zoom + aspect / 2
    cy = (y - cam_y) * zoom + 0.5
    half_w, half_h = w * zoom / 2, h * zoom / 2
    return np.stack([cx - half_w, cy - half_h, cx + half_w, cy + half_h], axis=1), angle


def rotated_extent(boxes: np.ndarray, angles_deg: np.ndarray) -> np.ndarray:
    """Axis-aligned `(N, 4)` boxes around `boxes` `(N, 4)` rotated about their centres."""
    rad = np.deg2rad(angles_deg)
    w, h = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    cx, cy = (boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2
    half_w = (np.abs(w * np.cos(rad)) + np.abs(h * np.sin(rad))) / 2
    half_h = (np.abs(w * np.sin(rad)) + np.abs(h * np.cos(rad))) / 2
    return np.stack([cx - half_w, cy - half_h, cx + half_w, cy + half_h], axis=1)


def visible_fraction(boxes: np.ndarray, aspect: float) -> np.ndarray:
    """Share of each box `(N, 4)` inside the frame `[0, aspect] x [0, 1]`: `(N,)` in [0, 1].

    >>> visible_fraction(np.array([[-0.5, 0.0, 0.5, 1.0]]), 1.0).tolist()
    [0.5]
    """
    inside_w = np.clip(np.minimum(boxes[:, 2], aspect) - np.maximum(boxes[:, 0], 0), 0, None)
    inside_h = np.clip(np.minimum(boxes[:, 3], 1.0) - np.maximum(boxes[:, 1], 0), 0, None)
    area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    return np.where(area > 0, inside_w * inside_h / np.where(area > 0, area, 1), 0.0)


def pixel_box(box: np.ndarray, height_px: int) -> tuple[int, int, int, int]:
    """A frame-unit box `[x0, y0, x1, y1]` as whole pixels (may lie partly outside the frame).

    >>> pixel_box(np.array([0.1, 0.2, 0.5, 0.7]), 100)
    (10, 20, 50, 70)
    """
    x0, y0 = round(float(box[0]) * height_px), round(float(box[1]) * height_px)
    w = max(1, round(float(box[2] - box[0]) * height_px))
    h = max(1, round(float(box[3] - box[1]) * height_px))
    return x0, y0, x0 + w, y0 + h
