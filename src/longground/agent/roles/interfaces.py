"""The four agent roles and the registry of their backends.

A role backend is a small class with one method. Backends register under (role, name): the
offline scorers ("offline") need only the encoder's frame scores; the Video-LLM backends
("llm") need a `ChatClient` and decoded frames.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

import numpy as np

from ...errors import UserError
from ..aggregate import Aggregation
from ..evidence import Evidence
from ..perception.filter import FilterResult
from ..plan.planner import Plan
from ..verify.loop import Verdict
from ..verify.memory import MemoryEntry

ROLE_NAMES = ("planner", "filter", "verifier", "aggregator")


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
