"""Optical-flow magnitude between consecutive frames (the motion signal of Step 2).

Flow runs on small grey frames: the action segmentation needs *how much* things move, not
precise vectors, and small frames make dense flow cheap. Methods register in `FLOW_METHODS`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...errors import require
from ..foreground import excess, median_distance

FlowFn = Callable[[np.ndarray, np.ndarray], np.ndarray]
FLOW_METHODS: dict[str, Callable[[], FlowFn]] = {}
DEFAULT_FLOW = "dis"
MIN_SIDE = 16


def register_flow(name: str) -> Callable[[Callable[[], FlowFn]], Callable[[], FlowFn]]:
    """Register a factory returning `flow(prev_gray, next_gray) -> (H, W, 2) float32`."""

    def wrap(factory: Callable[[], FlowFn]) -> Callable[[], FlowFn]:
        FLOW_METHODS[name] = factory
        return factory

    return wrap


@register_flow("dis")
def _dis() -> FlowFn:
    cv2 = require("cv2", "agent")
    dis = cv2.DISOpticalFlow_create(cv2.DISOPTICAL_FLOW_PRESET_FAST)
    return lambda prev, nxt: dis.calc(prev, nxt, None)


@register_flow("farneback")
def _farneback() -> FlowFn:
    cv2 = require("cv2", "agent")
    return lambda prev, nxt: cv2.calcOpticalFlowFarneback(prev, nxt, None, 0.5, 3, 15, 3, 5, 1.2, 0)


def small_gray(frames: np.ndarray, max_side: int = 160) -> np.ndarray:
    """Grey copies of RGB frames, shrunk so the longer side is at most `max_side` pixels.

    Args:
        frames: `(N, H, W, 3)` uint8 RGB.
        max_side: longest side after shrinking (frames are only enlarged when their shorter
            side is under `MIN_SIDE` pixels, which DIS flow cannot handle).

    Returns:
        `(N, h, w)` uint8.

    >>> small_gray(np.zeros((2, 90, 320, 3), np.uint8)).shape
    (2, 45, 160)
    """
    cv2 = require("cv2", "agent")
    frames = np.asarray(frames, dtype=np.uint8)
    if len(frames) == 0:
        return np.zeros((0, 1, 1), np.uint8)
    h, w = frames.shape[1:3]
    # Never enlarge, except that flow needs at least MIN_SIDE pixels on the shorter side.
    scale = max(min(1.0, max_side / max(h, w)), MIN_SIDE / min(h, w))
    size = (max(int(round(w * scale)), 1), max(int(round(h * scale)), 1))
    out = [
        cv2.resize(cv2.cvtColor(f, cv2.COLOR_RGB2GRAY), size, interpolation=cv2.INTER_AREA)
        for f in frames
    ]
    return np.stack(out)


#: Columns of `flow_stats`, in order.
FLOW_COLUMNS = ("magnitude", "drift", "pan", "zoom", "approach")
#: The camera's move is read on the top and bottom strips of the frame, each this share of its
#: height: the backdrop shows there in almost every shot, since what is filmed stands in the
#: middle, so an object moving in front of a still camera leaves them still.
BORDER = 1 / 8


def field_stats(field: np.ndarray) -> np.ndarray:
    """The motion measures of one flow field, per sample step (see `FLOW_COLUMNS`).

    - magnitude: root-mean-square displacement as a fraction of the frame width (the L2 norm
      of the field up to a constant: CoMET Eq. 13's g_t);
    - drift: mean horizontal displacement, same units, positive to the right;
    - pan: the camera's sideways move, same units: the median horizontal displacement on the
      border strips (a zoom moves their two halves in opposite directions and leaves it at 0);
    - zoom: the flow's divergence on the border strips as a relative scale change, 0.01 when
      the view grew by 1 % (positive: zooming in). It is measured on both axes, as the
      difference of the median displacements of the strips' right and left halves (per pixel
      between their centres) and of the bottom and top strips; when the two disagree in sign
      it is 0, else the smaller of the two (a pan, or something crossing a strip, moves one
      axis only);
    - approach: horizontal movement towards the frame's vertical centre line of what moves
      apart from the camera (the flow less the pan and the zoom), as a fraction of the frame
      width: positive while something comes into view from a side, negative while it leaves
      towards one; an object crossing the whole frame gives both in turn.

    Args:
        field: `(h, w, 2)` displacement in pixels (x, y).

    Returns:
        `(5,)` float64.

    >>> yy, xx = np.mgrid[0:40, 0:80].astype(float)
    >>> zoom = np.stack([(xx - 39.5) * 0.02, (yy - 19.5) * 0.02], axis=-1)
    >>> field_stats(zoom)[[2, 3]].round(3).tolist()
    [0.0, 0.02]
    >>> pan = np.zeros((40, 80, 2)); pan[..., 0] = -2.0
    >>> field_stats(pan)[[1, 2, 3]].round(3).tolist()
    [-0.025, -0.025, 0.0]
    >>> thing = np.zeros((40, 80, 2)); thing[10:30, 5:25, 0] = 3.0  # comes in from the left
    >>> field_stats(thing)[[2, 3, 4]].round(4).tolist()
    [0.0, 0.0, 0.0047]
    """
    f = np.asarray(field, dtype=np.float64)
    h, w = f.shape[:2]
    u, v = f[..., 0], f[..., 1]
    k = max(int(np.ceil(h * BORDER)), 1)
    strips = np.r_[0:k, h - k : h]
    pan = float(np.median(u[strips]))
    half = w // 2
    zoom_x = (np.median(u[strips, w - half :]) - np.median(u[strips, :half])) / max(w - half, 1)
    zoom_y = (np.median(v[h - k :]) - np.median(v[:k])) / max(h - k, 1)
    zoom = float(np.sign(zoom_x) * min(abs(zoom_x), abs(zoom_y)))
    if np.sign(zoom_x) != np.sign(zoom_y):
        zoom = 0.0
    dx = np.arange(w, dtype=np.float64) - (w - 1) / 2
    rest_u = u - pan - zoom * dx
    approach = float(-np.mean(rest_u * np.sign(dx)))
    return np.array(
        [np.sqrt(np.mean(u**2 + v**2)) / w, float(np.mean(u)) / w, pan / w, zoom, approach / w]
    )


def flow_stats(gray: np.ndarray, method: str = DEFAULT_FLOW) -> np.ndarray:
    """Motion between each pair of consecutive frames (`field_stats` of each flow field):
    magnitude g_t = ||f_t||_2 (CoMET Eq. 13), drift, pan, zoom and approach.

    Args:
        gray: `(T, h, w)` uint8 grey frames (see `small_gray`).
        method: a name in `FLOW_METHODS` ("dis" or "farneback").

    Returns:
        `(T - 1, 5)` float64, columns `FLOW_COLUMNS`, per sample step.

    >>> rng = np.random.default_rng(0)
    >>> base = (rng.random((60, 100)) * 255).astype(np.uint8)
    >>> still = np.stack([base, base]); moved = np.stack([base, np.roll(base, 3, axis=1)])
    >>> bool(flow_stats(still)[0, 0] < 0.005), bool(flow_stats(moved)[0, 0] > 0.01)
    (True, True)
    >>> bool(flow_stats(moved)[0, 1] > 0.01), bool(flow_stats(moved)[0, 2] > 0.01)
    (True, True)
    """
    if method not in FLOW_METHODS:
        raise ValueError(f"unknown flow method {method!r}; choose one of {sorted(FLOW_METHODS)}")
    gray = np.asarray(gray, dtype=np.uint8)
    if len(gray) < 2:
        return np.zeros((0, len(FLOW_COLUMNS)))
    flow = FLOW_METHODS[method]()
    return np.stack([field_stats(flow(gray[t], gray[t + 1])) for t in range(len(gray) - 1)])


def difference_centres(gray: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per frame, where and how much it differs from the event's backdrop (the per-pixel
    median of its frames), less its median difference (the noise floor; the localiser's
    `median_distance` and `excess`): `(T,)` centre column as a fraction of the width, and
    `(T,)` differing mass as a share of the frame."""
    g = np.asarray(gray, dtype=np.float32)
    diff = excess(median_distance(g))
    columns = diff.sum(axis=1)  # (T, w)
    mass = columns.sum(axis=1)
    width = g.shape[2]
    centre = (columns @ np.arange(width)) / np.maximum(mass, 1e-9) / width
    return centre, mass / (255.0 * g.shape[1] * width)


def centroid_track(gray: np.ndarray) -> np.ndarray:
    """Where what differs from the event's backdrop moves, frame to frame: a direction that
    holds however far an object jumps between two samples (dense flow loses fast objects at
    a low sampling rate and can then read them backwards).

    The backdrop is the per-pixel median of the event's frames (an object that passes
    through is absent from most of them); each frame's difference from it, less its median
    (the noise floor), weighs the pixel columns, and the weighted mean column is where the
    difference lies.

    Args:
        gray: `(T, h, w)` uint8 grey frames of one event with a still camera.

    Returns:
        `(T - 1, 2)` float64 per step: the move of that centre (fraction of the frame width,
        positive to the right) and its weight (the smaller share of differing mass of the two
        frames; 0 when nothing differs, e.g. a still shot, and for fewer than 3 frames).

    >>> frames = np.zeros((5, 20, 40), np.uint8)
    >>> for t in range(5): frames[t, 5:15, 4 + 8 * t : 10 + 8 * t] = 200
    >>> track = centroid_track(frames)
    >>> bool((track[:, 0] > 0).all()), bool((track[:, 1] > 0).all())
    (True, True)
    """
    if len(gray) < 3:  # the median of two frames is their mean: both differ from it alike
        return np.zeros((max(len(gray) - 1, 0), 2))
    centre, share = difference_centres(gray)
    return np.stack([np.diff(centre), np.minimum(share[1:], share[:-1])], axis=1)


#: A frame's difference from the backdrop takes part in `centre_sweep` when its mass is at
#: least this share of the largest: the frames that show the moving object, not the noise of
#: the frames where it is gone or stands still.
STRONG_SHARE = 0.5


def centre_sweep(gray: np.ndarray, within: np.ndarray | None = None) -> float:
    """How far the centre of what differs from the backdrop (`difference_centres`) sweeps
    across the frame: the extent, largest less smallest centre, over the frames `within`
    whose differing mass is at least `STRONG_SHARE` of the largest among them (frames
    outside may belong to a neighbouring shot, which differs everywhere). An object
    crossing the frame sweeps most of its width; one that slides in or out and stands in the
    middle sweeps little (the backdrop, the median frame, then holds it where it stands).

    Args:
        gray: `(T, h, w)` uint8 grey frames of one shot with a still camera.
        within: `(T,)` bool, the frames the sweep is read on (default: all); the backdrop
            is the median of all frames.

    Returns:
        Fraction of the frame width; 0 for fewer than 3 frames or fewer than two strong
        frames within.

    >>> frames = np.zeros((9, 20, 80), np.uint8)
    >>> for t in range(9): frames[t, 5:15, 8 * t : 8 * t + 8] = 200
    >>> round(centre_sweep(frames), 2), round(centre_sweep(frames, np.arange(9) < 5), 2)
    (0.8, 0.4)
    """
    if len(gray) < 3:
        return 0.0
    centre, share = difference_centres(gray)
    inside = np.ones(len(share), bool) if within is None else np.asarray(within, bool)
    largest = share[inside].max() if inside.any() else 0.0
    seen = centre[inside & (share >= STRONG_SHARE * largest) & (share > 0)]
    return float(seen.max() - seen.min()) if len(seen) >= 2 else 0.0


def flow_magnitudes(gray: np.ndarray, method: str = DEFAULT_FLOW) -> np.ndarray:
    """Just the magnitudes g_t of `flow_stats`: `(T - 1,)` float64.

    >>> flow_magnitudes(np.zeros((3, 16, 16), np.uint8)).tolist()
    [0.0, 0.0]
    """
    return flow_stats(gray, method)[:, 0]
