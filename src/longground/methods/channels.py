"""Sending a query to an evidence channel (`longground.channels`) instead of the image
encoder, for the methods that look at the frame index (retrieval, agent).

`routed_grounding` returns the channel's answer when the query asks about speech, on-screen
text or people and that channel is selected (`MethodConfig.channels`, default every installed
one); otherwise None, and the method goes on with the image encoder. Either way the routing
decision is put in the trace (`with_route`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..channels import ChannelStore, Route, parse_channels, route_query
from ..channels.answer import answer
from ..channels.match import spoken_needle
from ..errors import UserError
from ..moments import Moments
from .base import Grounding, MethodConfig


def routed_grounding(video: Path, query: str, config: MethodConfig) -> Grounding | None:
    """The answer of the channel `query` is routed to, or None for the image encoder.

    The first routed query on a video extracts every selected channel (one pass), so later
    queries read them from the cache.

    Raises:
        UserError: the routed channel cannot be read in this video (no audio stream, audio
            that does not decode): "no match" would be a false answer.
    """
    found = channel_answer(video, query, config)
    if found is None:
        return None
    route, names, moments, details = found
    if config.single and len(moments) > 1:
        moments = moments[np.argsort(-moments.scores, kind="stable")[:1]]
    trace = {"route": route_record(route, names), "channel": details}
    return Grounding(moments=moments, trace=trace)


def channel_answer(
    video: Path, text: str, config: MethodConfig
) -> tuple[Route, tuple[str, ...], Moments, dict] | None:
    """`(route, channels selected, moments, match details)` of the channel `text` is routed
    to, or None when it goes to the image encoder (or its channel is not selected).

    Raises:
        UserError: the routed channel cannot be read in this video (see `routed_grounding`).
    """
    route = route_query(text)
    if route.channel == "visual":
        return None
    names = parse_channels(getattr(config, "channels", None))
    if route.channel not in names:
        return None
    store = ChannelStore(config.cache_dir)
    evidence = store.get_or_build(video, names, config.fps)
    if route.channel in evidence.notes:
        raise UserError(
            f"{video}: cannot answer a {route.channel} query: {evidence.notes[route.channel]}"
        )
    if route.channel == "speech":
        evidence = store.with_spotted(video, evidence, spoken_needle(route.needle))
    moments, details = answer(evidence, route)
    return route, names, moments, details


def with_route(grounding: Grounding, query: str, config: MethodConfig) -> Grounding:
    """`grounding` with the routing decision in its trace (when it went to the encoder)."""
    if "route" not in grounding.trace:
        route = route_query(query)
        names = parse_channels(getattr(config, "channels", None))
        grounding.trace["route"] = {**route_record(route, names), "channel": "visual"}
    return grounding


def route_record(route: Route, names: tuple[str, ...]) -> dict:
    """The routing decision as the trace shows it (with why a channel was not used)."""
    record = {**route.to_dict(), "channels": list(names)}
    if route.channel not in ("visual", *names):
        record["asked"] = route.channel
        record["why_visual"] = f"the {route.channel} channel is not selected or not installed"
    return record
