"""The whole agent on a scripted fake video: shots with known objects and motion, an encoder
that sees them, and frames with a moving square for optical flow."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator

import numpy as np
import pytest

from longground.agent.graph.cache import GraphCache
from longground.agent.pipeline import CometAgent
from longground.agent.settings import AgentSettings
from longground.agent.source import Extras, ScoreScale, VideoSource
from longground.moments import tiou_matrix

OBJECTS = ("cat", "rocket", "cup", "car")
RNG = np.random.default_rng(7)
VECTORS = {name: v / np.linalg.norm(v) for name, v in zip(OBJECTS, RNG.normal(size=(4, 24)))}

# (length_s, objects on screen, object moving)
SCRIPT = [
    (12, (), False),
    (10, ("rocket",), False),
    (14, ("cat",), False),
    (9, ("cup",), False),
    (12, ("cat",), False),
    (8, ("rocket",), False),
    (11, ("cat",), True),
    (13, ("cat", "cup"), False),
    (10, ("car",), True),
    (9, (), False),
]


#: The shots' backdrop colours, told apart by the pixels (`perception.cuts`).
BACKDROPS = (
    (40, 40, 40),
    (160, 60, 60),
    (60, 160, 60),
    (60, 60, 160),
    (160, 160, 60),
    (60, 160, 160),
    (160, 60, 160),
    (120, 120, 120),
    (200, 120, 60),
    (60, 120, 200),
)


def shot_spans() -> np.ndarray:
    ends = np.cumsum([s[0] for s in SCRIPT]).astype(float)
    return np.stack([np.r_[0, ends[:-1]], ends], axis=1)


class FakeSource(VideoSource):
    """Timeline features from the script; `frames` draws a square that moves in moving shots."""

    scale = ScoreScale(0.5)

    def __init__(self) -> None:
        self.spans = shot_spans()
        self.duration_s = float(self.spans[-1, 1])
        self.key = "fake-video"
        self.decoded_s = 0.0
        rng = np.random.default_rng(1)
        self.backgrounds = rng.normal(size=(len(SCRIPT), 24))

    def shot_at(self, t: float) -> int:
        return int(min(np.searchsorted(self.spans[:, 1], t, side="right"), len(SCRIPT) - 1))

    def feature(self, t: float, objects: tuple[str, ...], rng) -> np.ndarray:
        """Background plus objects; a second object counts for little in a whole frame, like
        a classifier that only sees the dominant object."""
        i = self.shot_at(t)
        v = 0.8 * self.backgrounds[i] / np.linalg.norm(self.backgrounds[i])
        for weight, name in zip((1.0, 0.25), objects, strict=False):
            v = v + weight * VECTORS[name]
        v = v + 0.03 * rng.normal(size=24)
        return v / np.linalg.norm(v)

    def timeline(self, fps: float):
        times = np.arange(0, self.duration_s, 1 / fps)
        rng = np.random.default_rng(int(fps * 100))
        feats = np.array([self.feature(t, SCRIPT[self.shot_at(t)][1], rng) for t in times])
        feats = feats.astype(np.float32)
        return times, {"embedding": feats, "appearance": feats}

    @property
    def extras(self) -> Extras:
        """Its halves, and the channels and object views a subclass defines."""
        return Extras(getattr(self, "channel_answer", None), self.region_features,
                      objects=getattr(self, "object_features", None))  # fmt: skip

    def region_features(self, times_s):
        """Each half of a two-object shot shows one object alone."""
        rng = np.random.default_rng(5)
        rows = []
        for t in times_s:
            objs = SCRIPT[self.shot_at(t)][1]
            left, right = (objs[:1], objs[1:]) if len(objs) == 2 else (objs, objs)
            rows.append([self.feature(t, left, rng), self.feature(t, right, rng)])
        rows = np.array(rows, np.float32)
        return {"embedding": rows, "appearance": rows}

    def score(self, features, text):
        words = [o for o in OBJECTS if o in text]
        if not words:
            seed = int(hashlib.sha1(text.encode()).hexdigest()[:8], 16)
            v = np.random.default_rng(seed).normal(size=24)
            return features["embedding"] @ (v / np.linalg.norm(v))
        return features["embedding"] @ VECTORS[words[0]]

    def render(self, t: float) -> np.ndarray:
        """Each shot on a backdrop of its own colour (a cut changes the whole picture), with
        a square that crosses the frame from left to right in moving shots."""
        i = self.shot_at(t)
        frame = np.full((48, 64, 3), BACKDROPS[i % len(BACKDROPS)], np.uint8)
        frame[::4] = 90  # texture so flow has something to track
        x = 4 + int((t - self.spans[i, 0]) * 4) if SCRIPT[i][2] else 20
        frame[16:32, x : x + 16] = 250
        return frame

    def frames(self, windows, short_side) -> Iterator:
        for i, (start_s, end_s, fps) in enumerate(windows):
            times = np.arange(start_s, end_s, 1 / fps)
            self.decoded_s += end_s - start_s
            yield i, np.stack([self.render(t) for t in times]), times

    def frames_at(self, times_s):
        return np.stack([self.render(t) for t in times_s])


def cat_shots(after: str | None = None, with_: str | None = None) -> np.ndarray:
    """Shots showing the cat (and `with_`, or after a shot of `after`); touching shots form one
    moment, since a moment lasts as long as the query holds."""
    spans = shot_spans()
    keep = []
    for i, (_, objs, _) in enumerate(SCRIPT):
        if "cat" not in objs:
            continue
        if after and (i == 0 or after not in SCRIPT[i - 1][1]):
            continue
        if with_ and with_ not in objs:
            continue
        if keep and keep[-1][1] == spans[i][0]:
            keep[-1] = np.array([keep[-1][0], spans[i][1]])
        else:
            keep.append(spans[i])
    return np.array(keep)


def run(query: str, agent: CometAgent | None = None, source: FakeSource | None = None):
    agent = agent or CometAgent(AgentSettings(roles="offline"), 1.0, GraphCache(None))
    moments, trace = agent.run(source or FakeSource(), query)
    return moments, trace.to_dict()


def matched(pred: np.ndarray, gt: np.ndarray) -> bool:
    if len(pred) != len(gt):
        return False
    return bool(len(gt) == 0 or (tiou_matrix(pred, gt).max(axis=1) > 0.8).all())


@pytest.mark.parametrize(
    ("query", "truth"),
    [
        ("every time a cat appears", cat_shots()),
        ("a cat right after a rocket", cat_shots(after="rocket")),
        ("a giraffe", np.zeros((0, 2))),
        ("a cat right after a car", np.zeros((0, 2))),
    ],
)
@pytest.mark.parametrize("scene", ["general", "composited"])
def test_offline_agent_finds_scripted_moments(query, truth, scene):
    agent = CometAgent(AgentSettings(roles="offline", scene=scene), 1.0, GraphCache(None))
    moments, trace = run(query, agent)
    assert matched(moments.spans, truth), (moments.spans.tolist(), truth.tolist())
    assert trace["loop"]["stop_reason"] in ("exhausted", "no candidates")
    assert moments.count == len(truth)


def test_window_limits_the_search():
    moments, trace = run("between 00:00:20 and 00:01:10, every time a cat appears")
    assert trace["plan"]["window_s"] == [20.0, 70.0]
    assert ((moments.spans >= 20) & (moments.spans <= 70)).all()
    truth = np.clip(cat_shots()[:3], 20, 70)  # the third cat moment is cut by the window
    assert matched(moments.spans, truth), moments.spans.tolist()


def test_motion_requirement_uses_flow():
    moments, _ = run("a cat moving across the screen")
    moving_cat = shot_spans()[[6]]
    assert matched(moments.spans, moving_cat), moments.spans.tolist()


def test_second_query_reuses_the_graph(tmp_path):
    source = FakeSource()
    agent = CometAgent(AgentSettings(roles="offline"), 1.0, GraphCache(tmp_path))
    _, first = run("every time a cat appears", agent, source)
    decoded = source.decoded_s
    _, second = run("a cat right after a rocket", agent, source)
    assert not first["graph"]["events_cached"] and second["graph"]["events_cached"]
    assert second["counters"]["graph.splits_reused"] > 0
    assert source.decoded_s - decoded < decoded  # only newly kept events were decoded
    # A fresh agent on the same disk cache rebuilds nothing for the first query again.
    fresh = CometAgent(AgentSettings(roles="offline"), 1.0, GraphCache(tmp_path))
    _, third = run("every time a cat appears", fresh, source)
    assert third["graph"]["events_cached"] and third["counters"]["graph.splits_built"] == 0


class CappedSource(FakeSource):
    """A source whose video plays at 2 frames/s: faster timelines are capped there."""

    def sampled_fps(self, fps):
        return min(fps, 2.0)

    def timeline(self, fps):
        return super().timeline(self.sampled_fps(fps))


def test_graph_is_keyed_by_the_rate_actually_sampled(tmp_path):
    fast = CometAgent(AgentSettings(roles="offline"), 10.0, GraphCache(tmp_path))
    _, first = run("every time a cat appears", fast, CappedSource())
    assert first["graph"]["timeline_fps"] == 2.0
    # Asking for 4 samples/s of the same 2 frames/s video finds the graph built at 2.
    slower = CometAgent(AgentSettings(roles="offline"), 4.0, GraphCache(tmp_path))
    _, second = run("every time a cat appears", slower, CappedSource())
    assert second["graph"]["events_cached"]


def test_two_objects_are_found_together_only_by_looking_at_halves():
    settings = AgentSettings(roles="offline", regions=False)
    agent = CometAgent(settings, 1.0, GraphCache(None))
    moments, _ = run("a cat and a cup on screen together", agent)
    assert len(moments) == 0
    composited = AgentSettings(roles="offline", scene="composited")
    moments, trace = run("a cat and a cup together", CometAgent(composited, 1.0, GraphCache(None)))
    assert matched(moments.spans, cat_shots(with_="cup"))
    assert trace["counters"]["graph.region_frames"] > 0


def test_trace_records_every_step():
    _, trace = run("a cat right after a rocket")
    assert {"plan", "profile", "graph", "verifications", "memory", "aggregate"} <= set(trace)
    assert set(trace["stage_times_s"]) >= {"planner", "graph", "verification", "aggregator"}
    assert len(trace["verifications"]) == trace["loop"]["iterations"]
    assert all(e["kept"] in (True, False) for e in trace["graph"]["events"])
    assert json.loads(json.dumps(trace))["plan"]["relation"] == "right after"


class LookingSource(FakeSource):
    """A source whose tracked looks tell two cats apart: one in shots 2 and 7, another in
    shots 4 and 6 (the whole frames' features do not)."""

    @property
    def extras(self) -> Extras:
        return Extras(None, self.region_features, looks=self.looks)

    def looks(self, spans, text):
        other = {4, 6}
        shots = [self.shot_at((a + b) / 2) for a, b in spans]
        return np.array([[0.0, 1.0] if s in other else [1.0, 0.0] for s in shots])


def test_the_second_cat_is_told_apart_by_its_tracked_looks():
    spans = shot_spans()
    moments, trace = run("the second cat to appear", source=LookingSource())
    assert matched(moments.spans, spans[[4, 6]]), moments.spans.tolist()
    assert "identities by the looks of tracked crops" in json.dumps(trace["aggregate"])
    # without looks the frames' features decide, which see each shot's backdrop more than
    # its cat
    moments, _ = run("the second cat to appear")
    assert not matched(moments.spans, spans[[4, 6]]), moments.spans.tolist()


def test_a_reach_in_seconds_limits_after():
    """"Within 5 seconds after a rocket": each shot of the cat that starts at most 5 s after
    a rocket ends; the cat 23 s after one, and the second shot of a cat that runs on (11 s),
    are out."""
    spans = shot_spans()
    anywhere, _ = run("a cat after a rocket")
    assert matched(anywhere.spans, cat_shots()), anywhere.spans.tolist()
    near, trace = run("a cat within 5 seconds after a rocket")
    truth = spans[[2, 6]]
    assert matched(near.spans, truth), near.spans.tolist()
    assert trace["plan"]["reach_s"] == 5.0


def test_a_length_bound_keeps_the_moments_that_last():
    """The cat's moments are 14, 12 and 24 s long: "longer than 13 seconds" keeps two of them,
    "the first ... shorter than 13 seconds" the 12 s one."""
    cats = cat_shots()
    long, trace = run("shots of the cat longer than 13 seconds")
    assert matched(long.spans, cats[[0, 2]]), long.spans.tolist()
    assert list(trace["plan"]["length_s"]) == [13.0, None]
    short, _ = run("the first shot of the cat shorter than 13 seconds")
    assert matched(short.spans, cats[[1]]), short.spans.tolist()
    first_two, _ = run("the first two shots of the cat")
    assert matched(first_two.spans, cats[[0, 1]]), first_two.spans.tolist()


def test_near_in_time_reaches_both_sides():
    """"Within 5 seconds of a rocket": the cat shots a rocket ends or starts at most 5 s from
    (shot 4 ends as a rocket begins); the cat shot 11 s after the last rocket is out."""
    near, trace = run("a cat within 5 seconds of a rocket")
    assert matched(near.spans, shot_spans()[[2, 4, 6]]), near.spans.tolist()
    assert (trace["plan"]["relation"], trace["plan"]["reach_s"]) == ("near", 5.0)
