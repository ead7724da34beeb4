"""The agent's four roles: their interfaces (`interfaces`) and backends (`offline`, `llm`).
Importing this package registers every backend. The values the roles exchange live with the
step they belong to (`Evidence`, `FilterResult`, `Verdict`, `Aggregation`) and are re-exported
here."""

from __future__ import annotations

from ..aggregate import Aggregation
from ..evidence import Evidence
from ..perception.filter import FilterResult
from ..verify.loop import Verdict
from . import llm, offline
from .interfaces import (
    ROLE_BACKENDS,
    ROLE_NAMES,
    AggregatorRole,
    FilterRole,
    PlannerRole,
    VerifierRole,
    build_role,
    register_role,
)
from .offline import ScorerSettings

__all__ = [
    "ROLE_BACKENDS",
    "ROLE_NAMES",
    "Aggregation",
    "AggregatorRole",
    "Evidence",
    "FilterResult",
    "FilterRole",
    "PlannerRole",
    "ScorerSettings",
    "Verdict",
    "VerifierRole",
    "build_role",
    "llm",
    "offline",
    "register_role",
]
