"""The four agent roles, the evidence they share, and the registry of their backends.

A role backend is a small class with one method. Backends register under (role, name): the
offline scorers ("offline") need only the encoder's frame scores; the Video-LLM backends
("llm") need a `ChatClient` and decoded frames.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...errors import UserError
from ...moments import Moments
from ..graph import Nodes
from ..memory import MemoryEntry
from ..planner import Plan
from ..profiles import Profile

ROLE_NAMES = ("planner", "filter", "verifier", "aggregator")
FramesAt = Callable[[np.ndarray], np.ndarray]


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
        frames_at: decodes `(N, H, W, 3)` uint8 frames at given times (LLM roles only).
        score_features: the encoder's `score(features, text) -> (M,)` on feature rows.
        regions: region features `(N, R, ...)` at given times (see `regions.RegionIndex`),
            or None when the source has none.
        profile: the graph profile in use (its budgets bound what roles look at).
        memo: per-query results a role may keep between calls (e.g. per-node scores).
    """

    plan: Plan
    times_s: np.ndarray
    embedding: np.ndarray
    appearance: np.ndarray
    scores: dict[str, np.ndarray]
    events: Nodes
    actions: Nodes | None = None
    frames_at: FramesAt | None = None
    score_features: Callable[[dict[str, np.ndarray], str], np.ndarray] | None = None
    regions: Callable[[np.ndarray], dict[str, np.ndarray]] | None = None
    profile: Profile | None = None
    memo: dict[str, Any] = field(default_factory=dict)


UNREADABLE_DROP = "drop: model reply unreadable"  # a filter's reason for events it could not judge


@dataclass
class FilterResult:
    """Which event nodes go on to the action graph.

    Attributes:
        keep: `(E,)` bool.
        relevance: `(E,)` float, the role's relevance of each event (for ordering).
        reasons: one short text per event.
        malformed: model answers that stayed unreadable after the retry.
    """

    keep: np.ndarray
    relevance: np.ndarray
    reasons: list[str]
    malformed: int = 0


@dataclass
class Verdict:
    """A verifier's answer for one candidate: a memory entry, or a rejection and why."""

    entry: MemoryEntry | None
    reason: str
    malformed: bool = False
    details: dict[str, Any] = field(default_factory=dict)


@dataclass
class Aggregation:
    """The final answer: moments (scores = confidence) and which entries form each one."""

    moments: Moments
    groups: list[list[int]]
    malformed: bool = False
    reason: str = ""


class PlannerRole(ABC):
    @abstractmethod
    def plan(self, query: str, duration_s: float) -> Plan:
        """Decompose `query` for a video of `duration_s` seconds."""


class FilterRole(ABC):
    @abstractmethod
    def select(self, evidence: Evidence) -> FilterResult:
        """Decide which event nodes may hold the target or a condition."""


class VerifierRole(ABC):
    @abstractmethod
    def verify(self, evidence: Evidence, candidate: int, context: np.ndarray) -> Verdict:
        """Check action node `candidate` against the plan, seeing the nodes in `context`."""


class AggregatorRole(ABC):
    @abstractmethod
    def aggregate(self, evidence: Evidence, entries: list[MemoryEntry]) -> Aggregation:
        """Consolidate the memory bank into the final moments."""


RoleFactory = Callable[..., Any]
ROLE_BACKENDS: dict[tuple[str, str], RoleFactory] = {}


def register_role(role: str, backend: str) -> Callable[[RoleFactory], RoleFactory]:
    """Register a backend class for one role under a name."""
    if role not in ROLE_NAMES:
        raise ValueError(f"unknown role {role!r}")

    def wrap(factory: RoleFactory) -> RoleFactory:
        ROLE_BACKENDS[(role, backend)] = factory
        return factory

    return wrap


def build_role(role: str, backend: str, **kwargs: Any) -> Any:
    """Build the backend `backend` of `role` with its keyword settings.

    Raises:
        UserError: no such backend for that role.
    """
    try:
        factory = ROLE_BACKENDS[(role, backend)]
    except KeyError:
        names = sorted(b for r, b in ROLE_BACKENDS if r == role)
        raise UserError(
            f"no {role} backend {backend!r}; choose one of: {', '.join(names)}"
        ) from None
    return factory(**kwargs)
