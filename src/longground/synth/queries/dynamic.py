"""Dynamic queries: something only several frames can tell (an object crossing, sliding in or
out, the camera zooming or panning, or a shot where nothing moves at all)."""

from __future__ import annotations

import numpy as np

from ..catalog import PHOTO_CATEGORIES
from ..meaning import Shown
from ..truth import Truth
from .base import Candidate, find_text, name, pick, register

#: Motion phrases: (key, phrasings, which tracks, whether they must be moving).
MOTIONS = (
    (
        "cross",
        ("{x} moving across the screen", "{x} sliding from one side of the frame to the other"),
        lambda tr: tr.appearance.motion == "cross",
        None,
    ),
    (
        "cross-ltr",
        ("{x} moving across the screen from left to right", "{x} sliding left to right"),
        lambda tr: tr.appearance.motion == "cross" and tr.appearance.direction == "left-to-right",
        None,
    ),
    (
        "cross-rtl",
        ("{x} moving across the screen from right to left", "{x} sliding right to left"),
        lambda tr: tr.appearance.motion == "cross" and tr.appearance.direction == "right-to-left",
        None,
    ),
    (
        "enter",
        ("{x} sliding into view", "{x} coming into the frame"),
        lambda tr: tr.appearance.motion == "enter",
        True,
    ),
    (
        "exit",
        ("{x} sliding out of view", "{x} leaving the frame"),
        lambda tr: tr.appearance.motion == "exit",
        True,
    ),
)

CAMERA_MOVES = (
    ("zoom_in", ("the view slowly zooming in on {x}", "a slow zoom in on {x}")),
    ("zoom_out", ("the view slowly zooming out from {x}", "a slow zoom out from {x}")),
    ("pan", ("the view panning sideways across {x}", "a slow pan over {x}")),
)
STILL_PHRASES = ("{x} in a still shot where nothing moves", "{x} with nothing moving on screen")


def motion_on_screen(truth: Truth) -> np.ndarray:
    """`(n_frames,)` bool: something on screen moves by itself, or the camera moves."""
    moving = truth.mask(lambda tr: True, moving=True, partly=True)
    camera = [i for i, shot in enumerate(truth.script.shots) if shot.camera.moves]
    return moving | truth.shots_mask(camera)


@register("dynamic")
def dynamic_queries(truth: Truth, rng: np.random.Generator) -> list[Candidate]:
    """Object motion, camera motion and stillness, for each photo category."""
    out = []
    still_frames = ~motion_on_screen(truth)
    for category in PHOTO_CATEGORIES:
        for key, phrases, keep, moving in MOTIONS:
            mask = truth.mask(lambda tr, k=keep, c=category: tr.category == c and k(tr), moving)
            text = find_text(rng, pick(rng, phrases).format(x=name(rng, category)))
            meaning = Shown(category, motion=key)
            out.append(Candidate(text, mask, ("dynamic",), f"{category}:{key}", meaning))
        for kind, phrases in CAMERA_MOVES:
            mask = truth.mask(
                lambda tr, c=category, k=kind: tr.category == c and truth.shot(tr.shot).kind == k
            )
            text = find_text(rng, pick(rng, phrases).format(x=name(rng, category)))
            meaning = Shown(category, motion=kind)
            out.append(Candidate(text, mask, ("dynamic",), f"{category}:{kind}", meaning))
        mask = truth.mask(lambda tr, c=category: tr.category == c) & still_frames
        text = find_text(rng, pick(rng, STILL_PHRASES).format(x=name(rng, category)))
        meaning = Shown(category, motion="still")
        out.append(Candidate(text, mask, ("dynamic",), f"{category}:still", meaning))
    return out
