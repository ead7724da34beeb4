"""What stands behind the target: a backdrop named by colour or by texture, as a probability.

`BACKDROP_TEXTURES` maps the texture names the planner extracts (`plan.phrases.BACKDROP_TEXTURE`)
to their checks; every other backdrop name is a colour (`colors.backdrop_share`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .colors import backdrop_share
from .textures import lined_share

BACKDROP_TEXTURES: dict[str, Callable[[np.ndarray], float]] = {"brick": lined_share}


def backdrop_probability(frames: np.ndarray, name: str) -> float:
    """How likely `(N, H, W, 3)` frames show their object against the backdrop `name`.

    >>> f = np.zeros((1, 40, 60, 3), np.uint8); f[...] = (50, 90, 210)
    >>> backdrop_probability(f, "blue"), backdrop_probability(f, "brick")
    (1.0, 0.0)
    """
    check = BACKDROP_TEXTURES.get(name.lower())
    return check(frames) if check is not None else backdrop_share(frames, name)
