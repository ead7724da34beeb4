"""Retrieve, then ground: a Video-LLM looks only where frame retrieval points.

1. Frame retrieval scores the indexed frames against the query and keeps the `k` best
   peaks, at least `nms_s` apart, each widened to `±half_width_s` (ExtremeWhenBench's
   hybrid: top-3, ±60 s, NMS 60 s).
2. The windows' union (overlaps merged) gets `n_frames` frames spread evenly over its total
   length. Every frame carries its *absolute* timestamp (seconds from the start of the whole
   video) and the prompt lists the windows, so the model answers in absolute time and no
   mapping back is needed.
3. The answer is cut to the windows: a span that touches no window is dropped, and a span is
   trimmed to the first and last window it touches (so a span is never split in two).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import UserError
from ..llm.base import ChatClient
from ..llm.prompts import render_prompt
from ..llm.timing import duration_fields, span_text, timed_frames_message
from ..moments import Moments
from ..topk import EWB_WINDOWS
from .ask import ask_for_moments, method_chat_client
from .base import Grounder, Grounding, MethodConfig, parse_params, register_method
from .monolithic import MonolithicParams, check_positive, video_frames
from .presets import Preset, register_preset
from .retrieval import frame_scores, top_k_windows
from .subtitles import with_subtitles

Scorer = Callable[[Path, str, MethodConfig], tuple[np.ndarray, np.ndarray, float]]


@dataclass(frozen=True)
class HybridParams(MonolithicParams):
    """Settings of the hybrid method (`-p key=value`): the monolithic ones, where `n_frames`
    are spread over the windows' union, plus the retrieval windows.

    Attributes:
        k: retrieval windows handed to the Video-LLM.
        half_width_s: each window reaches this far either side of its peak, in seconds.
        nms_s: peaks closer than this (seconds) count as one.
    """

    k: int = 3
    half_width_s: float = EWB_WINDOWS.half_width_s
    nms_s: float = EWB_WINDOWS.nms_s

    def __post_init__(self) -> None:
        super().__post_init__()
        check_positive(self, ("k", "half_width_s"))
        if self.nms_s < 0:
            raise UserError(f"parameter nms_s must be >= 0, got {self.nms_s}")


# ExtremeWhenBench's hybrid (`--preset paper`); every other value stays at its default.
PAPER = register_preset(
    Preset(
        "hybrid",
        "paper",
        values={
            "n_frames": 768,
            "k": 3,
            "half_width_s": EWB_WINDOWS.half_width_s,
            "nms_s": EWB_WINDOWS.nms_s,
        },
        sources={
            "n_frames": "ExtremeWhenBench §3 Finding 4, Table 2 caption (Qwen3.5-9B at N=768, "
            "its native frame budget); App. C, Table 6",
            "k": "ExtremeWhenBench Table 2 caption (CLIP top-3); App. C, Table 6",
            "half_width_s": "ExtremeWhenBench Table 2 caption (±1 min); App. C, Table 6",
            "nms_s": "ExtremeWhenBench §3 Finding 4 and Table 2 caption (NMS 60 s)",
        },
        summary="ExtremeWhenBench's hybrid: N=768 frames, top-3 windows of ±1 min, NMS 60 s",
    )
)


def times_in_windows(windows: Moments, n: int) -> np.ndarray:
    """`(n,)` times spread evenly over the total length of non-overlapping `windows`.

    >>> times_in_windows(Moments.from_list([[0, 10], [20, 30]]), 4).tolist()
    [2.5, 7.5, 22.5, 27.5]
    """
    windows = windows.sorted()
    lengths = windows.lengths_s
    ends = np.cumsum(lengths)
    offsets = (np.arange(n) + 0.5) * (ends[-1] / n)
    which = np.minimum(np.searchsorted(ends, offsets, side="right"), len(windows) - 1)
    return windows.starts_s[which] + offsets - (ends[which] - lengths[which])


def keep_inside(answer: Moments, windows: Moments) -> Moments:
    """Answer spans cut to the windows they touch; spans outside every window are dropped.

    >>> w = Moments.from_list([[100, 220], [500, 620]])
    >>> keep_inside(Moments.from_list([[90, 130], [300, 310], [200, 520], [600, 700]]), w).to_list()
    [[100.0, 130.0], [200.0, 520.0], [600.0, 620.0]]
    """
    if len(answer) == 0 or len(windows) == 0:
        return answer[np.zeros(len(answer), dtype=bool)]
    starts, ends = answer.starts_s[:, None], answer.ends_s[:, None]
    overlap = np.minimum(ends, windows.ends_s) - np.maximum(starts, windows.starts_s)
    is_point = (answer.lengths_s == 0)[:, None]
    touches = (overlap > 0) | (is_point & (overlap >= 0))  # (K, W)
    first_s = np.where(touches, windows.starts_s, np.inf).min(axis=1)
    last_s = np.where(touches, windows.ends_s, -np.inf).max(axis=1)
    keep = touches.any(axis=1)
    spans = np.stack([np.maximum(answer.starts_s, first_s), np.minimum(answer.ends_s, last_s)], 1)
    return Moments(spans[keep], None if answer.scores is None else answer.scores[keep])


class HybridMethod(Grounder):
    """Frame retrieval picks windows; a Video-LLM grounds the query inside them.

    Args:
        config: encoder and fps for retrieval, `config.llm` for the model, `config.single`
            for one interval, `params` as in `HybridParams`.
        client: a chat client to use instead of building one from `config.llm`.
        scorer: `(video, query, config) -> (times_s, scores, duration_s)`; default
            `retrieval.frame_scores` over the feature index.
    """

    name = "hybrid"

    def __init__(
        self, config: MethodConfig, client: ChatClient | None = None, scorer: Scorer | None = None
    ):
        self.config = config
        self.params = parse_params(HybridParams, config.params, self.name)
        self._client = client
        self._scorer = scorer

    @property
    def client(self) -> ChatClient:
        if self._client is None:
            self._client = method_chat_client(self.config)
        return self._client

    def windows(self, video: Path, query: str) -> tuple[Moments, float]:
        """The top-k retrieval windows (best first, peak scores) and the video duration."""
        scorer = self._scorer or frame_scores
        times_s, scores, duration_s = scorer(video, query, self.config)
        p = self.params
        windows = top_k_windows(
            np.asarray(times_s), np.asarray(scores), k=p.k, half_width_s=p.half_width_s,
            nms_s=p.nms_s, duration_s=duration_s,
        )  # fmt: skip
        return windows, float(duration_s)

    def frames_at(self, video: Path, times_s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """`(frames (N, H, W, 3) uint8, pts_s (N,))` shown at `times_s` (seconds)."""
        from ..video import probe

        return video_frames(video, probe(video), times_s, self.params.short_side)

    def ground(self, video: Path, query: str) -> Grounding:
        if not query.strip():
            raise UserError("the query is empty")
        windows, duration_s = self.windows(video, query)
        union = windows.merge(0.0).sorted()
        trace = {"windows": windows.to_list(), "union": union.to_list(), "duration_s": duration_s}
        if len(union) == 0 or union.lengths_s.sum() <= 0:
            return Grounding(moments=Moments.empty(), raw=None, trace={**trace, "n_frames": 0})
        p = self.params
        times_s = times_in_windows(union, p.n_frames)
        frames, pts_s = self.frames_at(video, times_s)
        prompt = render_prompt(
            "hybrid_single" if self.config.single else "hybrid",
            query=query.strip(),
            n_frames=len(frames),
            windows="\n".join(f"- {span_text(s, e)}" for s, e in union.spans),
            **duration_fields(duration_s),
        )
        prompt, subtitles = with_subtitles(prompt, video, self.config, union)
        grounding = ask_for_moments(
            self.client,
            timed_frames_message(prompt, frames, pts_s),
            duration_s,
            max_tokens=p.max_tokens,
            temperature=p.temperature,
            parse=self.config.parse,
        )
        answered = len(grounding.moments)
        grounding.moments = keep_inside(grounding.moments, union)
        grounding.trace.update(trace, n_frames=len(frames), answered=answered, subtitles=subtitles)
        return grounding


@register_method("hybrid")
def build(config: MethodConfig) -> HybridMethod:
    return HybridMethod(config)
