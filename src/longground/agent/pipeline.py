"""CoMET-Agent end to end: plan (Step 1), build the graph (Step 2), verify (Step 3) and
aggregate (Step 4), recording everything in a `Trace`."""

from __future__ import annotations

import math
import threading
from dataclasses import asdict, dataclass, replace

import numpy as np

from ..cache.kinds import agent_rate_key
from ..moments import Moments
from ..query.vocabulary import neighbour_texts
from .combine import combine, sub_events
from .confidence import Weights, rescored
from .frames import FrameSampler
from .graph.cache import GraphCache
from .graph.flat import flat_candidates, flat_nodes
from .graph.levels import action_nodes, event_nodes
from .perception.fallback import clear_event_spans
from .perception.filter import UNREADABLE_DROP
from .perception.intervals import occurrence
from .perception.null import NULL_TEXTS, best_standout, gate, null_standout, text_null
from .perception.presence import pooled
from .perception.relative import RelativeRule, calibrations, decide
from .plan.planner import Relation
from .profiles import PROFILES, SHORT_MAX_S, Profile
from .roles import (
    ROLE_NAMES,
    AggregatorRole,
    Evidence,
    FilterRole,
    PlannerRole,
    ScorerSettings,
    VerifierRole,
    build_role,
)
from .scene import Scene
from .scenes import scene_for
from .settings import AgentSettings
from .source import VideoSource, segment_features
from .trace import ParseFailure, Trace
from .verify.budget import scaled_budget, standing_out, unexamined
from .verify.coverage import coverage_order, uniform_order
from .verify.loop import LoopResult, Verdict, verification_loop
from .verify.memory import MemoryBank

# Used when neither the settings nor the encoder say what raw score means "visible".
FALLBACK_THRESHOLD = 0.5


@dataclass
class Roles:
    """The four role backends of one agent."""

    planner: PlannerRole
    filter: FilterRole
    verifier: VerifierRole
    aggregator: AggregatorRole


def make_roles(
    settings: AgentSettings, threshold: float, client=None, width: float | None = None,
    scene: Scene | None = None,
) -> Roles:  # fmt: skip
    """Build the role backends the settings ask for (LLM ones need `client`); `width`: the
    source's score units per unit of log-odds, if it knows them; `scene`: the perception the
    scene adds (default: the general scene's, nothing)."""
    scorer = ScorerSettings.from_agent(settings, threshold, width)
    extra = {
        "filter": {"frames_per_event": settings.filter_frames, "batch": settings.filter_batch},
        "verifier": {"n_frames": settings.verifier_frames},
    }
    built = {}
    for role in ROLE_NAMES:
        backend = settings.backend(role, client is not None)
        built[role] = build_role(
            role, backend, settings=scorer, client=client, scene=scene or Scene(),
            **extra.get(role, {}),
        )  # fmt: skip
    return Roles(**built)


def clip_timeline(
    times_s: np.ndarray, features: dict[str, np.ndarray], window_s: tuple[float, float]
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The timeline samples inside `window_s` (the nearest one if the window holds none).

    >>> t, f = clip_timeline(np.arange(5.0), {"x": np.arange(5)}, (1.5, 3.5))
    >>> t.tolist(), f["x"].tolist()
    ([2.0, 3.0], [2, 3])
    """
    times_s = np.asarray(times_s)
    inside = (times_s >= window_s[0]) & (times_s < window_s[1])
    if not inside.any():
        inside[np.argmin(np.abs(times_s - (window_s[0] + window_s[1]) / 2))] = True
    if inside.all():  # the whole video: no copy of its features
        return times_s, {k: np.asarray(v) for k, v in features.items()}
    rows = np.flatnonzero(inside)
    if rows[-1] - rows[0] + 1 == len(rows):  # times rise, so the window is one run: views
        rows = slice(rows[0], rows[-1] + 1)
    return times_s[rows], {k: np.asarray(v)[rows] for k, v in features.items()}


def graph_record(fps, times_s, cached, events, kept, actions) -> dict:
    """The graph part of the trace: every event node with its filter decision, every action
    node."""
    decisions = zip(events.to_records(), kept.keep, kept.relevance, kept.reasons, strict=True)
    return {
        "timeline_fps": fps,
        "n_samples": int(len(times_s)),
        "events_cached": cached,
        "events": [
            {**r, "kept": bool(k), "relevance": float(v), "reason": why}
            for r, k, v, why in decisions
        ],
        "actions": actions.to_records(),
    }


class CometAgent:
    """Grounds queries on `VideoSource`s; keeps graph pieces in `cache` between queries."""

    def __init__(self, settings: AgentSettings, index_fps: float, cache: GraphCache, client=None):
        self.settings, self.index_fps, self.cache, self.client = settings, index_fps, cache, client
        self.scene = scene_for(settings, cache.root)
        self._roles: dict[tuple[float, float | None], Roles] = {}
        self._nulls: dict[tuple, dict[str, float]] = {}  # null standouts per video and events
        self._lock = threading.Lock()  # queries may run in several threads at once

    def absolute_threshold(self, source: VideoSource) -> float:
        """The raw score meaning "visible" before any decision relative to the video."""
        threshold = self.settings.presence_threshold
        if threshold is None:
            threshold = source.scale.threshold
        return FALLBACK_THRESHOLD if threshold is None else threshold

    def roles(self, source: VideoSource) -> Roles:
        key = (self.absolute_threshold(source), source.scale.width)
        with self._lock:
            if key not in self._roles:
                self._roles[key] = make_roles(
                    self.settings, key[0], self.client, key[1], self.scene
                )
            return self._roles[key]

    def profile(self, name: str) -> Profile:
        chosen = name if self.settings.profile == "auto" else self.settings.profile
        return PROFILES[chosen].with_overrides(self.settings.overrides)

    def run(self, source: VideoSource, query: str) -> tuple[Moments, Trace]:
        """All four steps for one query. When a sub-event of the plan asks about an evidence
        channel (speech, on-screen text, people), the sub-events are answered one by one and
        combined with the plan's relation (`agent.combine`)."""
        trace, roles = Trace(), self.roles(source)
        plan, profile = self._plan(source, query, roles, trace)
        start_s, end_s = plan.window_s
        if end_s <= start_s:
            trace.put("stopped", "the query's time window lies outside the video")
            return Moments.empty(), trace
        with trace.timed("graph.channels"):
            events = sub_events(plan, source.extras.channel_answer)
        if any(event.answer is not None for event in events):
            return self._combined(source, plan, profile, events, trace), trace
        moments = self._ground_plan(source, plan, profile, trace)
        return occurrence(moments, plan.occurrence, plan.length_s), trace

    def _ground_plan(self, source: VideoSource, plan, profile: Profile, trace: Trace) -> Moments:
        """Steps 2 to 4 on the frame graph for a plan."""
        start_s, end_s = plan.window_s
        roles = self.roles(source)
        evidence = self._graph(source, plan, profile, trace)
        if evidence.actions is None or len(evidence.actions) == 0:
            trace.put("loop", {"iterations": 0, "stop_reason": "no candidates", "order": []})
            trace.put("unexamined", self._unexamined(evidence, []))
            trace.put("verifications", [])
            trace.put("memory", [])
            moments = self._fallback(evidence, Moments.empty(), trace)
            return self._rescore(evidence, moments, source, trace)
        with trace.timed("verification"):
            loop = self._verify(evidence, roles, profile, trace)
        trace.put("unexamined", self._unexamined(evidence, loop.steps))
        moments = self._aggregate(evidence, roles, loop.bank.entries, trace)
        moments = self._fallback(evidence, moments, trace)
        return self._rescore(evidence, moments.clip(start_s, end_s), source, trace)

    @staticmethod
    def _unexamined(ev: Evidence, steps: list[dict]) -> dict:
        """The trace's "unexamined" record (`verify.budget.unexamined`)."""
        return unexamined(ev.plan.window_s, ev.events, ev.actions, steps)

    def _combined(self, source: VideoSource, plan, profile: Profile, events, trace: Trace):
        """The answer of a plan whose sub-events go to different channels: sub-events for the
        image encoder get the frame graph's answer to a plan of their text alone (its trace
        under the sub-event's "agent"), then `combine` applies the relation."""

        def visual(text: str, index: int, window_s: tuple[float, float]):
            alone = replace(
                plan, target=text, conditions=(), ordinal=None, skip_first=False,
                occurrence=None, window_s=window_s, phrases=(plan.phrase(index),),
                relation=Relation.BETWEEN if window_s != (0.0, source.duration_s)
                else Relation.NONE,
                **({} if index == 0 else {"motion": None, "backdrop": None, "direction": None,
                                          "colourless": False}),
            )  # fmt: skip
            inner = Trace()
            inner.put("plan", alone.to_record())
            moments = self._ground_plan(source, alone, profile, inner)
            for name, seconds in inner.timings.items():
                trace.timings[name] += seconds
            return moments, {"agent": inner.to_dict()}

        s = self.settings
        slack_s = 1.0 / self.index_fps  # channels sample at most at the index's rate
        moments, record = combine(plan, events, visual, source.duration_s, s.near_s, slack_s)
        trace.put("combined", record)
        return moments

    def _plan(self, source: VideoSource, query: str, roles: Roles, trace: Trace):
        """Step 1: the query's plan and the graph profile it asks for."""
        with trace.timed("planner"):
            plan = roles.planner.plan(query, source.duration_s)
        trace.put("plan", plan.to_record())
        trace.count("malformed.planner", int(plan.source == "rules-fallback"))
        profile = self.profile(plan.profile)
        trace.put("profile", asdict(profile))
        return plan, profile

    def timeline_fps(self, duration_s: float, profile: Profile) -> float:
        """The feature-index rate: the configured one, raised to rho_E only for videos short
        enough that a denser index of the whole video is cheap (a short *window* of a long
        video must not trigger a dense index of all of it)."""
        if duration_s < SHORT_MAX_S:
            return max(self.index_fps, profile.event_fps)
        return self.index_fps

    def _graph(self, source: VideoSource, plan, profile: Profile, trace: Trace) -> Evidence:
        """Step 2: timeline, event nodes, text scores, filter, action nodes."""
        fps = source.sampled_fps(self.timeline_fps(source.duration_s, profile))
        video_key = agent_rate_key(source.key, fps)
        with trace.timed("graph.timeline"):
            times_s, feats = clip_timeline(*source.timeline(fps), plan.window_s)
        with trace.timed("graph.events"):
            if self.settings.graph:
                events, cached = event_nodes(
                    self.cache, video_key, times_s, feats, plan.window_s, profile, fps,
                    self.settings.hops, self.settings.full_rate_events,
                )  # fmt: skip
            else:  # CoMET Table 6, "w/o Temporal Graph"
                segment_s = self.settings.flat_segment_s
                flat = flat_nodes(times_s, segment_features(feats), plan.window_s, segment_s)
                events, cached = flat, False
        with trace.timed("graph.scores"):
            scores = {t: np.asarray(source.score(feats, t), np.float64) for t in plan.texts}
            decisions = self._decide(source, fps, plan.texts, trace, events.spans_s)
        evidence = Evidence(
            plan, times_s, feats["embedding"], feats["appearance"], scores, events,
            frames=FrameSampler(source.frames_at),
            closer=self.scene.closer(source, video_key, trace),
            profile=profile, decisions=decisions,
            calibrations=calibrations(decisions, self._width(source)),
            looks=source.extras.looks,
        )  # fmt: skip
        with trace.timed("graph.filter"):
            kept = self.roles(source).filter.select(evidence)
        trace.count("malformed.filter", kept.malformed)
        if len(kept.reasons) and all(r == UNREADABLE_DROP for r in kept.reasons):
            trace.parse_failure = ParseFailure("every filter reply of the model was unreadable")
        if self.settings.graph:
            evidence.actions = action_nodes(
                source, self.cache, video_key, events, kept.keep, times_s,
                segment_features(feats), profile, self.settings, trace, margin_s=0.5 / fps,
            )  # fmt: skip
        else:
            evidence.actions = flat_candidates(events, kept.keep, times_s, segment_features(feats))
        trace.put("graph", graph_record(fps, times_s, cached, events, kept, evidence.actions))
        return evidence

    def _width(self, source: VideoSource) -> float:
        """Width of the presence logistic (the same for every text)."""
        return ScorerSettings.from_agent(
            self.settings, self.absolute_threshold(source), source.scale.width
        ).calibration.width

    def _decide(self, source: VideoSource, fps: float, texts, trace: Trace, spans_s=None) -> dict:
        """Step 2: each text's "visible" threshold from its scores over the whole video
        (`perception.relative`), lowered only for a text that stands out further than the
        null texts do on the events `spans_s` (`perception.null`), recorded in the trace
        under "decision"."""
        s = self.settings
        rule = RelativeRule(s.k_mad, s.max_drop, s.min_spread) if s.relative else None
        all_times_s, feats = source.timeline(fps)
        absolute = self.absolute_threshold(source)
        scores = {t: source.score(feats, t) for t in texts}
        decisions = {t: decide(scores[t], absolute, rule) for t in texts}
        record = {
            "rule": None if rule is None else asdict(rule),
            "texts": {t: d.to_record() for t, d in decisions.items()},
        }
        if rule is not None and s.null_gate and spans_s is not None and len(spans_s):

            def standouts(null_texts: tuple[str, ...]) -> dict[str, float]:
                return null_standout(
                    lambda text: source.score(feats, text),
                    lambda x: decide(x, absolute, rule), all_times_s, spans_s, null_texts,
                )  # fmt: skip

            key = (source.key, fps, tuple(np.round(np.asarray(spans_s).ravel(), 3)))
            if key not in self._nulls:
                self._nulls[key] = standouts(NULL_TEXTS)
            nulls = self._nulls[key]
            for t in texts:
                standout = best_standout(all_times_s, scores[t], spans_s, decisions[t])
                # Neighbours can only raise the bar: scored only for a text that clears the
                # vocabulary's ("a cat" has 145).
                clears = standout >= text_null(t, nulls, {})[1]
                near = standouts(neighbour_texts(t)) if clears else {}
                null, null_z = text_null(t, nulls, near)
                decisions[t] = gate(decisions[t], standout, null_z)
                record["texts"][t] = {**decisions[t].to_record(), "standout": standout,
                                      "null": [null, null_z], "neighbours": near}  # fmt: skip
            record["null"] = {"null_z": max(nulls.values()), "texts": nulls}
        trace.put("decision", record)
        return decisions

    def _fallback(self, ev: Evidence, moments: Moments, trace: Trace) -> Moments:
        """An empty answer to a plain presence query becomes the events that stand clearly
        above the video (`perception.fallback`); recorded in the trace under "fallback"."""
        plan, k_clear = ev.plan, self.settings.fallback_k
        plain = plan.relation is Relation.NONE and plan.ordinal is None and not plan.skip_first
        plain = plain and plan.motion is None and plan.backdrop is None and plan.direction is None
        if moments.count or not plain or k_clear <= 0:
            return moments
        decision = ev.decisions[plan.target]
        spans, z = clear_event_spans(
            ev.events.spans_s, ev.times_s, ev.scores[plan.target], decision, k_clear,
            self.settings.merge_gap_s,
        )  # fmt: skip
        start_s, end_s = plan.window_s
        found = Moments(spans, np.ones(len(spans))).clip(start_s, end_s)
        best = float(np.max(z, initial=-np.inf))
        trace.put("fallback", {"k_clear": k_clear, "best_separation": best, "moments": found.count})
        return found

    def _rescore(self, ev: Evidence, moments: Moments, source, trace: Trace) -> Moments:
        """Calibrated confidences (`agent.confidence`) for the offline verifier's moments; a
        Video-LLM verifier's own confidences are kept."""
        if self.settings.backend("verifier", self.client is not None) != "offline":
            return moments
        plan = ev.plan
        texts = plan.texts if plan.relation is Relation.WHILE else (plan.target,)
        verifier = [] if moments.scores is None else moments.scores.tolist()
        s = self.settings
        weights = Weights(s.confidence_z, s.confidence_log_s, s.confidence_bias)
        moments, z = rescored(moments, ev.times_s, ev.scores, ev.decisions, texts, weights)
        trace.put(
            "confidence", {"texts": list(texts), "separation": z.tolist(), "verifier": verifier}
        )
        return moments

    def _verify(self, evidence: Evidence, roles: Roles, profile: Profile, trace: Trace):
        """Step 3: the verification loop over the action nodes."""
        acts = evidence.actions
        order = self._order(evidence)
        states = []

        def remember(record: dict, bank) -> None:
            if record["commit"] in ("appended", "replaced"):
                states.append({"iteration": record["iteration"], "entries": bank.state()})

        s = self.settings
        # The Table 6 ablations: one pass verifies each candidate once, alone (no context
        # expansion, no early end); without the memory bank nothing is deduplicated.
        budget = self._budget(evidence, trace)
        loop = verification_loop(
            acts.weights,
            order,
            lambda v, c: self._verdict(roles.verifier.verify(evidence, v, c), acts.spans_s[v]),
            hops=s.hops if s.iterative else 0,
            tau=profile.tau,
            max_action_nodes=profile.max_action_nodes,
            max_iterations=budget if s.iterative else None,
            gamma=s.gamma if s.memory_bank else math.inf,
            early_stop=s.early_stop and s.iterative,
            on_step=remember,
            settle_context=s.settle_context or not s.iterative,  # one pass: each node alone
            spans_s=acts.spans_s,
        )
        trace.put("verifications", loop.steps)
        trace.put("memory", states)
        trace.put(
            "loop",
            {
                "iterations": loop.iterations,
                "stop_reason": loop.stop_reason,
                "order": order.tolist(),
            },
        )
        trace.count("malformed.verifier", loop.malformed)
        trace.parse_failure = verifier_failure(loop)
        return loop

    def _budget(self, evidence: Evidence, trace: Trace) -> int | None:
        """N_max for this query: the setting, grown by `verify.budget.scaled_budget` when
        `scale_budget` is on; None (no limit) when the setting is 0."""
        n_max = self.settings.max_iterations or None
        if n_max is None or not self.settings.scale_budget:
            trace.put("budget", {"max_iterations": n_max, "scaled": False})
            return n_max
        target = evidence.plan.target
        decision = evidence.decisions[target]
        stand_out = standing_out(
            evidence.scores[target], evidence.actions.frames, decision.threshold
        )
        start_s, end_s = evidence.plan.window_s
        budget = scaled_budget(n_max, stand_out, end_s - start_s)
        trace.put(
            "budget",
            {"max_iterations": budget, "scaled": True, "base": n_max, "stand_out": stand_out},
        )
        return budget

    def _order(self, evidence: Evidence) -> np.ndarray:
        """The loop's candidate order: coverage-aware, or Algorithm 1's uniform draw."""
        acts = evidence.actions
        if self.settings.order == "uniform":
            return uniform_order(len(acts.spans_s), self.settings.seed)
        target = evidence.scores[evidence.plan.target]
        priority = np.array([pooled(target, a, b) for a, b in acts.frames])
        return coverage_order(acts.spans_s, priority, *evidence.plan.window_s, self.settings.n_bins)

    def _verdict(self, verdict: Verdict, span_s: np.ndarray) -> Verdict:
        """With `inherit_bounds`, an accepted entry takes the candidate node's own span (the
        paper's inherited timestamps); otherwise the verifier's boundaries stand."""
        if verdict.entry is None or not self.settings.inherit_bounds:
            return verdict
        start_s, end_s = float(span_s[0]), float(span_s[1])
        moved = {"verifier_span_s": [verdict.entry.start_s, verdict.entry.end_s]}
        entry = replace(verdict.entry, start_s=start_s, end_s=end_s)
        return replace(verdict, entry=entry, details={**verdict.details, **moved})

    def _aggregate(self, evidence: Evidence, roles: Roles, entries, trace: Trace) -> Moments:
        """Step 4: the memory bank's entries consolidated into the final moments (without
        the memory bank, every verified entry is an answer of its own)."""
        if not self.settings.memory_bank:
            bank = MemoryBank(math.inf)
            for entry in entries:
                bank.commit(entry)
            moments = bank.moments()
            trace.put("aggregate", {"groups": [[i] for i in range(len(entries))],
                                    "reason": "no memory bank", "count": len(moments)})  # fmt: skip
            return moments
        with trace.timed("aggregator"):
            result = roles.aggregator.aggregate(evidence, entries)
        trace.count("malformed.aggregator", int(result.malformed))
        trace.put(
            "aggregate",
            {"groups": result.groups, "reason": result.reason, "count": len(result.moments)},
        )
        return result.moments


def verifier_failure(loop: LoopResult) -> ParseFailure | None:
    """A parse failure when every verifier reply of the loop was unreadable (the LLM roles
    treat an unreadable reply as a rejection, so the empty answer says nothing), else None.

    >>> from .verify.memory import MemoryBank
    >>> bad = Verdict(None, "model reply unreadable: not valid JSON", True, {"replies": ["Sure!"]})
    >>> verifier_failure(LoopResult(MemoryBank(0.5), iterations=1, malformed=1, last_verdict=bad))
    ParseFailure(reason='model reply unreadable: not valid JSON', raw='Sure!')
    >>> verifier_failure(LoopResult(MemoryBank(0.5), iterations=2, malformed=1, last_verdict=bad))
    """
    last = loop.last_verdict
    if last is None or loop.malformed < loop.iterations:
        return None
    replies = last.details.get("replies") or [None]
    return ParseFailure(last.reason or "model reply unreadable", replies[-1])
