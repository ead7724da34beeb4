"""Plain negative queries: a plausible object that never appears in the video.

Every other builder also yields negatives (conditions whose mask is empty, such as the cat on a
red background in a video where it never is); this one adds objects that are not there at all.
"""

from __future__ import annotations

import numpy as np

from ..catalog import NEVER_SHOWN, OBJECT_CATEGORIES
from ..meaning import Named, Shown
from ..truth import Truth
from .base import Candidate, find_text, name, present_categories, register


@register("negative")
def absent_objects(truth: Truth, rng: np.random.Generator) -> list[Candidate]:
    """Catalogue objects left out of this video, and things no synthetic video shows."""
    shown = set(present_categories(truth))
    empty = np.zeros(truth.n_frames, bool)
    out = [
        Candidate(find_text(rng, name(rng, c)), empty, (), f"absent:{c}", Shown(c))
        for c in OBJECT_CATEGORIES
        if c not in shown
    ]
    out += [
        Candidate(find_text(rng, thing), empty, (), f"never:{thing}", Named(thing.split(" ", 1)[1]))
        for thing in NEVER_SHOWN  # "a dog": the noun after its article
    ]
    return out
