"""Every setting of the agent method (`-p key=value`), with its default.

Profile fields (tau_e, beta, sigma, tau, event_fps, action_fps, max_coarse_events,
max_action_nodes) override the chosen Table 4 profile; the rest are listed in `AgentSettings`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from ..errors import UserError
from ..params import check_known, parse_values
from .profiles import Profile

ORDERS = ("coverage", "uniform")
#: What the footage is like: "general" (camera footage, screen recordings, anything; the
#: default) or "composited" (photos pasted on plain or textured backdrops: studio and
#: composited footage, and the project's own generator). The composited scene turns on the
#: perception that assumes a backdrop: object boxes against the frame's outer ring, object
#: looks, thresholds relative to the video (`SCENE_SWITCHES`), and frame halves as the
#: regions looked at closer (the general scene looks at tiles).
#: "auto" (the default) reads which of the two each video is (`methods.footage`).
SCENES = ("auto", "general", "composited")
SCENE_SWITCHES = ("object_presence", "object_looks", "relative")
#: The moment-confidence weights of each scene (`agent.confidence`): on the separation z (in
#: the composited scene robust standard deviations above the text's threshold, in the
#: general scene log-odds of presence), on ln(seconds), and the bias. Composited: fitted on
#: the tuning rendering (docs/agent.md, "Calibrated scores"); general: `perf/fit_confidence.py` on
#: the tuning montage and generated renderings (docs/find.md, "What a score means").
SCENE_CONFIDENCE = {
    "composited": {"confidence_z": 0.05, "confidence_log_s": 1.45, "confidence_bias": -3.1},
    "general": {"confidence_z": 0.154, "confidence_log_s": 0.184, "confidence_bias": -0.503},
}
REGION_SOURCES = ("index", "encoder")
PROFILE_FIELDS = tuple(f.name for f in fields(Profile) if f.name != "name")
#: Per-second motion thresholds (`perception.motion`): magnitudes, so never negative.
MOTION_THRESHOLDS = ("pan_min", "zoom_min", "approach_min", "track_min", "sweep_min")


@dataclass(frozen=True)
class AgentSettings:
    """Settings of the agent.

    Attributes:
        roles: backend for all four roles: "auto" (LLM when one is configured, else
            offline), "offline" or "llm".
        planner, filter, verifier, aggregator: per-role backend overriding `roles`.
        profile: "auto" (the planner's choice) or a profile name.
        scene: "auto", "general" or "composited" (`SCENES`): sets the `SCENE_SWITCHES` left
            unset, and in the general scene texts are scored by the encoder's presence
            model (calibrated log-odds, `ImageTextEncoder.presence`). "auto" is read per
            video by the agent method (`methods.footage`); these settings alone take it as
            "general".
        hops: K, both the reach of indirect edges and the hops of a perception context.
        full_rate_events: segment events on every indexed sample when the index is denser
            than the profile's rho_E (False: subsample to rho_E).
        max_iterations: N_max of Algorithm 1; 0 means until every node is verified.
        order: candidate order of the loop: "coverage" (best-first inside time bins dealt
            across the timeline, see verify/coverage.py) or "uniform" (Algorithm 1 line 3:
            each candidate drawn uniformly at random from the unverified set U).
        seed: random seed of the "uniform" order.
        early_stop: end the loop after the first iteration that adds nothing to the memory
            bank (Appendix D: "early termination when no new candidates are accepted").
        settle_context: a verification removes its whole perception context from the
            unverified set (Algorithm 1); False: only the candidate and the nodes inside the
            instance it returned, so a context node the answer did not reach is still verified.
        inherit_bounds: a verified entry keeps the candidate action node's own span (Sec. 4.3,
            C.3: timestamps inherited from v_i); False lets the verifier move boundaries.
        gamma: tIoU above which two memory entries are duplicates.
        n_bins: time bins of the coverage-aware candidate order.
        flow: optical-flow method ("dis" or "farneback").
        flow_side: longest side of the frames flow runs on, in pixels.
        min_action_s: shortest action node, in seconds.
        min_motion_range: flow range below which an event is not split (motion-homogeneous).
        presence_threshold: the score meaning "visible" (None: the source's; for a file,
            `methods.agent.VISIBLE_LOG_ODDS` log-odds of the presence model in the general
            scene, the encoder's `default_threshold` in the composited one);
            presence_width: logistic width around it (None: the source's, 1 log-odds for
            a file in the general scene, else a tenth of the threshold's magnitude).
        filter_p, accept_p, extend_p, moving_min, merge_gap_s, same_identity:
            offline role settings (see `roles.offline.ScorerSettings`).
        neighbour_p: how clearly the neighbouring shot of "a shot of X right after / before
            a shot of Y" must show Y (`roles.offline.ScorerSettings`), chosen on the tuning
            rendering.
        track_same (general scene): cosine of two instances' tracked looks (the appearance
            of their object's crops, `tracking.identity`) at or above which an ordinal plan
            takes them for one identity; see docs/agent.md, "Identity".
        object_looks (composited scene): let the offline roles read the objects' own pixels
            (`composited.reid`): ordinal plans group instances by the objects' looks rather
            than by `same_identity` on frame embeddings, and colourless plans check the
            object has no colour.
        pan_min, zoom_min, approach_min: per-second thresholds of the camera's pan and zoom
            and of an object's move into or out of the frame (`perception.motion`), chosen
            on the tuning rendering; track_min: per-second move of what differs from the
            backdrop that gives a "left to right" / "right to left" direction; sweep_min:
            how far (fraction of the frame width) that difference's centre sweeps in a
            crossing ("moving across the screen").
        regions: let the offline roles look closer at regions of a frame: its halves in the
            composited scene (`composited.regions`), five overlapping tiles in the general one
            (`methods.agent.tiles`).
        region_source: where the halves' features come from: "index" (the encoder's
            whole-frame pass, when it gives them: label-bridge) or "encoder" (each half
            cropped and encoded again); see docs/agent.md, "The first look".
        verifier_frames, filter_frames, filter_batch: frames per LLM request.
        appearance: encoder spec of the appearance features event segmentation runs on
            (None: the main encoder's "appearance"); `hf:PATH` may name a DINOv2 checkpoint.
        segment_encoder: encoder spec of the segment embeddings z in the edge weights (None:
            the main encoder's "embedding").
        graph: build the two-level temporal graph (False: CoMET Table 6's "w/o Temporal
            Graph": flat uniform segments of `flat_segment_s` seconds, no edges).
        flat_segment_s: segment length of the flat segmentation, in seconds.
        memory_bank: keep the global memory bank (False: "w/o Global Memory Bank": no online
            deduplication, and every verified entry is its own answer, unaggregated).
        iterative: iterative verification (False: "w/o Iterative Verification": one pass,
            each candidate verified once on its own, with no context expansion).
        relative (composited scene): decide "visible" per text relative to its own score
            distribution over the video (`perception.relative`); False: the absolute
            threshold only.
        k_mad, max_drop, min_spread: the relative rule's parameters (`RelativeRule`).
        object_presence (composited scene): the filter and the verifier also look for a text
            on the object boxes of the frame halves (views that found one), against the
            absolute threshold (`visibility.Visibility`).
        null_gate: lower a text's threshold only when its best event stands out further
            than every null text's does on the video (`perception.null`).
        fallback_k: a plain presence query whose answer is empty answers the event nodes
            whose median score lies this many robust standard deviations above the video's
            median (`perception.fallback`); 0 (the default) turns the fallback off.
        scale_budget: with a budget (`max_iterations` > 0), add one verification per
            candidate that stands out and one per 10 minutes searched (`verify.budget`).
        confidence_z, confidence_log_s, confidence_bias: weights of the logistic model of a
            moment's confidence on its separation and ln(duration in seconds)
            (`agent.confidence`); unset, the scene's (`SCENE_CONFIDENCE`).
        near_s: how far "right after" / "right before" and causal relations reach between
            sub-events answered by different channels, in seconds (`agent.combine`).
        overrides: profile fields given by the user.
    """

    roles: str = "auto"
    planner: str | None = None
    filter: str | None = None
    verifier: str | None = None
    aggregator: str | None = None
    profile: str = "auto"
    scene: str = "auto"
    hops: int = 2
    full_rate_events: bool = True
    max_iterations: int = 0
    order: str = "coverage"
    seed: int = 0
    early_stop: bool = False
    settle_context: bool = False
    inherit_bounds: bool = False
    gamma: float = 0.5
    n_bins: int = 8
    flow: str = "dis"
    flow_side: int = 160
    min_action_s: float = 1.0
    min_motion_range: float = 0.002
    presence_threshold: float | None = None
    presence_width: float | None = None
    filter_p: float = 0.25
    accept_p: float = 0.5
    extend_p: float = 0.25
    neighbour_p: float = 0.935
    regions: bool = True
    region_source: str = "encoder"
    moving_min: float = 0.01
    pan_min: float = 0.001
    zoom_min: float = 0.005
    approach_min: float = 0.001
    track_min: float = 0.05
    sweep_min: float = 0.5
    merge_gap_s: float = 1.0
    same_identity: float = 0.9
    track_same: float = 0.8
    object_looks: bool | None = None
    verifier_frames: int = 12
    filter_frames: int = 2
    filter_batch: int = 8
    appearance: str | None = None
    segment_encoder: str | None = None
    graph: bool = True
    flat_segment_s: float = 10.0
    memory_bank: bool = True
    iterative: bool = True
    relative: bool | None = None
    k_mad: float = 4.0
    max_drop: float = 1.0
    min_spread: float = 0.1
    null_gate: bool = True
    object_presence: bool | None = None
    fallback_k: float = 0.0
    scale_budget: bool = True
    confidence_z: float | None = None
    confidence_log_s: float | None = None
    confidence_bias: float | None = None
    near_s: float = 3.0
    overrides: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.scene not in SCENES:
            raise UserError(
                f"agent: parameter scene={self.scene!r}; choose one of: " + ", ".join(SCENES)
            )
        # "auto" is resolved per video by the agent method; read alone, it is the general one
        scene = "general" if self.scene == "auto" else self.scene
        for name in SCENE_SWITCHES:
            if getattr(self, name) is None:
                object.__setattr__(self, name, scene == "composited")
        for name, value in SCENE_CONFIDENCE[scene].items():
            if getattr(self, name) is None:
                object.__setattr__(self, name, value)
        if self.order not in ORDERS:
            raise UserError(
                f"agent: parameter order={self.order!r}; choose one of: " + ", ".join(ORDERS)
            )
        if self.max_iterations < 0:
            raise UserError(
                f"agent: parameter max_iterations must be >= 0, got {self.max_iterations}"
            )
        if self.region_source not in REGION_SOURCES:
            raise UserError(
                f"agent: parameter region_source={self.region_source!r}; choose one of: "
                + ", ".join(REGION_SOURCES)
            )
        if not 0 < self.neighbour_p <= 1:
            raise UserError(
                f"agent: parameter neighbour_p must be in (0, 1], got {self.neighbour_p}"
            )
        if not -1 <= self.track_same <= 1:
            raise UserError(
                f"agent: parameter track_same is a cosine, in [-1, 1], got {self.track_same}"
            )
        if not self.near_s >= 0:
            raise UserError(f"agent: parameter near_s must be >= 0, got {self.near_s}")
        for name in MOTION_THRESHOLDS:
            if not getattr(self, name) >= 0:
                raise UserError(f"agent: parameter {name} must be >= 0, got {getattr(self, name)}")
        if not self.flat_segment_s > 0:
            raise UserError(
                f"agent: parameter flat_segment_s must be > 0, got {self.flat_segment_s}"
            )

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> AgentSettings:
        """Build from method params (values may be strings from the command line).

        Raises:
            UserError: an unknown key or a value of the wrong kind.

        >>> s = AgentSettings.from_params({"hops": "3", "tau_e": "0.9", "regions": "false"})
        >>> s.hops, s.overrides, s.regions
        (3, {'tau_e': 0.9}, False)
        """
        own = [f.name for f in fields(cls) if f.name != "overrides"]
        check_known(params, [*own, *PROFILE_FIELDS], "agent")
        profile = {k: v for k, v in params.items() if k in PROFILE_FIELDS}
        overrides = parse_values(Profile, profile, "agent")
        values = parse_values(cls, {k: v for k, v in params.items() if k in own}, "agent")
        return cls(**values, overrides=overrides)

    def backend(self, role: str, has_llm: bool) -> str:
        """The backend name for `role`."""
        chosen = getattr(self, role) or self.roles
        if chosen == "auto":
            return "llm" if has_llm else "offline"
        return chosen
