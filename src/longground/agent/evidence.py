"""What the roles look at for one query on one clip: the plan, the timeline, the graph, and
what the perception read on them once (`Readings`).

Steps 2 to 4 pass one `Evidence` along; the filter, the verifier and the aggregator read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from .frames import FrameSampler
from .graph.nodes import Nodes
from .perception.cuts import EventCuts
from .perception.episode import ShotEpisodes
from .perception.presence import Calibration, timeline_step
from .perception.relative import Decision
from .perception.visibility import Visibility
from .plan.planner import Plan
from .profiles import Profile
from .scene import CloserLooks
from .source import LooksFn


@dataclass
class Readings:
    """What the roles read on one query's frames and keep for its later candidates.

    Attributes:
        visibility: per shared calibration, the query's `Visibility` (`Evidence.visibility`).
        episodes: per shot index, the shots and episodes read around it (None: too few
            frames), `perception.episode.shot_episodes`.
        own_shots: per shot index of a sliver, whether it is a shot of its own.
        backdrops: per backdrop name, `(A,)` its probability on each action node.
    """

    visibility: dict[Calibration, Visibility] = field(default_factory=dict)
    episodes: dict[int, ShotEpisodes | None] = field(default_factory=dict)
    own_shots: dict[int, bool] = field(default_factory=dict)
    backdrops: dict[str, np.ndarray] = field(default_factory=dict)


@dataclass
class Evidence:
    """Everything the roles may look at for one query on one clip.

    Attributes:
        plan: the query plan.
        times_s: `(T,)` timeline sample times inside the plan's window.
        embedding: `(T, D)` frame embeddings at those times (edge weights).
        appearance: `(T, F)` appearance features at those times (identity comparisons).
        scores: raw encoder relevance `(T,)` per plan text (target and conditions).
        events: the event level of the graph.
        actions: the action level (None until Step 2 has built it).
        frames: the query's frame sampler (`frames.FrameSampler`), or None without frames.
        closer: the scene's closer looks at the frames (`scene.CloserLooks`: frame halves
            and object boxes in the composited scene), or None.
        profile: the graph profile in use (its budgets bound what roles look at).
        decisions: per plan text, its "visible" threshold decided on the video and the
            distribution it came from (`perception.relative.Decision`).
        calibrations: per plan text, the calibration of its decision (`relative.calibrations`);
            a text without one takes the roles' shared calibration.
        readings: what the roles read on the frames once and keep (`Readings`).
        looks: the looks of a text's target in spans of the video (`source.Extras.looks`),
            or None.
    """

    plan: Plan
    times_s: np.ndarray
    embedding: np.ndarray
    appearance: np.ndarray
    scores: dict[str, np.ndarray]
    events: Nodes
    actions: Nodes | None = None
    frames: FrameSampler | None = None
    closer: CloserLooks | None = None
    profile: Profile | None = None
    decisions: dict[str, Decision] = field(default_factory=dict)
    calibrations: dict[str, Calibration] = field(default_factory=dict)
    readings: Readings = field(default_factory=Readings)
    looks: LooksFn | None = None

    @property
    def step_s(self) -> float:
        """The timeline's sample step in seconds (`timeline_step`)."""
        return timeline_step(self.times_s)

    def visibility(self, calibration: Calibration) -> Visibility:
        """The query's `Visibility` with the roles' shared `calibration` (each text with its
        own where it has one), made once."""
        kept = self.readings.visibility
        if calibration not in kept:
            kept[calibration] = Visibility(
                self.times_s, self.scores, calibration, self.calibrations, self.closer
            )
        return kept[calibration]

    @cached_property
    def cuts(self) -> EventCuts:
        """Which event boundaries are cuts (`perception.cuts.EventCuts`), read as asked."""
        return EventCuts(self.frames, self.events.spans_s, self.step_s)

    @cached_property
    def shots(self) -> np.ndarray:
        """`(E,)` shot index of each event node: events joined across boundaries that are not
        cuts (`cuts.shots()`)."""
        return self.cuts.shots()
