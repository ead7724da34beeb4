"""Shot kinds: each turns "this kind of shot, these instances, this long" into a scripted shot.

`SHOT_KINDS` is the registry the planner draws from; adding a kind is adding a builder here.
A builder gets a random generator, the shot's length in seconds, its instances and the frame's
aspect ratio, and returns what is drawn: appearances, a camera, and a scripted cause and effect.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .assets import sprite_aspect
from .script import Appearance, Camera, Causal, Instance, Path

#: Where the causal shots' floor is (world y of the target's bottom edge).
FLOOR_Y = 0.82
BALL_HEIGHT = 0.14
FALL_S = 0.8


@dataclass(frozen=True)
class Staging:
    """What a builder returns: the moving parts of one shot."""

    appearances: tuple[Appearance, ...]
    camera: Camera = Camera()
    causal: Causal | None = None


Builder = Callable[[np.random.Generator, float, tuple[Instance, ...], float], Staging]


@dataclass(frozen=True)
class ShotKind:
    """A registered kind of shot.

    Args:
        name: registry key.
        slots: how many instances it shows, and from which categories ("photo" or "clip").
        min_s, max_s: the range of its length in seconds (the preset may narrow it).
        build: the builder.
    """

    name: str
    slots: tuple[str, ...]
    min_s: float
    max_s: float
    build: Builder


def _fit_height(instance: Instance, height: float, max_width: float) -> tuple[float, float]:
    """Sprite height and aspect, shrunk so its width stays under `max_width`."""
    aspect = sprite_aspect(instance.source)
    return min(height, max_width / aspect), aspect


def _side(rng: np.random.Generator) -> tuple[str, float]:
    return ("left-to-right", 1.0) if rng.random() < 0.5 else ("right-to-left", -1.0)


def _offscreen_x(width: float, aspect: float, sign: float) -> float:
    """Centre x just outside the frame on the side an object moving with `sign` comes from."""
    return -width / 2 - 0.02 if sign > 0 else aspect + width / 2 + 0.02


def _pan_camera(aspect: float, zoom: float, shift: float, duration_s: float) -> Camera:
    """Slide the view centre from `-shift` to `+shift` (world units) around the middle."""
    return Camera(
        zoom0=zoom, zoom1=zoom, x0=aspect / 2 - shift, x1=aspect / 2 + shift, t1_s=duration_s
    )


def still(rng, duration_s, instances, aspect) -> Staging:
    """The object centred and large, nothing moves."""
    height, ar = _fit_height(instances[0], rng.uniform(0.78, 0.9), 0.92 * aspect)
    x = aspect / 2 + rng.uniform(-0.05, 0.05)
    return Staging((Appearance(instances[0], Path.still(x, 0.5, height), ar),))


def pan(rng, duration_s, instances, aspect) -> Staging:
    """A slow sideways camera move across a standing object."""
    height, ar = _fit_height(instances[0], 0.72, 0.7 * aspect)
    shift = rng.uniform(0.08, 0.14) * (1 if rng.random() < 0.5 else -1)
    camera = _pan_camera(aspect, 1.15, shift, duration_s)
    return Staging((Appearance(instances[0], Path.still(aspect / 2, 0.5, height), ar),), camera)


def _zoom(rng, duration_s, instances, aspect, zoom_in: bool) -> Staging:
    height, ar = _fit_height(instances[0], 0.64, 0.6 * aspect)
    z0, z1 = (1.0, rng.uniform(1.3, 1.45)) if zoom_in else (rng.uniform(1.3, 1.45), 1.0)
    camera = Camera(zoom0=z0, zoom1=z1, t1_s=duration_s)
    return Staging((Appearance(instances[0], Path.still(aspect / 2, 0.5, height), ar),), camera)


def zoom_in(rng, duration_s, instances, aspect) -> Staging:
    """The camera slowly zooms in on the object."""
    return _zoom(rng, duration_s, instances, aspect, zoom_in=True)


def zoom_out(rng, duration_s, instances, aspect) -> Staging:
    """The camera slowly zooms out from the object."""
    return _zoom(rng, duration_s, instances, aspect, zoom_in=False)


def cross(rng, duration_s, instances, aspect) -> Staging:
    """The object slides in on one side, across the frame and out on the other."""
    height, ar = _fit_height(instances[0], rng.uniform(0.6, 0.72), 0.8 * aspect)
    direction, sign = _side(rng)
    begin_s, end_s = rng.uniform(0.4, 1.0), duration_s - rng.uniform(0.4, 1.0)
    x0 = _offscreen_x(height * ar, aspect, sign)
    path = Path.still(x0, 0.5, height).held_until(begin_s).moved_to(end_s, aspect - x0)
    return Staging((Appearance(instances[0], path, ar, "cross", direction),))


def enter(rng, duration_s, instances, aspect) -> Staging:
    """The object slides into view and stops in the middle."""
    height, ar = _fit_height(instances[0], rng.uniform(0.7, 0.82), 0.9 * aspect)
    direction, sign = _side(rng)
    begin_s = rng.uniform(0.4, 1.0)
    stop_s = min(begin_s + rng.uniform(1.0, 2.5), duration_s - 0.4)
    path = (
        Path.still(_offscreen_x(height * ar, aspect, sign), 0.5, height)
        .held_until(begin_s)
        .moved_to(stop_s, aspect / 2)
    )
    return Staging((Appearance(instances[0], path, ar, "enter", direction),))


def exit_(rng, duration_s, instances, aspect) -> Staging:
    """The object stands in the middle, then slides out of view."""
    height, ar = _fit_height(instances[0], rng.uniform(0.7, 0.82), 0.9 * aspect)
    direction, sign = _side(rng)
    gone_s = duration_s - rng.uniform(0.6, 1.2)
    leave_s = max(gone_s - rng.uniform(1.0, 2.5), 0.6)
    x_out = aspect - _offscreen_x(height * ar, aspect, sign)
    path = Path.still(aspect / 2, 0.5, height).held_until(leave_s).moved_to(gone_s, x_out)
    return Staging((Appearance(instances[0], path, ar, "exit", direction),))


def pair(rng, duration_s, instances, aspect) -> Staging:
    """Two objects side by side; sometimes the second one slides in part-way through."""
    apps = []
    for slot, (instance, x) in enumerate(zip(instances, (0.27 * aspect, 0.73 * aspect))):
        height, ar = _fit_height(instance, 0.58, 0.44 * aspect)
        path, motion, direction = Path.still(x, 0.5, height), "still", None
        if slot == 1 and rng.random() < 0.5:
            arrive_s = rng.uniform(0.3, 0.6) * duration_s
            begin_s = max(arrive_s - rng.uniform(0.8, 1.5), 0.2)
            x0 = _offscreen_x(height * ar, aspect, -1.0)
            path = Path.still(x0, 0.5, height).held_until(begin_s).moved_to(arrive_s, x)
            motion, direction = "enter", "right-to-left"
        apps.append(Appearance(instance, path, ar, motion, direction))
    return Staging(tuple(apps))


def _target(rng, instance: Instance, aspect: float) -> tuple[Appearance, float, float]:
    """A target standing on the floor near the middle; returns it, its left and right x."""
    height, ar = _fit_height(instance, 0.45, 0.4 * aspect)
    width = height * ar
    right = min(aspect / 2 + width / 2 + rng.uniform(0.0, 0.1), aspect - height - 0.03)
    x = right - width / 2
    return (
        Appearance(instance, Path.still(x, FLOOR_Y - height / 2, height), ar),
        x - width / 2,
        right,
    )


def _fall(path: Path, hit_s: float, right: float, width: float, height: float) -> Path:
    """Tip the target clockwise about its bottom-right corner, speeding up, over `FALL_S`."""
    for u in np.linspace(0.2, 1.0, 5):
        angle = np.deg2rad(90.0 * u * u)
        dx, dy = -width / 2, -height / 2
        x = right + dx * np.cos(angle) - dy * np.sin(angle)
        y = FLOOR_Y + dx * np.sin(angle) + dy * np.cos(angle)
        path = path.moved_to(hit_s + FALL_S * u, float(x), float(y), float(np.rad2deg(angle)))
    return path


def causal_hit(rng, duration_s, instances, aspect) -> Staging:
    """The ball rolls in, hits the target and the target falls over."""
    target, left, right = _target(rng, instances[0], aspect)
    radius = BALL_HEIGHT / 2
    begin_s = rng.uniform(0.4, 1.0)
    hit_s = min(begin_s + rng.uniform(1.2, 2.5), duration_s - FALL_S - 0.8)
    contact_x = left - radius
    ball_path = (
        Path.still(-radius - 0.02, FLOOR_Y - radius, BALL_HEIGHT)
        .held_until(begin_s)
        .moved_to(hit_s, contact_x)
        .moved_to(hit_s + 0.5, contact_x - 0.08)
    )
    height = target.path.heights[0]
    fallen = _fall(target.path.held_until(hit_s), hit_s, right, height * target.aspect, height)
    ball = Appearance(Instance("ball"), ball_path, 1.0, "roll", "left-to-right")
    target = Appearance(target.instance, fallen, target.aspect, "fall")
    return Staging((target, ball), causal=Causal("hit", target.instance, hit_s + FALL_S))


def causal_miss(rng, duration_s, instances, aspect) -> Staging:
    """The ball rolls past in front of the target, which stays standing."""
    target, _, _ = _target(rng, instances[0], aspect)
    radius = BALL_HEIGHT / 2
    begin_s = rng.uniform(0.4, 1.0)
    end_s = max(duration_s - rng.uniform(0.5, 1.0), begin_s + 1.0)
    y = FLOOR_Y + 0.1
    ball_path = Path.still(-radius - 0.02, y, BALL_HEIGHT).held_until(begin_s)
    ball_path = ball_path.moved_to(end_s, aspect + radius + 0.02)
    ball = Appearance(Instance("ball"), ball_path, 1.0, "roll", "left-to-right")
    return Staging((target, ball), causal=Causal("miss", target.instance))


def clip(rng, duration_s, instances, aspect) -> Staging:
    """A real video shot filling the frame."""
    return Staging((Appearance(instances[0], Path.still(aspect / 2, 0.5, 1.0), aspect),))


def filler(rng, duration_s, instances, aspect) -> Staging:
    """Only the background, sometimes with a slow pan."""
    if rng.random() < 0.5:
        return Staging(())
    shift = rng.uniform(0.05, 0.12)
    camera = _pan_camera(aspect, 1.12, shift, duration_s)
    return Staging((), camera)


SHOT_KINDS: dict[str, ShotKind] = {
    k.name: k
    for k in (
        ShotKind("still", ("photo",), 2, 60, still),
        ShotKind("pan", ("photo",), 4, 30, pan),
        ShotKind("zoom_in", ("photo",), 3, 20, zoom_in),
        ShotKind("zoom_out", ("photo",), 3, 20, zoom_out),
        ShotKind("cross", ("photo",), 4, 15, cross),
        ShotKind("enter", ("photo",), 3, 30, enter),
        ShotKind("exit", ("photo",), 3, 30, exit_),
        ShotKind("pair", ("photo", "photo"), 3, 40, pair),
        ShotKind("causal_hit", ("photo",), 4, 10, causal_hit),
        ShotKind("causal_miss", ("photo",), 4, 10, causal_miss),
        ShotKind("clip", ("clip",), 2, 12, clip),
        ShotKind("filler", (), 2, 30, filler),
    )
}
