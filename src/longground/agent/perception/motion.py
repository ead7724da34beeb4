"""Reading an action node's measured motion as the kind of motion a query asks for.

The flow of every action node is summarised by its magnitude (RMS displacement, fraction of
the frame width per sample step, `Nodes.motion`) and its moves per second (`Nodes.moves`:
the camera's pan and zoom, measured on the frame's top and bottom strips, the approach of
what moves towards the frame's centre line, the RMS flow, and the move of what differs from
the backdrop; see `graph.flow`). A query's motion kind (`Plan.motion`) is one of
`MOTION_KINDS`; each kind is a rule over those measures:

- "zoom_in" / "zoom_out": the zoom is >= `zoom_min` / <= -`zoom_min`;
- "pan": the camera pans at least `pan_min`, zooms less than `zoom_min`, and the pan is at
  least half of the RMS flow (the whole view slides: an object crossing a still camera can
  drag the border strips' median along, but most of the frame then stays);
- a zoom or a pan also needs no tracked move (what differs from the event's backdrop moves
  less than `track_min`: in a zoom or pan it stays spread around the centre, while an object
  crossing the border strips, which can make them read as a zoom or pan, is tracked);
- "moving": the magnitude reaches `moving_min` and the camera's move does not account for it
  (it neither zooms nor slides the whole view, as "pan" reads it): an object moves;
- "entering" / "leaving": an object moves ("moving"), and, apart from the camera, towards
  the frame's centre line (approach >= `approach_min`) / away from it
  (approach <= -`approach_min`); an object crossing the whole frame does both in turn, so a
  node holding the whole crossing reads as neither, and an instance in a shot whose object
  sweeps `sweep_min` of the width (read on the whole shot, `run_sweep(whole_shot=True)`) is
  a crossing, not an object sliding in or out and stopping;
- "crossing" ("moving across the screen", "from left to right"): an object moves, and what
  differs from its shot's backdrop sweeps at least `sweep_min` of the frame width over the
  instance (`perception.crossing.run_sweep`, the reading's `sweep`). A node may hold only
  part of a crossing, so a single node need only move (`NODE_RULES`); the instance as a whole
  must sweep. An object that slides in or out and stops sweeps far less than one that
  crosses.
- "still": nothing moves: magnitude under `moving_min`, pan under `pan_min` and zoom under
  `zoom_min` (a slow pan or zoom moves every pixel by less than `moving_min` per step, yet it
  is not a still shot).

Unmeasured nodes (NaN) read as no motion at all. A direction ("left to right") is read by
`heads`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..graph.nodes import MOVE_COLUMNS

PAN, ZOOM, APPROACH, FLOW, TRACK = (
    MOVE_COLUMNS.index(c)
    for c in ("pan_per_s", "zoom_per_s", "approach_per_s", "flow_per_s", "track_per_s")
)


@dataclass(frozen=True)
class MotionReading:
    """What the motion measures of some nodes are, and the thresholds that read them.

    Attributes:
        magnitude: `(K,)` RMS flow, fraction of the frame width per sample step.
        moves: `(K, 5)` per-second pan, zoom, approach, RMS flow and tracked move
            (`MOVE_COLUMNS`).
        moving_min: magnitude from which something moves.
        pan_min: |pan| per second (fraction of the frame width) from which the camera pans.
        zoom_min: |zoom| per second (relative scale change) from which the camera zooms.
        approach_min: |approach| per second (fraction of the frame width) from which
            something comes into or leaves the frame.
        track_min: |tracked move| per second (fraction of the frame width) from which what
            differs from the backdrop moves (`heads`, and see `camera_only`).
        sweep_min: how far (fraction of the frame width) what differs from the backdrop
            sweeps in a crossing.
        sweep: `(K,)` how far it swept (`perception.crossing.run_sweep`: over the instance
            for a crossing, over its shot for entering or leaving); None or NaN where not
            measured.
    """

    magnitude: np.ndarray
    moves: np.ndarray
    moving_min: float
    pan_min: float
    zoom_min: float
    approach_min: float
    track_min: float
    sweep_min: float = 0.5
    sweep: np.ndarray | None = None

    @property
    def moving(self) -> np.ndarray:
        return np.nan_to_num(self.magnitude, nan=0.0) >= self.moving_min

    @property
    def camera_only(self) -> np.ndarray:
        """The camera's move accounts for the motion: it zooms, or the whole view slides, and
        nothing that differs from the backdrop moves `track_min` (an object crossing the border
        strips can make them read as a zoom or a pan)."""
        pan = np.abs(self.column(PAN))
        slides = (pan >= self.pan_min) & (2 * pan >= self.column(FLOW))
        return (slides | (np.abs(self.column(ZOOM)) >= self.zoom_min)) & ~self.tracked

    @property
    def tracked(self) -> np.ndarray:
        """Something moves (`moving`) and what differs from the backdrop moves at least
        `track_min` (in a still shot that difference is noise, and its centre jumps)."""
        return self.moving & (np.abs(self.column(TRACK)) >= self.track_min)

    def column(self, index: int) -> np.ndarray:
        return np.nan_to_num(np.asarray(self.moves, np.float64)[:, index], nan=0.0)

    @property
    def swept(self) -> np.ndarray:
        """`(K,)` the sweep, 0 where not measured."""
        if self.sweep is None:
            return np.zeros(len(np.atleast_1d(self.magnitude)))
        return np.nan_to_num(np.asarray(self.sweep, np.float64), nan=0.0)

    def averaged(self, weights_s: np.ndarray) -> MotionReading:
        """One node: the duration-weighted mean of these nodes' measures (the sweep is not
        a mean: it is measured on the whole instance, and left unmeasured here).

        >>> r = MotionReading(np.array([0.0, 0.02]), np.zeros((2, 5)), 0.01, 1e-3, 5e-3, 1e-3, 0.05)
        >>> r.averaged(np.array([1.0, 3.0])).magnitude.round(6).tolist()
        [0.015]
        """
        w = np.asarray(weights_s, np.float64) + 1e-9
        mean = lambda x: np.average(np.nan_to_num(x, nan=0.0), axis=0, weights=w)  # noqa: E731
        return MotionReading(
            np.atleast_1d(mean(self.magnitude)),
            mean(np.asarray(self.moves, np.float64)).reshape(1, -1),
            self.moving_min,
            self.pan_min,
            self.zoom_min,
            self.approach_min,
            self.track_min,
            self.sweep_min,
        )


def _still(r: MotionReading) -> np.ndarray:
    calm = (np.abs(r.column(PAN)) < r.pan_min) & (np.abs(r.column(ZOOM)) < r.zoom_min)
    return ~r.moving & calm


def _zoom_in(r: MotionReading) -> np.ndarray:
    return (r.column(ZOOM) >= r.zoom_min) & ~r.tracked


def _zoom_out(r: MotionReading) -> np.ndarray:
    return (r.column(ZOOM) <= -r.zoom_min) & ~r.tracked


def _pan(r: MotionReading) -> np.ndarray:
    pan = np.abs(r.column(PAN))
    whole_view = 2 * pan >= r.column(FLOW)
    calm = (np.abs(r.column(ZOOM)) < r.zoom_min) & ~r.tracked
    return (pan >= r.pan_min) & whole_view & calm


def _object_moves(r: MotionReading) -> np.ndarray:
    return r.moving & ~r.camera_only


def _entering(r: MotionReading) -> np.ndarray:
    return _object_moves(r) & (r.column(APPROACH) >= r.approach_min) & (r.swept < r.sweep_min)


def _leaving(r: MotionReading) -> np.ndarray:
    return _object_moves(r) & (r.column(APPROACH) <= -r.approach_min) & (r.swept < r.sweep_min)


def _crossing(r: MotionReading) -> np.ndarray:
    return _object_moves(r) & (r.swept >= r.sweep_min)


#: Motion kind -> rule: `MotionReading -> (K,) bool`. The planner's motion words name these.
MOTION_KINDS: dict[str, Callable[[MotionReading], np.ndarray]] = {
    "moving": _object_moves,
    "still": _still,
    "zoom_in": _zoom_in,
    "zoom_out": _zoom_out,
    "pan": _pan,
    "entering": _entering,
    "leaving": _leaving,
    "crossing": _crossing,
}

#: The kinds whose instance's sweep is read (`perception.crossing.run_sweep`): a crossing
#: must sweep `sweep_min`, an object sliding in or out must not (it would be crossing).
SWEPT_KINDS = ("crossing", "entering", "leaving")
#: The kinds whose instance reads the camera's zoom from keypoints (`perception.camera`).
ZOOM_KINDS = ("zoom_in", "zoom_out")


def _no_object_moves(r: MotionReading) -> np.ndarray:
    return ~_object_moves(r)


#: The rule a single action node must meet for a plan of each kind, where it differs from the
#: kind's own: a node may hold only part of a crossing (the split cuts where the motion
#: changes), so each node need only move, and the instance, all its nodes together, must
#: cross. A zoom's node need only show no object moving: the flow misses slow zooms (they
#: read as still), and the instance's zoom is read from keypoints (`perception.camera`).
NODE_RULES: dict[str, Callable[[MotionReading], np.ndarray]] = {
    "crossing": _object_moves,
    **{kind: _no_object_moves for kind in ZOOM_KINDS},
}


def node_matches(kind: str, reading: MotionReading) -> np.ndarray:
    """`(K,)` bool: which nodes may hold part of an instance moving as `kind` says
    (`NODE_RULES`, else `motion_matches`).

    >>> moves = np.zeros((2, 5)); moves[1, 1] = 0.03
    >>> r = MotionReading(np.array([0.0, 0.03]), moves, 0.01, 1e-3, 5e-3, 1e-3, 0.05)
    >>> node_matches("zoom_out", r).tolist(), motion_matches("zoom_out", r).tolist()
    ([True, True], [False, False])
    """
    rule = NODE_RULES.get(kind)
    return np.asarray(rule(reading), bool) if rule else motion_matches(kind, reading)


def motion_matches(kind: str, reading: MotionReading) -> np.ndarray:
    """`(K,)` bool: which nodes move as `kind` says.

    >>> moves = np.array([[0, 0, 0, 0, np.nan], [0, 0.03, 0, 0.01, 0], [0.01, 0, 0, 0.01, 0]])
    >>> r = MotionReading(np.array([0.0, 0.008, 0.008]), moves, 0.01, 1e-3, 5e-3, 1e-3, 0.05)
    >>> [motion_matches(k, r).tolist() for k in ("still", "zoom_in", "zoom_out", "pan")]
    [[True, False, False], [False, True, False], [False, False, False], [False, False, True]]
    """
    if kind not in MOTION_KINDS:
        raise ValueError(f"unknown motion {kind!r}; choose one of {sorted(MOTION_KINDS)}")
    return np.asarray(MOTION_KINDS[kind](reading), bool)


def heads(
    direction: str, reading: MotionReading, drift: np.ndarray, drift_min: float
) -> np.ndarray:
    """`(K,)` bool: what moves in each node goes `direction` ("left" or "right").

    Where something moves and what differs from the backdrop moves at least the reading's
    `track_min` per second (`MotionReading.tracked`, `flow.centroid_track`), that move's sign
    decides: dense flow can read an object that
    jumps far between two samples backwards. Elsewhere (a slow or thin object whose move
    the backdrop's noise damps, or an event too short to track) the mean horizontal flow
    `drift` (per step) must reach `drift_min` that way.

    >>> moves = np.full((4, 5), np.nan); moves[:3, TRACK] = [0.2, -0.2, 0.01]
    >>> r = MotionReading(np.full(4, 0.05), moves, 0.01, 1e-3, 5e-3, 1e-3, 0.05)
    >>> heads("right", r, np.array([-0.01, 0.01, 0.01, 0.01]), 0.002).tolist()
    [True, False, True, True]
    """
    sign = 1.0 if direction == "right" else -1.0
    by_flow = np.nan_to_num(np.asarray(drift, np.float64), nan=0.0) * sign >= drift_min
    return np.where(reading.tracked, reading.column(TRACK) * sign > 0, by_flow)
