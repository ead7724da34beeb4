"""Video-LLM role backends: each role is one prompt (`prompts/agent_*.md`), timestamped frames,
and a strict-JSON reply (see `reply.ask_json`).

An unreadable reply is retried once; if it stays unreadable it counts as malformed and is
handled as a rejection: the verifier rejects the candidate, the filter drops the events of that
request, the planner falls back to the rule grammar, and the aggregator to the offline
consolidation.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...llm.base import ChatClient, Message
from ...llm.prompts import render_prompt
from ...moments import Moments
from ...timecode import format_time
from ..aggregate import Aggregation, consolidate
from ..evidence import Evidence
from ..perception.filter import FilterResult, event_batches, event_listing, merge_kept, read_keep
from ..perception.motion import MOTION_KINDS
from ..plan.planner import Plan, Relation, plan_query, with_source
from ..profiles import PROFILES
from ..verify.loop import Verdict
from ..verify.memory import MemoryEntry
from .interfaces import AggregatorRole, FilterRole, PlannerRole, VerifierRole, register_role
from .reply import BadReply, ask_json


def describe_parts(plan: Plan) -> str:
    """The plan in one line for prompts.

    >>> describe_parts(
    ...     Plan(query="q", target="a cat", conditions=("a rocket",), relation=Relation.RIGHT_AFTER)
    ... )
    'target "a cat"; condition "a rocket" (relation: right after)'
    """
    text = f'target "{plan.target}"'
    if plan.motion:
        text += f" ({plan.motion})"
    if plan.conditions:
        conds = ", ".join(f'"{c}"' for c in plan.conditions)
        text += f"; condition {conds} (relation: {plan.relation.value})"
    return text


def _number(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not np.isfinite(value):
        raise BadReply(f'"{name}" must be a number')
    return float(value)


def read_plan(data: Any, query: str, duration_s: float) -> Plan:
    """Validate the planner's JSON into a `Plan`."""
    if not isinstance(data, dict) or not isinstance(data.get("target"), str) or not data["target"]:
        raise BadReply('expected an object with a non-empty "target"')
    conditions = data.get("conditions") or []
    if not isinstance(conditions, list) or not all(isinstance(c, str) for c in conditions):
        raise BadReply('"conditions" must be a list of strings')
    try:
        relation = Relation(str(data.get("relation", "none")).lower())
    except ValueError:
        raise BadReply(f'unknown "relation" {data.get("relation")!r}') from None
    window = (0.0, float(duration_s))
    if data.get("window") is not None:
        w = data["window"]
        if not isinstance(w, list) or len(w) != 2:
            raise BadReply('"window" must be [start_seconds, end_seconds] or null')
        lo, hi = sorted((_number(w[0], "window"), _number(w[1], "window")))
        window = (min(max(lo, 0.0), duration_s), min(max(hi, 0.0), duration_s))
    motion = data.get("motion")
    if motion is not None and motion not in MOTION_KINDS:
        raise BadReply(f'"motion" must be one of {", ".join(MOTION_KINDS)} or null')
    ordinal = data.get("ordinal")
    if ordinal is not None and (isinstance(ordinal, bool) or not isinstance(ordinal, int)):
        raise BadReply('"ordinal" must be an integer or null')
    skip_first = data.get("skip_first", False)
    if not isinstance(skip_first, bool):
        raise BadReply('"skip_first" must be true or false')
    profile = str(data.get("profile", "")).lower()
    if profile not in PROFILES:
        raise BadReply(f'"profile" must be one of {", ".join(PROFILES)}')
    return Plan(
        query=query,
        target=data["target"].strip(),
        conditions=tuple(c.strip() for c in conditions if c.strip()),
        relation=relation,
        window_s=window,
        motion=motion,
        ordinal=ordinal or None,
        skip_first=skip_first,
        profile=profile,
        source="llm",
    )


@register_role("planner", "llm")
class LLMPlanner(PlannerRole):
    """Asks the model for the plan; an unreadable answer falls back to the rule grammar."""

    def __init__(self, client: ChatClient, **_: object) -> None:
        self.client = client

    def plan(self, query: str, duration_s: float) -> Plan:
        prompt = render_prompt(
            "agent_planner",
            query=query,
            duration_s=f"{duration_s:.1f}",
            duration_hms=format_time(duration_s),
            relations=", ".join(r.value for r in Relation),
        )
        reply = ask_json(
            self.client, Message("user", prompt), lambda d: read_plan(d, query, duration_s)
        )
        if reply.ok:
            return reply.value
        note = f"llm planner reply unreadable ({reply.errors[-1]}); used the rule grammar"
        return with_source(plan_query(query, duration_s), "rules-fallback", note)


def _frame_times(spans_s: np.ndarray, per_span: int) -> np.ndarray:
    """`per_span` evenly placed times inside each span (centres of equal slices)."""
    frac = (np.arange(per_span) + 0.5) / per_span
    return spans_s[:, :1] + (spans_s[:, 1:] - spans_s[:, :1]) * frac[None, :]


@register_role("filter", "llm")
class LLMFilter(FilterRole):
    """Shows events in batches of `batch` (each by `frames_per_event` frames); the model names
    the ones to keep (`perception.filter` reads and merges the answers)."""

    def __init__(self, client: ChatClient, frames_per_event: int = 2, batch: int = 8, **_: object):
        self.client, self.per_event, self.batch = client, frames_per_event, batch

    def select(self, evidence: Evidence) -> FilterResult:
        n_events = len(evidence.events.spans_s)
        batches = event_batches(n_events, self.batch)
        return merge_kept(n_events, [(ids, self._ask(evidence, ids)) for ids in batches])

    def _ask(self, ev: Evidence, ids: list[int]) -> list[int] | None:
        times = _frame_times(ev.events.spans_s[ids], self.per_event)
        frames = ev.frames.frames(times.reshape(-1))
        labels = [f"event {i}, {t:.1f} s" for i, row in zip(ids, times, strict=True) for t in row]
        prompt = render_prompt(
            "agent_filter",
            query=ev.plan.query,
            parts=describe_parts(ev.plan),
            n_events=len(ids),
            event_list=event_listing(ev.events.spans_s, ids),
        )
        message = Message("user", prompt, list(frames), labels, times.reshape(-1).tolist())
        reply = ask_json(self.client, message, lambda data: read_keep(data, ids))
        return reply.value if reply.ok else None


@register_role("verifier", "llm")
class LLMVerifier(VerifierRole):
    """Shows `n_frames` frames over the perception context (half of them inside the candidate)
    and asks for a memory tuple or a rejection."""

    def __init__(self, client: ChatClient, n_frames: int = 12, **_: object) -> None:
        self.client, self.n_frames = client, n_frames

    def verify(self, evidence: Evidence, candidate: int, context: np.ndarray) -> Verdict:
        acts = evidence.actions
        cand = acts.spans_s[candidate]
        lo, hi = float(acts.spans_s[context, 0].min()), float(acts.spans_s[context, 1].max())
        inside = max(self.n_frames // 2, 1)
        times = np.sort(
            np.r_[
                _frame_times(cand[None], inside)[0],
                _frame_times(np.array([[lo, hi]]), self.n_frames - inside)[0],
            ]
        )
        frames = evidence.frames.frames(times)
        labels = [f"{t:.1f} s" + (" candidate" if cand[0] <= t <= cand[1] else "") for t in times]
        prompt = render_prompt(
            "agent_verifier",
            query=evidence.plan.query,
            parts=describe_parts(evidence.plan),
            duration_s=f"{evidence.plan.window_s[1]:.1f}",
            start_s=f"{cand[0]:.1f}",
            end_s=f"{cand[1]:.1f}",
            context_start_s=f"{lo:.1f}",
            context_end_s=f"{hi:.1f}",
        )
        z = evidence.embedding[acts.frames[candidate, 0] : acts.frames[candidate, 1]].mean(axis=0)

        def validate(data: Any) -> MemoryEntry | None:
            if not isinstance(data, dict) or not isinstance(data.get("verified"), bool):
                raise BadReply('expected an object with a boolean "verified"')
            if not data["verified"]:
                return None
            start = _number(data.get("start_s", cand[0]), "start_s")
            end = _number(data.get("end_s", cand[1]), "end_s")
            conf = _number(data.get("confidence"), "confidence")
            if not 0.0 <= conf <= 1.0:
                raise BadReply('"confidence" must be between 0 and 1')
            start, end = min(max(start, lo), hi), min(max(end, lo), hi)
            if end <= start:
                raise BadReply('"end_s" must be after "start_s" inside the shown frames')
            return MemoryEntry(str(data.get("summary", "")), start, end, conf, candidate, z)

        message = Message("user", prompt, list(frames), labels, times.tolist())
        reply = ask_json(self.client, message, validate)
        details = {"replies": reply.texts}
        if reply.malformed:
            return Verdict(None, "model reply unreadable: " + reply.errors[-1], True, details)
        if reply.value is None:
            return Verdict(None, "rejected by the model", details=details)
        return Verdict(reply.value, "verified by the model", details=details)


@register_role("aggregator", "llm")
class LLMAggregator(AggregatorRole):
    """Sends the memory bank as text; the model groups entries into occurrences."""

    def __init__(self, client: ChatClient, **_: object) -> None:
        self.client = client

    def aggregate(self, evidence: Evidence, entries: list[MemoryEntry]) -> Aggregation:
        if not entries:
            return Aggregation(Moments.empty(), [], reason="empty memory bank")
        listing = "\n".join(
            f"{i}: {e.start_s:.1f}-{e.end_s:.1f}, {e.confidence:.2f}, {e.summary}"
            for i, e in enumerate(entries)
        )
        prompt = render_prompt("agent_aggregator", query=evidence.plan.query, entries=listing)

        def validate(data: Any) -> list[list[int]]:
            groups = data.get("occurrences") if isinstance(data, dict) else None
            if not isinstance(groups, list) or not all(isinstance(g, list) and g for g in groups):
                raise BadReply('expected {"occurrences": [[moment numbers], ...]}')
            flat = [i for g in groups for i in g]
            if any(not isinstance(i, int) or not 0 <= i < len(entries) for i in flat):
                raise BadReply("unknown moment numbers")
            if len(set(flat)) != len(flat):
                raise BadReply("a moment is listed twice")
            return groups

        reply = ask_json(self.client, Message("user", prompt), validate)
        if reply.malformed:
            plan = evidence.plan
            moments, groups = consolidate(entries, ordinal=plan.ordinal, skip_first=plan.skip_first)
            return Aggregation(
                moments, groups, True, "model reply unreadable; offline consolidation"
            )
        groups = sorted(reply.value, key=lambda g: min(entries[i].start_s for i in g))
        spans = [
            [min(entries[i].start_s for i in g), max(entries[i].end_s for i in g)] for g in groups
        ]
        scores = [max(entries[i].confidence for i in g) for g in groups]
        return Aggregation(
            Moments.from_list(spans, scores) if groups else Moments.empty(),
            groups,
            reason="grouped by the model",
        )
