"""Queries across channels: each sub-event of the plan goes to the channel it asks about,
and the per-sub-event moments are combined with the plan's relation.

"every time the speaker mentions the budget while a chart is on screen" plans as target
"the speaker mentions the budget" (speech), condition "a chart" (the image encoder), relation
while. Each sub-event is answered on its own: a channel's moments (`Extras.channel_answer`
on the phrase as the query words it), or, for the image encoder, the agent's own answer to a
plan of that text alone (`visual`). The target's moments inside the plan's window are then
kept or cut by each condition (`perception.intervals.relate`), "returns" drop the first, and
"the first / last time" keeps one occurrence.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..moments import Moments
from ..query import Route
from .perception.intervals import occurrence, relate
from .plan.planner import Plan
from .source import ChannelAnswer

#: `visual(text, index, window_s) -> (moments, trace record)`: the image encoder's answer for
#: plan text `index` (0: the target) alone, searched inside `window_s`.
Visual = Callable[[str, int, tuple[float, float]], tuple[Moments, dict]]


@dataclass(frozen=True)
class SubEvent:
    """One text of the plan and who answered it: a channel, or the image encoder (None)."""

    role: str
    text: str
    phrase: str
    answer: ChannelAnswer | None

    @property
    def channel(self) -> str:
        return "visual" if self.answer is None else self.answer.channel


def sub_events(
    plan: Plan, answer: Callable[[Route], ChannelAnswer | None] | None
) -> list[SubEvent]:
    """The plan's texts (target first), each with the channel answer of its route (none
    without `answer`: a source with no channels)."""
    return [
        SubEvent("target" if i == 0 else "condition", text, plan.phrase(i),
                 None if answer is None else answer(plan.route(i)))
        for i, text in enumerate(plan.texts)
    ]  # fmt: skip


def combine(
    plan: Plan,
    events: list[SubEvent],
    visual: Visual,
    duration_s: float,
    near_s: float,
    slack_s: float,
) -> tuple[Moments, dict]:
    """The plan's answer from its sub-events' moments, and the trace record.

    Args:
        plan: the query plan.
        events: `sub_events(plan, ...)`, the target first.
        visual: answers a sub-event no channel took (see `Visual`).
        duration_s: the video's length; conditions are looked for over all of it.
        near_s: reach of "right after" / "right before" / causal relations, seconds.
        slack_s: timing tolerance of sampled channels, seconds.

    Returns:
        `(moments, record)`: the record lists every sub-event with its channel, the words it
        looked for and its moments, then the relation, window and count.
    """
    found: list[Moments] = []
    records = []
    for i, event in enumerate(events):
        window = plan.window_s if i == 0 else (0.0, duration_s)
        if event.answer is not None:
            moments, detail = event.answer.moments.clip(*window), event.answer.record
        else:
            moments, detail = visual(event.text, i, window)
        found.append(moments)
        records.append({"role": event.role, "text": event.text, "phrase": event.phrase,
                         "channel": event.channel, "moments": moments.to_list(),
                         **detail})  # fmt: skip
    answer = found[0]
    for condition in found[1:]:
        answer = relate(plan.relation, answer, condition, near_s, slack_s, plan.reach_s)
    answer = answer.sorted()
    if plan.skip_first and len(answer):
        answer = answer[1:]
    answer = occurrence(answer, plan.occurrence or plan.ordinal, plan.length_s)
    record = {"subevents": records, "relation": plan.relation.value,
              "window_s": list(plan.window_s), "occurrence": plan.occurrence or plan.ordinal,
              "reach_s": plan.reach_s, "length_s": plan.length_s,
              "near_s": near_s, "slack_s": slack_s, "count": len(answer)}  # fmt: skip
    return answer, record
