"""The single-pass Video-LLM baseline: N uniform frames, one request, every interval.

The video's duration is stated in the prompt (seconds and HH:MM:SS) and every frame is sent
right after a line with its timestamp, so the model can answer in seconds. The prompt
(`prompts/monolithic.md`, or `monolithic_single.md` with `--single`) asks for every matching
interval as strict JSON, allows an empty list and forbids invented intervals, in the spirit
of the CoMET-Bench evaluation prompt. The answer is kept as the model gave it (not clipped),
so it is scored the way a benchmark scores the model.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import UserError
from ..llm.base import ChatClient
from ..llm.prompts import render_prompt
from ..llm.timing import duration_fields, timed_frames_message
from .ask import ask_for_moments, method_chat_client
from .base import Grounder, Grounding, MethodConfig, parse_params, register_method
from .presets import Preset, register_preset
from .subtitles import with_subtitles


@dataclass(frozen=True)
class MonolithicParams:
    """Settings of the monolithic method (`-p key=value`).

    Attributes:
        n_frames: frames sent, spread uniformly over the video.
        short_side: frames are shrunk so their shorter side is at most this many pixels.
        max_tokens: longest answer, in tokens.
        temperature: sampling temperature (0: greedy).
    """

    n_frames: int = 128
    short_side: int = 336
    max_tokens: int = 2048
    temperature: float = 0.0

    def __post_init__(self) -> None:
        check_positive(self, ("n_frames", "short_side", "max_tokens"))


# The papers' monolithic baselines (`--preset paper`): the frame count, video input and strict
# parsing depend on the model, so the CLI takes them from `methods.baselines` by model name.
PAPER = register_preset(
    Preset(
        "monolithic",
        "paper",
        values={},
        summary="the paper's setting for the model (methods.baselines): frame count, video "
        "input, strict JSON parsing",
    )
)


def check_positive(params: Any, names: tuple[str, ...]) -> None:
    for name in names:
        if getattr(params, name) <= 0:
            raise UserError(f"parameter {name} must be positive, got {getattr(params, name)}")


def uniform_times(duration_s: float, n: int) -> np.ndarray:
    """`(n,)` sample times at the centres of `n` equal slices of the video.

    >>> uniform_times(3600.0, 4).tolist()
    [450.0, 1350.0, 2250.0, 3150.0]
    """
    return (np.arange(n) + 0.5) * (duration_s / n)


def distinct_frames(frames: np.ndarray, pts_s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Drop repeats of the same decoded frame (when samples outnumber the video's frames).

    >>> f, t = distinct_frames(np.zeros((3, 2, 2, 3), np.uint8), np.array([0.0, 0.0, 1.0]))
    >>> len(f), t.tolist()
    (2, [0.0, 1.0])
    """
    _, first = np.unique(pts_s, return_index=True)
    keep = np.sort(first)
    return frames[keep], pts_s[keep]


def video_frames(video: Path, info, times_s: np.ndarray, short_side: int):
    """Frames shown at `times_s`, never enlarged beyond the video's own size.

    Args:
        video: the file; `info` its `VideoInfo`.
        times_s: `(T,)` sample times in seconds.
        short_side: most pixels on the shorter side.

    Returns:
        `(frames (N, H, W, 3) uint8, pts_s (N,))` with N <= T, repeats dropped, in the order
        asked.
    """
    from ..video import frames_at

    side = min(short_side, info.width, info.height)
    batch = frames_at(video, times_s, short_side=side)
    return distinct_frames(batch.frames, batch.pts_s)


class MonolithicMethod(Grounder):
    """One Video-LLM request over uniformly sampled, timestamped frames.

    Args:
        config: `config.llm` says which model; `config.single` asks for one interval.
        client: a chat client to use instead of building one from `config.llm`.
    """

    name = "monolithic"

    def __init__(self, config: MethodConfig, client: ChatClient | None = None):
        self.config = config
        self.params = parse_params(MonolithicParams, config.params, self.name)
        self._client = client
        self._last_frames: tuple | None = None

    @property
    def client(self) -> ChatClient:
        if self._client is None:
            self._client = method_chat_client(self.config)
        return self._client

    def frames(self, video: Path) -> tuple[np.ndarray, np.ndarray, float]:
        """The uniform frames of `video`, their times and its duration; the last video's
        frames are kept, since a benchmark asks many queries about one video in a row."""
        from ..video import probe

        key = str(Path(video).resolve())
        if self._last_frames is None or self._last_frames[0] != key:
            info = probe(video)
            times_s = uniform_times(info.duration_s, self.params.n_frames)
            frames, pts_s = video_frames(video, info, times_s, self.params.short_side)
            self._last_frames = (key, frames, pts_s, info.duration_s)
        return self._last_frames[1:]

    def ground(self, video: Path, query: str) -> Grounding:
        if not query.strip():
            raise UserError("the query is empty")
        frames, pts_s, duration_s = self.frames(video)
        prompt = render_prompt(
            "monolithic_single" if self.config.single else "monolithic",
            query=query.strip(),
            n_frames=len(frames),
            **duration_fields(duration_s),
        )
        prompt, subtitles = with_subtitles(prompt, video, self.config)
        grounding = ask_for_moments(
            self.client,
            timed_frames_message(prompt, frames, pts_s),
            duration_s,
            max_tokens=self.params.max_tokens,
            temperature=self.params.temperature,
            parse=self.config.parse,
        )
        grounding.trace.update(n_frames=len(frames), duration_s=duration_s, subtitles=subtitles)
        return grounding


@register_method("monolithic")
def build(config: MethodConfig) -> MonolithicMethod:
    return MonolithicMethod(config)
