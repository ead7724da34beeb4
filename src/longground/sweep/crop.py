"""Methods that can run on a crop of a video, by name.

A crop grounder answers `ground_crop(video, query, start_s, end_s)` seeing only that part of
the video, and returns moments in video time. Retrieval reads the crop's frames off the
video's feature index, so a crop never decodes the video again; the Video-LLM methods and the
agent are in `cropped.py`.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import numpy as np

from ..errors import UserError
from ..methods import MethodConfig
from ..methods.base import Grounding
from ..methods.retrieval import RetrievalMethod


class CroppedRetrieval(RetrievalMethod):
    """The retrieval method restricted to `[start_s, end_s]` of the video's frame curve."""

    crop_s: tuple[float, float] = (0.0, np.inf)

    def scored(self, video: Path, query: str) -> tuple[np.ndarray, np.ndarray, float, Fraction]:
        times_s, scores, duration_s, fps = super().scored(video, query)
        start_s, end_s = self.crop_s
        keep = (times_s >= start_s) & (times_s <= end_s)
        if not keep.any() and len(times_s):  # a crop shorter than a frame step: its nearest frame
            keep[np.argmin(np.abs(times_s - (start_s + min(end_s, duration_s)) / 2))] = True
        return times_s[keep], scores[keep], min(float(duration_s), end_s), fps

    def ground_crop(self, video: Path, query: str, start_s: float, end_s: float) -> Grounding:
        """Ground `query` in `[start_s, end_s]` only; moments in video time, inside the crop."""
        self.crop_s = (float(start_s), float(end_s))
        try:
            grounding = self.ground(video, query)
        finally:
            self.crop_s = (0.0, np.inf)
        grounding.trace["crop_s"] = [float(start_s), float(end_s)]
        return Grounding(grounding.moments.clip(start_s, end_s), grounding.raw, grounding.trace)


def _cropped(name: str) -> Callable[[MethodConfig], object]:
    def build(config: MethodConfig):
        from . import cropped

        return getattr(cropped, name)(config)

    return build


CROP_METHODS: dict[str, Callable[[MethodConfig], object]] = {
    "retrieval": lambda config: CroppedRetrieval(config),
    "monolithic": _cropped("CroppedMonolithic"),
    "hybrid": _cropped("CroppedHybrid"),
    "agent": _cropped("CroppedAgent"),
}

# The parameter a frame-count sweep (`sweep --frames`) sets, for the methods that have one.
FRAME_PARAMS = {"monolithic": "n_frames", "hybrid": "n_frames"}


def build_crop_method(name: str, config: MethodConfig):
    """The crop grounder registered as `name`.

    Raises:
        UserError: no method of that name can run on crops.
    """
    if name not in CROP_METHODS:
        known = ", ".join(CROP_METHODS)
        raise UserError(f"sweep: method {name!r} cannot run on crops yet (choose from: {known})")
    return CROP_METHODS[name](config)


def build_sweep_methods(
    names: list[str], frames: list[int], config_for: Callable[[str, dict], MethodConfig]
) -> tuple[dict[str, object], dict[str, tuple[str, int | None]]]:
    """The crop grounders of a sweep: one per method, or one per (method, N) with `frames`.

    Args:
        names: method names.
        frames: frame counts N of a frame-count sweep (empty: none).
        config_for: `(method, extra params) -> MethodConfig`.

    Returns:
        `(grounders by name, (method, N) by name)`; names as `sweep.run.variant_label`.

    Raises:
        UserError: a method cannot run on crops, or has no frame count to sweep.
    """
    from .run import variant_label

    built, variants = {}, {}
    for name in names:
        if frames and name not in FRAME_PARAMS:
            known = ", ".join(FRAME_PARAMS)
            raise UserError(f"sweep --frames: method {name!r} sends no frames to a model "
                            f"(choose from: {known})")  # fmt: skip
        for n in frames or [None]:
            extra = {} if n is None else {FRAME_PARAMS[name]: str(n)}
            label = variant_label(name, n)
            built[label] = build_crop_method(name, config_for(name, extra))
            variants[label] = (name, n)
    return built, variants


def parse_frames(text: str | None) -> list[int]:
    """`"32,64,128"` as `[32, 64, 128]`; None or "" as [].

    >>> parse_frames("32, 64,768")
    [32, 64, 768]
    """
    if not text:
        return []
    counts = []
    for item in (part.strip() for part in text.split(",")):
        if not item.isdigit() or int(item) <= 0:
            raise UserError(f"--frames: {item!r} is not a positive whole number of frames")
        counts.append(int(item))
    if len(set(counts)) != len(counts):
        raise UserError(f"--frames: repeated count in {text!r}")
    return counts
