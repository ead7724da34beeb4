"""Methods that can run on a crop of a video, by name.

A crop grounder answers `ground_crop(video, query, start_s, end_s)` seeing only that part of
the video, and returns moments in video time. Retrieval reads the crop's frames off the
video's feature index, so a crop never decodes the video again.
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


CROP_METHODS: dict[str, Callable[[MethodConfig], object]] = {
    "retrieval": lambda config: CroppedRetrieval(config),
}


def build_crop_method(name: str, config: MethodConfig):
    """The crop grounder registered as `name`.

    Raises:
        UserError: no method of that name can run on crops.
    """
    if name not in CROP_METHODS:
        known = ", ".join(CROP_METHODS)
        raise UserError(f"sweep: method {name!r} cannot run on crops yet (choose from: {known})")
    return CROP_METHODS[name](config)
