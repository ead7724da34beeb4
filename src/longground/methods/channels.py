"""Answering a query from an evidence channel (`longground.channels`) instead of the image
encoder, for the methods that look at the frame index (retrieval, agent).

The query's analysis (`longground.query.analyse`) has already said which channel each event
asks about. `routed_grounding` returns the channel's answer when the query is one event for
speech, on-screen text or people and that channel is selected (`MethodConfig.channels`,
default every installed one); otherwise None, and the method goes on with the image encoder.
Either way the analysis and the routing decision go into the trace (`with_route`).

Three kinds of query are answered from the method's own answers for other queries
(`derived_grounding`): where the event is *not* shown ("when is the cat not on screen",
`hidden_grounding`: that answer turned inside out), the shot next to it ("what comes after the
cat", `adjacent_grounding`: from its end to the next cut), and one of several things ("a car
or a truck", `either_grounding`: the answers joined). Questions about the edit itself ("every
cut", "black frames") are read from the pixels (`edits.edit_grounding`).
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
#: "What comes after X" runs from X's end to the next cut, looked for this far (and is this
#: long when none comes); "before" likewise back from X's start.
ADJACENT_MAX_S = 10.0


def best_one(moments: Moments) -> Moments:
    """The best-scored moment alone (`MethodConfig.single`); `moments` as they are when they
    hold one or none.

    >>> best_one(Moments.from_list([[0, 1], [5, 6]], [0.2, 0.9])).to_list()
    [[5.0, 6.0]]
    """
    if len(moments) <= 1:
        return moments
    return moments[np.argsort(-moments.scores, kind="stable")[:1]]


def derived_grounding(
    ground: Callable[[Path, str], Grounding], video: Path, analysis: QueryAnalysis,
    single: bool = False, cache_dir: Path | None = None,
) -> Grounding | None:  # fmt: skip
    """`edits.edit_grounding` (its reading kept under `cache_dir`), `hidden_grounding`,
    `adjacent_grounding` or `either_grounding` for the queries they answer, else None."""
    from .edits import edit_grounding

    return (
        edit_grounding(video, analysis, single, cache_dir)
        or hidden_grounding(ground, video, analysis, single)
        or adjacent_grounding(ground, video, analysis, single)
        or either_grounding(ground, video, analysis, single)
    )


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
    gaps = occurrence(shown.moments.gaps(start_s, end_s, HIDDEN_MIN_S), analysis.occurrence,
                      analysis.length_s)  # fmt: skip
    if single and len(gaps) > 1:
        gaps = gaps[np.argsort(-gaps.lengths_s, kind="stable")[:1]]
    trace = {**shown.trace, "analysis": analysis.to_record(),
             "hidden": {"query": shown_query, "shown": shown.moments.to_list(),
                        "min_s": HIDDEN_MIN_S}}  # fmt: skip
    return Grounding(moments=Moments(gaps.spans, np.ones(len(gaps))), trace=trace)


def adjacent_grounding(
    ground: Callable[[Path, str], Grounding], video: Path, analysis: QueryAnalysis,
    single: bool = False,
) -> Grounding | None:  # fmt: skip
    """The answer to "what comes after X" / "the shot before X" (`QueryAnalysis.adjacent`),
    or None for any other query: for each moment `ground(video, X)` finds, the next shot:
    from the cut within `HIDDEN_MIN_S` of its end (X's shot ends there; its end when there
    is none) to the next cut, at most `ADJACENT_MAX_S` past its end and never into X's next
    moment (before: the same, backwards from its start); inside the query's window, scored as
    X's moment (the best one alone with `single`)."""
    if not analysis.adjacent:
        return None
    from ..agent.frames import FrameSampler
    from ..agent.perception.cuts import cut_times
    from ..agent.perception.intervals import occurrence
    from ..query import Relation
    from ..video import frames_at, probe

    condition = analysis.conditions[0].text
    shown = ground(video, condition)
    duration_s = probe(video).duration_s
    frames = FrameSampler(lambda times_s: frames_at(video, times_s).frames)
    after = analysis.relation in (Relation.AFTER, Relation.RIGHT_AFTER)
    shown_spans = shown.moments.spans
    # a neighbour stops where X shows again: what comes after the cat is not the cat
    next_s = [min((s for s in shown_spans[:, 0] if s >= e), default=duration_s)
              for e in shown_spans[:, 1]]  # fmt: skip
    last_s = [max((e for e in shown_spans[:, 1] if e <= s), default=0.0)
              for s in shown_spans[:, 0]]  # fmt: skip
    spans = []
    for (start_s, end_s), stop_s, since_s in zip(shown_spans, next_s, last_s):
        if after:
            reach_s = min(end_s + ADJACENT_MAX_S, stop_s)
            cuts = cut_times(frames, end_s - HIDDEN_MIN_S, reach_s)
            near = cuts[cuts <= end_s + HIDDEN_MIN_S]
            begin_s = near[0] if len(near) else end_s
            later = cuts[cuts >= begin_s + HIDDEN_MIN_S]
            spans.append([begin_s, later[0] if len(later) else reach_s])
        else:
            reach_s = max(start_s - ADJACENT_MAX_S, since_s)
            cuts = cut_times(frames, reach_s, start_s + HIDDEN_MIN_S)
            near = cuts[cuts >= start_s - HIDDEN_MIN_S]
            finish_s = near[-1] if len(near) else start_s
            earlier = cuts[cuts <= finish_s - HIDDEN_MIN_S]
            spans.append([earlier[-1] if len(earlier) else reach_s, finish_s])
    scores = shown.moments.scores
    found = Moments(np.array(spans).reshape(-1, 2),
                    np.ones(len(spans)) if scores is None else scores)  # fmt: skip
    found = found[found.lengths_s >= HIDDEN_MIN_S]  # X at the video's edge has no neighbour
    start_s, end_s = analysis.window_s(duration_s) or (0.0, duration_s)
    found = occurrence(found.clip(start_s, end_s).merge(), analysis.occurrence, analysis.length_s)
    found = best_one(found) if single else found
    trace = {**shown.trace, "analysis": analysis.to_record(),
             "adjacent": {"query": condition, "shown": shown.moments.to_list(),
                          "side": "after" if after else "before",
                          "max_s": ADJACENT_MAX_S}}  # fmt: skip
    return Grounding(moments=found, trace=trace)


def either_grounding(
    ground: Callable[[Path, str], Grounding], video: Path, analysis: QueryAnalysis,
    single: bool = False,
) -> Grounding | None:  # fmt: skip
    """The answer to "a car or a truck" (`QueryAnalysis.alternatives`), or None for any other
    query: the moments `ground` finds for each thing inside the query's window, joined where
    they overlap (the best score kept; the best moment alone with `single`), then the
    occurrence asked for ("the first time a cat or a dog appears")."""
    if not analysis.alternatives:
        return None
    from ..agent.perception.intervals import occurrence

    asked = [" ".join(filter(None, (analysis.window, a))) for a in analysis.alternatives]
    found = [ground(video, query) for query in asked]
    parts = [f.moments if f.moments.scores is not None else
             Moments(f.moments.spans, np.ones(len(f.moments))) for f in found]  # fmt: skip
    joined = Moments(np.concatenate([p.spans for p in parts]).reshape(-1, 2),
                     np.concatenate([p.scores for p in parts])).merge()  # fmt: skip
    joined = occurrence(joined, analysis.occurrence, analysis.length_s)
    joined = best_one(joined) if single else joined
    routes = [f.trace.get("route") for f in found]
    trace = {"analysis": analysis.to_record(),
             "either": [{"query": q, "moments": f.moments.to_list(), "route": r}
                        for q, f, r in zip(asked, found, routes, strict=True)]}  # fmt: skip
    if routes[0] is not None and all(r == routes[0] for r in routes):
        trace["route"] = routes[0]  # one channel answered every thing
    return Grounding(moments=joined, trace=trace)


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
    moments = best_one(moments) if config.single else moments
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
