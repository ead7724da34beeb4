"""What a generated query asks, in parts: the value a rewording is made from.

Every query the generators write (`synth.queries`, `synth.audiovisual`) carries one of these
next to its text. `synth.wordings` says the same thing again in other everyday words from
these parts, never from the finished sentence, so a rewording cannot drift from the truth.

>>> Shown("cat", backdrop="green")
Shown(category='cat', backdrop='green', look='', motion='', window=None)
>>> Window(120.0, 300.0, 60, to_end=False).start_s
120.0
"""

from __future__ import annotations

from dataclasses import dataclass

#: Motions a `Shown` may state (synth/queries/dynamic.py's keys, and "still").
MOTIONS = (
    "cross",
    "cross-ltr",
    "cross-rtl",
    "enter",
    "exit",
    "zoom_in",
    "zoom_out",
    "pan",
    "still",
)


@dataclass(frozen=True)
class Window:
    """A bounded query's window `[start_s, end_s)` in seconds, drawn in whole `unit_s`.

    `to_end`: the window runs to the video's end (`end_s` is then the duration).
    """

    start_s: float
    end_s: float
    unit_s: int
    to_end: bool

    def __post_init__(self) -> None:
        if not 0 <= self.start_s < self.end_s or self.unit_s <= 0:
            raise ValueError(f"bad window {self}")


@dataclass(frozen=True)
class Shown:
    """A catalogue object on screen, optionally on a backdrop (a colour name or "brick"), in a
    named look ("blue", "gray"), in a motion (`MOTIONS`) or inside a window."""

    category: str
    backdrop: str = ""
    look: str = ""
    motion: str = ""
    window: Window | None = None

    def __post_init__(self) -> None:
        if self.motion and self.motion not in MOTIONS:
            raise ValueError(f"unknown motion {self.motion!r}")


@dataclass(frozen=True)
class Named:
    """A thing named in plain words that the video never shows: a dog, or a car while a
    motorcycle is on screen (`beside`: the confusable category that is there, if any)."""

    noun: str
    beside: str = ""


@dataclass(frozen=True)
class Knocked:
    """The ball hitting and knocking over (`hit`) or rolling past (`miss`) a target: a
    catalogue category, or "" for any object."""

    hit: bool
    target: str = ""


@dataclass(frozen=True)
class Cut:
    """`shown` on screen in the shot right after a shot of `other` (`after`), or in the shot
    right before one."""

    shown: str
    other: str
    after: bool


@dataclass(frozen=True)
class Together:
    """Two categories on screen at the same time."""

    first: str
    second: str


@dataclass(frozen=True)
class Ordinal:
    """One instance among look-alikes, by its order of first appearance ("second"); with
    `returns`, only its appearances after the first."""

    category: str
    ordinal: str
    returns: bool


@dataclass(frozen=True)
class Said:
    """A word spoken in the soundtrack."""

    word: str


@dataclass(frozen=True)
class Slide:
    """A slide with this title on screen."""

    title: str


@dataclass(frozen=True)
class Caption:
    """A caption bar showing this text."""

    text: str


@dataclass(frozen=True)
class Score:
    """The scoreboard showing this score, home first ("2-1")."""

    home: int
    away: int


@dataclass(frozen=True)
class Person:
    """A person on screen (`face`: asked as a face)."""

    face: bool = False


#: Every kind of meaning (`synth.wordings.WORDERS` words each).
Meaning = (
    Shown | Named | Knocked | Cut | Together | Ordinal | Said | Slide | Caption | Score | Person
)
