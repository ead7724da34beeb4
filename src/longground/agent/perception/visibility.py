"""How likely each plan text is visible in graph nodes.

For a node and a text, the pooled (median, or a high quantile for "seen at some point")
encoder score of the timeline samples inside the node, through the calibration. A scene may
look closer (`scene.CloserLooks`: the composited scene's frame halves and object boxes, at
`REGION_FRACTIONS` of the node's span); the larger probability counts.

Two texts are visible *together* in a node when, frame by frame, the smaller of their two
probabilities is high (with closer looks: in one view, or each in its own).

A node shorter than `READ_STEPS` timeline steps keeps each of these readings only where the
window of that length around it, inside its event, confirms it (`confirmed`): one frame's
stray reading does not decide a second-long node.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..graph.nodes import Nodes, frames_in_spans
from ..scene import CloserLooks
from .presence import Calibration, timeline_step

# Where in a node's span its region frames are taken.
REGION_FRACTIONS = (1 / 3, 2 / 3)
#: Timeline steps a node's presence is read on at least (`read_spans`): its region frames
#: then lie a whole step apart and a step from the window's ends, and its whole frames hold
#: three samples, the fewest whose median sets one stray reading aside.
READ_STEPS = len(REGION_FRACTIONS) + 1


def region_times(spans_s: np.ndarray) -> np.ndarray:
    """`(K, F)` times at `REGION_FRACTIONS` of each span.

    >>> region_times(np.array([[0.0, 6.0]])).tolist()
    [[2.0, 4.0]]
    """
    spans = np.asarray(spans_s, dtype=np.float64).reshape(-1, 2)
    frac = np.asarray(REGION_FRACTIONS)
    return spans[:, :1] + (spans[:, 1:] - spans[:, :1]) * frac[None, :]


def read_spans(nodes: Nodes, step_s: float) -> np.ndarray:
    """`(K, 2)` spans each node's presence is read on: its own span, widened about its middle
    to at least `READ_STEPS` timeline steps where it is shorter, inside its parent event.

    An action node may be a second long (short events are sampled densely for flow,
    `levels.flow_window`); read on its own span, its presence rests on one or two timeline
    samples and two region frames a fraction of a step apart, and one frame's stray reading
    decides it. The node's span and its motion reading are not changed: only where its
    presence is read. Event nodes (no parent) are read on their own spans: widening one
    would cross a cut.

    Args:
        nodes: a graph level; action nodes of one event cover the event's span.
        step_s: the timeline's sample step, in seconds.

    >>> acts = Nodes(np.array([[0.0, 1.0], [1.0, 9.0]]), np.zeros((2, 2), np.int64),
    ...              np.zeros((2, 1)), np.array([4, 4]), np.zeros(2), np.zeros((2, 2)))
    >>> read_spans(acts, 1.0).tolist()
    [[0.0, 3.0], [1.0, 9.0]]
    """
    spans = np.asarray(nodes.spans_s, dtype=np.float64).reshape(-1, 2)
    parent = np.asarray(nodes.parent)
    first, last = spans[:, 0].copy(), spans[:, 1].copy()
    for e in np.unique(parent[parent >= 0]):
        mine = parent == e
        first[mine], last[mine] = spans[mine, 0].min(), spans[mine, 1].max()
    want = np.minimum(np.maximum(spans[:, 1] - spans[:, 0], READ_STEPS * step_s), last - first)
    start = np.clip(spans.mean(axis=1) - want / 2, first, last - want)
    return np.stack([start, start + want], axis=1)


ReadFn = Callable[[np.ndarray, np.ndarray], np.ndarray]


def confirmed(read: ReadFn, nodes: Nodes, times_s: np.ndarray) -> np.ndarray:
    """`(K,)` a reading of each node, which a short node keeps only where the window around
    it (`read_spans`) confirms it: the smaller of the two.

    The node's own frames still say *where* the text is (a brief object seen on a second-long
    node, the rest of its event without it, stays in that node and no longer); the window
    around it sets a stray frame's reading aside (a bicycle's box read as "street traffic"
    at 0.7 on one frame and 0 to 0.4 on the frames around it).

    Args:
        read: `read(frames, times) -> (N,)`, a reading of N nodes from their timeline sample
            ranges `(N, 2)` and region frame times `(N, F)`.
        nodes: a graph level.
        times_s: `(T,)` timeline sample times; their step sets the window.
    """
    times_s = np.asarray(times_s, dtype=np.float64)
    spans = np.asarray(nodes.spans_s, dtype=np.float64).reshape(-1, 2)
    out = np.asarray(read(nodes.frames, region_times(spans)), dtype=np.float64).copy()
    step_s = timeline_step(times_s)
    window = read_spans(nodes, step_s)
    short = np.flatnonzero(np.any(np.abs(window - spans) > 1e-9, axis=1))
    if short.size:
        around = read(frames_in_spans(window[short], times_s), region_times(window[short]))
        out[short] = np.minimum(out[short], around)
    return out


class Visibility:
    """Presence probabilities per text for the nodes of one query's graph.

    Args:
        times_s: `(T,)` timeline sample times.
        scores: raw encoder scores `(T,)` per text.
        calibration: raw score -> probability.
        per_text: calibrations of single texts that replace `calibration` for them (see
            `relative.decide`).
        closer: the scene's closer looks (`scene.CloserLooks`), or None (whole frames only).
    """

    def __init__(
        self,
        times_s: np.ndarray,
        scores: dict[str, np.ndarray],
        calibration: Calibration,
        per_text: dict[str, Calibration] | None = None,
        closer: CloserLooks | None = None,
    ):
        self.times_s = np.asarray(times_s, dtype=np.float64)
        self.cal, self.closer = calibration, closer
        self.per_text = dict(per_text or {})
        self.frame_p = {t: self.calibration(t).probability(s) for t, s in scores.items()}
        self._memo: dict[tuple, np.ndarray] = {}

    def calibration(self, text: str) -> Calibration:
        """The text's own calibration (decisions relative to the video), else the shared one."""
        return self.per_text.get(text, self.cal)

    def _whole(self, text: str, frames: np.ndarray, quantile: float) -> np.ndarray:
        p = self.frame_p[text]
        return np.array([np.quantile(p[a:b], quantile) if b > a else 0.0 for a, b in frames])

    def _strict(self, text: str) -> Calibration:
        """The stricter of the text's calibration and the shared (absolute) one. A closer look
        sees any class score higher than whole frames do; a threshold lowered from the whole
        frames' scores (`relative.decide`) does not carry over to it."""
        own = self.calibration(text)
        return own if own.threshold >= self.cal.threshold else self.cal

    def nodes(self, text: str, nodes: Nodes, level: str, seen_once: bool = False) -> np.ndarray:
        """`(K,)` probability that `text` is visible in each node.

        Args:
            text: a plan text.
            nodes: a graph level.
            level: its name, for caching ("events" or "actions").
            seen_once: True: visible at some point (90th percentile, best closer frame);
                False: visible throughout (median, mean over closer frames).
        """
        key = (text, level, seen_once)
        if key not in self._memo:

            def read(frames: np.ndarray, times: np.ndarray) -> np.ndarray:
                whole = self._whole(text, frames, 0.9 if seen_once else 0.5)
                if self.closer is None:
                    return whole
                own, absolute = self.calibration(text).probability, self.cal.probability
                return np.maximum(whole, self.closer.seen(text, times, seen_once, own, absolute))

            self._memo[key] = confirmed(read, nodes, self.times_s)
        return self._memo[key]

    def on_objects(self, text: str, spans_s: np.ndarray) -> np.ndarray:
        """`(K,)` probability that `text` is seen at some point on an object's own view in
        each span (the best of its `REGION_FRACTIONS` frames, against the stricter
        threshold); zeros without closer looks."""
        if self.closer is None or len(spans_s) == 0:
            return np.zeros(len(spans_s))
        strict = self._strict(text).probability
        return self.closer.on_objects(text, region_times(spans_s), strict)

    def together(self, texts: tuple[str, ...], nodes: Nodes, level: str) -> np.ndarray:
        """`(K,)` probability that all `texts` are visible at the same time in each node."""
        key = (texts, level, "together")
        if key not in self._memo:

            def read(frames: np.ndarray, times: np.ndarray) -> np.ndarray:
                return self._together_at(texts, frames, times)

            self._memo[key] = confirmed(read, nodes, self.times_s)
        return self._memo[key]

    def _together_at(
        self, texts: tuple[str, ...], frames: np.ndarray, times: np.ndarray
    ) -> np.ndarray:
        """`together` on nodes given by their timeline sample ranges `(K, 2)` and region
        frame times `(K, F)`: the median over the node's samples of the weaker text's
        probability, or, frame by frame at `times`, the weaker text's best reading."""
        whole = np.min([self.frame_p[t] for t in texts], axis=0)
        whole_nodes = np.array([np.median(whole[a:b]) if b > a else 0.0
                                for a, b in frames])  # fmt: skip
        nearest = np.clip(np.searchsorted(self.times_s, times), 0, len(self.times_s) - 1)
        now = {t: self.frame_p[t][nearest] for t in texts}
        if self.closer is not None:
            own = {t: self.calibration(t).probability for t in texts}
            strict = {t: self._strict(t).probability for t in texts}
            return self.closer.together(texts, times, whole_nodes, now, own, strict)
        region_nodes = np.min([now[t] for t in texts], axis=0).mean(axis=1)
        return np.maximum(whole_nodes, region_nodes)
