"""The camera's own move over an instance, read from matched keypoints: its zoom and its pan.

The dense flow's readings of the camera (`graph.flow.field_stats`: the divergence and the
median sideways move of the border strips) need the strips to move by a good share of a
pixel per step. A slow zoom moves them by less, and on a repetitive backdrop (a brick wall)
dense flow aliases: on r3 (640x360) a 17-second zoom out over a brick wall read a zoom of
0.0000 per second, and the three slowest zoom outs of the tuning rendering read -0.0002 to
-0.0039 (`zoom_min` is 0.005). Keypoints do not alias that way: ORB features of frames about
`LINK_S` apart along the instance are matched, and a similarity transform (scale, rotation,
shift) is fitted with RANSAC (`cv2.estimateAffinePartial2D`), so what moves apart from the
camera (a ball, an object sliding in) is mostly left out as outliers. The scales along the
chain, over its duration, are the zoom. Links of a second, not consecutive samples: between
samples half a second apart a slow zoom moves keypoints by about the pixel they are found at,
and r3's zoom out read -0.0046 per second as a median of such pairs, -0.011 along 1-s links.

Read on each shot of the tuning rendering (480x270) as one instance, half a second inside its
ends (`perf/camera_readings.py`): zoom ins +0.048 to +0.126 per second, zoom outs -0.016 to
-0.096, every other shot |zoom| <= 0.0021 (a ball knocking something over; still, pan, pair,
crossing, enter and exit shots <= 0.0006);
`zoom_min` (0.005, chosen for the flow's reading) lies between. The shift of the frame's
centre is read too (`pan_per_s`), but it is no pan reading: where a textured photo crosses a
plain backdrop its keypoints outnumber the backdrop's, and crossings read up to 0.16 of the
width per second.
"""

from __future__ import annotations

import numpy as np

from ...errors import require
from ..frames import FrameSampler
from ..graph.flow import small_gray
from .motion import PAN, ZOOM

#: The flow's and the keypoints' pans agree when the larger is at most this many times the
#: smaller. On the tuning rendering's pans and panning fillers the ratio is 1.0-2.6 (the
#: flow reads slow pans short, as it does slow zooms); on its crossings, entering and
#: exiting objects whose flow reads a pan, 3.1-62 (`perf/camera_readings.py`).
PAN_AGREE = 3.0
#: The motion kinds whose instance is read with the keypoints as well (`camera_moves`).
CAMERA_KINDS = ("zoom_in", "zoom_out", "pan")

#: Longest side of the frames keypoints are found on, in pixels: twice the flow's, so a
#: keypoint's position is known to half the share of the frame.
CAMERA_SIDE = 320
#: The instance is read as a chain of frames about this far apart, in seconds: far enough
#: for a slow zoom to move keypoints by pixels, near enough for a fast one to leave most of
#: them matched.
LINK_S = 1.0
#: Keypoints looked for per frame.
KEYPOINTS = 500
#: RANSAC's reprojection threshold, in pixels of the `CAMERA_SIDE` frames.
RANSAC_PX = 1.5
#: Fewer matches than this agreeing with one transform and the camera's move is not read
#: (a cut in between, or a frame too plain to hold keypoints): the reading is then 0.
MIN_INLIERS = 20


def similarity(first: np.ndarray, last: np.ndarray) -> tuple[float, float] | None:
    """The camera's move from one grey frame to another: the relative scale change and the
    sideways shift of the frame's centre (fraction of the width, positive to the right).

    Args:
        first, last: `(h, w)` uint8 grey frames of the same size.

    Returns:
        `(scale - 1, shift)`, or None when fewer than `MIN_INLIERS` matches agree.

    >>> rng = np.random.default_rng(0)
    >>> base = (rng.random((90, 160)) > 0.5).astype(np.uint8) * 200
    >>> base = np.kron(base, np.ones((2, 2), np.uint8))  # (180, 320)
    >>> cv2 = require("cv2", "agent")
    >>> M = cv2.getRotationMatrix2D((159.5, 89.5), 0.0, 1.05)
    >>> zoomed = cv2.warpAffine(base, M, (320, 180))
    >>> [round(x, 2) + 0.0 for x in similarity(base, zoomed)]
    [0.05, 0.0]
    """
    cv2 = require("cv2", "agent")
    orb = cv2.ORB_create(KEYPOINTS)
    ka, da = orb.detectAndCompute(first, None)
    kb, db = orb.detectAndCompute(last, None)
    if da is None or db is None or len(ka) < MIN_INLIERS or len(kb) < MIN_INLIERS:
        return None
    matches = cv2.BFMatcher(cv2.NORM_HAMMING, crossCheck=True).match(da, db)
    if len(matches) < MIN_INLIERS:
        return None
    pa = np.float32([ka[m.queryIdx].pt for m in matches])
    pb = np.float32([kb[m.trainIdx].pt for m in matches])
    M, inliers = cv2.estimateAffinePartial2D(
        pa, pb, method=cv2.RANSAC, ransacReprojThreshold=RANSAC_PX
    )
    if M is None or int(inliers.sum()) < MIN_INLIERS:
        return None
    h, w = first.shape
    centre = np.array([(w - 1) / 2, (h - 1) / 2, 1.0])
    shift = (M @ centre)[0] - centre[0]
    return float(np.hypot(M[0, 0], M[1, 0]) - 1.0), float(shift / w)


def camera_move(
    frames: FrameSampler,
    run_s: tuple[float, float],
    step_s: float,
    side: int = CAMERA_SIDE,
) -> tuple[float, float]:
    """The camera's zoom and pan per second over an instance: `similarity` along a chain of
    its frames about `LINK_S` apart, the scales multiplied and the shifts added (links
    whose move is not read are left out of the duration); where its two end frames show the
    same view to within a pixel, those two alone.

    Args:
        frames: the query's frame sampler (times are read on its grid).
        run_s: the instance's `(start_s, end_s)`.
        step_s: the timeline's step: the run's ends are known to within it, so its frames
            are taken half a step inside (at most a quarter of the run).
        side: longest side of the grey frames, in pixels.

    Returns:
        `(zoom_per_s, pan_per_s)`: relative scale change (positive: zooming in) and the
        centre's sideways shift (fraction of the width, positive to the right) per second;
        `(0.0, 0.0)` where not read.

    >>> rng = np.random.default_rng(1)
    >>> cells = (rng.random((90, 160)) > 0.5).astype(np.uint8) * 200
    >>> base = np.kron(cells, np.ones((2, 2), np.uint8))
    >>> cv2 = require("cv2", "agent")
    >>> def frames_at(times):  # zooming in by 2 % per second
    ...     return np.stack([cv2.cvtColor(cv2.warpAffine(base, cv2.getRotationMatrix2D(
    ...         (159.5, 89.5), 0.0, 1 + 0.02 * t), (320, 180)), cv2.COLOR_GRAY2RGB) for t in times])
    >>> zoom, pan = camera_move(FrameSampler(frames_at), (0.0, 5.0), 1.0)
    >>> bool(abs(zoom - 0.02) < 0.002), bool(abs(pan) < 0.001)
    (True, True)
    """
    start_s, end_s = run_s
    inset_s = min(step_s / 2, (end_s - start_s) / 4)
    first_s, last_s = start_s + inset_s, end_s - inset_s
    if last_s <= first_s:
        return 0.0, 0.0
    ends = _still_ends(frames, (first_s, last_s), side)
    if ends is not None:
        return ends
    links = max(int(np.ceil((last_s - first_s) / LINK_S - 1e-9)), 1)
    times_s = np.linspace(first_s, last_s, links + 1)
    shown = frames.frames(times_s)
    if len(shown) < 2:
        return 0.0, 0.0
    gray = small_gray(shown, side)
    scale, shift, read_s = 1.0, 0.0, 0.0
    for k in range(len(gray) - 1):
        move = similarity(gray[k], gray[k + 1])
        if move is not None:
            scale *= 1.0 + move[0]
            shift += move[1]
            read_s += float(times_s[k + 1] - times_s[k])
    if read_s <= 0:
        return 0.0, 0.0
    return (scale - 1.0) / read_s, shift / read_s


def _still_ends(
    frames: FrameSampler, ends_s: tuple[float, float], side: int
) -> tuple[float, float] | None:
    """The zoom and pan per second read from the two end frames alone, where they show the
    same view to within a pixel (at the frame's edge for the scale): most instances a zoom or
    pan plan looks at are still shots, and two frames are cheaper than the chain. None
    elsewhere (the camera moved, or its move was not read)."""
    shown = frames.frames(np.asarray(ends_s))
    if len(shown) < 2:
        return None
    gray = small_gray(shown, side)
    move = similarity(gray[0], gray[1])
    width = gray.shape[2]
    if move is None or abs(move[0]) * width / 2 >= 1 or abs(move[1]) * width >= 1:
        return None
    span_s = ends_s[1] - ends_s[0]
    return move[0] / span_s, move[1] / span_s


def camera_moves(moves: np.ndarray, zoom_per_s: float, pan_per_s: float) -> np.ndarray:
    """An instance's measures per second (`(1, 5)`, `graph.nodes.MOVE_COLUMNS`) with the
    camera's move read from keypoints: the zoom is the keypoints' (the flow misses slow
    zooms); the pan is the flow's where the keypoints shift the view the same way, else 0
    (an object leaving a still camera can drag the flow's border strips along; a dark
    silhouette holds no keypoints). Where the keypoints read nothing, both are 0.

    >>> moves = np.array([[0.01, 0.0, 0.0, 0.02, 0.0]])
    >>> camera_moves(moves, -0.01, 0.012)[0, :2].tolist()
    [0.01, -0.01]
    >>> camera_moves(moves, 0.0, 0.1)[0, :2].tolist()  # the keypoints follow an object
    [0.0, 0.0]
    >>> camera_moves(moves, 0.0, 0.0)[0, :2].tolist()
    [0.0, 0.0]
    """
    out = np.array(moves, np.float64, copy=True)
    flow_pan = np.nan_to_num(out[:, PAN], nan=0.0)
    same_way = np.sign(flow_pan) == np.sign(pan_per_s)
    near = np.maximum(abs(flow_pan), abs(pan_per_s)) <= PAN_AGREE * np.minimum(
        abs(flow_pan), abs(pan_per_s)
    )
    out[:, PAN] = np.where(same_way & near, flow_pan, 0.0)
    out[:, ZOOM] = zoom_per_s
    return out
