"""The camera's zoom read from keypoints (`perception.camera`): a slow zoom over a brick wall,
which the dense flow's divergence misses, reads as a zoom of the right sign; a still camera,
with or without an object moving in front of it, reads none."""

from __future__ import annotations

import numpy as np
import pytest

from longground.agent.frames import FrameSampler
from longground.agent.graph.flow import flow_stats, small_gray
from longground.agent.perception.camera import camera_move, camera_moves
from longground.agent.settings import AgentSettings

cv2 = pytest.importorskip("cv2")

H, W = 180, 320


def brick_wall(seed: int = 0, h: int = 2 * H, w: int = 2 * W) -> np.ndarray:
    """`(h, w, 3)` uint8: rows of bricks 24x10 pixels, each its own shade, offset by half a
    brick every other row, with darker mortar: a repetitive texture."""
    rng = np.random.default_rng(seed)
    wall = np.full((h, w), 70, np.uint8)
    for row, y in enumerate(range(0, h, 12)):
        for x in range(-12 * (row % 2), w, 26):
            wall[y : y + 10, max(x, 0) : x + 24] = rng.integers(120, 200)
    return np.repeat(wall[..., None], 3, axis=2)


def zooming(scale_per_s: float, mover: bool = False):
    """`frames_at(times_s)`: a camera over a brick wall whose view scales by
    `1 + scale_per_s * t` (negative: zooming out), optionally with a plain dark square
    crossing in front of it at 40 pixels per second."""
    wall = brick_wall()
    cx, cy = wall.shape[1] / 2, wall.shape[0] / 2

    def frames_at(times_s: np.ndarray) -> np.ndarray:
        out = []
        for t in np.asarray(times_s, float):
            s = 1.0 + scale_per_s * t
            m = np.array([[s, 0, W / 2 - s * cx], [0, s, H / 2 - s * cy]])
            frame = cv2.warpAffine(wall, m, (W, H), flags=cv2.INTER_LINEAR)
            if mover:
                x = int(40 * t) % W
                frame[60:120, x : x + 60] = 30
            out.append(frame)
        return np.stack(out)

    return frames_at


def test_a_slow_zoom_out_over_a_brick_wall_reads_as_a_zoom_the_flow_misses():
    zoom_min = AgentSettings().zoom_min
    frames_at = zooming(-0.01)  # 1 % per second: 17 s from 1.0 to 0.83
    gray = small_gray(frames_at(np.arange(0.0, 17.0, 1.0)))
    flow_zoom = flow_stats(gray)[:, 3].mean()  # per 1-s step
    assert abs(flow_zoom) < zoom_min  # the gap the keypoints close
    zoom, _ = camera_move(FrameSampler(frames_at), (0.0, 17.0), 1.0)
    assert zoom <= -zoom_min
    assert zoom == pytest.approx(-0.01, rel=0.3)


@pytest.mark.parametrize("mover", [False, True])
def test_a_still_camera_reads_no_zoom_even_with_something_moving(mover):
    zoom, _ = camera_move(FrameSampler(zooming(0.0, mover)), (0.0, 8.0), 1.0)
    assert abs(zoom) < AgentSettings().zoom_min / 5


def test_a_zoom_in_reads_positive():
    zoom, _ = camera_move(FrameSampler(zooming(0.03)), (0.0, 6.0), 1.0)
    assert zoom == pytest.approx(0.03 / 1.09, rel=0.3)  # relative to the view at the start


def test_an_object_moving_before_a_still_camera_leaves_no_pan():
    """The flow's border strips may read a pan where a large object leaves the frame; the
    keypoints on the wall do not move, so the instance's pan is 0 (`camera_moves`)."""
    zoom, pan = camera_move(FrameSampler(zooming(0.0, mover=True)), (0.0, 8.0), 1.0)
    flow_moves = np.array([[0.01, 0.0, 0.0, 0.02, 0.0]])  # pan, zoom, approach, flow, track
    assert camera_moves(flow_moves, zoom, pan)[0, 0] == 0.0


@pytest.mark.parametrize("scale_per_s, found", [(-0.01, True), (0.0, False)])
def test_the_verifier_reads_a_slow_zoom_the_flow_read_as_still(scale_per_s, found):
    """Action nodes whose flow reads no motion at all (a slow zoom over bricks): a zoom-out
    plan is verified where the decoded frames zoom out, and rejected where they stand."""
    from longground.agent.roles.offline import OfflineVerifier, ScorerSettings
    from tests.agent.test_motion import still_evidence

    s = ScorerSettings.from_agent(AgentSettings(regions=False), threshold=0.5)
    ev = still_evidence("the view slowly zooming out from the cat")
    assert ev.plan.motion == "zoom_out"
    ev.frames = FrameSampler(zooming(scale_per_s))
    verdict = OfflineVerifier(s).verify(ev, 0, np.array([0]))
    assert (verdict.entry is not None) == found
    assert verdict.details["keypoints"]["zoom_per_s"] == pytest.approx(scale_per_s, abs=0.004)
