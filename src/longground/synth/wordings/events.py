"""Wordings of events across frames and shots: the ball knocking a target over or rolling
past it (`Knocked`), an object in the shot after or before another's (`Cut`), two objects at
once (`Together`), and one instance by its order of appearance (`Ordinal`)."""

from __future__ import annotations

from ..meaning import Cut, Knocked, Ordinal, Together
from .phrasing import permuted
from .scenes import NOUNS

HIT = (
    "the ball knocking over {t}",
    "when does the ball knock {t} over?",
    "every time {t} gets knocked down by the ball",
    "show me the ball hitting {t} and knocking it over",
    "does the ball knock over {t}?",
)
MISS = (
    "the ball rolling past {t} without knocking it over",
    "when does the ball roll by {t} and leave it standing?",
    "every time the ball misses {t}",
    "show me the ball going past {t} without knocking it down",
    "does the ball roll past {t} without toppling it?",
)
ANY_HIT = (
    "the ball knocking something over",
    "when does the ball knock anything down?",
    "every time something gets knocked over by the ball",
    "show me the ball hitting an object so that it falls over",
    "does the ball knock anything over?",
)
ANY_MISS = (
    "the ball rolling past something without knocking it over",
    "when does the ball pass an object that stays standing?",
    "every time the ball misses an object",
    "show me the ball rolling by something that stays up",
    "does the ball ever roll past something without toppling it?",
)
AFTER = (
    "{shown} in the shot right after {other}",
    "when is {shown} on screen right after a shot of {other}?",
    "show me {shown} straight after a shot of {other}",
    "every shot of {shown} that directly follows a shot of {other}",
    "the shots of {shown} that come right after {other}",
)
BEFORE = (
    "{shown} right before a cut to {other}",
    "when is {shown} on screen just before a shot of {other}?",
    "show me {shown} in the shot right before {other}",
    "every shot of {shown} that is directly followed by a shot of {other}",
    "the shots of {shown} that come just before {other}",
)
TOGETHER = (
    "{a} and {b} together",
    "when are {a} and {b} both on screen?",
    "show me {a} with {b} in the same frame",
    "every time {a} and {b} appear at the same time",
    "moments with both {a} and {b} in the picture",
    "is there a moment with {a} and {b} on screen together?",
)
EVERY = (
    "the {ord} {noun} to appear",
    "when is the {noun} that shows up {ord} on screen?",
    "show me the {noun} that appeared {ord}, every time it is on screen",
    "every time the {ord} {noun} to appear is visible, its first appearance included",
    "all the moments with the {ord} {noun} we see",
)
RETURNS = ("the {ord} {noun} to appear coming back",
           "when does the {noun} that showed up {ord} come back?",
           "every return of the {ord} {noun} to appear, not its first showing",
           "show me the {ord} {noun} we see when it reappears",
           "when is the {ord} {noun} to appear seen again after its first appearance?")  # fmt: skip


def _the(rng, category: str) -> str:
    return "the " + str(rng.choice(NOUNS[category]))


def knocked(m: Knocked, rng) -> list[str]:
    """Candidate wordings of the ball hitting or missing a target (or anything)."""
    if not m.target:
        return permuted(rng, ANY_HIT if m.hit else ANY_MISS)
    return [t.format(t=_the(rng, m.target)) for t in permuted(rng, HIT if m.hit else MISS)]


def cut(m: Cut, rng) -> list[str]:
    """Candidate wordings of an object in the shot right after (or before) another's."""
    return [
        t.format(shown=_the(rng, m.shown), other=_the(rng, m.other))
        for t in permuted(rng, AFTER if m.after else BEFORE)
    ]


def together(m: Together, rng) -> list[str]:
    """Candidate wordings of two objects on screen at once."""
    return [t.format(a=_the(rng, m.first), b=_the(rng, m.second)) for t in permuted(rng, TOGETHER)]


def ordinal(m: Ordinal, rng) -> list[str]:
    """Candidate wordings of one instance by its order of first appearance."""
    return [
        t.format(ord=m.ordinal, noun=str(rng.choice(NOUNS[m.category])))
        for t in permuted(rng, RETURNS if m.returns else EVERY)
    ]
