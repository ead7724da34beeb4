"""What the footage is like, as the perception needs to know it: the scene.

The agent's own perception assumes nothing about how a video was filmed: whole frames scored
by the encoder, optical flow, what differs from a shot's own median frame, cuts in the pixels.
A scene may add perception that holds only on its kind of footage. The general scene (`Scene`
itself, the default) adds nothing; the composited scene (`agent.composited`, photos pasted on
plain or textured backdrops) adds closer looks at frame halves and object boxes, backdrops
named by the frame's outer ring, and objects told apart by their looks. `agent.scenes`
chooses one from the settings; nothing else in the agent imports the composited package.

Each hook answers None (or nothing) where the scene has no reading, and the caller then goes
on without it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable

import numpy as np

from .frames import FrameSampler
from .source import VideoSource
from .trace import Trace

#: raw score -> presence probability (a `perception.presence.Calibration.probability`).
Probability = Callable[[np.ndarray], np.ndarray]
#: `(same, one_shot)`: which instances may show the same identity, and whether two touching
#: pieces lie in one shot (see `aggregate.consolidate`).
Identities = tuple[Callable[[list], np.ndarray], Callable[[float, float], bool]]


class CloserLooks(ABC):
    """Views of the frames closer than the whole frame, for one query (the composited scene:
    frame halves and object boxes). Times are `(K, F)`: F frames of each of K nodes."""

    @abstractmethod
    def seen(
        self, text: str, times_s: np.ndarray, seen_once: bool, own: Probability,
        absolute: Probability,
    ) -> np.ndarray:  # fmt: skip
        """`(K,)` probability that `text` is seen in the closer views of each node's frames
        (`own`: the text's calibration, `absolute`: the shared one), pooled over its frames
        (the best frame with `seen_once`, else their mean)."""

    @abstractmethod
    def together(
        self, texts: tuple[str, ...], times_s: np.ndarray, whole_nodes: np.ndarray,
        whole_now: dict[str, np.ndarray], own: dict[str, Probability],
        strict: dict[str, Probability],
    ) -> np.ndarray:  # fmt: skip
        """`(K,)` probability that all `texts` are seen at once in each node, given the
        whole frames' reading `whole_nodes` `(K,)` and each text's whole-frame probability
        at the times `whole_now` `(K, F)`."""

    @abstractmethod
    def on_objects(self, text: str, times_s: np.ndarray, strict: Probability) -> np.ndarray:
        """`(K,)` probability that `text` is seen at some point on an object's own view."""

    @abstractmethod
    def halves_score(self, times_s: np.ndarray, text: str) -> np.ndarray | None:
        """`(N, R)` raw score of `text` on each region of the frames at `times_s` `(N,)`, or
        None without regions."""


class Scene:
    """The general scene: camera footage, screen recordings, anything. It adds nothing: every
    hook is None, or answers None."""

    name = "general"

    #: `backdrop(frames (N, H, W, 3), name) -> probability` that the frames show their
    #: object against the backdrop `name` (a colour or a texture), or None: not read.
    backdrop: Callable[[np.ndarray, str], float] | None = None
    #: `colourless(frames (N, H, W, 3)) -> probability` that their object has no colour.
    colourless: Callable[[np.ndarray], float] | None = None
    #: `standing(frame (h, w, 3), moved (h, w)) -> bool`: something stays standing apart
    #: from the pixels that moved at some point of its shot (`perception.episode`).
    standing: Callable[[np.ndarray, np.ndarray], bool] | None = None

    def closer(self, source: VideoSource, video_key: str, trace: Trace) -> CloserLooks | None:
        """Closer looks at `source`'s frames for one query (their cost is counted in
        `trace`), or None."""
        return None

    def identities(
        self, closer: CloserLooks | None, frames: FrameSampler | None, step_s: float, text: str
    ) -> Identities | None:
        """How instances of `text` are told apart by their looks, or None (the aggregator
        then compares embeddings)."""
        return None
