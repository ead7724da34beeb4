"""What the roles look at for one query on one clip: the plan, the timeline and the graph.

Steps 2 to 4 pass one `Evidence` along; the filter, the verifier and the aggregator read it and
keep per-query results in its `memo`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .frames import FrameSampler
from .graph.nodes import Nodes
from .plan.planner import Plan
from .profiles import Profile
from .scene import CloserLooks


def timeline_step(times_s: np.ndarray) -> float:
    """The timeline's sample step in seconds (the median gap; 1.0 with fewer than two samples).

    >>> timeline_step(np.array([0.5, 1.0, 1.5])), timeline_step(np.array([3.0]))
    (0.5, 1.0)
    """
    return float(np.median(np.diff(times_s))) if len(times_s) > 1 else 1.0


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
        calibrations: per plan text, the calibration decided relative to the video
            (`perception.relative`); None: the roles' shared calibration.
        memo: per-query results a role may keep between calls (e.g. per-node scores).
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
    calibrations: dict[str, Any] | None = None
    memo: dict[str, Any] = field(default_factory=dict)

    @property
    def step_s(self) -> float:
        """The timeline's sample step in seconds (`timeline_step`)."""
        return timeline_step(self.times_s)
