"""Which channel a query asks about: a registry of phrase rules, tried in order.

"the caption says GOAL" and "the score is 2-1" go to on-screen text, "someone mentions the
budget" to speech, "a person" / "a face" / "nobody" to people; anything else to the image
encoder ("visual"). The first rule whose pattern matches wins; its `x` group is the needle.
"the score changes" goes to on-screen text as a *change* (`Route.change`): the moments where
the score read on screen becomes another.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

_QUOTES = "\"'“”‘’`"


@dataclass(frozen=True)
class Route:
    """A routing decision: the channel, the words to look for in it, the rule that chose it,
    `absent` for "nobody" (the moments where the thing is *not* there), and `change` for "the
    score changes" (the moments where what is read becomes something else).

    >>> route_query("when does the caption say GOAL")
    Route(channel='text', needle='goal', rule='text-shows', absent=False, change=False)
    >>> route_query("the score is 2 - 1").needle, route_query("a red car").channel
    ('2-1', 'visual')
    >>> route_query("every time the score changes").change
    True
    """

    channel: str
    needle: str
    rule: str
    absent: bool = False
    change: bool = False

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Rule:
    name: str
    channel: str
    pattern: re.Pattern
    absent: bool = False
    change: bool = False


_SCREEN = (r"(?:slides?|screens?|captions?|subtitles?|scoreboards?|titles?|banners?|signs?|"
           r"on[- ]screen text|text)")  # fmt: skip
_SHOWS = r"(?:shows?|showing|reads?|reading|says?|saying|displays?|displaying|contains?)"
_SPEAK = (r"(?:says?|said|saying|mentions?|mentioned|mentioning|talks? about|talking about|"
          r"speaks? about|speaking about|discuss(?:es)?|discussing|pronounces?|utters?|"
          r"is heard|we hear|you hear|hear)")  # fmt: skip
_PERSON = (r"(?:person|people|someone|somebody|anyone|a human|humans?|man|woman|men|women|"
           r"child|kid|faces?|persons?)")  # fmt: skip
_WHERE = (r"(?:\s+(?:is\s+|are\s+)?(?:on screen|visible|appears?|present|shown|"
          r"in (?:the )?(?:frame|shot|picture|video)))?")  # fmt: skip
_SCORE = r"\bscore(?:board)?\s+(?:is|reads|becomes|changes to|shows)\s+(?P<x>\d+\s*[-:–]\s*\d+)"
_SCORE_CHANGE = (r"\b(?P<x>score(?:board)?)\s+(?:changes?|changed|changing|updates?|updated|"
                 r"goes up|went up)\b(?!\s+to\b)")  # fmt: skip
_WRITTEN = (r"(?P<x>.+?)\s+(?:is|are)\s+(?:written|displayed)\b"
            r"|\b(?:written|displayed) (?:on screen )?(?:words? )?(?P<y>.+)")  # fmt: skip
_SPOKEN = (r"\b(?:word|words|phrase|name)\s+(?P<x>.+?)\s+(?:is|are|gets|get)\s+"
           r"(?:spoken|said|heard|mentioned)")  # fmt: skip
_SAYS = rf"\b{_SPEAK}\b\s*[:,]?\s*(?:the (?:word|words|phrase)\s+)?(?P<x>.+)"
_NOBODY = (rf"^(?:there is |there are |when )?(?:nobody|no one|no person|no people|no face)\b"
           rf"{_WHERE}\s*$")  # fmt: skip
_SOMEONE = (rf"^(?:when (?:is|are|does) )?(?:there (?:is|are) )?(?:a |an |the |some |any )?"
            rf"(?P<x>{_PERSON}){_WHERE}\s*$")  # fmt: skip

RULES: list[Rule] = [
    Rule("text-score-change", "text", re.compile(_SCORE_CHANGE), change=True),
    Rule("text-score", "text", re.compile(_SCORE)),
    Rule("text-shows", "text", re.compile(rf"\b{_SCREEN}\b.*?\b{_SHOWS}\b\s*[:,]?\s*(?P<x>.+)")),
    Rule("text-written", "text", re.compile(_WRITTEN)),
    Rule("speech-spoken", "speech", re.compile(_SPOKEN)),
    Rule("speech-says", "speech", re.compile(_SAYS)),
    Rule("people-absent", "people", re.compile(_NOBODY), absent=True),
    Rule("people", "people", re.compile(_SOMEONE)),
]


def _clean(needle: str) -> str:
    """The needle without quotes, a final "?" or ".", filler words at its ends, and with
    spaces around score dashes removed."""
    text = needle.strip().strip(_QUOTES + "?.!").strip()
    text = re.sub(r"\s*([-:–])\s*(?=\d)", r"\1", text).replace("–", "-")
    text = re.sub(r"^(?:the (?:word|words|phrase|name) )", "", text)
    text = re.sub(r"\s+(?:on (?:the )?screen|appears?|is shown)$", "", text)
    return text.strip(_QUOTES + " ")


def route_query(query: str) -> Route:
    """The channel `query` asks about (lower-cased rules; "visual" when none matches)."""
    text = " ".join(query.lower().split()).rstrip("?.! ")
    for rule in RULES:
        match = rule.pattern.search(text)
        if match is None:
            continue
        groups = match.groupdict()
        needle = _clean(groups.get("x") or groups.get("y") or "")
        if needle or rule.absent:
            return Route(rule.channel, needle, rule.name, rule.absent, rule.change)
    return Route("visual", text, "default")
