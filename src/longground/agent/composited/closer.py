"""Closer looks in the composited scene: each frame's halves, and its objects' boxes.

A whole-frame classifier sees the dominant object of a frame; a second object beside it
often does not register at all. The composited scene looks closer (`HalvesAndBoxes`):

- regions: the frame's left and right halves (`regions.py`), scored per text; the better half
  counts;
- object boxes: the box of what the frame's outer ring does not show in each half
  (`boxes.py`) and the frame's largest object whole (`object_views.py`). With
  `object_presence` they count for presence too, judged against the absolute threshold; only
  views that found a box count: a view that fell back to its half or to the whole frame
  (nothing stands out of the backdrop: a full-frame scene or photo) is no closer look, and
  the absolute threshold there would overrule the text's own decision on the very picture
  it was made on.

Two texts are visible *together* in a frame when the smaller of their two probabilities is
high: in the same half, or one in each half; there each text may also be seen on the object
box of a half (the second object of a two-object shot is often too small in its half for the
encoder), and one box is one object (`owned`).
"""

from __future__ import annotations

import numpy as np

from ..scene import Probability, RegionFn, RegionLooks, ScoreFn
from .boxes import SIDES
from .object_views import OBJECT_FOUND


class HalvesAndBoxes(RegionLooks):
    """The closer looks of one query.

    Args:
        score: `score(features, text) -> (M,)`, the encoder's scoring of feature rows.
        regions: `regions(times) -> {name: (N, R, ...)}` features of the frame halves, or None.
        objects: `objects(times) -> {name: (N, V, ...)}` features of the object views
            (`object_views.VIEWS`), or None.
        object_presence: `seen` also counts the object boxes, against the absolute threshold.
    """

    def __init__(
        self, score: ScoreFn, regions: RegionFn | None, objects: RegionFn | None,
        object_presence: bool = False,
    ):  # fmt: skip
        super().__init__(score, regions)
        self.objects = objects
        self.object_presence = object_presence and objects is not None

    def probabilities(
        self, views: RegionFn | None, text: str, times: np.ndarray, probability: Probability,
        boxed_only: bool = False,
    ) -> np.ndarray:  # fmt: skip
        """`(K, F, R)` probability of `text` on each of the R `views` of the frames at
        `times` `(K, F)`; `(K, F, 1)` zeros without views. `boxed_only`: 0 on object views
        that found no box (`object_views.OBJECT_FOUND`, when the features say)."""
        if views is None or times.size == 0:
            return np.zeros((*times.shape, 1))
        feats = dict(views(times.reshape(-1)))
        found = feats.pop(OBJECT_FOUND, None)
        n_views = next(iter(feats.values())).shape[1]
        flat = {k: v.reshape(v.shape[0] * n_views, *v.shape[2:]) for k, v in feats.items()}
        raw = np.asarray(self.score(flat, text), dtype=np.float64).reshape(-1, n_views)
        p = probability(raw).reshape(*times.shape, n_views)
        if boxed_only and found is not None:
            p = p * found.reshape(p.shape)
        return p

    def seen(
        self, text: str, times_s: np.ndarray, seen_once: bool, own: Probability,
        absolute: Probability,
    ) -> np.ndarray:  # fmt: skip
        region = self.probabilities(self.regions, text, times_s, own).max(axis=2)
        if self.object_presence:  # a closer look, judged against the absolute threshold
            box = self.probabilities(self.objects, text, times_s, absolute, boxed_only=True)
            region = np.maximum(region, box.max(axis=2))
        return region.max(axis=1) if seen_once else region.mean(axis=1)

    def on_objects(self, text: str, times_s: np.ndarray, strict: Probability) -> np.ndarray:
        if self.objects is None or len(times_s) == 0:
            return np.zeros(len(times_s))
        return self.probabilities(self.objects, text, times_s, strict).max(axis=2).max(axis=1)

    def together(
        self, texts: tuple[str, ...], times_s: np.ndarray, whole_nodes: np.ndarray,
        whole_now: dict[str, np.ndarray], own: dict[str, Probability],
        strict: dict[str, Probability],
    ) -> np.ndarray:  # fmt: skip
        """With object boxes, one box is one object (`owned`): a half whose box shows another
        of the texts, and not this one, does not show this one, however its whole half or the
        whole frame reads; the whole frames' reading counts only where some half is left
        for the text. The view of the largest object whole (`object_views`) belongs to no
        half: a text it shows is seen."""
        sides = {t: self.probabilities(self.regions, t, times_s, own[t]) for t in texts}
        per_text = {t: np.maximum(sides[t].max(axis=2), whole_now[t]) for t in texts}
        if self.objects is not None:
            views = {t: self.probabilities(self.objects, t, times_s, strict[t]) for t in texts}
            halves = len(SIDES)  # the first views are the halves' boxes
            boxes = {t: v[..., :halves] for t, v in views.items()}
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
