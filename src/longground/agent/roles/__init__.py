"""Backends for the agent's four roles. Importing this package registers all of them."""

from __future__ import annotations

from . import llm, offline
from .base import (
    ROLE_BACKENDS,
    ROLE_NAMES,
    Aggregation,
    AggregatorRole,
    Evidence,
    FilterResult,
    FilterRole,
    PlannerRole,
    Verdict,
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
