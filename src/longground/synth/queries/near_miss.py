"""Near-miss negatives: a query naming, in plain words, an object the video never shows while
an object it can be mistaken for is on screen ("a car" beside the motorcycle, "a dog" beside
the cat, "a bowl" beside the coffee cup).

They are made after the other queries are chosen, from their own generator, so they add lines
to a benchmark without changing any other. A thing is asked only when no picture in the video
shows it, checked against what each catalogue picture holds besides its own object
(`ALSO_SHOWN`, looked at by hand), and not when the video already asks for it as a plain
negative. "A bicycle" is never a near miss: every vehicle picture shows one (the motorcycle
photo has a bicycle at its left edge, the traffic clip a man riding one).
"""

from __future__ import annotations

import numpy as np

from ...moments import Moments
from ..meaning import Named
from ..truth import Truth
from .base import find_text, present_categories, with_article
from .select import Query

#: Absent things a near miss names, each with the categories it can be mistaken for.
CONFUSABLE = {
    "car": ("motorcycle", "bicycle"),
    "motorcycle": ("car", "bicycle"),
    "truck": ("car", "motorcycle"),
    "dog": ("cat", "horse"),
    "tiger": ("cat",),
    "bowl": ("coffee",),
    "teapot": ("coffee",),
}
#: What a category's pictures show besides the category itself.
ALSO_SHOWN = {
    "motorcycle": ("bicycle",),  # a red bicycle at the photo's left edge
    "car": ("bicycle", "person"),  # a man in a suit cycling past the cars
    "bicycle": ("person",),  # a man walking by
    "camera": ("person",),  # the cameraman
}
ATTRIBUTES = ("negative", "near-miss")


def shown_things(present: list[str]) -> set[str]:
    """Everything the pictures of the `present` categories show.

    >>> sorted(shown_things(["motorcycle"]))
    ['bicycle', 'motorcycle']
    """
    return set(present) | {thing for c in present for thing in ALSO_SHOWN.get(c, ())}


def near_misses(truth: Truth, rng: np.random.Generator, asked: set[str]) -> list[Query]:
    """The near-miss queries of one video, in `CONFUSABLE` order; `asked` holds the keys of
    the video's other queries, so a thing asked as a plain negative is not asked again."""
    present = present_categories(truth)
    shown = shown_things(present)
    out = []
    for thing, neighbours in CONFUSABLE.items():
        beside = [c for c in neighbours if c in present]
        plain = {f"negative/absent:{thing}", f"negative/never:{with_article(thing)}"}
        if thing in shown or not beside or plain & asked:
            continue
        text = find_text(rng, with_article(thing))
        key = f"near-miss/{thing}~{beside[0]}"
        out.append(Query(text, Moments.empty(), ATTRIBUTES, key, Named(thing, beside[0])))
    return out
