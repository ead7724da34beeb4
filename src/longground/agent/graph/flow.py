"""Optical-flow magnitude between consecutive frames (the motion signal of Step 2).

Flow runs on small grey frames: the action segmentation needs *how much* things move, not
precise vectors, and small frames make dense flow cheap. Methods register in `FLOW_METHODS`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...errors import require

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


def flow_stats(gray: np.ndarray, method: str = DEFAULT_FLOW) -> np.ndarray:
    """Motion between each pair of consecutive frames: magnitude g_t = ||f_t||_2 (CoMET
    Eq. 13) and horizontal drift.

    The L2 norm of the whole flow field is divided by sqrt(pixels) and by the frame width, so
    it is the root-mean-square displacement as a fraction of the frame width: independent of
    the frame size, and equal to the plain norm up to a constant that min-max scaling removes.
    The drift is the mean horizontal displacement, same units, positive to the right.

    Args:
        gray: `(T, h, w)` uint8 grey frames (see `small_gray`).
        method: a name in `FLOW_METHODS` ("dis" or "farneback").

    Returns:
        `(T - 1, 2)` float64: magnitude (>= 0) and drift per pair.

    >>> rng = np.random.default_rng(0)
    >>> base = (rng.random((60, 100)) * 255).astype(np.uint8)
    >>> still = np.stack([base, base]); moved = np.stack([base, np.roll(base, 3, axis=1)])
    >>> bool(flow_stats(still)[0, 0] < 0.005), bool(flow_stats(moved)[0, 0] > 0.01)
    (True, True)
    >>> bool(flow_stats(moved)[0, 1] > 0.01)
    True
    """
    if method not in FLOW_METHODS:
        raise ValueError(f"unknown flow method {method!r}; choose one of {sorted(FLOW_METHODS)}")
    gray = np.asarray(gray, dtype=np.uint8)
    if len(gray) < 2:
        return np.zeros((0, 2))
    flow = FLOW_METHODS[method]()
    width = gray.shape[2]
    out = np.empty((len(gray) - 1, 2))
    for t in range(len(gray) - 1):
        field = flow(gray[t], gray[t + 1]).astype(np.float64)
        out[t, 0] = np.sqrt(np.mean(np.sum(field**2, axis=-1))) / width
        out[t, 1] = np.mean(field[..., 0]) / width
    return out


def flow_magnitudes(gray: np.ndarray, method: str = DEFAULT_FLOW) -> np.ndarray:
    """Just the magnitudes g_t of `flow_stats`: `(T - 1,)` float64.

    >>> flow_magnitudes(np.zeros((3, 16, 16), np.uint8)).tolist()
    [0.0, 0.0]
    """
    return flow_stats(gray, method)[:, 0]
