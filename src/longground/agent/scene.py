"""What the footage is like, as the perception needs to know it: the scene.

The agent's own perception assumes nothing about how a video was filmed: whole frames scored
by the encoder, optical flow, what differs from a shot's own median frame, cuts in the pixels.
A scene may add perception that holds only on its kind of footage. The general scene (`Scene`
itself, the default) adds only closer looks at regions of the frame (`RegionLooks`: the five
overlapping tiles its source gives, with `regions`); the composited scene (`agent.composited`,
photos pasted on plain or textured backdrops) looks at frame halves and object boxes instead,
and adds backdrops named by the frame's outer ring, and objects told apart by their looks.
`agent.scenes` chooses one from the settings; nothing else in the agent imports the
composited package.

Each hook answers None (or nothing) where the scene has no reading, and the caller then goes
on without it.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..cache.kinds import agent_regions_name
from .frames import FrameSampler
from .regions import RegionIndex
from .settings import AgentSettings
from .source import LooksFn, VideoSource
from .trace import Trace

#: raw score -> presence probability (a `perception.presence.Calibration.probability`).
Probability = Callable[[np.ndarray], np.ndarray]
#: `same(instances) -> (K, K)` bool: which instances may show the same identity (see
#: `aggregate.consolidate`).
SameFn = Callable[[list], np.ndarray]
ScoreFn = Callable[[dict[str, np.ndarray], str], np.ndarray]
RegionFn = Callable[[np.ndarray], dict[str, np.ndarray]]


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


class RegionLooks(CloserLooks):
    """Closer looks at the regions of the frames (the general scene's tiles, or the composited
    scene's halves): each region scored per text, the best one counts.

    Args:
        score: `score(features, text) -> (M,)`, the encoder's scoring of feature rows.
        regions: `regions(times) -> {name: (N, R, ...)}` features of the regions, or None.
    """

    def __init__(self, score: ScoreFn, regions: RegionFn | None):
        self.score, self.regions = score, regions

    def probabilities(
        self, views: RegionFn | None, text: str, times: np.ndarray, probability: Probability,
    ) -> np.ndarray:  # fmt: skip
        """`(K, F, R)` probability of `text` on each of the R `views` of the frames at
        `times` `(K, F)`; `(K, F, 1)` zeros without views."""
        if views is None or times.size == 0:
            return np.zeros((*times.shape, 1))
        feats = views(times.reshape(-1))
        n_views = next(iter(feats.values())).shape[1]
        flat = {k: v.reshape(v.shape[0] * n_views, *v.shape[2:]) for k, v in feats.items()}
        raw = np.asarray(self.score(flat, text), dtype=np.float64).reshape(-1, n_views)
        return probability(raw).reshape(*times.shape, n_views)

    def seen(
        self, text: str, times_s: np.ndarray, seen_once: bool, own: Probability,
        absolute: Probability,
    ) -> np.ndarray:  # fmt: skip
        region = self.probabilities(self.regions, text, times_s, own).max(axis=2)
        return region.max(axis=1) if seen_once else region.mean(axis=1)

    def on_objects(self, text: str, times_s: np.ndarray, strict: Probability) -> np.ndarray:
        return np.zeros(len(times_s))

    def together(
        self, texts: tuple[str, ...], times_s: np.ndarray, whole_nodes: np.ndarray,
        whole_now: dict[str, np.ndarray], own: dict[str, Probability],
        strict: dict[str, Probability],
    ) -> np.ndarray:  # fmt: skip
        """Two texts are seen together in a frame when the smaller of their probabilities
        (each the better of its best region and its whole frame) is high."""
        sides = {t: self.probabilities(self.regions, t, times_s, own[t]) for t in texts}
        per_text = {t: np.maximum(sides[t].max(axis=2), whole_now[t]) for t in texts}
        region_nodes = np.min(list(per_text.values()), axis=0).mean(axis=1)
        return np.maximum(whole_nodes, region_nodes)

    def halves_score(self, times_s: np.ndarray, text: str) -> np.ndarray | None:
        if self.regions is None or np.size(times_s) == 0:
            return None
        feats = self.regions(np.asarray(times_s))
        n_regions = next(iter(feats.values())).shape[1]
        flat = {k: v.reshape(v.shape[0] * n_regions, *v.shape[2:]) for k, v in feats.items()}
        return np.asarray(self.score(flat, text), dtype=np.float64).reshape(-1, n_regions)


class Scene:
    """The general scene: camera footage, screen recordings, anything. It adds only closer
    looks at the regions its source gives (`RegionLooks`, with the `regions` setting); every
    other hook is None, or answers None. It keeps the regions' features per video between
    queries.

    Args:
        settings: the agent's settings (`regions`); None: no closer looks.
        cache_root: the graph cache's folder, where the views' features are kept (None:
            memory only).
    """

    name = "general"

    #: `backdrop(frames (N, H, W, 3), name) -> probability` that the frames show their
    #: object against the backdrop `name` (a colour or a texture), or None: not read.
    backdrop: Callable[[np.ndarray, str], float] | None = None
    #: `colourless(frames (N, H, W, 3)) -> probability` that their object has no colour.
    colourless: Callable[[np.ndarray], float] | None = None
    #: `standing(frame (h, w, 3), moved (h, w)) -> bool`: something stays standing apart
    #: from the pixels that moved at some point of its shot (`perception.episode`).
    standing: Callable[[np.ndarray, np.ndarray], bool] | None = None

    def __init__(self, settings: AgentSettings | None = None, cache_root: Path | None = None):
        self.settings, self.cache_root = settings, cache_root
        self._indexes: dict[tuple[str, str], RegionIndex] = {}  # (kind, video key)
        self._lock = threading.Lock()

    def closer(self, source: VideoSource, video_key: str, trace: Trace) -> CloserLooks | None:
        """Closer looks at `source`'s frames for one query (their cost is counted in
        `trace`, "detail.regions"), or None."""
        regions = self.regions(source, video_key, trace)
        return None if regions is None else RegionLooks(source.score, regions)

    def regions(self, source: VideoSource, video_key: str, trace: Trace) -> RegionFn | None:
        """The features of `source`'s regions (`Extras.regions`), kept per video; None
        without the `regions` setting or without region features."""
        if self.settings is None or not self.settings.regions:
            return None
        views = source.extras
        if views.regions is None:
            return None
        cheap = self.cache_root is None or views.regions_in_index
        name = None if cheap else agent_regions_name(video_key)
        return self.indexed(views.regions, video_key, name, "regions", trace)

    def indexed(
        self, compute_fn: Callable, video_key: str, file_name: str | None, kind: str,
        trace: Trace,
    ) -> RegionFn:  # fmt: skip
        """`features(times)` of one kind of view of this video, kept in memory and in
        `file_name` under the cache root (None: memory only); computing them is timed in
        `trace` ("detail.<kind>", "graph.<kind>_frames")."""
        with self._lock:
            if (kind, video_key) not in self._indexes:
                path = None if file_name is None else self.cache_root / file_name
                self._indexes[(kind, video_key)] = RegionIndex(path)
            index = self._indexes[(kind, video_key)]

        def compute(times_s: np.ndarray) -> dict[str, np.ndarray]:
            with trace.timed(f"detail.{kind}"):
                trace.count(f"graph.{kind[:-1]}_frames", len(times_s))
                return compute_fn(times_s)

        return lambda times_s: index.features(times_s, compute)

    identity_by = "the looks of tracked crops"

    def identities(
        self, closer: CloserLooks | None, frames: FrameSampler | None, text: str,
        looks: LooksFn | None = None,
    ) -> SameFn | None:  # fmt: skip
        """Instances of `text` told apart by the looks of their tracked object (`looks`, the
        source's `Extras.looks`, each span read once; `same_looks`), or None without looks
        or settings (the aggregator then compares the instances' embeddings)."""
        if looks is None or self.settings is None:
            return None
        seen: dict[tuple[float, float], np.ndarray] = {}
        track_same, same_identity = self.settings.track_same, self.settings.same_identity

        def same(instances: list) -> np.ndarray:
            spans = [(i.start_s, i.end_s) for i in instances]
            new = sorted({span for span in spans if span not in seen})
            if new:
                seen.update(zip(new, np.asarray(looks(np.array(new), text), np.float64)))
            return same_looks([seen[span] for span in spans], [i.z for i in instances],
                              track_same, same_identity)  # fmt: skip

        return same


def same_looks(
    looks: list[np.ndarray | None], embeddings: list[np.ndarray | None], track_same: float,
    same_identity: float,
) -> np.ndarray:  # fmt: skip
    """`(K, K)` bool: which instances show the same identity. Two with looks (unit vectors;
    None, an empty row or one with NaN is no look) are the same when their cosine is at least
    `track_same`; a pair where one has no look is compared by the instances' embeddings
    (cosine at least `same_identity`), and without those it is not the same.

    >>> a, b = np.array([1.0, 0.0]), np.array([0.6, 0.8])
    >>> same_looks([a, b, None], [a, a, a], 0.7, 0.9).astype(int).tolist()
    [[1, 0, 1], [0, 1, 1], [1, 1, 1]]
    >>> same_looks([a, np.full(2, np.nan)], [None, None], 0.7, 0.9).astype(int).tolist()
    [[1, 0], [0, 1]]
    """
    seen = [x is not None and x.size > 0 and not np.isnan(x).any() for x in looks]
    k = len(looks)
    out = np.eye(k, dtype=bool)
    for i in range(k):
        for j in range(i + 1, k):
            if seen[i] and seen[j]:
                hit = float(np.dot(looks[i], looks[j])) >= track_same
            elif embeddings[i] is not None and embeddings[j] is not None:
                norms = float(np.linalg.norm(embeddings[i]) * np.linalg.norm(embeddings[j]))
                hit = float(np.dot(embeddings[i], embeddings[j])) / (norms or 1.0) >= same_identity
            else:
                hit = False
            out[i, j] = out[j, i] = hit
    return out
