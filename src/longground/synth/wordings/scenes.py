"""Wordings of what is on screen in a generated video: an object, on a backdrop, in a look,
moving, inside a window (`Shown`), or a thing named in plain words that is not there
(`Named`).

A wording is a sentence frame ("when {ask}?", "show me {np}", "is there {np}?") around a
predicate said three ways (`Predicate`), with the object named by one of its everyday nouns.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..meaning import Named, Shown
from .phrasing import article, permuted
from .times import windowed

#: Everyday names of each catalogue category, singular, without an article.
NOUNS = {
    "cat": ("cat", "kitty", "kitten", "tabby"),
    "coffee": ("coffee cup", "mug", "cup of coffee", "espresso cup", "coffee mug"),
    "rocket": ("rocket", "space rocket", "spaceship", "rocket on its launch pad"),
    "motorcycle": ("motorcycle", "motorbike"),
    "camera": ("tripod camera", "cameraman", "camera on a tripod", "photographer"),
    "horse": ("horse", "horse silhouette", "black horse", "horse's silhouette"),
    "car": ("traffic jam", "line of cars", "street full of cars"),
    "bicycle": ("parked bicycle", "parked bike", "bicycle parked by a wall"),
}
#: Plain-word names of things the videos do not show (negatives, near misses).
THINGS = {
    "dog": ("dog", "doggy", "pooch"),
    "bird": ("bird",),
    "airplane": ("airplane", "plane", "aeroplane"),
    "sailing boat": ("sailing boat", "sailboat"),
    "teddy bear": ("teddy bear", "teddy"),
    "car": ("car", "automobile"),
    "motorcycle": ("motorcycle", "motorbike"),
    "truck": ("truck", "lorry"),
    "tiger": ("tiger",),
    "bowl": ("bowl",),
    "teapot": ("teapot", "tea pot"),
}
#: A named look around a noun.
LOOKS = {
    "gray": ("black-and-white {n}", "grey {n}", "{n} in black and white"),
    "blue": ("blue {n}",),
}


@dataclass(frozen=True)
class Predicate:
    """One way to say what the subject `{x}` does: as a noun phrase (`np`), inside a
    question after "when" (`ask`), and as a statement (`say`). `presence`: it says only that
    the subject appears, so "where" asks when rather than where in the picture."""

    np: str
    ask: str
    say: str
    presence: bool = False


P = Predicate
PRESENT = (
    P("{x}", "does {x} appear", "{x} appears", True),
    P("{x} on screen", "is {x} on screen", "{x} is on screen"),
    P("{x}", "does {x} show up", "{x} shows up", True),
    P("{x} in the picture", "is {x} in the picture", "{x} is in the picture"),
)
COLOR = (
    P("{x} on {a_c} background", "is {x} on {a_c} background", "{x} is on {a_c} background"),
    P("{x} against {a_c} backdrop", "is {x} shown against {a_c} backdrop",
      "{x} is shown against {a_c} backdrop"),
    P("{x} with {a_c} background", "is {x}'s background {c}", "{x}'s background is {c}"),
)  # fmt: skip
BRICK = (
    P("{x} in front of a brick wall", "is {x} in front of a brick wall",
      "{x} is in front of a brick wall"),
    P("{x} against a brick wall", "is {x} against a brick wall", "{x} is against a brick wall"),
    P("{x} with bricks behind it", "is there a brick wall behind {x}",
      "there is a brick wall behind {x}"),
)  # fmt: skip
MOVES = {
    "cross": (
        P("{x} moving across the screen", "does {x} move across the screen",
          "{x} moves across the screen"),
        P("{x} crossing the frame", "does {x} cross the frame", "{x} crosses the frame"),
        P("{x} going from one side of the picture to the other",
          "does {x} go from one side of the picture to the other",
          "{x} goes from one side of the picture to the other"),
    ),
    "cross-ltr": (
        P("{x} moving across the screen from left to right",
          "does {x} move across the screen from left to right",
          "{x} moves across the screen from left to right"),
        P("{x} crossing the frame left to right", "does {x} cross the frame left to right",
          "{x} crosses the frame left to right"),
    ),
    "cross-rtl": (
        P("{x} moving across the screen from right to left",
          "does {x} move across the screen from right to left",
          "{x} moves across the screen from right to left"),
        P("{x} crossing the frame right to left", "does {x} cross the frame right to left",
          "{x} crosses the frame right to left"),
    ),
    "enter": (
        P("{x} sliding into view", "does {x} slide into view", "{x} slides into view"),
        P("{x} coming into the frame", "does {x} come into the frame", "{x} comes into the frame"),
        P("{x} entering the picture", "does {x} enter the picture", "{x} enters the picture"),
    ),
    "exit": (
        P("{x} leaving the frame", "does {x} leave the frame", "{x} leaves the frame"),
        P("{x} sliding out of view", "does {x} slide out of view", "{x} slides out of view"),
        P("{x} going out of the picture", "does {x} go out of the picture",
          "{x} goes out of the picture"),
    ),
    "zoom_in": (
        P("a zoom in on {x}", "does the camera zoom in on {x}", "the camera zooms in on {x}"),
        P("the camera zooming in on {x}", "does the view zoom in on {x}",
          "the view zooms in on {x}"),
    ),
    "zoom_out": (
        P("a zoom out from {x}", "does the camera zoom out from {x}",
          "the camera zooms out from {x}"),
        P("the camera zooming out from {x}", "does the view zoom out from {x}",
          "the view zooms out from {x}"),
    ),
    "pan": (
        P("a pan across {x}", "does the camera pan across {x}", "the camera pans across {x}"),
        P("the view panning sideways over {x}", "does the view pan sideways over {x}",
          "the view pans sideways over {x}"),
    ),
    "still": (
        P("{x} in a shot where nothing moves", "is {x} in a shot where nothing moves",
          "{x} is in a shot where nothing moves"),
        P("{x} with nothing moving at all", "is {x} on screen with nothing moving at all",
          "{x} is on screen and nothing moves at all"),
        P("a completely still shot of {x}", "is {x} shown in a completely still shot",
          "{x} is shown in a completely still shot"),
    ),
}  # fmt: skip

#: Sentence frames around a predicate: (name, frame, article of the subject; "any": drawn).
FRAMES = (
    ("bare", "{np}", "any"),
    ("when", "when {ask}?", "the"),
    ("show", "show me {np}", "any"),
    ("every", "every time {say}", "the"),
    ("is there", "is there {np}?", "a"),
    ("find", "find {np}", "any"),
    ("where", "where {ask}?", "the"),
)


def _fits(frame: str, predicate: Predicate) -> bool:
    """Whether a predicate reads well in a frame: "where" only asks where something appears,
    and "is there" needs a phrase that starts with its indefinite subject."""
    if frame == "where":
        return predicate.presence
    if frame == "is there":
        return predicate.np.startswith(("{x}", "a "))
    return True


def phrasings(rng, names, predicates, fill: dict, which: str = "") -> list[str]:
    """One sentence per frame that fits, frames in a random order; the subject is named by
    `names` in turn (with the frame's article, or `which` for all), the predicates taken in
    turn."""
    names, predicates = permuted(rng, list(names)), permuted(rng, list(predicates))
    out = []
    for i, (frame, text, wanted) in enumerate(permuted(rng, FRAMES)):
        usable = [p for p in predicates if _fits(frame, p)]
        if not usable:
            continue
        predicate = usable[i % len(usable)]
        chosen = which or (wanted if wanted != "any" else str(rng.choice(["a", "the"])))
        x = article(names[i % len(names)], chosen)
        parts = {k: getattr(predicate, k).format(x=x, **fill) for k in ("np", "ask", "say")}
        out.append(text.format(**parts))
    return out


def names(category: str, look: str = "") -> list[str]:
    """The nouns naming a category, in a named look when `look` is given.

    >>> names("motorcycle", "blue")
    ['blue motorcycle', 'blue motorbike']
    """
    nouns = NOUNS[category]
    if not look:
        return list(nouns)
    return [form.format(n=n) for form in LOOKS[look] for n in nouns]


def shown(m: Shown, rng) -> list[str]:
    """Candidate wordings of an object on screen (see `Shown`)."""
    if m.backdrop == "brick":
        predicates, fill = BRICK, {}
    elif m.backdrop:
        predicates, fill = COLOR, {"c": m.backdrop, "a_c": article(m.backdrop, "a")}
    elif m.motion:
        predicates, fill = MOVES[m.motion], {}
    else:
        predicates, fill = PRESENT, {}
    texts = phrasings(rng, names(m.category, m.look), predicates, fill)
    return texts if m.window is None else windowed(rng, texts, m.window)


def named(m: Named, rng) -> list[str]:
    """Candidate wordings of a thing that is not there, always with "a"."""
    return phrasings(rng, THINGS[m.noun], PRESENT, {}, which="a")
