"""One entry for finding a target in frames: the first localiser that knows the target's
words does it (people and faces: the people channel's detectors; ImageNet classes: class
activation maps). A registry, not string branching: adding a localiser is adding an entry."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..errors import UserError
from ..track import Track
from .cam import CamLocaliser
from .detections import Detections
from .follow import follow
from .people import PeopleLocaliser

#: Tried in order; a localiser has `name`, `accepts(target) -> bool`,
#: `decode_side(target) -> int` (the frames' shorter side it looks at, in pixels) and
#: `__call__(frames, target) -> Detections`.
LOCALISERS: dict[str, Callable[[], object]] = {
    "people": PeopleLocaliser,
    "cam": CamLocaliser,
}
_MADE: dict[str, object] = {}


def localiser_for(target: str):
    """The localiser (made once per process) that finds `target`, or a `UserError`.

    >>> localiser_for("every person who enters").name, localiser_for("the red car").name
    ('people', 'cam')
    """
    for name, make in LOCALISERS.items():
        if name not in _MADE:
            _MADE[name] = make()
        if _MADE[name].accepts(target):
            return _MADE[name]
    raise UserError(
        f"cannot find {target!r} in the frame: name a person, a face or an ImageNet class "
        "(a dog, a car, a cup; docs/tracks.md)"
    )


def localise(frames: np.ndarray, target: str) -> Detections:
    """Boxes of `target` in each frame.

    Args:
        frames: `(N, H, W, 3)` uint8 RGB.
        target: what to find, in words ("a person", "faces", "the cars").

    Returns:
        `Detections`: normalised xyxy boxes with scores in [0, 1], `frames` indexing the N.
    """
    frames = np.asarray(frames)
    if frames.ndim != 4 or frames.shape[-1] != 3 or frames.dtype != np.uint8:
        raise ValueError(f"frames must be (N, H, W, 3) uint8, got {frames.shape} {frames.dtype}")
    return localiser_for(target)(frames, target)


def tracks_in(frames: np.ndarray, times_s: np.ndarray, target: str) -> list[Track]:
    """Tracks of `target` through evenly sampled frames: `localise`, then `follow`.

    Args:
        frames: `(N, H, W, 3)` uint8 RGB, sampled at a steady rate.
        times_s: `(N,)` their times in seconds.
        target: what to find, in words.

    Returns:
        One `Track` per object followed, labelled with `target`.
    """
    return follow(localise(frames, target), times_s, target)
