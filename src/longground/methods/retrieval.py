"""Frame-retrieval grounding, the ExtremeWhenBench baseline.

Score every indexed frame against the query with the encoder, smooth the curve, then read
moments off it in one of three modes (`params["mode"]`):

- `multi` (default): every separated region above `threshold`; nothing above it means
  "no such event" (see `curves.threshold_moments`).
- `single` (also chosen by `MethodConfig.single`): the peak rule with `beta` and a duration
  clipped to `[min_len_s, max_len_s]` (see `curves.single_moment`); nothing when the peak
  stays below `threshold`, unless `force` asks for an answer anyway (the paper's rule).
- `topk`: the `k` best peaks as `±half_width_s` windows, `nms_s` apart (see
  `curves.top_k_windows`); the hybrid method searches inside them.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

from ..errors import UserError
from ..moments import Moments
from ..query import analyse
from ..topk import EWB_WINDOWS, EWB_WINDOWS_NAME, EWB_WINDOWS_SOURCE
from . import curves
from .base import Grounding, IndexedGrounder, MethodConfig, parse_params, register_method
from .confidence import calibrated
from .curves import top_k_windows
from .presets import Preset, register_preset

__all__ = ["RetrievalMethod", "RetrievalParams", "frame_scores", "top_k_windows"]


@dataclass(frozen=True)
class RetrievalParams:
    """Every setting of the retrieval method, with its default.

    Attributes:
        mode: "multi", "single" or "topk".
        smooth_s: moving-average window in seconds (at least one sample).
        threshold: the absolute score a moment must reach (multi mode: every sample of a
            region; single mode: the peak); None takes the encoder's `default_threshold`.
        merge_gap_s: multi mode joins regions closer than this.
        min_len_s: multi mode drops shorter regions (default 1 s); single mode widens to this
            (default 4 s, the paper's clip to [4, 60] s).
        nms_iou: multi mode's temporal NMS threshold.
        beta: single mode grows the peak while scores stay >= beta * peak.
        max_len_s: single mode's longest span.
        k, half_width_s, nms_s: topk mode's window count, half width and peak spacing.
        force: single mode answers even when the peak is below `threshold`
            (ExtremeWhenBench's baseline always answers).
    """

    mode: str = "multi"
    smooth_s: float = 1.0
    threshold: float | None = None
    merge_gap_s: float = 2.0
    min_len_s: float | None = None
    nms_iou: float = 0.5
    beta: float = 0.7
    max_len_s: float = 60.0
    k: int = 3
    half_width_s: float = EWB_WINDOWS.half_width_s
    nms_s: float = EWB_WINDOWS.nms_s
    force: bool = False

    def __post_init__(self):
        at_least = {"smooth_s": 0.0, "merge_gap_s": 0.0, "min_len_s": 0.0, "nms_iou": 0.0,
                    "k": 1, "nms_s": 0.0}  # fmt: skip
        above = {"max_len_s": 0.0, "half_width_s": 0.0}
        for name, low in at_least.items():
            value = getattr(self, name)
            if value is not None and value < low:
                raise UserError(f"retrieval: {name} must be at least {low:g}, not {value:g}")
        for name, low in above.items():
            if getattr(self, name) <= low:
                raise UserError(f"retrieval: {name} must be above {low:g}")
        if self.nms_iou > 1:
            raise UserError(f"retrieval: nms_iou must be at most 1, not {self.nms_iou:g}")

    @classmethod
    def from_config(cls, config: MethodConfig) -> RetrievalParams:
        params = dict(config.params)
        if config.single:
            params.setdefault("mode", "single")
        parsed = parse_params(cls, params, "retrieval")
        if parsed.mode not in ("multi", "single", "topk"):
            raise UserError(f"retrieval: mode must be multi, single or topk, not {parsed.mode!r}")
        return parsed


# ExtremeWhenBench's top-10 windows (`run --topk-windows` writes them for window recall).
EWB_WINDOWS_PRESET = register_preset(
    Preset(
        "retrieval",
        EWB_WINDOWS_NAME,
        values=EWB_WINDOWS.params(),
        sources=dict.fromkeys(EWB_WINDOWS.params(), EWB_WINDOWS_SOURCE),
        summary="ExtremeWhenBench's top-10 windows: ±60 s around peaks at least 60 s apart",
    )
)


def _or(value: float | None, default: float) -> float:
    return default if value is None else value


class RetrievalMethod(IndexedGrounder):
    """Frame retrieval: encoder scores per indexed frame, smoothed, then read off."""

    name = "retrieval"

    def __init__(self, config: MethodConfig, encoder=None, store=None):
        """`encoder` and `store` default to the configured encoder and the feature cache."""
        self.config = config
        self.params = RetrievalParams.from_config(config)
        self._encoder = encoder
        self._store = store

    def frame_scores(self, video: Path, query: str) -> tuple[np.ndarray, np.ndarray, float]:
        """Smoothed relevance of each indexed frame.

        Returns:
            `times_s` `(N,)`, `scores` `(N,)` and the video duration in seconds.
        """
        times_s, scores, duration_s, _ = self.scored(video, query)
        return times_s, scores, duration_s

    def scored(self, video: Path, query: str) -> tuple[np.ndarray, np.ndarray, float, Fraction]:
        """`frame_scores` plus the rate the index actually sampled (`Timeline.fps`: --fps
        capped at the video's frame rate)."""
        if not query.strip():
            raise UserError("the query is empty")
        timeline = self.store.get_or_build(video, self.encoder, self.config.fps)
        raw = np.asarray(self.encoder.score(timeline.features, query), dtype=np.float64)
        window = max(1, round(min(self.params.smooth_s * float(timeline.fps), len(raw))))
        smoothed = curves.smooth(raw, window)
        return np.asarray(timeline.times_s), smoothed, timeline.duration_s, timeline.fps

    @property
    def threshold(self) -> float:
        """The score a moment must reach: `params.threshold`, else the encoder's."""
        if self.params.threshold is not None:
            return self.params.threshold
        return self.encoder.default_threshold

    def ground(self, video: Path, query: str) -> Grounding:
        from .channels import derived_grounding, routed_grounding, with_route

        analysis = analyse(query)
        derived = derived_grounding(self.ground, video, analysis, self.config.single,
                                    self.config.cache_dir)  # fmt: skip
        if derived is not None:
            return derived
        routed = routed_grounding(video, analysis, self.config)
        if routed is not None:
            return routed
        return with_route(self._ground_frames(video, query), analysis, self.config)

    def _ground_frames(self, video: Path, query: str) -> Grounding:
        times_s, scores, duration_s, fps = self.scored(video, query)
        p, step_s = self.params, float(1 / fps)
        if p.mode == "single" and not p.force and not scores.max(initial=-np.inf) >= self.threshold:
            moments = Moments.empty()  # nothing reaches the threshold: no answer
        elif p.mode == "single":
            moments = curves.single_moment(
                times_s, scores, step_s, beta=p.beta, min_len_s=_or(p.min_len_s, 4.0),
                max_len_s=p.max_len_s, duration_s=duration_s,
            )  # fmt: skip
        elif p.mode == "topk":
            moments = curves.top_k_windows(
                times_s, scores, k=p.k, half_width_s=p.half_width_s, nms_s=p.nms_s,
                duration_s=duration_s,
            )  # fmt: skip
        else:
            moments = curves.threshold_moments(
                times_s, scores, step_s, threshold=self.threshold, merge_gap_s=p.merge_gap_s,
                min_len_s=_or(p.min_len_s, 1.0), nms_iou=p.nms_iou,
            ).clip(0.0, duration_s)  # fmt: skip
        trace = {"n_frames": len(times_s), "peak_score": float(scores.max(initial=-np.inf)),
                 "threshold": self.threshold}  # fmt: skip
        return calibrated(Grounding(moments=moments, trace=trace), "retrieval")


@register_method("retrieval")
def build(config: MethodConfig) -> RetrievalMethod:
    return RetrievalMethod(config)


_SHARED: dict[tuple, RetrievalMethod] = {}


def frame_scores(
    video: Path, query: str, config: MethodConfig
) -> tuple[np.ndarray, np.ndarray, float]:
    """Smoothed frame scores for `query`, sharing one encoder and store per configuration.

    Returns `times_s` `(N,)`, `scores` `(N,)` and the video's duration in seconds.
    """
    key = (config.encoder, config.fps, str(config.cache_dir))
    if key not in _SHARED:
        _SHARED[key] = RetrievalMethod(MethodConfig(config.encoder, config.fps, False, {},
                                                    None, config.cache_dir))  # fmt: skip
    return _SHARED[key].frame_scores(video, query)
