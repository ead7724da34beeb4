"""Graph-building profiles (CoMET Table 4) and the rule that picks one.

A profile is a complete, consistent set of graph settings. The planner picks a profile by name
instead of inventing numbers, so every run uses one of a few tested configurations.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from ..errors import UserError


@dataclass(frozen=True)
class Profile:
    """Settings for Step 2 (graph building) and Step 3 (traversal and budgets).

    Attributes:
        name: "short", "medium" or "long".
        event_fps: rho_E, sampling rate of the appearance features for event segmentation.
        tau_e: event boundary threshold on the smoothed inter-frame cosine similarity.
        action_fps: rho_A, sampling rate of the optical flow for action segmentation.
        beta: PELT penalty for action segmentation.
        sigma: temporal-decay scale of the edge weights, in hops.
        tau: edge traversal threshold.
        max_coarse_events: most event nodes a verifier sees around a candidate.
        max_action_nodes: most action nodes in one perception context.
    """

    name: str
    event_fps: float
    tau_e: float
    action_fps: float
    beta: float
    sigma: float
    tau: float
    max_coarse_events: int
    max_action_nodes: int

    def with_overrides(self, overrides: dict[str, Any]) -> Profile:
        """A copy with some fields replaced (e.g. from `-p tau_e=0.9`); unknown keys are ignored
        here because method params hold other settings too."""
        fields = {k: type(getattr(self, k))(v) for k, v in overrides.items() if hasattr(self, k)}
        fields.pop("name", None)
        return replace(self, **fields)


# Table 4 of the CoMET paper, as published.
PROFILES: dict[str, Profile] = {
    "short": Profile("short", 2.0, 0.92, 2.0, 0.30, 2.0, 0.85, 3, 4),
    "medium": Profile("medium", 1.0, 0.88, 2.0, 0.50, 3.0, 0.82, 4, 6),
    "long": Profile("long", 0.5, 0.82, 1.0, 0.70, 5.0, 0.78, 6, 8),
}
ORDER = ("short", "medium", "long")
SHORT_MAX_S = 10 * 60.0
MEDIUM_MAX_S = 30 * 60.0

# Words that announce fast or brief actions: those queries get the next finer profile.
_FAST = re.compile(
    r"\b(quick(ly)?|fast|rapid(ly)?|brief(ly)?|sudden(ly)?|instant(ly)?|split[- ]second|"
    r"flash(es)?|blink)\b",
    re.IGNORECASE,
)


def profile_for_duration(duration_s: float) -> str:
    """The Table 4 regime of a clip: short (< 10 min), medium (10-30 min) or long (> 30 min).

    >>> profile_for_duration(300), profile_for_duration(1200), profile_for_duration(3600)
    ('short', 'medium', 'long')
    """
    if duration_s < SHORT_MAX_S:
        return "short"
    return "medium" if duration_s <= MEDIUM_MAX_S else "long"


def choose_profile(duration_s: float, query: str = "") -> Profile:
    """Pick the profile for a (trimmed) clip of `duration_s` seconds and a query.

    The duration gives the regime; a query that asks for quick or brief actions moves one
    step finer (long -> medium -> short), since fast actions need denser sampling.

    >>> choose_profile(3600).name, choose_profile(3600, "a quick glance at the door").name
    ('long', 'medium')
    """
    name = profile_for_duration(duration_s)
    if _FAST.search(query):
        name = ORDER[max(ORDER.index(name) - 1, 0)]
    return PROFILES[name]


def get_profile(name: str) -> Profile:
    """The profile called `name`.

    Raises:
        UserError: no profile has that name.
    """
    try:
        return PROFILES[name.lower()]
    except KeyError:
        raise UserError(
            f"unknown agent profile {name!r}; choose one of: {', '.join(ORDER)}"
        ) from None
