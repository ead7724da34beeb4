"""A routed query's answer from the evidence: one reader per channel, in a registry."""

from __future__ import annotations

from collections.abc import Callable

from ..moments import Moments
from ..query import Route
from .changes import score_changes
from .evidence import Evidence
from .match import people_moments, speech_moments, spoken_needle, text_moments

Reader = Callable[[Evidence, Route], tuple[Moments, dict]]

READERS: dict[str, Reader] = {
    "speech": lambda evidence, route: speech_moments(
        evidence.get("speech"), route.needle, evidence.spotted.get(spoken_needle(route.needle)),
        route.absent, evidence.duration_s,
    ),
    "text": lambda evidence, route: (
        score_changes(evidence.get("text"))
        if route.change
        else text_moments(evidence.get("text"), route.needle, route.kind)
    ),
    "people": lambda evidence, route: people_moments(
        evidence.get("people"), route.needle, route.absent, route.least, route.most
    ),
}


def answer(evidence: Evidence, route: Route) -> tuple[Moments, dict]:
    """The moments of `route.channel` that match, clipped to the video, and trace details.

    The channel must be in `evidence.channels` (the caller checks `evidence.notes` first).
    """
    moments, details = READERS[route.channel](evidence, route)
    return moments.clip(0.0, evidence.duration_s), details
