"""Step 2 on a real video: event level from the feature timeline, action level from optical
flow inside the kept events. Both are cached per video (see cache.py)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import numpy as np

from ...progress import progress_bar
from ..profiles import PROFILES, Profile
from ..settings import AgentSettings
from ..source import VideoSource, segment_features
from ..trace import Trace
from .actions import action_bounds
from .cache import GraphCache
from .events import bounds_to_spans, event_bounds
from .flow import FLOW_METHODS, centroid_track, field_stats, flow_stats, small_gray
from .nodes import ActionSplit, Nodes, action_level, make_nodes, unknown_moves

# Short events are sampled faster, up to this rate, so that each holds at least
# `MIN_FLOW_FRAMES` frames.
MAX_FLOW_FPS = 8.0
#: Frames an event's flow window holds at least (`flow_window`). A piece of an action node
#: spans at least two flow pairs, so at rho_A = 1 fps a 5-second shot (4 pairs) could not be
#: cut into the still stretch and the second in which something slides in: eight frames hold
#: a still piece, a moving piece and a still piece again (2 + 2 + 3 pairs).
MIN_FLOW_FRAMES = 8
# Action splits are written to the disk cache at least this often while they are computed.
SAVE_EVERY_S = 10.0
PROFILES_LONG = PROFILES["long"]  # for the examples


def event_nodes(
    cache: GraphCache,
    video_key: str,
    times_s: np.ndarray,
    features: dict[str, np.ndarray],
    window_s: tuple[float, float],
    profile: Profile,
    timeline_fps: float,
    hops: int,
    full_rate: bool = True,
) -> tuple[Nodes, bool]:
    """The event level of the clip `window_s` (its samples are `times_s`).

    With `full_rate`, every timeline sample is used even when the timeline is denser than the
    profile's rho_E (the features are already paid for, and a coarse rate misses short shots);
    otherwise every `round(timeline_fps / rho_E)`-th sample.

    Returns:
        `(nodes, from_cache)`.
    """
    stride = 1 if full_rate else max(int(round(timeline_fps / profile.event_fps)), 1)
    settings = ("events-v2", window_s[0], window_s[1], timeline_fps, stride, profile.tau_e)
    bounds = cache.events(video_key, settings)
    from_cache = bounds is not None
    if bounds is None:
        bounds = event_bounds(features["appearance"], profile.tau_e, stride=stride)
        cache.put_events(video_key, settings, bounds)
    spans = bounds_to_spans(bounds, times_s, window_s[1])
    spans[0, 0] = window_s[0]
    z_features = segment_features(features)
    return make_nodes(spans, times_s, z_features, profile.sigma, hops), from_cache


def flow_window(
    span_s: tuple[float, float], profile: Profile, margin_s: float = 0.0
) -> tuple[float, float, float]:
    """Where and how fast one event is sampled for optical flow: `(start_s, end_s, fps)`.

    `margin_s` is left out at both ends whenever at least `margin_s` remains: an event boundary
    is only known to within a timeline step, and a flow pair straddling the real cut reads as
    a burst of motion (a 2-second still shot read 0.14 of the frame width per step with its
    margins kept). Events too short for `MIN_FLOW_FRAMES` frames at rho_A are sampled faster,
    up to `MAX_FLOW_FPS`.

    >>> flow_window((10.5, 20.5), PROFILES_LONG, margin_s=0.5)
    (11.0, 20.0, 1.0)
    >>> flow_window((10.5, 12.5), PROFILES_LONG, margin_s=0.5)
    (11.0, 12.0, 8.0)
    >>> flow_window((10.5, 15.5), PROFILES_LONG, margin_s=0.5)
    (11.0, 15.0, 2.0)
    """
    start_s, end_s = span_s
    if end_s - start_s >= 3 * margin_s:
        start_s, end_s = start_s + margin_s, end_s - margin_s
    dense = MIN_FLOW_FRAMES / max(end_s - start_s, 1e-6)
    fps = min(max(profile.action_fps, dense), MAX_FLOW_FPS)
    return start_s, end_s, fps


def split_from_gray(
    gray: np.ndarray, pts_s: np.ndarray, fps: float, profile: Profile, settings: AgentSettings
) -> ActionSplit:
    """Flow of one event's grey frames `(T, h, w)` (shown at `pts_s`, sampled at `fps`) cut
    with PELT (Eq. 14, hard wavelet); fewer than two frames give one node of unknown motion.

    The magnitude and drift are per step of rho_A whatever `fps` the event was sampled at
    (`flow_window` samples short events faster): they are measured on frames a rho_A step
    apart (`_rho_steps`), so the per-step thresholds (`moving_min`, `drift_min`) mean the same
    on every event, and the flow's noise, which does not shrink with the step, is not scaled
    up with it."""
    if len(gray) < 2:
        return ActionSplit(np.zeros(0), np.array([np.nan]), np.array([np.nan]), unknown_moves(1))
    stats = flow_stats(gray, settings.flow)
    g = stats[:, 0]
    min_size = max(2, int(round(settings.min_action_s * fps)))
    bounds = action_bounds(g, profile.beta, min_size=min_size, min_range=settings.min_motion_range)
    # A cut between two samples is placed halfway; both samples lie inside the event.
    cuts = 0.5 * (pts_s[bounds[1:, 0] - 1] + pts_s[bounds[1:, 0]])
    pieces = np.array([stats[a : max(min(b, len(g)), a + 1)].mean(axis=0) for a, b in bounds])
    steps = max(int(round(fps / profile.action_fps)), 1)
    if steps > 1:
        per_rho_step = fps / (steps * profile.action_fps)
        pieces[:, :2] = _rho_steps(gray, bounds, steps, settings.flow) * per_rho_step
    track = centroid_track(gray)
    tracked = [_weighted_move(track[a : max(min(b, len(g)), a + 1)]) for a, b in bounds]
    # pan, zoom, approach and tracked move per second (flow: per sample step), and the
    # magnitude (per rho_A step when sampled faster) per second
    flow_per_s = pieces[:, 0] * (profile.action_fps if steps > 1 else fps)
    moves = np.c_[pieces[:, 2:5] * fps, flow_per_s, np.multiply(tracked, fps)]
    return ActionSplit(cuts, pieces[:, 0], pieces[:, 1], moves)


def _rho_steps(gray: np.ndarray, bounds: np.ndarray, steps: int, method: str) -> np.ndarray:
    """`(P, 2)` mean magnitude and drift of each piece over frame pairs `steps` samples
    apart (a piece shorter than that: its first and last frame, scaled to `steps`)."""
    flow = FLOW_METHODS[method]()
    out = np.zeros((len(bounds), 2))
    last = len(gray) - 1
    for i, (a, b) in enumerate(np.asarray(bounds, dtype=np.int64)):
        b = min(int(b), last)
        if b - a >= steps:
            pairs = [(t, t + steps) for t in range(a, b - steps + 1)]
            out[i] = np.mean([field_stats(flow(gray[s], gray[e]))[:2] for s, e in pairs], axis=0)
        elif b > a:
            out[i] = field_stats(flow(gray[a], gray[b]))[:2] * steps / (b - a)
    return out


def _weighted_move(track: np.ndarray) -> float:
    """Mass-weighted mean move of `centroid_track` rows; NaN when nothing differs."""
    weight = track[:, 1].sum()
    return float(track[:, 0] @ track[:, 1] / weight) if weight > 0 else float("nan")


def split_event(
    source: VideoSource,
    span_s: tuple[float, float],
    profile: Profile,
    settings: AgentSettings,
    margin_s: float = 0.0,
) -> ActionSplit:
    """Decode one event at rho_A, measure flow and cut it with PELT (see `flow_window` and
    `split_from_gray`)."""
    return next(split_events(source, [span_s], profile, settings, margin_s))[1]


def split_events(
    source: VideoSource,
    spans_s: list[tuple[float, float]],
    profile: Profile,
    settings: AgentSettings,
    margin_s: float = 0.0,
) -> Iterator[tuple[tuple[float, float], ActionSplit]]:
    """The action splits of time-ordered, disjoint event spans, computed as the frames of
    one decoding pass over all of them arrive (`VideoSource.frames`): only the
    grey `flow_side` frames of the event in progress are held, never the decoded ones.

    Yields:
        `(span, split)` per span, in the order given.
    """
    windows = [flow_window(span, profile, margin_s) for span in spans_s]
    done = -1
    grays: list[np.ndarray] = []
    pts: list[np.ndarray] = []

    def finish(i: int) -> ActionSplit:
        gray = np.concatenate(grays) if grays else np.zeros((0, 1, 1), np.uint8)
        at = np.concatenate(pts) if pts else np.zeros(0)
        grays.clear(), pts.clear()
        return split_from_gray(gray, at, windows[i][2], profile, settings)

    for i, frames, pts_s in source.frames(windows, settings.flow_side):
        while done + 1 < i:  # windows before `i` are complete (some may have had no frame)
            done += 1
            yield spans_s[done], finish(done)
        grays.append(small_gray(frames, settings.flow_side))
        pts.append(np.asarray(pts_s, dtype=np.float64))
    while done + 1 < len(windows):
        done += 1
        yield spans_s[done], finish(done)


def action_nodes(
    source: VideoSource,
    cache: GraphCache,
    video_key: str,
    events: Nodes,
    kept: np.ndarray,
    times_s: np.ndarray,
    embedding: np.ndarray,
    profile: Profile,
    settings: AgentSettings,
    trace: Trace,
    margin_s: float = 0.0,
) -> Nodes:
    """The action level over the kept events, reusing cached splits and computing the rest."""
    key = (
        "actions-v6",  # short events sampled densely, margins kept, magnitudes per rho_A step
        profile.action_fps,
        profile.beta,
        settings.flow,
        settings.flow_side,
        settings.min_action_s,
        settings.min_motion_range,
        margin_s,
    )
    known = cache.splits(video_key, key)
    splits, fresh, built = {}, {}, 0
    last_save = time.monotonic()
    spans = {int(e): (float(events.spans_s[e, 0]), float(events.spans_s[e, 1]))
             for e in np.flatnonzero(kept)}  # fmt: skip
    todo = sorted({span for span in spans.values() if span not in known})
    with progress_bar(len(todo), desc="motion", unit="event", enabled=bool(todo)) as bar:
        with trace.timed("graph.flow"):
            for span, split in split_events(source, todo, profile, settings, margin_s):
                known[span] = fresh[span] = split
                built += 1
                bar.update(1)
                if time.monotonic() - last_save > SAVE_EVERY_S:  # never lose much finished work
                    cache.put_splits(video_key, key, fresh)
                    fresh, last_save = {}, time.monotonic()
    splits = {e: known[span] for e, span in spans.items()}
    cache.put_splits(video_key, key, fresh)
    trace.count("graph.splits_built", built)
    trace.count("graph.splits_reused", len(splits) - built)
    with trace.timed("graph.actions"):
        return action_level(
            events, np.flatnonzero(kept), splits, times_s, embedding, profile.sigma, settings.hops
        )
