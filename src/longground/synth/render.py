"""Drawing a scene script into RGB frames.

Geometry comes from `script.boxes_at`, the same function the ground truth reads, so what is on
screen is exactly what the truth says. Frames that would come out identical to the previous one
(still shots) are not redrawn.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from functools import lru_cache

import numpy as np

from ..errors import require
from .assets import CLIP_FPS, CLIP_RANGES, ball, clip, sprite
from .backgrounds import paint
from .rendering import COMPOSITIONS
from .script import Appearance, Shot, VideoScript, boxes_at, pixel_box


def _image_mod():
    return require("PIL.Image", "video")


@lru_cache(maxsize=512)
def photo_sprite(
    source: str, variant: str, width: int, height: int, composition: str = "opaque"
) -> np.ndarray:
    """A photo in one look resized to `(height, width, 4)` uint8 RGBA (bilinear), laid out
    as `composition` says (`rendering.COMPOSITIONS`)."""
    image_mod = _image_mod()
    image = image_mod.fromarray(sprite(source, variant), "RGBA")
    rgba = np.asarray(image.resize((width, height), image_mod.Resampling.BILINEAR))
    return COMPOSITIONS[composition](rgba)


@lru_cache(maxsize=256)
def clip_sprite(name: str, index: int, width: int, height: int) -> np.ndarray:
    """Frame `index` of a clip, centre-cropped to the box's shape and resized: RGBA."""
    frame = clip(name)[index]
    src_h, src_w = frame.shape[:2]
    crop_w = min(src_w, round(src_h * width / height))
    crop_h = min(src_h, round(src_w * height / width))
    x0, y0 = (src_w - crop_w) // 2, (src_h - crop_h) // 2
    image_mod = _image_mod()
    image = image_mod.fromarray(np.ascontiguousarray(frame[y0 : y0 + crop_h, x0 : x0 + crop_w]))
    rgb = np.asarray(image.resize((width, height), image_mod.Resampling.BILINEAR))
    return np.concatenate([rgb, np.full((height, width, 1), 255, np.uint8)], axis=2)


def clip_index(name: str, t_s: float) -> int:
    """Which clip frame plays at local time `t_s`: the clip runs forwards then backwards.

    >>> [clip_index("traffic", k / 25) for k in (0, 43, 44, 86, 87)]
    [0, 43, 42, 0, 1]
    """
    first, stop = CLIP_RANGES[name]
    n = stop - first
    step = math.floor(t_s * CLIP_FPS + 1e-9) % (2 * (n - 1))
    return step if step < n else 2 * (n - 1) - step


def _rotated(rgba: np.ndarray, angle_deg: float) -> np.ndarray:
    image_mod = _image_mod()
    image = image_mod.fromarray(rgba, "RGBA")
    return np.asarray(image.rotate(-angle_deg, image_mod.Resampling.BILINEAR, expand=True))


def paste(frame: np.ndarray, rgba: np.ndarray, x0: int, y0: int) -> None:
    """Draw `rgba` `(h, w, 4)` onto `frame` `(H, W, 3)` with its top-left at `(x0, y0)`,
    clipped to the frame, blending by alpha."""
    h, w = rgba.shape[:2]
    fx0, fy0 = max(x0, 0), max(y0, 0)
    fx1, fy1 = min(x0 + w, frame.shape[1]), min(y0 + h, frame.shape[0])
    if fx0 >= fx1 or fy0 >= fy1:
        return
    part = rgba[fy0 - y0 : fy1 - y0, fx0 - x0 : fx1 - x0]
    alpha = part[..., 3:]
    if alpha.min() == 255:
        frame[fy0:fy1, fx0:fx1] = part[..., :3]
        return
    a = alpha.astype(np.float32) / 255.0
    region = frame[fy0:fy1, fx0:fx1].astype(np.float32)
    frame[fy0:fy1, fx0:fx1] = (region * (1 - a) + part[..., :3] * a + 0.5).astype(np.uint8)


class ShotRenderer:
    """Draws the frames of one shot at a given frame size."""

    def __init__(self, script: VideoScript, shot: Shot, width: int, height: int):
        self.shot, self.width, self.height = shot, width, height
        self.aspect, self.composition = script.aspect, script.composition
        self.t_s = script.local_times(shot)
        zoom, cam_x, cam_y = shot.camera.at(self.t_s, script.aspect)
        self.view = np.stack(
            [
                cam_x - script.aspect / (2 * zoom),
                cam_y - 0.5 / zoom,
                script.aspect / zoom,
                1 / zoom,
            ],
            axis=1,
        )
        self.px_per_unit = height * float(zoom.max())
        self.origin = (float(self.view[:, 0].min()), float(self.view[:, 1].min()))
        far_x = float((self.view[:, 0] + self.view[:, 2]).max())
        far_y = float((self.view[:, 1] + self.view[:, 3]).max())
        size = (
            math.ceil((far_x - self.origin[0]) * self.px_per_unit),
            math.ceil((far_y - self.origin[1]) * self.px_per_unit),
        )
        self.canvas = paint(shot.background, size[0], size[1], self.px_per_unit, self.origin)
        # Objects that never move are drawn once into the backdrop, so a pan or zoom costs one
        # resize per frame; the others are drawn on every frame.
        self.moving = [a for a in shot.appearances if not _fixed(a)]
        for app in shot.appearances:
            if _fixed(app):
                self._draw(self.canvas, app, self._canvas_box(app), 0.0, 0)
        self._canvas_image = _image_mod().fromarray(self.canvas)
        self.placed = [boxes_at(a, shot, self.t_s, script.aspect) for a in self.moving]
        self._last_key, self._last_frame = None, None

    def _canvas_box(self, app: Appearance) -> tuple[int, int, int, int]:
        """Pixel box of a fixed appearance on the canvas (world units scaled, no camera)."""
        x, y, h = app.path.xs[0], app.path.ys[0], app.path.heights[0]
        w = h * app.aspect
        ox, oy = self.origin
        box = np.array([x - w / 2 - ox, y - h / 2 - oy, x + w / 2 - ox, y + h / 2 - oy])
        return pixel_box(box, self.px_per_unit)

    def _crop(self, k: int) -> tuple[float, float, float, float]:
        x, y, w, h = self.view[k]
        s = self.px_per_unit
        return ((x - self.origin[0]) * s, (y - self.origin[1]) * s, w * s, h * s)

    def _backdrop(self, crop) -> np.ndarray:
        left, top, w, h = crop
        exact = (round(left), round(top), round(w), round(h))
        if exact[2:] == (self.width, self.height) and np.allclose(crop, exact, atol=1e-6):
            x, y = exact[:2]
            return self.canvas[y : y + self.height, x : x + self.width].copy()
        box = (left, top, left + w, top + h)
        image_mod = _image_mod()
        image = self._canvas_image.resize(
            (self.width, self.height), image_mod.Resampling.BILINEAR, box=box
        )
        return np.array(image)

    def _sprite(self, app: Appearance, k: int, w: int, h: int) -> np.ndarray:
        inst = app.instance
        if inst.kind == "clip":
            return clip_sprite(inst.source, clip_index(inst.source, float(self.t_s[k])), w, h)
        if inst.kind == "ball":
            return ball(max(w, h))
        return photo_sprite(inst.source, inst.variant, w, h, self.composition)

    def _draw_list(self, k: int) -> list[tuple[Appearance, tuple[int, int, int, int], float]]:
        items = []
        for app, (boxes, angles) in zip(self.moving, self.placed):
            if not (app.start_s <= self.t_s[k] < app.end_s):
                continue
            items.append((app, pixel_box(boxes[k], self.height), round(float(angles[k]), 1)))
        return items

    def frame(self, k: int) -> np.ndarray:
        """Frame `k` of the shot as `(height, width, 3)` uint8 RGB."""
        crop = self._crop(k)
        items = self._draw_list(k)
        clip_frames = tuple(
            clip_index(a.instance.source, float(self.t_s[k]))
            for a, _, _ in items
            if a.instance.kind == "clip"
        )
        key = (tuple(round(v, 3) for v in crop), tuple((b, a) for _, b, a in items), clip_frames)
        if key == self._last_key:
            return self._last_frame
        frame = self._backdrop(crop)
        for app, box, angle in items:
            self._draw(frame, app, box, angle, k)
        self._last_key, self._last_frame = key, frame
        return frame

    def _draw(self, image: np.ndarray, app: Appearance, box, angle: float, k: int) -> None:
        x0, y0, x1, y1 = box
        rgba = self._sprite(app, k, x1 - x0, y1 - y0)
        if angle:
            rotated = _rotated(rgba, angle)
            cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
            x0, y0 = round(cx - rotated.shape[1] / 2), round(cy - rotated.shape[0] / 2)
            rgba = rotated
        paste(image, rgba, x0, y0)


def _fixed(app: Appearance) -> bool:
    """Drawn unmoved for the whole shot, and not a playing clip."""
    whole = app.start_s <= 0 and math.isinf(app.end_s)
    return len(app.path.times_s) == 1 and whole and app.instance.kind != "clip"


def iter_frames(script: VideoScript, width: int, height: int) -> Iterator[np.ndarray]:
    """Every frame of the video in order, each `(height, width, 3)` uint8 RGB.

    >>> from fractions import Fraction
    >>> from .storyboard import plan_script
    >>> s = plan_script(np.random.default_rng(0), "v", 30.0, Fraction(2), 16 / 9, (2.0, 6.0))
    >>> frames = list(iter_frames(s, 32, 18))
    >>> len(frames), frames[0].shape
    (60, (18, 32, 3))
    """
    for shot in script.shots:
        renderer = ShotRenderer(script, shot, width, height)
        for k in range(shot.n_frames):
            yield renderer.frame(k)


def render_frame(script: VideoScript, index: int, width: int, height: int) -> np.ndarray:
    """Frame `index` of the video, drawn on its own (for checks; slower than `iter_frames`)."""
    shot_i = int(np.searchsorted([s.stop_frame for s in script.shots], index, side="right"))
    shot = script.shots[shot_i]
    return ShotRenderer(script, shot, width, height).frame(index - shot.start_frame)
