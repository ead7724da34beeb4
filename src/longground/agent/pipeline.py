"""CoMET-Agent end to end: plan (Step 1), build the graph (Step 2), verify (Step 3) and
aggregate (Step 4), recording everything in a `Trace`."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

import numpy as np

from ..cache.kinds import agent_rate_key, agent_regions_name
from ..moments import Moments
from .graph.cache import GraphCache
from .graph.levels import action_nodes, event_nodes
from .perception.filter import UNREADABLE_DROP
from .perception.presence import pooled
from .perception.regions import RegionIndex
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
from .settings import AgentSettings
from .source import VideoSource, segment_features
from .trace import ParseFailure, Trace
from .verify.coverage import coverage_order, uniform_order
from .verify.loop import LoopResult, Verdict, verification_loop

# Used when neither the settings nor the encoder say what raw score means "visible".
FALLBACK_THRESHOLD = 0.5


@dataclass
class Roles:
    """The four role backends of one agent."""

    planner: PlannerRole
    filter: FilterRole
    verifier: VerifierRole
    aggregator: AggregatorRole


def make_roles(settings: AgentSettings, threshold: float, client=None) -> Roles:
    """Build the role backends the settings ask for (LLM ones need `client`)."""
    scorer = ScorerSettings.from_agent(settings, threshold)
    extra = {
        "filter": {"frames_per_event": settings.filter_frames, "batch": settings.filter_batch},
        "verifier": {"n_frames": settings.verifier_frames},
    }
    built = {}
    for role in ROLE_NAMES:
        backend = settings.backend(role, client is not None)
        built[role] = build_role(
            role, backend, settings=scorer, client=client, **extra.get(role, {})
        )
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
    return times_s[inside], {k: np.asarray(v)[inside] for k, v in features.items()}


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
        self._roles: dict[float, Roles] = {}
        self._regions: dict[str, RegionIndex] = {}
        self._trace = Trace()  # the query in progress (region features report their cost here)

    def roles(self, source: VideoSource) -> Roles:
        threshold = self.settings.presence_threshold
        if threshold is None:
            threshold = source.default_threshold
        threshold = FALLBACK_THRESHOLD if threshold is None else threshold
        if threshold not in self._roles:
            self._roles[threshold] = make_roles(self.settings, threshold, self.client)
        return self._roles[threshold]

    def profile(self, name: str) -> Profile:
        chosen = name if self.settings.profile == "auto" else self.settings.profile
        return PROFILES[chosen].with_overrides(self.settings.overrides)

    def run(self, source: VideoSource, query: str) -> tuple[Moments, Trace]:
        """All four steps for one query."""
        trace, roles = Trace(), self.roles(source)
        self._trace = trace
        plan, profile = self._plan(source, query, roles, trace)
        start_s, end_s = plan.window_s
        if end_s <= start_s:
            trace.put("stopped", "the query's time window lies outside the video")
            return Moments.empty(), trace
        evidence = self._graph(source, plan, profile, trace)
        if evidence.actions is None or len(evidence.actions) == 0:
            trace.put("loop", {"iterations": 0, "stop_reason": "no candidates", "order": []})
            trace.put("verifications", [])
            trace.put("memory", [])
            return Moments.empty(), trace
        with trace.timed("verification"):
            loop = self._verify(evidence, roles, profile, trace)
        moments = self._aggregate(evidence, roles, loop.bank.entries, trace)
        return moments.clip(start_s, end_s), trace

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
            events, cached = event_nodes(
                self.cache, video_key, times_s, feats, plan.window_s, profile, fps,
                self.settings.hops, self.settings.full_rate_events,
            )  # fmt: skip
        with trace.timed("graph.scores"):
            scores = {t: np.asarray(source.score(feats, t), np.float64) for t in plan.texts}
        evidence = Evidence(
            plan, times_s, feats["embedding"], feats["appearance"], scores, events,
            frames_at=source.frames_at, score_features=source.score,
            regions=self._region_index(source, video_key), profile=profile,
        )  # fmt: skip
        with trace.timed("graph.filter"):
            kept = self.roles(source).filter.select(evidence)
        trace.count("malformed.filter", kept.malformed)
        if len(kept.reasons) and all(r == UNREADABLE_DROP for r in kept.reasons):
            trace.parse_failure = ParseFailure("every filter reply of the model was unreadable")
        evidence.actions = action_nodes(
            source, self.cache, video_key, events, kept.keep, times_s, segment_features(feats),
            profile, self.settings, trace, margin_s=0.5 / fps,
        )  # fmt: skip
        trace.put("graph", graph_record(fps, times_s, cached, events, kept, evidence.actions))
        return evidence

    def _region_index(self, source: VideoSource, video_key: str):
        """Region features of this video. Their cost falls inside the step that asks for them
        (filter or verification) and is also shown alone as "detail.regions"."""
        if not (self.settings.regions and source.has_regions):
            return None
        if video_key not in self._regions:
            root = self.cache.root
            path = None if root is None else root / agent_regions_name(video_key)

            def compute(times_s: np.ndarray) -> dict[str, np.ndarray]:
                trace = self._trace  # the query in progress
                with trace.timed("detail.regions"):
                    trace.count("graph.region_frames", len(times_s))
                    return source.region_features(times_s)

            self._regions[video_key] = RegionIndex(compute, path)
        return self._regions[video_key].features

    def _verify(self, evidence: Evidence, roles: Roles, profile: Profile, trace: Trace):
        """Step 3: the verification loop over the action nodes."""
        acts = evidence.actions
        order = self._order(evidence)
        states = []

        def remember(record: dict, bank) -> None:
            if record["commit"] in ("appended", "replaced"):
                states.append({"iteration": record["iteration"], "entries": bank.state()})

        loop = verification_loop(
            acts.weights,
            order,
            lambda v, c: self._verdict(roles.verifier.verify(evidence, v, c), acts.spans_s[v]),
            hops=self.settings.hops,
            tau=profile.tau,
            max_action_nodes=profile.max_action_nodes,
            max_iterations=self.settings.max_iterations or None,
            gamma=self.settings.gamma,
            early_stop=self.settings.early_stop,
            on_step=remember,
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
        """Step 4: the memory bank's entries consolidated into the final moments."""
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
