"""Answering a query from an evidence channel (`longground.channels`) instead of the image
encoder, for the methods that look at the frame index (retrieval, agent).

The query's analysis (`longground.query.analyse`) has already said which channel each event
asks about. `routed_grounding` returns the channel's answer when the query is one event for
speech, on-screen text or people and that channel is selected (`MethodConfig.channels`,
default every installed one); otherwise None, and the method goes on with the image encoder.
Either way the analysis and the routing decision go into the trace (`with_route`).

A query for where its event is *not* shown ("when is the cat not on screen") is answered by
`hidden_grounding` with the method's own answer for the event, turned inside out.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..channels import ChannelStore, parse_channels
from ..channels.answer import answer
from ..channels.match import spoken_needle
from ..errors import UserError
from ..moments import Moments
from ..query import QueryAnalysis, Route
from .base import Grounding, MethodConfig
from .confidence import calibrated

#: A gap between the moments that show a thing shorter than this is no moment without it.
HIDDEN_MIN_S = 1.0


def hidden_grounding(
    ground: Callable[[Path, str], Grounding], video: Path, analysis: QueryAnalysis,
    single: bool = False,
) -> Grounding | None:  # fmt: skip
    """The answer to "when is X not shown" (`QueryAnalysis.hidden`), or None for any other
    query: the stretches of at least `HIDDEN_MIN_S`, inside the query's window, between the
    moments `ground(video, X)` finds (the longest one with `single`; the first or last one
    for "the first time X is not shown"), each scored 1."""
    if not analysis.hidden:
        return None
    from ..agent.perception.intervals import occurrence
    from ..video import probe

    shown_query = " ".join(filter(None, (analysis.window, analysis.target.text)))
    shown = ground(video, shown_query)
    duration_s = probe(video).duration_s
    start_s, end_s = analysis.window_s(duration_s) or (0.0, duration_s)
    gaps = occurrence(shown.moments.gaps(start_s, end_s, HIDDEN_MIN_S), analysis.occurrence)
    if single and len(gaps) > 1:
        gaps = gaps[np.argsort(-gaps.lengths_s, kind="stable")[:1]]
    trace = {**shown.trace, "analysis": analysis.to_record(),
             "hidden": {"query": shown_query, "shown": shown.moments.to_list(),
                        "min_s": HIDDEN_MIN_S}}  # fmt: skip
    return Grounding(moments=Moments(gaps.spans, np.ones(len(gaps))), trace=trace)


def routed_grounding(
    video: Path, analysis: QueryAnalysis, config: MethodConfig
) -> Grounding | None:
    """The channel's answer to a one-event query, or None for the image encoder.

    Raises:
        UserError: the routed channel cannot be read in this video (no audio stream, audio
            that does not decode): "no match" would be a false answer.
    """
    if analysis.compound:
        return None
    route = analysis.target.route
    found = channel_answer(video, route, config)
    if found is None:
        return None
    names, moments, details = found
    if config.single and len(moments) > 1:
        moments = moments[np.argsort(-moments.scores, kind="stable")[:1]]
    trace = {"analysis": analysis.to_record(),
             "route": route_record(route, names), "channel": details}  # fmt: skip
    return calibrated(Grounding(moments=moments, trace=trace), route.channel)


def channel_answer(
    video: Path, route: Route, config: MethodConfig
) -> tuple[tuple[str, ...], Moments, dict] | None:
    """`(channels selected, moments, match details)` of the channel `route` names, or None
    when it names the image encoder (or a channel that is not selected).

    Only the channel asked for is extracted (and cached), so a speech query on a new video
    does not wait for on-screen text to be read.

    Raises:
        UserError: the routed channel cannot be read in this video (see `routed_grounding`).
    """
    names = parse_channels(getattr(config, "channels", None))
    if route.channel not in names:
        return None
    store = ChannelStore(config.cache_dir)
    evidence = store.get_or_build(video, (route.channel,), config.fps)
    if route.channel in evidence.notes:
        raise UserError(
            f"{video}: cannot answer a {route.channel} query: {evidence.notes[route.channel]}"
        )
    if route.channel == "speech" and spoken_needle(route.needle):
        evidence = store.with_spotted(video, evidence, spoken_needle(route.needle))
    moments, details = answer(evidence, route)
    return names, moments, details


def with_route(grounding: Grounding, analysis: QueryAnalysis, config: MethodConfig) -> Grounding:
    """`grounding` with the analysis and the routing decision in its trace (when it went to
    the image encoder)."""
    grounding.trace.setdefault("analysis", analysis.to_record())
    if "route" not in grounding.trace:
        names = parse_channels(getattr(config, "channels", None))
        record = route_record(analysis.target.route, names)
        if analysis.compound and record["channel"] != "visual":
            record["why_visual"] = "a query of several events is answered event by event"
        grounding.trace["route"] = {**record, "channel": "visual"}
    return grounding


def route_record(route: Route, names: tuple[str, ...]) -> dict:
    """The routing decision as the trace shows it (with why a channel was not used)."""
    record = {**route.to_dict(), "channels": list(names)}
    if route.channel not in ("visual", *names):
        record["asked"] = route.channel
        record["why_visual"] = f"the {route.channel} channel is not selected or not installed"
    return record
