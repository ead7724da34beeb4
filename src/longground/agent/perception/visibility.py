"""How likely each plan text is visible in graph nodes, from whole frames and frame halves.

For a node and a text, the kinds of evidence are combined by taking the larger probability:

- whole frames: the pooled (median, or a high quantile for "seen at some point") encoder
  score of the timeline samples inside the node, through the calibration;
- regions: the node is looked at closer, at `REGION_FRACTIONS` of its span: each frame's left
  and right halves are scored and the better half counts; the frames are averaged (or the best
  one taken for "seen at some point");
- object boxes (with `object_presence`): the same frames looked at closer still, on the box
  of what the frame's outer ring does not show in each half (`boxes.py`) and on the frame's
  largest object whole (`object_views.py`), the best view counting, pooled like the halves and
  judged against the absolute threshold; on frames smaller than the encoder's input a small
  object is seen there when whole frames and halves miss it. Only views that found a box
  count: a view that fell back to its half or to the whole frame (nothing stands out of the
  backdrop: a full-frame scene or photo) is no closer look, and the absolute threshold there
  would overrule the text's own decision on the very picture it was made on.

Two texts are visible *together* in a node when, frame by frame, the smaller of their two
probabilities is high: in the same half, or one in each half. There each text may also be seen
on the object box of a half (`boxes.py`): the second object of a two-object shot is often too
small in its half for the encoder.

A node shorter than `READ_STEPS` timeline steps keeps each of these readings only where the
window of that length around it, inside its event, confirms it (`confirmed`): one frame's
stray reading does not decide a second-long node.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..evidence import Evidence, timeline_step
from ..graph.nodes import Nodes, frames_in_spans
from .boxes import SIDES
from .object_views import OBJECT_FOUND
from .presence import Calibration

# Where in a node's span its region frames are taken.
REGION_FRACTIONS = (1 / 3, 2 / 3)
#: Timeline steps a node's presence is read on at least (`read_spans`): its region frames
#: then lie a whole step apart and a step from the window's ends, and its whole frames hold
#: three samples, the fewest whose median sets one stray reading aside.
READ_STEPS = len(REGION_FRACTIONS) + 1
ScoreFn = Callable[[dict[str, np.ndarray], str], np.ndarray]
RegionFn = Callable[[np.ndarray], dict[str, np.ndarray]]


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
        score: `score(features, text) -> (M,)`, the encoder's scoring of feature rows.
        regions: `regions(times) -> {name: (N, R, ...)}` region features, or None (whole frames
            only).
        per_text: calibrations of single texts that replace `calibration` for them (see
            `relative.decide`).
        objects: `objects(times) -> {name: (N, R, ...)}` features of the frames' object views
            (`object_views.object_views`), or None; read by `together`, and by `nodes` when
            `object_presence` is set.
        object_presence: let `nodes` also see a text on the object boxes, against the
            absolute threshold (docs/agent.md, "Small frames: the closer look decides").
    """

    def __init__(
        self,
        times_s: np.ndarray,
        scores: dict[str, np.ndarray],
        calibration: Calibration,
        score: ScoreFn | None = None,
        regions: RegionFn | None = None,
        per_text: dict[str, Calibration] | None = None,
        objects: RegionFn | None = None,
        object_presence: bool = False,
    ):
        self.object_presence = object_presence and objects is not None
        self.times_s = np.asarray(times_s, dtype=np.float64)
        self.cal, self.score, self.regions = calibration, score, regions
        self.objects = objects
        self.per_text = dict(per_text or {})
        self.frame_p = {t: self.calibration(t).probability(s) for t, s in scores.items()}
        self._memo: dict[tuple, np.ndarray] = {}

    def calibration(self, text: str) -> Calibration:
        """The text's own calibration (decisions relative to the video), else the shared one."""
        return self.per_text.get(text, self.cal)

    def _whole(self, text: str, frames: np.ndarray, quantile: float) -> np.ndarray:
        p = self.frame_p[text]
        return np.array([np.quantile(p[a:b], quantile) if b > a else 0.0 for a, b in frames])

    def _region_p(
        self,
        text: str,
        times: np.ndarray,
        regions: RegionFn | None = None,
        calibration: Calibration | None = None,
    ) -> np.ndarray:
        """`(K, F)` best-region probability at each of `times` `(K, F)` (the halves, or the
        regions `regions` gives, through `calibration`, default the text's); zeros without
        regions."""
        return self._sides_p(text, times, regions, calibration).max(axis=2)

    def _sides_p(
        self,
        text: str,
        times: np.ndarray,
        regions: RegionFn | None = None,
        calibration: Calibration | None = None,
        boxed_only: bool = False,
    ) -> np.ndarray:
        """`(K, F, R)` probability per region (R = 2 halves, or the regions `regions` gives)
        at each of `times` `(K, F)`, as `_region_p` before its best region; `(K, F, 1)`
        zeros without regions. `boxed_only`: 0 on object views that found no box
        (`object_views.OBJECT_FOUND`, when the features say)."""
        regions = self.regions if regions is None else regions
        if regions is None or self.score is None or times.size == 0:
            return np.zeros((*times.shape, 1))
        feats = dict(regions(times.reshape(-1)))
        found = feats.pop(OBJECT_FOUND, None)
        n_regions = next(iter(feats.values())).shape[1]
        flat = {k: v.reshape(v.shape[0] * n_regions, *v.shape[2:]) for k, v in feats.items()}
        raw = np.asarray(self.score(flat, text), dtype=np.float64).reshape(-1, n_regions)
        calibration = calibration or self.calibration(text)
        p = calibration.probability(raw).reshape(*times.shape, n_regions)
        if boxed_only and found is not None:
            p = p * found.reshape(p.shape)
        return p

    def _strict(self, text: str) -> Calibration:
        """The stricter of the text's calibration and the shared (absolute) one. An object box
        is a closer look, under which any class scores higher than on whole frames; a
        threshold lowered from the whole frames' scores (`relative.decide`) does not carry
        over to it."""
        own = self.calibration(text)
        return own if own.threshold >= self.cal.threshold else self.cal

    def nodes(self, text: str, nodes: Nodes, level: str, seen_once: bool = False) -> np.ndarray:
        """`(K,)` probability that `text` is visible in each node.

        Args:
            text: a plan text.
            nodes: a graph level.
            level: its name, for caching ("events" or "actions").
            seen_once: True: visible at some point (90th percentile, best region frame);
                False: visible throughout (median, mean over region frames).
        """
        key = (text, level, seen_once)
        if key not in self._memo:

            def read(frames: np.ndarray, times: np.ndarray) -> np.ndarray:
                whole = self._whole(text, frames, 0.9 if seen_once else 0.5)
                region = self._region_p(text, times)
                if self.object_presence:  # a closer look, judged against the absolute threshold
                    box = self._sides_p(text, times, self.objects, self.cal, boxed_only=True)
                    region = np.maximum(region, box.max(axis=2))
                pooled = region.max(axis=1) if seen_once else region.mean(axis=1)
                return np.maximum(whole, pooled)

            self._memo[key] = confirmed(read, nodes, self.times_s)
        return self._memo[key]

    def on_objects(self, text: str, spans_s: np.ndarray) -> np.ndarray:
        """`(K,)` probability that `text` is seen at some point on the object box of a half
        in each span (the best of its `REGION_FRACTIONS` frames and both sides, against the
        stricter threshold); zeros without object features."""
        if self.objects is None or len(spans_s) == 0:
            return np.zeros(len(spans_s))
        times = region_times(spans_s)
        return self._region_p(text, times, self.objects, self._strict(text)).max(axis=1)

    def together(self, texts: tuple[str, ...], nodes: Nodes, level: str) -> np.ndarray:
        """`(K,)` probability that all `texts` are visible at the same time in each node.

        With object boxes, one box is one object (`owned`): a half whose box shows another of the
        texts, and not this one, does not show this one, however its whole half or the whole
        frame reads; the whole frames' reading counts only where some half is left for the
        text (docs/notes/agent-log.md, "One box, one object"). The view of the largest object whole
        (`object_views`) belongs to no half: a text it shows is seen."""
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
        frame times `(K, F)`."""
        whole = np.min([self.frame_p[t] for t in texts], axis=0)
        whole_nodes = np.array([np.median(whole[a:b]) if b > a else 0.0
                                for a, b in frames])  # fmt: skip
        nearest = np.clip(np.searchsorted(self.times_s, times), 0, len(self.times_s) - 1)
        sides = {t: self._sides_p(t, times) for t in texts}
        per_text = {t: np.maximum(sides[t].max(axis=2), self.frame_p[t][nearest])
                    for t in texts}  # fmt: skip
        if self.objects is not None:
            views = {t: self._sides_p(t, times, self.objects, self._strict(t)) for t in texts}
            halves = len(SIDES)  # the first views are the halves' boxes
            boxes = {t: v[..., :halves] for t, v in views.items()}
            whole_now = {t: self.frame_p[t][nearest] for t in texts}
            per_text, elsewhere = owned(sides, boxes, whole_now)
            # a view of no half (the largest object whole) is one object's closer look too
            per_text = {t: np.maximum(p, views[t][..., halves:].max(axis=2, initial=0.0))
                        for t, p in per_text.items()}  # fmt: skip
            whole_nodes = np.where(elsewhere.all(axis=1), 0.0, whole_nodes)
        region_nodes = np.min(list(per_text.values()), axis=0).mean(axis=1)
        return np.maximum(whole_nodes, region_nodes)


def owned(
    sides: dict[str, np.ndarray], boxes: dict[str, np.ndarray], whole: dict[str, np.ndarray]
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Each text's probability per frame when one object box holds one object.

    A half is *owned* by text u when its box shows u (probability >= 0.5) and not text t:
    there t is what the box says (the object of the half is u, read as t too by the whole
    half or frame: a coffee cup's half also scores "a tripod camera" at the threshold).
    t keeps its half's or box's reading on the halves not owned, and its whole-frame
    reading only in frames where such a half shows it or no half is owned.

    Args:
        sides: per text, `(K, F, R)` probability on each half.
        boxes: per text, `(K, F, R)` probability on each half's object box.
        whole: per text, `(K, F)` whole-frame probability at the same times.

    Returns:
        Per text `(K, F)` probability, and `(K, F)` bool: some text's whole-frame reading
        was set aside in that frame.

    >>> one = np.ones((1, 1, 2)); cup = {"cup": one, "camera": one * [0.9, 0.1]}
    >>> box = {"cup": one * [0.9, 0.1], "camera": one * 0.1}
    >>> p, aside = owned(cup, box, {"cup": np.ones((1, 1)), "camera": np.ones((1, 1))})
    >>> p["camera"].tolist(), p["cup"].tolist(), aside.tolist()
    ([[0.1]], [[1.0]], [[True]])
    """
    seen = {t: boxes[t] >= 0.5 for t in boxes}
    out, aside = {}, np.zeros(next(iter(whole.values())).shape, bool)
    for t in sides:
        others = [seen[u] for u in sides if u != t]
        own = np.any(others, axis=0) & ~seen[t] if others else np.zeros_like(seen[t])
        halves = np.where(own, boxes[t], np.maximum(sides[t], boxes[t]))
        free = (np.where(own, 0.0, halves) >= 0.5).any(axis=2)
        keep = free | ~own.any(axis=2)
        aside |= ~keep
        out[t] = np.maximum(halves.max(axis=2), np.where(keep, whole[t], 0.0))
    return out, aside


def evidence_visibility(ev: Evidence, calibration: Calibration) -> Visibility:
    """The query's `Visibility`, made once per evidence object (kept in its `memo`)."""
    if "visibility" not in ev.memo:
        ev.memo["visibility"] = Visibility(
            ev.times_s, ev.scores, calibration, ev.score_features, ev.regions, ev.calibrations,
            ev.objects, ev.memo.get("object_presence", False),
        )  # fmt: skip
    return ev.memo["visibility"]
