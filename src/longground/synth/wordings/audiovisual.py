"""Wordings of the audio-visual benchmark's queries (`synth --av`): the word said, the slide
titled, the caption shown, the score on the scoreboard, a person or a face on screen.

The forms are those people use and the issue lists: "the slide titled X", "when is the X slide
shown", "the X caption", "when does the caption X appear", "the word X is spoken", "every time
the speaker says the word X", "when is X mentioned", "when is the score 2 - 1", "every time a
person's face is on screen", "someone on screen", and the role noun "the presenter".
"""

from __future__ import annotations

from ..meaning import Caption, Person, Said, Score, Slide
from .phrasing import article, permuted

SAID = (
    "the word {w} is spoken",
    "every time the speaker says the word {w}",
    "when is {w} mentioned?",
    "when does someone say {w}?",
    'the narrator saying "{w}"',
    "is the word {w} ever said?",
)
SLIDE = (
    "the slide titled {t}",
    "when is the {t} slide shown?",
    "the {t} slide",
    "when does the {t} slide appear?",
    'find the slide titled "{t}"',
    "show me the slide called {t}",
)
CAPTION = (
    "the {t} caption",
    "when does the caption {t} appear?",
    'the caption reading "{t}"',
    "every time the caption {t} is on screen",
    "is there {a_t} caption?",
    "show me the caption that says {t}",
)
SCORE = (
    "when is the score {h} - {a}?",
    "the scoreboard showing {h}-{a}",
    "the score at {h}-{a}",
    "every time the scoreboard reads {h} - {a}",
    "is the score ever {h}-{a}?",
    "show me when it is {h}-{a} on the scoreboard",
)
PERSON = (
    "someone on screen",
    "when is there a person on screen?",
    "every time a person appears",
    "is anybody visible?",
    "show me the presenter",
    "a person in the picture",
)
FACE = ("every time a person's face is on screen", "a human face", "when is a face visible?",
        "someone's face", "show me the presenter's face", "is there a face on screen?")  # fmt: skip


def _cased(rng, text: str) -> str:
    """The text as written on screen, in lower case, or in title case: people type all three."""
    return str(rng.choice([text, text.lower(), text.title()]))


def said(m: Said, rng) -> list[str]:
    return [t.format(w=m.word) for t in permuted(rng, SAID)]


def slide(m: Slide, rng) -> list[str]:
    return [t.format(t=_cased(rng, m.title)) for t in permuted(rng, SLIDE)]


def caption(m: Caption, rng) -> list[str]:
    out = []
    for t in permuted(rng, CAPTION):
        text = _cased(rng, m.text)
        out.append(t.format(t=text, a_t=article(text, "a")))
    return out


def score(m: Score, rng) -> list[str]:
    return [t.format(h=m.home, a=m.away) for t in permuted(rng, SCORE)]


def person(m: Person, rng) -> list[str]:
    return permuted(rng, FACE if m.face else PERSON)


WORDERS = {Said: said, Slide: slide, Caption: caption, Score: score, Person: person}
