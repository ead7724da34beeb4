"""Offline role backends: the agent with no LLM, deciding from the encoder's scores.

- planner: the rule grammar (`planner.plan_query`).
- filter: keeps an event node when some plan text is plausibly seen in it
  (`perception.filter.keep_seen`).
- verifier: checks each decomposed part of the plan (see `OfflineVerifier`).
- aggregator: chains touching same-identity entries and applies ordinal identity selection
  (`aggregate.consolidate`), telling identities apart as the scene can (the composited
  scene: by the objects' looks, `scene.Scene.identities`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields, replace

import numpy as np

from ..aggregate import Aggregation, consolidate
from ..evidence import Evidence
from ..perception.camera import CAMERA_KINDS, camera_move, camera_moves
from ..perception.conditions import condition_check, episode_relation, past_slivers
from ..perception.crossing import run_sweep
from ..perception.cuts import cut_count, one_shot
from ..perception.episode import Episode, shot_episodes
from ..perception.filter import FilterResult, keep_seen
from ..perception.motion import (
    SWEPT_KINDS,
    MotionReading,
    heads,
    motion_matches,
    node_matches,
)
from ..perception.presence import Calibration
from ..perception.visibility import Visibility, confirmed, region_times
from ..plan.planner import Plan, Relation, plan_query
from ..scene import Scene
from ..settings import AgentSettings
from ..verify.loop import Verdict
from ..verify.memory import MemoryEntry
from .interfaces import AggregatorRole, FilterRole, PlannerRole, VerifierRole, register_role


@dataclass(frozen=True)
class ScorerSettings:
    """Thresholds of the offline roles; the ones `AgentSettings` has come from it
    (`from_agent`), so their defaults live there.

    Attributes:
        calibration: raw encoder score -> presence probability.
        filter_p: the filter keeps events where some plan text reaches this probability.
        accept_p: a part of the plan holds when its probability reaches this; a candidate
            must reach it to seed an instance.
        extend_p: an instance grows over neighbouring action nodes of its event that reach
            this (hysteresis: lower than `accept_p`, so a dip does not cut an instance).
        moving_min: flow magnitude (fraction of frame width per step) at or above which a
            node counts as moving; below it, as still.
        drift_min: mean horizontal flow (same units) a node needs for a "left to right" or
            "right to left" plan, in that direction.
        pan_min, zoom_min, approach_min: per-second thresholds of the motion kinds
            (`perception.motion.MotionReading`); sweep_min: the sweep of a crossing.
        track_min: per-second move of what differs from the backdrop a node needs for a
            direction, where it was measured (`perception.motion.heads`).
        lookback: event nodes that "after" / "before" conditions may reach, when the evidence
            carries no profile (otherwise its `max_coarse_events`).
        merge_gap_s, same_identity: aggregator settings (see `aggregate.consolidate`).
        neighbour_p: probability the condition of "right after / before" must reach in the
            neighbouring shot. That reading is the best of many looks (frames, halves, object
            boxes) over a whole shot, and a confusable object clears `accept_p` in one of
            them; a reading under `neighbour_p` is scaled to under `accept_p` (times
            `accept_p / neighbour_p`), so the trace shows how near it came.
    """

    calibration: Calibration
    filter_p: float
    accept_p: float
    extend_p: float
    moving_min: float
    merge_gap_s: float
    same_identity: float
    drift_min: float = 0.002
    lookback: int = 4
    pan_min: float = 0.001
    zoom_min: float = 0.005
    approach_min: float = 0.001
    track_min: float = 0.05
    sweep_min: float = 0.5
    neighbour_p: float = 0.935

    @classmethod
    def from_agent(
        cls, settings: AgentSettings, threshold: float, width: float | None = None
    ) -> ScorerSettings:
        """The offline roles' settings: every field `AgentSettings` also has is taken from it,
        and the calibration is centred on `threshold` (width: `settings.presence_width`, else
        the source's `width`, else a tenth of the threshold's magnitude).

        >>> s = ScorerSettings.from_agent(AgentSettings(accept_p=0.6), threshold=0.2)
        >>> s.accept_p, s.filter_p, round(s.calibration.width, 3), s.lookback
        (0.6, 0.25, 0.02, 4)
        """
        width = settings.presence_width if settings.presence_width is not None else width
        if width is None:
            width = max(0.1 * abs(threshold), 1e-3)
        shared = {f.name for f in fields(cls)} & {f.name for f in fields(settings)}
        return cls(
            calibration=Calibration(threshold, width),
            **{name: getattr(settings, name) for name in sorted(shared)},
        )


@register_role("planner", "offline")
class RulePlanner(PlannerRole):
    """The built-in grammar."""

    def __init__(self, **_: object) -> None:
        pass

    def plan(self, query: str, duration_s: float) -> Plan:
        return plan_query(query, duration_s)


@register_role("filter", "offline")
class ScoreFilter(FilterRole):
    """Keeps events where any plan text is plausibly seen (`perception.filter.keep_seen`)."""

    def __init__(self, settings: ScorerSettings, **_: object) -> None:
        self.s = settings

    def select(self, evidence: Evidence) -> FilterResult:
        vis = evidence.visibility(self.s.calibration)
        return keep_seen(vis, evidence.plan.texts, evidence.events, self.s.filter_p)


@register_role("verifier", "offline")
class OfflineVerifier(VerifierRole):
    """Checks a candidate action node part by part with the encoder.

    1. Target: the candidate must show the target (for "while": target and condition
       together) with probability >= `accept_p` (whole frames, halves, and with
       `object_presence` the halves' object boxes), move as the plan says (its motion kind,
       and drift left or right), and be seen against the plan's backdrop colour or texture
       (`backdrops.backdrop_probability`).
    2. Instance: from the candidate, the run grows over neighbouring action nodes that reach
       `extend_p` and belong to the same event, to its perception context, or continue its
       shot across an event boundary that is no cut (`cuts.EventCuts`); the run's span is
       the interval.
       A "still" plan's run stays inside its event.
    3. Motion: the run's duration-weighted motion measures must read as the plan's motion
       kind (`perception.motion`: moving, still, zoom in / out, pan, entering, leaving);
       an episode plan takes its motion from the episode instead (step 5). Colourless plans
       ("the black-and-white cat") take the achromatic share of the objects in two frames
       of the run (`object_colors.colourless_share`) as the probability that the object
       has no colour.
    4. Relation: the condition must be seen in the shots the relation names
       (`conditions.condition_check` over shots, `cuts.EventCuts`), or be absent from the run
       ("without").
    5. Episode: for a cause and its effect or a passing-by (`Plan.episode`), the moment is
       the motion inside the candidate's shot (`perception.episode`); a shot where nothing
       moves rejects the candidate, and so does one where something falls for a passing-by
       or nothing falls for an effect.

    The confidence is the smallest probability among the parts checked.
    """

    def __init__(self, settings: ScorerSettings, scene: Scene | None = None, **_: object):
        self.s, self.scene = settings, scene or Scene()

    def _target_p(self, ev: Evidence, vis: Visibility) -> np.ndarray:
        """Per action node: the target (or target and condition together for "while") is
        visible, and its motion matches the plan's."""
        plan, acts = ev.plan, ev.actions
        if episode_relation(plan.relation, plan.episode) is Relation.WHILE and plan.conditions:
            p = vis.together(plan.texts, acts, "actions")
        else:
            p = vis.nodes(plan.target, acts, "actions", seen_once=self._seen_once(plan))
        reading = self._reading(acts.motion, acts.moves)
        if plan.motion is not None and plan.episode is None:
            p = p * node_matches(plan.motion, reading)
        if plan.direction is not None:
            p = p * heads(plan.direction, reading, acts.drift, self.s.drift_min)
        if plan.backdrop is not None and ev.frames is not None and self.scene.backdrop:
            p = np.minimum(p, self._backdrop(ev, plan.backdrop))
        return p

    @staticmethod
    def _seen_once(plan: Plan) -> bool:
        """The target may seed an instance where it is seen at some point in the node, not
        throughout: in an episode (`Plan.episode`: the ball rolling in or by is on screen
        for part of it; the episode's own reading keeps the answer specific, a fall for an
        effect, something standing that the mover goes past for a passing-by) and in "a
        shot of X right after / before a shot of Y" (X crossing, entering or leaving its
        shot; the condition in the neighbouring shot keeps the answer specific)."""
        sequential = plan.relation in (Relation.RIGHT_AFTER, Relation.RIGHT_BEFORE)
        return plan.episode is not None or sequential

    def _reading(self, magnitude: np.ndarray, moves: np.ndarray) -> MotionReading:
        s = self.s
        return MotionReading(
            magnitude, moves, s.moving_min, s.pan_min, s.zoom_min, s.approach_min, s.track_min,
            s.sweep_min,
        )  # fmt: skip

    def _backdrop(self, ev: Evidence, name: str) -> np.ndarray:
        """Per action node: probability of the backdrop colour or texture in two frames (the
        scene's reading, `scene.Scene.backdrop`)."""
        kept = ev.readings.backdrops
        if name not in kept:

            def read(_: np.ndarray, times: np.ndarray) -> np.ndarray:
                frames = ev.frames.frames(times.reshape(-1))
                shares = [self.scene.backdrop(f[None], name) for f in frames]
                return np.asarray(shares).reshape(times.shape).mean(axis=1)

            kept[name] = confirmed(read, ev.actions, ev.times_s)  # as presence is read
        return kept[name]

    def verify(self, evidence: Evidence, candidate: int, context: np.ndarray) -> Verdict:
        plan, acts = evidence.plan, evidence.actions
        vis = evidence.visibility(self.s.calibration)
        p = self._target_p(evidence, vis)
        if p[candidate] < self.s.accept_p:
            return Verdict(None, "target not visible", details={"target": float(p[candidate])})
        run = self._run(evidence, p, candidate, {int(c) for c in context})
        parts, measured = {"target": float(p[candidate])}, {}
        if plan.motion is not None and plan.episode is None:
            lengths = np.diff(acts.spans_s[run], axis=1)[:, 0]
            whole = self._reading(acts.motion[run], acts.moves[run]).averaged(lengths)
            if plan.motion in SWEPT_KINDS and evidence.frames is not None:
                measured["sweep"] = self._sweep(evidence, run, plan.motion != "crossing")
                whole = replace(whole, sweep=np.array([measured["sweep"]]))
            if plan.motion in CAMERA_KINDS and evidence.frames is not None:
                zoom, pan = self._camera(evidence, run)
                measured["keypoints"] = {"zoom_per_s": zoom, "pan_per_s": pan}
                whole = replace(whole, moves=camera_moves(whole.moves, zoom, pan))
            parts["motion"] = float(motion_matches(plan.motion, whole)[0])
        if plan.colourless and self.scene.colourless and evidence.frames is not None:
            span = np.array([_run_span(evidence, run)])
            frames = evidence.frames.frames(region_times(span)[0])
            parts["colourless"] = self.scene.colourless(frames)
        if episode_relation(plan.relation, plan.episode) is not Relation.WHILE:
            for cond in plan.conditions:
                parts[f"condition:{cond}"] = self._condition(evidence, vis, cond, run)
        start_s, end_s = _run_span(evidence, run)
        details = {"parts": parts, "run": [run[0], run[-1]], **measured}
        failed = [k for k, v in parts.items() if v < self.s.accept_p]
        if failed:
            return Verdict(None, "failed: " + ", ".join(failed), details=details)
        if plan.episode is not None and evidence.frames is not None:
            episode = self._episode(evidence, candidate)
            if episode is None:
                return Verdict(None, "nothing moves in its shot", details=details)
            details["episode"] = episode.to_record()
            if not episode.fits(plan.episode):
                why = f"its shot holds no {plan.episode} episode"
                return Verdict(None, why, details=details)
            start_s, end_s = episode.start_s, episode.end_s
        a, b = acts.frames[run[0], 0], acts.frames[run[-1], 1]
        z = evidence.embedding[a:b].mean(axis=0)
        summary = plan.target
        if plan.conditions:
            summary += f" ({plan.relation.value} {'; '.join(plan.conditions)})"
        entry = MemoryEntry(summary, start_s, end_s, min(parts.values()), candidate, z)
        return Verdict(entry, "verified", details=details)

    def _sweep(self, ev: Evidence, run: list[int], whole_shot: bool = False) -> float:
        """How far what moves sweeps across the frame during the run (or its whole shot),
        against the backdrop of its surroundings (`perception.crossing.run_sweep`)."""
        return run_sweep(ev.frames, _run_span(ev, run), ev.step_s, whole_shot=whole_shot)

    def _camera(self, ev: Evidence, run: list[int]) -> tuple[float, float]:
        """The camera's zoom and pan per second over the run, read from keypoints
        (`perception.camera.camera_move`)."""
        return camera_move(ev.frames, _run_span(ev, run), ev.step_s)

    def _run(self, ev: Evidence, p: np.ndarray, v: int, context: set[int]) -> list[int]:
        parent, cuts = ev.actions.parent, ev.cuts
        spans = ev.actions.spans_s
        # Nothing changes in a still shot, so no event boundary falls inside one: for a "still"
        # plan a boundary is a cut or something that came or went (often in the flow margin
        # left out at event ends, so no node reads its motion), and the instance ends there.
        within_event = ev.plan.motion == "still"

        def joins(i: int, j: int) -> bool:
            """Node `i` joins the run through its neighbour `j` (they must touch in time:
            events the filter dropped leave gaps between action nodes)."""
            touching = abs(spans[max(i, j), 0] - spans[min(i, j), 1]) < 1e-6
            if p[i] < self.s.extend_p or not touching:
                return False
            if parent[i] == parent[j]:
                return True
            if within_event:
                return False
            return i in context or not cuts.cut_before(max(parent[i], parent[j]))

        lo = hi = v
        while lo - 1 >= 0 and joins(lo - 1, lo):
            lo -= 1
        while hi + 1 < len(p) and joins(hi + 1, hi):
            hi += 1
        return list(range(lo, hi + 1))

    def _episode(self, ev: Evidence, candidate: int) -> Episode | None:
        """The episode of motion in the candidate's shot (`perception.episode`); the shots
        around each graph shot are read once."""
        shots = ev.shots
        shot = int(shots[ev.actions.parent[candidate]])
        kept = ev.readings.episodes
        if shot not in kept:
            spans = ev.events.spans_s[shots == shot]
            shot_s = (float(spans[:, 0].min()), float(spans[:, 1].max()))
            kept[shot] = shot_episodes(ev.frames, shot_s, ev.step_s, self.scene.standing)
        if kept[shot] is None:
            return None
        return kept[shot].at(float(ev.actions.spans_s[candidate].mean()))

    def _own_shot(self, ev: Evidence, step: int) -> Callable[[int], bool] | None:
        """Shot index -> whether that sliver is a shot of its own: the frames from the
        timeline sample before it to the one after it hold two cuts (`cuts.cut_count`), not
        one cut the graph split in two; read once per shot. None without frames."""
        if ev.frames is None:
            return None
        shots, frames, last = ev.shots, ev.events.frames, len(ev.times_s) - 1

        def own(shot: int) -> bool:
            kept = ev.readings.own_shots
            if shot not in kept:
                inside = shots == shot
                a, b = frames[inside, 0].min(), frames[inside, 1].max()
                span_s = float(ev.times_s[max(a - 1, 0)]), float(ev.times_s[min(b, last)])
                kept[shot] = cut_count(ev.frames, *span_s) >= 2
            return kept[shot]

        return own

    def _condition(self, ev: Evidence, vis: Visibility, text: str, run: list[int]) -> float:
        """Probability that the condition holds where the relation puts it. Relations count in
        shots: events joined across boundaries that are not cuts (`cuts.EventCuts`)."""
        shots = ev.shots
        lookback = ev.profile.max_coarse_events if ev.profile is not None else self.s.lookback
        first, last = shots[ev.actions.parent[run[0]]], shots[ev.actions.parent[run[-1]]]
        relation = episode_relation(ev.plan.relation, ev.plan.episode)
        check = condition_check(relation, int(first), int(last), int(shots[-1]) + 1, lookback)
        if check is None:
            return 1.0
        if check.mode == "absent":
            seen = vis.nodes(text, ev.actions, "actions", seen_once=True)
            return 1.0 - float(seen[run].max())
        looked = check.events
        if ev.plan.reach_s is not None and relation in (Relation.AFTER, Relation.BEFORE,
                                                        Relation.NEAR):  # fmt: skip
            looked = _within_reach(ev, run, relation, ev.plan.reach_s)
        step = {Relation.RIGHT_AFTER: -1, Relation.RIGHT_BEFORE: 1}.get(ev.plan.relation)
        if step is not None:
            samples = np.bincount(shots, np.diff(ev.events.frames, axis=1)[:, 0])
            looked = past_slivers(looked, samples, step, own_shot=self._own_shot(ev, step))
        seen = vis.nodes(text, ev.events, "events", seen_once=True)
        in_shots = np.isin(shots, list(looked))
        if not in_shots.any():
            return 0.0
        best = float(seen[in_shots].max())
        if step is not None and best < self.s.neighbour_p:
            return best * self.s.accept_p / self.s.neighbour_p
        if relation in (Relation.CAUSES, Relation.CAUSED_BY) and best < self.s.accept_p:
            # the other party of a cause and its effect shares the shot with the mover, often
            # small beside it: look at the object boxes of that shot's events too
            best = max(best, float(vis.on_objects(text, ev.events.spans_s[in_shots]).max()))
        return best


def _within_reach(ev: Evidence, run: list[int], relation: Relation, reach_s: float) -> tuple:
    """The shots before the instance (after it, for "before"; either side or its own, for
    "near") with an event that ends at most `reach_s` before it starts (starts at most
    `reach_s` after it ends): "a dog within 10 seconds after the cat" looks as far back as
    10 s, however many shots that is."""
    shots, spans_s = ev.shots, ev.events.spans_s
    first, last = shots[ev.actions.parent[run[0]]], shots[ev.actions.parent[run[-1]]]
    ends_close = spans_s[:, 1] >= ev.actions.spans_s[run[0], 0] - reach_s
    starts_close = spans_s[:, 0] <= ev.actions.spans_s[run[-1], 1] + reach_s
    if relation is Relation.AFTER:
        near = (shots < first) & ends_close
    elif relation is Relation.BEFORE:
        near = (shots > last) & starts_close
    else:
        near = ends_close & starts_close
    return tuple(int(s) for s in np.unique(shots[near]))


@register_role("aggregator", "offline")
class OfflineAggregator(AggregatorRole):
    """Chaining and identity selection over the memory bank."""

    def __init__(self, settings: ScorerSettings, scene: Scene | None = None, **_: object):
        self.s, self.scene = settings, scene or Scene()

    def aggregate(self, evidence: Evidence, entries: list[MemoryEntry]) -> Aggregation:
        plan = evidence.plan
        same = shot = None
        if plan.ordinal is not None:
            frames = evidence.frames
            same = self.scene.identities(evidence.closer, frames, plan.target, evidence.looks)
            if same is not None and frames is not None:

                def shot(from_s: float, to_s: float) -> bool:
                    return one_shot(frames, from_s, to_s, evidence.step_s)
        # A still plan's instances are each inside one event (`OfflineVerifier._run`): two
        # that touch are two shots, or a shot before and after something moved, not pieces.
        gap_s = -1e-6 if plan.motion == "still" else self.s.merge_gap_s
        moments, groups = consolidate(
            entries, gap_s, self.s.same_identity, plan.ordinal, plan.skip_first, same, shot
        )
        how = "" if same is None else f" (identities by {self.scene.identity_by})"
        return Aggregation(moments, groups, reason=f"{len(entries)} entries -> {len(moments)}{how}")


def _run_span(ev: Evidence, run: list[int]) -> tuple[float, float]:
    """`(start_s, end_s)` of a run of action nodes."""
    return float(ev.actions.spans_s[run[0], 0]), float(ev.actions.spans_s[run[-1], 1])
