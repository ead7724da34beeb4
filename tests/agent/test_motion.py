"""Motion kinds from measured flow: tiny generated clips with a known camera or object move
must read as exactly that move (`graph.flow.field_stats`, `perception.motion`)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from longground.agent.evidence import Evidence
from longground.agent.frames import FrameSampler
from longground.agent.graph.cache import GraphCache
from longground.agent.graph.flow import centre_sweep, centroid_track, flow_stats, small_gray
from longground.agent.graph.levels import MIN_FLOW_FRAMES, flow_window, split_from_gray
from longground.agent.graph.nodes import ActionSplit, make_nodes
from longground.agent.perception.crossing import run_sweep
from longground.agent.perception.motion import MOTION_KINDS, MotionReading, heads, motion_matches
from longground.agent.plan.planner import plan_query
from longground.agent.profiles import PROFILES
from longground.agent.roles.offline import OfflineAggregator, OfflineVerifier, ScorerSettings
from longground.agent.settings import AgentSettings
from longground.errors import UserError

cv2 = pytest.importorskip("cv2")

H, W, FPS, N = 90, 160, 2.0, 6
CAMERA_KINDS = ("still", "zoom_in", "zoom_out", "pan")


def texture(seed: int, h: int = 3 * H, w: int = 3 * W) -> np.ndarray:
    """A smooth random grey texture (flow needs something to follow), as RGB uint8."""
    rng = np.random.default_rng(seed)
    noise = cv2.GaussianBlur(rng.random((h, w)).astype(np.float32), (0, 0), 2.0)
    grey = cv2.normalize(noise, None, 0, 255, cv2.NORM_MINMAX).astype(np.uint8)
    return np.repeat(grey[..., None], 3, axis=2)


def camera_clip(kind: str, seed: int = 0) -> np.ndarray:
    """`(N, H, W, 3)`: a camera over a large texture that stays, zooms in or out, or pans
    (per frame: 4 % zoom, 1.5 % of the width sideways)."""
    world = texture(seed)
    cx, cy = world.shape[1] / 2, world.shape[0] / 2
    frames = []
    for t in range(N):
        scale = {"zoom_in": 1.04**t, "zoom_out": 1.04 ** (N - 1 - t)}.get(kind, 1.0)
        shift = 0.015 * W * t if kind == "pan" else 0.0
        # world point (cx + shift + (x - W/2) / scale, ...) is shown at pixel x
        m = np.array([[scale, 0, W / 2 - scale * (cx + shift)], [0, scale, H / 2 - scale * cy]])
        frames.append(cv2.warpAffine(world, m, (W, H), flags=cv2.INTER_LINEAR))
    return np.stack(frames)


def object_clip(kind: str, seed: int = 1) -> np.ndarray:
    """`(N, H, W, 3)`: a still camera on a background, and a textured square that slides in
    from the left to the middle ("entering") or from the middle out to the right
    ("leaving")."""
    back = texture(seed)[:H, :W] // 2
    thing = texture(seed + 7, 50, 50) // 2 + 128
    xs = np.linspace(-50, W / 2 - 25, N) if kind == "entering" else np.linspace(W / 2 - 25, W, N)
    frames = []
    for x in xs.astype(int):
        frame = back.copy()
        a, b = max(x, 0), min(x + 50, W)
        if b > a:
            frame[20:70, a:b] = thing[:, a - x : b - x]
        frames.append(frame)
    return np.stack(frames)


def reading(frames: np.ndarray) -> MotionReading:
    """The clip as one node: mean per-step measures, the moves per second."""
    s = AgentSettings()
    gray = small_gray(frames)
    mean = flow_stats(gray).mean(axis=0)
    track = centroid_track(gray)
    moved = track[:, 0] @ track[:, 1] / track[:, 1].sum() if track[:, 1].sum() > 0 else np.nan
    moves = np.r_[mean[2:5], mean[0], moved][None] * FPS
    return MotionReading(
        mean[:1], moves, s.moving_min, s.pan_min, s.zoom_min, s.approach_min, s.track_min,
        s.sweep_min, np.array([centre_sweep(gray)]),
    )  # fmt: skip


@pytest.mark.parametrize("kind", CAMERA_KINDS)
def test_a_camera_move_reads_as_itself_and_nothing_else(kind):
    r = reading(camera_clip(kind))
    found = {k for k in CAMERA_KINDS if motion_matches(k, r)[0]}
    assert found == {kind}


@pytest.mark.parametrize("kind", ["entering", "leaving"])
def test_an_object_coming_in_or_going_out_is_not_a_camera_move(kind):
    r = reading(object_clip(kind))
    found = {k for k in MOTION_KINDS if motion_matches(k, r)[0]}
    assert found == {kind, "moving"}


def crossing_clip(sign: float, seed: int = 3) -> np.ndarray:
    """`(N, H, W, 3)`: a textured square crossing a still background in big jumps (a third
    of the width per step, as a fast object sampled at 1 fps), left to right for sign > 0."""
    back = texture(seed)[:H, :W] // 2
    thing = texture(seed + 5, 40, 40) // 2 + 128
    xs = np.linspace(-20, W - 20, N)[:: int(sign)]
    frames = []
    for x in xs.astype(int):
        frame = back.copy()
        a, b = max(x, 0), min(x + 40, W)
        frame[25:65, a:b] = thing[:, a - x : b - x]
        frames.append(frame)
    return np.stack(frames)


@pytest.mark.parametrize("direction, sign", [("right", 1.0), ("left", -1.0)])
def test_a_fast_crossing_heads_its_own_way(direction, sign):
    r = reading(crossing_clip(sign))
    other = "left" if direction == "right" else "right"
    drift, drift_min = np.zeros(1), 0.002  # the offline verifier's default
    assert heads(direction, r, drift, drift_min).tolist() == [True]
    assert heads(other, r, drift, drift_min).tolist() == [False]


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_a_crossing_reads_as_one_and_sliding_in_or_out_does_not(sign):
    assert motion_matches("crossing", reading(crossing_clip(sign))).tolist() == [True]
    for kind in ("entering", "leaving"):
        assert motion_matches("crossing", reading(object_clip(kind))).tolist() == [False]


def test_a_crossing_is_read_against_the_backdrop_around_it():
    """The crossing's shot holds empty frames before and after; the sweep of the run that
    covers the crossing reaches `sweep_min` (the median around it is the empty backdrop), a
    run over a third of it does not, nor does an object that slides in and stops."""
    cross = crossing_clip(1.0)
    back = np.repeat(cross[:1] * 0 + texture(3)[:H, :W] // 2, 3, axis=0)
    other = np.repeat(texture(11)[:H, :W][None], 3, axis=0)  # the shot before: a cut
    shot = np.concatenate([other, cross, back])  # 12 frames at 1 fps: crossing in 3-8 s
    frames_at = lambda times: shot[np.minimum(np.asarray(times).astype(int), len(shot) - 1)]  # noqa: E731
    sweep_min = AgentSettings().sweep_min
    assert run_sweep(FrameSampler(frames_at), (3.0, 9.0), 1.0) >= sweep_min
    assert run_sweep(FrameSampler(frames_at), (3.0, 5.0), 1.0) < sweep_min
    comes = object_clip("entering")
    enter = np.concatenate([back[:1], comes, comes[-1:].repeat(9, axis=0)])  # then it stands
    frames_at = lambda times: enter[np.minimum(np.asarray(times).astype(int), len(enter) - 1)]  # noqa: E731
    assert run_sweep(FrameSampler(frames_at), (0.0, 8.0), 1.0) < sweep_min


def test_a_zoom_is_measured_as_divergence_and_a_pan_as_translation():
    zoom = flow_stats(small_gray(camera_clip("zoom_in")))
    pan = flow_stats(small_gray(camera_clip("pan")))
    assert np.allclose(zoom[:, 3], 0.04, atol=0.01)  # 4 % per step
    assert np.allclose(pan[:, 2], -0.015, atol=0.004)  # the view moves right: content left
    assert abs(zoom[:, 2]).max() < 0.003 and abs(pan[:, 3]).max() < 0.003


@pytest.mark.parametrize(
    "query, kind",
    [
        ("a slow zoom in on the coffee cup", "zoom_in"),
        ("the view slowly zooming out from the motorcycle", "zoom_out"),
        ("the view panning sideways across the black horse", "pan"),
        ("the photographer with a tripod sliding into view", "entering"),
        ("the horse silhouette leaving the frame", "leaving"),
        ("the tabby cat in a still shot where nothing moves", "still"),
        ("a rocket sliding right to left", "crossing"),
        ("a cat moving across the screen", "crossing"),
        ("a rocket sliding from one side of the frame to the other", "crossing"),
    ],
)
def test_the_planner_names_the_motion_kind(query, kind):
    assert plan_query(query, 600.0).motion == kind


def test_the_graph_cache_keeps_the_moves_and_drops_entries_without_them(tmp_path):
    moves = np.arange(10.0).reshape(2, 5) / 100
    split = ActionSplit(np.array([3.0]), np.array([0.01, 0.02]), np.array([0.0, 0.1]), moves)
    GraphCache(tmp_path).put_splits("v", ("actions-v3",), {(0.0, 6.0): split})
    back = GraphCache(tmp_path).splits("v", ("actions-v3",))[(0.0, 6.0)]
    assert np.allclose(back.moves, moves)
    path = next(tmp_path.iterdir())
    doc = json.loads(path.read_text())
    for item in doc["actions"]["actions-v3"].values():
        item["moves"] = [[0.0] * 4, [0.0] * 4]  # written by a build that measured fewer moves
    path.write_text(json.dumps(doc))
    assert GraphCache(tmp_path).splits("v", ("actions-v3",)) == {}


def still_evidence(query: str) -> Evidence:
    """Two events of one look, each split into two still action nodes, the target seen
    everywhere: only an event boundary separates the first two nodes from the last two."""
    times = np.arange(0.0, 20.0)
    emb = np.ones((20, 4), np.float32)
    events = make_nodes(np.array([[0.0, 10], [10, 20]]), times, emb, 3.0, 2)
    spans = np.array([[0.0, 5], [5, 10], [10, 15], [15, 20]])
    actions = make_nodes(
        spans, times, emb, 3.0, 2, np.array([0, 0, 1, 1]), np.zeros(4), np.zeros(4),
        np.zeros((4, 5)),
    )  # fmt: skip
    plan = plan_query(query, 20.0)
    ev = Evidence(plan, times, emb, emb, {t: np.ones(20) for t in plan.texts}, events)
    ev.actions = actions
    return ev


@pytest.mark.parametrize(
    "query, count",
    [("the cat in a still shot where nothing moves", 2), ("every time the cat appears", 1)],
)
def test_a_still_instance_ends_at_an_event_boundary(query, count):
    s = ScorerSettings.from_agent(AgentSettings(regions=False), threshold=0.5)
    ev = still_evidence(query)
    verifier, aggregator = OfflineVerifier(s), OfflineAggregator(s)
    entries = []
    for candidate in (0, 3):
        verdict = verifier.verify(ev, candidate, np.array([candidate]))
        assert verdict.entry is not None
        entries.append(verdict.entry)
    assert len(aggregator.aggregate(ev, entries).moments) == count


@pytest.mark.parametrize("name", ["pan_min", "zoom_min", "approach_min", "track_min"])
@pytest.mark.parametrize("value", ["-0.01", "nan", "inf"])
def test_a_motion_threshold_must_be_a_finite_magnitude(name, value):
    with pytest.raises(UserError, match=name):
        AgentSettings.from_params({name: value})
    assert getattr(AgentSettings.from_params({name: "0"}), name) == 0.0


def sliding_then_still(fps: float, seconds: float = 4.0) -> np.ndarray:
    """`(T, H, W)` grey frames at `fps`: a textured square slides in from the left at a
    fifth of the width per second for 1.5 s, then stands (a pair shot's second object)."""
    back = texture(5)[:H, :W] // 2
    thing = texture(9, 40, 40) // 2 + 128
    frames = []
    for t in np.arange(0.0, seconds, 1.0 / fps):
        x = int(-40 + 0.2 * W * min(t, 1.5) * 2.5)
        frame = back.copy()
        a, b = max(x, 0), min(x + 40, W)
        if b > a:
            frame[25:65, a:b] = thing[:, a - x : b - x]
        frames.append(frame)
    return small_gray(np.stack(frames))


def test_a_short_event_is_sampled_densely_enough_to_cut_its_still_stretch():
    profile, s = PROFILES["long"], AgentSettings()
    start_s, end_s, fps = flow_window((0.0, 5.0), profile, margin_s=0.5)
    assert (start_s, end_s) == (0.5, 4.5) and (end_s - start_s) * fps >= MIN_FLOW_FRAMES
    gray = sliding_then_still(fps)
    split = split_from_gray(gray, np.arange(len(gray)) / fps, fps, profile, s)
    assert len(split.motion) >= 2
    assert split.motion[0] >= s.moving_min > split.motion[-1]  # moving, then still


def test_the_magnitude_is_per_rho_a_step_whatever_the_sampling_rate():
    """A square sliding at a steady 24 px per second reads alike sampled at 2 and 4 fps
    (per step of those rates it moves half and a quarter as far)."""
    profile, s = PROFILES["long"], AgentSettings()
    back, thing = texture(5)[:H, :W] // 2, texture(9, 50, 50) // 2 + 128

    def magnitude(fps: float) -> float:
        frames = []
        for t in np.arange(0.0, 3.0, 1.0 / fps):
            frame = back.copy()
            x = int(10 + 24 * t)
            frame[20:70, x : x + 50] = thing
            frames.append(frame)
        gray = small_gray(np.stack(frames))
        split = split_from_gray(gray, np.arange(len(gray)) / fps, fps, profile, s)
        return float(np.average(split.motion))

    assert magnitude(4.0) == pytest.approx(magnitude(2.0), rel=0.25)


@pytest.mark.parametrize("kind, approach", [("entering", 0.01), ("leaving", -0.01)])
def test_sliding_in_or_out_is_not_read_where_the_shot_holds_a_crossing(kind, approach):
    """The first half of a crossing comes into view like an object sliding in: the sweep of
    its whole shot (`run_sweep(FrameSampler(whole_shot=True))`) tells them apart."""
    s = AgentSettings()
    moves = np.array([[0.0, 0.0, approach, 0.05, 0.0]] * 2)

    def read(sweep: float) -> bool:
        r = MotionReading(
            np.full(2, 2 * s.moving_min), moves, s.moving_min, s.pan_min, s.zoom_min,
            s.approach_min, s.track_min, s.sweep_min, np.full(2, sweep),
        )  # fmt: skip
        return bool(motion_matches(kind, r)[0])

    assert read(0.15) and not read(0.7)
