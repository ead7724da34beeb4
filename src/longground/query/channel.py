"""Which evidence channel one sub-event asks about, and the words to look for there.

Two steps, so that a wording the rules have not seen is still decided by what it means:

1. A *needle*: the words the sub-event asks to read or hear, found by cue phrases ("titled
   X", "the X slide", "the caption X", "says X", "the word X", quoted text, a score "2 - 1").
2. The *channel*, decided on the sub-event's frame (its words with the needle replaced by
   "X") by its nearest prototype sentences per channel in the sentence model's space
   (`PROTOTYPES`), with the margin over the runner-up kept for the trace. Where the margin is
   under `MIN_MARGIN` (or the sentence model is not installed) the cue's own channel stands.

A sub-event with no needle asks about the picture: the people channel when it is a person or
a face with nothing more than presence (`words.PRESENCE_VERBS`), the image encoder otherwise.
`Route.person` then says its subject is a person: rule "person-object" when the event names
a thing the encoder knows ("a man talking on a phone"), "person-action" when it names only
an action no model here can check ("a woman crying": the trace says so; answering it by
where any person is found gave the tuning montage's action queries no right moment and
answered every negative one).

The people channel's needle is "face" for a face, "body" for people seen whole (walkers,
cyclists, pedestrians: the pedestrian detector, not the face detector) and "person"
otherwise (either).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from functools import lru_cache

import numpy as np

from ..timecode.grammar import NUMBER_WORDS, WORD_NUMBER
from .grammar import SPEECH_LABEL, TEXT_LABEL
from .vocabulary import canonical_noun
from .words import (
    BODY_NOUNS,
    BODY_VERBS,
    FACE_NOUNS,
    PERSON_NOUNS,
    PRESENCE_VERBS,
    VIEWER_PRONOUNS,
    head_noun,
    person_noun,
    tag,
)

CHANNELS = ("visual", "speech", "text", "people")
#: Smallest lead of the best channel's prototype over the runner-up's (cosine) for the
#: sentence model to overrule the cue that found the needle.
MIN_MARGIN = 0.05
#: A head noun not in `PERSON_NOUNS` names a person when it is at least this close to
#: "a person" and closer to it than to every non-person prototype by `MIN_MARGIN`.
PERSON_SIMILARITY = 0.55

PROTOTYPES: dict[str, tuple[str, ...]] = {
    "text": (
        "the slide titled X", "the X slide", "the caption X", "X is written on the screen",
        "the title X appears", "a sign that reads X", "the scoreboard shows X",
        "the on-screen text says X", "the headline X", "the banner reads X", "X is displayed",
        "the word X is shown on screen", "the label says X", "with the word X printed on it",
    ),
    "speech": (
        "someone says X", "the speaker mentions X", "the word X is spoken", "X is said out loud",
        "the narrator talks about X", "we hear X", "the commentator says X",
        "when do they talk about X", "someone asks about X",
    ),
}  # fmt: skip
#: Nouns about the picture, not in it: "talking to the camera", "on screen".
PICTURE_NOUNS = frozenset(
    "camera cameras screen frame shot video picture clip footage background foreground view "
    "scene time moment".split()
)
PERSON_PROTOTYPES = ("a person", "a man", "a woman", "people", "a face")
OTHER_PROTOTYPES = ("an animal", "an object", "a vehicle", "a place", "a building", "food")

_Q = "\"“”‘’`'"
# Words in quotes; an apostrophe between letters is no quote mark ("'I'll be back'").
_QUOTED = rf"[{_Q}](?:[^{_Q}]|(?<=\w)['’](?=\w))+[{_Q}]"
_SCREEN_STRONG = (r"slides?|captions?|subtitles?|titles?|title\s+cards?|headlines?|banners?|"
                  r"signs?|scoreboards?|chyrons?|tickers?|lower\s+thirds?|on[- ]screen\s+text|"
                  r"texts?|headings?|placards?|labels?|pages?")  # fmt: skip
# Where words are heard ("X in the audio"), and other nouns for speech ("spot X in the talk").
_SPEECH_PLACES = (r"speech|audio|dialog(?:ue)?|narration|transcript|soundtrack|voice-?over|"
                  r"commentary")
_SPEECH_NOUNS = rf"{_SPEECH_PLACES}|talk|conversation|discussion|interview"
_SCREEN_WEAK = (r"screens?|boards?|whiteboards?|posters?|cards?|displays?|monitors?|plates?|"
                r"clocks?|timers?|tags?|badges?|stickers?|menus?|t-?shirts?|shirts?|"
                r"jerseys?|mugs?|packets?|boxes|box|cans?|bottles?|trucks?|vans?")  # fmt: skip
_NAMING_STRONG = (r"titled|entitled|called|named|headed|labell?ed|reading|that\s+reads|"
                  r"which\s+reads|reads|read|saying|that\s+says|which\s+says|says|say|with\s+"
                  r"(?:the\s+)?(?:title|text|words?|caption|heading|name)|about")  # fmt: skip
_NAMING_WEAK = r"shows?|showing|that\s+shows|displays?|displaying|with"
_SPEAK = (r"says?|said|saying|mentions?|mentioned|mentioning|talks?\s+about|talked\s+about|"
          r"talking\s+about|speaks?\s+about|spoke\s+about|speaking\s+about|discuss(?:es|ed|ing)?|"
          r"utter(?:s|ed|ing)?|pronounc(?:es|ed|ing|e)|announc(?:es|ed|ing|e)|shout(?:s|ed|ing)?|"
          r"call(?:s|ed|ing)?\s+out|asks?\s+about|asked\s+about|refers?\s+to|brings?\s+up|"
          r"hears?|hearing|"
          r"(?:asks?|asked|asking|tells?|told|telling)\s+(?:us|you|them|viewers|everyone|people)\s+to|"
          r"heard|yell(?:s|ed|ing)?|scream(?:s|ed|ing)?|whisper(?:s|ed|ing)?|exclaim(?:s|ed|ing)?|"
          r"(?:cries|cried|crying)\s+out|explain(?:s|ed|ing)?|references?\s+to|referenc(?:ed|ing)|"
          r"(?:reads?|reading)\s+(?:out|aloud)|recit(?:es|ed|ing|e)|"
          r"spel(?:ls?|led|t|ling)\s+out|utterances?\s+of|listen(?:s|ing)?\s+(?:out\s+)?for")
# Phrasal verbs of appearing, in the forms queries use ("when does X come up", "X shows up").
_UP = r"(?:shows?|showed|comes?|came|pops?|popped|turns?|turned|flash(?:es|ed)?)\s+up"
_SAID = r"said|spoken|heard|mentioned|uttered|pronounced|announced|shouted|discussed"
_SCORE = r"\d+\s*[-:–]\s*\d+"
# A score beside a word that says it is one: "the score is 3 to 1", "tied 1-1", "a 3-0 lead".
_SCORED = rf"{_SCORE}|\d+\s+to\s+\d+"
_SCORE_WORD = (r"score(?:board|line)?|tied|level|leads?|leading|trails?|trailing|won|wins?|"
               r"losing|lost")
_GENERIC_NEEDLE = re.compile(
    r"^(?:(?:the|a|an|this|that)\s+)?(?:first|second|third|next|last|final|opening|closing|"
    r"title|same|other|new|previous|following|current|main|whole|entire|big|large|small|"
    r"one|any|some|it|something|anything|word|words|text|them|this|that|these|those|him|her|"
    r"me|us|you|so|too|here|there|now|written|shown|displayed|printed)$",
    re.I,
)
# A needle that names only where words are shown ("a slide title"), not the words.
_SCREEN_ONLY = re.compile(rf"^(?:(?:the|a|an)\s+)?(?:(?:{_SCREEN_STRONG})\b\s*)+$", re.I)
_CUES: list[tuple[str, str, re.Pattern]] = [
    ("speech-label", "speech", re.compile(
        rf"^(?:{SPEECH_LABEL})\s*:\s*(?P<x>.+)$|^(?P<y>.+?)\s*(?:\((?:{SPEECH_LABEL})\)|"
        rf"(?:in|on)\s+(?:the\s+)?(?:{_SPEECH_PLACES}))$", re.I)),
    ("text-label", "text", re.compile(
        rf"^(?:{TEXT_LABEL})\s*:\s*(?P<x>.+)$|^(?P<y>.+?)\s*(?:\((?:{TEXT_LABEL})\)|\s(?:in\s+"
        r"(?:\w+\s+)?(?:letters|capitals|print|type)|superimposed|overlaid))$", re.I)),
    ("text-score-change", "text", re.compile(
        r"\b(?P<x>score(?:board)?)\s+(?:changes?|changed|changing|updates?|updated|goes\s+up|"
        r"went\s+up)\b(?!\s+to\b)", re.I)),
    ("text-score", "text", re.compile(
        rf"\b(?:{_SCORE_WORD})\b(?:\s+\w+){{0,3}}?\s*[:,]?\s*(?P<x>{_SCORED})\b|(?P<y>{_SCORED})\s+"
        rf"(?:\w+\s+){{0,3}}?(?:{_SCORE_WORD})\b", re.I)),
    ("text-score-alone", "text", re.compile(  # "when is it 2-1", "2 - 1", "2 to 0"
        rf"^(?:(?:it|that)(?:'s|\s+is|\s+was)?\s+)?(?P<x>{_SCORED})$", re.I)),
    ("text-named", "text", re.compile(
        rf"\b(?:{_SCREEN_STRONG})\b(?:\s+\w+){{0,2}}?\s+(?P<v>{_NAMING_STRONG}|{_NAMING_WEAK})\b"
        r"\s*[:,]?\s*(?P<x>.+)", re.I)),
    ("text-named-weak", "text", re.compile(
        rf"\b(?:{_SCREEN_WEAK})\b(?:\s+\w+){{0,2}}?\s+(?:{_NAMING_STRONG}|{_NAMING_WEAK})\b\s*[:,]?"
        r"\s*(?P<x>.+)", re.I)),
    ("text-word-shown", "text", re.compile(
        r"\b(?:the\s+)?(?:word|words|phrase|name)\s+(?P<x>.+?)\s+(?:(?:is|are|gets?)\s+)?"
        r"(?:shown|displayed|written|printed|appears?|appeared|on\s+(?:it|them)|"
        r"(?:(?:comes?|came|pops?|popped|"
        rf"shows?|showed)\s+up\s+)?(?:on|in)\s+(?:the\s+|a\s+)?(?:{_SCREEN_STRONG}|{_SCREEN_WEAK}))"
        r"\b",
        re.I)),
    ("text-it-says", "text", re.compile(
        r"\b(?:it|that)\s+(?:says?|reads?)\s*[:,]?\s*(?P<x>.+)|\b(?:see|read|spot)\s+the\s+"
        r"(?:word|words|phrase|name)\s+(?P<y>.+)", re.I)),
    ("speech-word-said", "speech", re.compile(
        rf"\b(?:word|words|phrase|name)\s+(?P<x>.+?)\s+(?:is|are|gets?|was|were)\s+(?:{_SAID})",
        re.I)),
    # a number worn or shown: "number 10", "the jersey number 10", "the number 23 on his shirt"
    ("text-number", "text", re.compile(
        r"^(?:the\s+)?(?:(?:jersey|shirt|player|kit|squad|race|bib)\s+)?(?:number|no\.?|#)\s*"
        r"(?P<x>\d{1,4})\b(?!\s*(?:seconds?|minutes?|hours?|times?|people|persons|of)\b)", re.I)),
    ("text-the-caption-x", "text", re.compile(
        r"\b(?:the\s+)?(?:title(?:\s+(?:card|slide|screen))?|slides?|caption|headline|banner|"
        r"subtitle|heading|sign|text|"
        rf"on[- ]screen\s+text|(?:licen[cs]e\s+|number\s+)?plate|label|tag|badge)\s*[:,]?\s+"
        # quoted, capitalised, or a token no word is: a file name, an address ("default.mp4")
        rf"(?P<x>[{_Q}].+|[A-Z0-9][^a-z]*\S(?:\s+or\s+[A-Z0-9][^a-z]*\S)*|[A-Z]\w*(?:\s+[A-Z]\w*)*|"
        r"\S*\w[./@]\w\S*)"
        r"\s*(?:$|\s+(?:appears?|is|are|shows?|comes?|pops?))")),
    ("text-the-x-slide", "text", re.compile(
        # after the slide's owner: "the deck's Next Steps slide"
        rf"(?:^|\b(?:the|a|an)\s+)(?:\w+['’]s\s+)?"
        rf"(?P<x>(?:(?!\b(?:the|a|an|and)\b)[^,])+?)(?<!on-screen)"
        rf"(?<!on\sscreen)(?<!onscreen)\s+(?:{_SCREEN_STRONG})\b",
        re.I)),
    # the same in lower case after a noun that only names text, where a verb of appearing
    # closes it: "when does the caption half time appear", "the title agenda is shown" (not
    # "the caption disappears"; `_plausible` turns away "the title sequence", prepositions
    # and words naming a thing)
    ("text-the-caption-words", "text", re.compile(
        r"\b(?i:the\s+)?(?i:title|caption|headline|subtitle|heading)\s*[:,]?\s+"
        r"(?P<x>[a-z][\w'&-]*(?:\s+[a-z][\w'&-]*){0,3}?)\s+"
        rf"(?i:appears?|is\s+(?:shown|displayed|on\s+screen)|{_UP})\b")),
    ("text-typed", "text", re.compile(  # "the command ls /usr", "the URL example.com"
        r"\b(?:the\s+|a\s+)?(?:(?:shell\s+)?commands?|urls?|web\s+address|website|hashtag|"
        r"e-?mail\s+address|file\s*name|password)\s+(?P<x>\S.*?)(?:\s+(?:(?:is|gets?)\s+)?"
        r"(?:typed|entered|written|shown|displayed|run)(?:\s+(?:in|on|into|at)\s+.+)?)?$", re.I)),
    # the command before its noun: "the ls command", "when is the git status command typed"
    ("text-the-x-command", "text", re.compile(
        r"\b(?:the|a)\s+(?P<x>(?!(?:the|a|an|voice|same|next|last|first|final)\b)\S+(?:\s+\S+)?)"
        r"\s+(?:shell\s+)?commands?\b(?!\s+line)", re.I)),
    ("text-written", "text", re.compile(
        r"(?P<x>.+?)\s+(?:is|are|gets?|get)\s+(?:written|displayed|printed|typed|shown\s+on\s+"
        r"(?:the\s+)?screen)\b|^(?:when\s+)?(?:is|are|was|were)\s+(?P<z>.+?)\s+(?:written|"
        r"displayed|printed|typed)\b|^(?P<w>.+?)\s+(?:written|displayed|printed|typed)\s+on\s+"
        r"(?:the\s+)?screen\b|\b(?:written|displayed|printed)\s+(?:on\s+(?:the\s+)?screen"
        r"\s*[:,]?\s+)?(?:words?\s+)?(?!on\s+(?:the\s+)?screen\s*$)(?!(?:in|on|at|by|with|into|onto)\b)"
        r"(?P<y>.+)", re.I)),
    ("text-on-screen", "text", re.compile(
        rf"(?P<x>{_QUOTED}|\b[A-Z0-9][A-Z0-9'&.-]+(?:\s+[A-Z0-9][A-Z0-9'&.-]+)*\b|"
        # capitalised words, a title ("Quarterly Results", "Agenda"; not "The Cat")
        r"(?<!\bThe\s)(?<!\bA\s)(?<!\bAn\s)\b(?!(?:The|A|An|This|That)\b)[A-Z][a-z0-9'&.-]*"
        r"(?:\s+[A-Z][a-z0-9'&.-]*)*\b)"
        rf"\s+(?:(?:(?:appears?|appearing|is\s+shown|{_UP}|is)\s+)?(?:on|in|as)\s+"
        rf"(?:the\s+|a\s+)?(?:{_SCREEN_STRONG}|{_SCREEN_WEAK})|(?:is\s+)?(?:written|displayed|"
        r"visible|shown))\b")),
    ("text-is-the-title", "text", re.compile(  # "when is Agenda the slide title"
        r"^(?P<x>.+?)\s+(?:(?:is|was)\s+)?the\s+(?:(?:slide|page|screen)(?:'s)?\s+)?(?:title|"
        r"heading|headline)(?:\s+(?:of|on)\s+(?:the\s+|a\s+)?(?:slide|page|screen))?$", re.I)),
    ("text-x-on-the-slide", "text", re.compile(
        r"^(?P<x>.+?)\s+(?:is|are)\s+(?:written\s+)?(?:on|in)\s+(?:the\s+|a\s+)?"
        rf"(?:{_SCREEN_STRONG})$", re.I)),
    ("speech-said", "speech", re.compile(
        r"^(?:(?:when\s+)?(?:is|was|are|were)\s+)?(?P<x>.+?)\s+"
        # "is said", "being said", "has been said", "gets mentioned"
        rf"(?:(?:(?:(?:is|are|was|were)\s+being|(?:has|have)\s+been|is|are|gets?|getting|was|"
        rf"were|being|been)\s+)?(?:ever\s+)?(?:(?:{_SAID})\b|"
        # "Chicago is brought up", "when is Chicago referred to", "it comes up in conversation"
        r"(?:brought\s+up|referred\s+to|read\s+(?:out|aloud)|(?:talked|spoken)\s+(?:about|of))"
        r"(?=\s*$|\s+(?:in|during|by|again|"
        r"at)\b))|(?:comes?|came|coming)\s+up\s+in\s+(?:the\s+|a\s+)?(?:conversation|discussion|"
        r"talk|dialog(?:ue)?|interview|call|speech)\b)", re.I)),
    ("speech-topic", "speech", re.compile(  # "the budget discussion", "talk of the budget"
        r"^(?:the\s+|a\s+|any\s+)?(?:(?P<x>\w+(?:\s+\w+)?)\s+(?:discussion|conversation|debate|talk|"
        r"chat)s?|(?:talk|discussion|conversation|debate|chat)s?\s+(?:of|about|on|regarding)\s+"
        r"(?P<y>.+))$", re.I)),
    ("speech-part-about", "speech", re.compile(  # "the part about the budget"
        r"^(?:the\s+|a\s+)?(?:parts?|bits?|sections?|segments?|moments?)\s+(?:about|on|regarding|"
        r"discussing)\s+(?P<x>.+)", re.I)),
    ("line-with", "speech", re.compile(  # "the line with budget in it": said or written
        r"^(?:the\s+|a\s+|any\s+)?(?:lines?|sentences?|quotes?)\s+(?:with|containing|that\s+"
        r"(?:has|have|contains?|includes?))\s+(?P<x>.+?)(?:\s+in\s+(?:it|them))?$", re.I)),
    ("speech-talks-about", "speech", re.compile(
        r"\b(?:talks?|talking|talked|speaks?|speaking|spoke|reports?|reporting|reported|tells?|"
        r"telling|told|chats?|chatting|chatted|explains?|explaining|explained|complains?|"
        r"complaining)\b(?:\s+\S+){0,8}?\s+about\s+(?P<x>.+)", re.I)),
    # "when does the presenter show Market Analysis": words a person puts on screen, written
    # as a title (the shower is a person, checked in `_needle`; not "a man showing a card")
    ("text-shown-by", "text", re.compile(
        r"\b(?P<s>\w+)\s+(?i:shows?|showed|showing|displays?|displayed|presents?|presented|"
        r"(?:puts?|brings?|pulls?)\s+up)\s+"
        r"(?P<x>[\"“‘'].+|[A-Z0-9][\w'&.-]*(?:\s+[A-Z0-9][\w'&.-]*)*)\s*$")),
    # "they name the seven of hearts", "when does the host name the winner" (the namer is a
    # person, checked in `_needle`; not "a dog named Rex", not "the player names on screen")
    ("speech-names", "speech", re.compile(
        r"\b(?P<s>\w+)\s+(?:names?|naming)\s+(?P<x>(?:(?:the|a|an|his|her|their|its|my|our|"
        rf"your|every|each|all|{WORD_NUMBER})\b|\d|(?-i:[A-Z])|[{_Q}]).*)", re.I)),
    ("speech-says", "speech", re.compile(
        rf"\b(?:{_SPEAK}|describ(?:es|ed|ing|e))\b\s*[:,]?\s*"
        # "any mention of the budget", "when do we hear about the budget"
        r"(?:(?<=mention\s)of\s+|(?<=mentions\s)of\s+|(?<=hear\s)about\s+|(?<=hears\s)about\s+|"
        r"(?<=heard\s)about\s+)?"
        # "says something about money": the topic
        r"(?:(?:something|anything|a\s+lot|things?)\s+(?:about|regarding)\s+)?"
        r"(?:the\s+(?:word|words|phrase|name)\s+)?(?P<x>.+)", re.I)),
    ("speech-the-word", "speech", re.compile(  # "the word budget", "every spoken budget"
        r"\b(?:the\s+)?(?:words?|phrases?)\s+(?P<x>\S.*)|\b(?:spoken|uttered)\s+"
        r"(?!(?:words?|phrases?)\b)(?P<y>\w+(?:\s+\w+)?)$", re.I)),
    # a token no word is: a file name, an address, a path ("default.mp4", "example.com")
    ("text-token", "text", re.compile(
        r"(?<![\w./@~-])(?P<x>~?/[\w.-]*[A-Za-z][\w.-]*(?:/[\w.-]+)*|(?=[\w.@-]*[A-Za-z])[\w-]*\w"
        r"[.@](?:[\w-]+[.@])*\w[\w-]+(?:/[\w./-]*)?)(?![\w./@-])")),
    ("text-quoted", "text", re.compile(rf"(?P<x>{_QUOTED})")),
]  # fmt: skip
# A channel itself, with no words named: speech ("dialogue", "anyone speaking"), the gaps
# between it ("silence"), or any on-screen text ("captions", "text on screen").
_SHOWN = (rf"(?:\s+(?:appears?|appearing|is\s+shown|{_UP}|is\s+heard|can\s+be\s+heard|(?:is\s+)?on"
          r"[\s-](?:the\s+)?screen|in\s+the\s+(?:picture|frame))){0,2}$")
_ANY_SPEECH = re.compile(
    r"^(?:(?:the|a|an|any|some)\s+)?(?:(?:someone|anyone|somebody|anybody|narrator|announcer|"
    r"commentator|voice[\s-]?over|caller)\s+(?:is\s+)?"
    r"(?:speak(?:s|ing)?|talk(?:s|ing)?|(?:says?|saying)\s+(?:something|anything))|speech|dialog(?:ue)?|"
    r"talking|speaking|narration|narrators?|"
    r"voice[\s-]?over|conversations?|interviews?|commentary|monologue)" + _SHOWN,
    re.I,
)
# "when does the narrator start speaking", "the speaker stops talking": where speech begins
# or ends, so the speech itself.
_TALK_EDGE = re.compile(r"\b(?:start|starts|started|begin|begins|began|stop|stops|stopped|finish|"
                        r"finishes|finished)\s+(?:speaking|talking)\b", re.I)
_SILENCE = re.compile(
    r"^(?:(?:the|a|an|any|some)\s+)?(?:silence|silent\s+parts?|(?:it\s+(?:is\s+)?)?quiet(?:\s+(?:parts?|"
    r"moments?|bits?))?|(?:long\s+)?pauses?|no\s+(?:speech|dialog(?:ue)?|talking|sound|audio|voices?)|"
    r"(?:nobody|no\s+one|no-one)\s+(?:is\s+)?(?:speak(?:s|ing)?|talk(?:s|ing)?|says?\s+anything))$",
    re.I,
)
_ANY_TEXT = re.compile(
    r"^(?:(?:the|a|an|any|some)\s+)?(?:text|writing|captions?|subtitles?|on[\s-]screen\s+text|"
    r"lower\s+thirds?|(?:end\s+|closing\s+|opening\s+)?(?:credits|titles)|title\s+cards?|chyrons?|"
    r"(?:news\s+)?tickers?)" + _SHOWN,
    re.I,
)
# A kind of text, named without its words: each group is a `channels.match.TEXT_KINDS` key.
_TEXT_KIND = re.compile(
    r"^(?:(?:the|a|an|any|some)\s+)?(?:(?P<phone>(?:tele)?phone\s+numbers?)|"
    r"(?P<email>e-?mails?(?:\s+address(?:es)?)?)|(?P<url>web\s*sites?|urls?|web\s+address(?:es)?)|"
    r"(?P<price>prices?)|(?P<date>dates?))(?:\s+(?:shown|displayed|visible|written))?" + _SHOWN,
    re.I,
)
_NOBODY = re.compile(
    r"^(?:when\s+(?:is|are)\s+)?(?:there\s+(?:is|are)\s+)?(?:nobody|no\s+one|no-one|no\s+person|"
    r"no\s+people|no\s+faces?|no\s+humans?|(?:an?\s+)?empty\s+(?:frames?|screens?|shots?|"
    r"scenes?|rooms?)|(?:the\s+)?(?:room|screen|frame|shot|scene|stage|street)\s+(?:is\s+)?"
    r"empty)\b"
    r"(?:\s+(?:is\s+|are\s+)?(?:on\s+(?:the\s+)?screen|visible|present|there|shown|in\s+"
    r"(?:the\s+)?(?:frame|shot|picture|video)|(?:in|at|on|inside)\s+(?:the\s+)?\w+))?$",
    re.I,
)
# Parts of speech that only frame a needle at its end, and that make no needle alone.
_EDGE_TAGS = frozenset({"CC", "DT", "WRB", "WP", "PRP$", "TO"})
_FUNCTION_TAGS = _EDGE_TAGS | {"IN", "PRP", "MD", "EX", "RP"}
# The parts of a deck or a programme, after a title: "the Team Members section slide".
_PART_NOUNS = r"sections?|parts?|chapters?|segments?"
# Nouns that name a channel itself ("search the speech for X", "the slide with X").
_CHANNEL_NOUNS = {"speech": _SPEECH_NOUNS, "text": _SCREEN_STRONG}
# Cues whose words may be said or written alike: both channels are asked (`analysis`).
SAID_OR_WRITTEN = ("line-with",)
# Cues that name the channel outright: what they leave is read again for its words.
_LABELS = ("speech-label", "text-label")
# Words in capitals, no small letter: written as they are shown ("HALF TIME", '"EXIT"').
_CAPITALS = re.compile(r"[^a-z]*[A-Z]{2}[^a-z]*")
# Cues that name words without saying whether they are heard or read: capitals say read.
_WRITTEN_IN_CAPITALS = ("speech-the-word", "text-quoted")
# What an editor calls words laid over the picture, around words in capitals: "the HALF TIME
# graphic", "the GOAL animation", "a BREAKING NEWS overlay".
_GRAPHIC = re.compile(r"^(?:the|a|an)\s+|\s+(?:graphics?|overlays?|animations?|supers?|straps?|"
                      r"stings?|bumpers?)$", re.I)
# Words that make a compound with "title" or "caption" rather than being its text.
_TITLE_COMPOUND = {"sequence", "sequences", "page", "pages", "bar", "text", "font", "position"}
_TITLE_LIKE = re.compile(rf"^[{_Q}].*[{_Q}]$|\d|^[A-Z][A-Za-z0-9'&.-]*(?:\s+\S+)*$")


@dataclass(frozen=True)
class Route:
    """The channel one sub-event is answered from.

    Attributes:
        channel: "visual" (the image encoder), "speech", "text" or "people".
        needle: the words to read or hear (text, speech); "face" or "person" (people); the
            phrase itself (visual).
        rule: the cue or test that decided.
        absent: "nobody": the moments where no one is there.
        change: "the score changes": the moments where what is read becomes something else.
        margin: the sentence model's lead of the chosen channel over the runner-up, or None
            when it was not asked (no needle, or the model is not installed).
        person: the subject is a person or a face (a visual sub-event about a person's action
            may fall back to the people channel's presence).
        least, most: how many people at once the people channel asks for ("two people": 2
            and 2, "more than one person": 2 and None, "a person alone": 1 and 1); for a
            thing, how many the query says ("two dogs"), which no channel checks.
        kind: a kind of text asked for without its words ("a phone number on screen":
            "phone"; `channels.match.TEXT_KINDS`), else "".
        edit: the edit itself, read from the pixels (`methods.edits`): "cut", "shot" or
            "black" ("every cut", "how many shots", "fade to black"), else "".

    >>> route("when does the caption say GOAL").needle, route("a red car").channel
    ('goal', 'visual')
    """

    channel: str
    needle: str
    rule: str
    absent: bool = False
    change: bool = False
    margin: float | None = None
    person: bool = False
    least: int = 1
    most: int | None = None
    kind: str = ""
    edit: str = ""

    def to_dict(self) -> dict:
        return asdict(self)


def route(phrase: str) -> Route:
    """The channel `phrase` (one sub-event, as the query words it) asks about.

    >>> [route(q).channel for q in ("the Agenda slide", "someone says budget", "a face")]
    ['text', 'speech', 'people']
    >>> route("the score is 2 - 1").needle, route("nobody").absent
    ('2-1', True)
    >>> [(route(q).channel, route(q).needle, route(q).absent) for q in ("dialogue", "silence")]
    [('speech', '', False), ('speech', '', True)]
    """
    text = " ".join(phrase.replace("’", "'").split()).rstrip("?.! ")
    if _NOBODY.match(text):
        return Route("people", "", "people-absent", absent=True)
    if _SILENCE.match(text):
        return Route("speech", "", "speech-absent", absent=True)
    if _ANY_SPEECH.match(text) or _TALK_EDGE.search(text):
        return Route("speech", "", "speech-any")
    if _ANY_TEXT.match(text):
        return Route("text", "", "text-any")
    kind = _TEXT_KIND.match(text)
    if kind:  # "a phone number on screen", "the website"
        return Route("text", "", "text-kind", kind=kind.lastgroup)
    found = _needle(text)
    if found is not None:
        rule, cue_channel, needle, frame, raw = found
        if _CAPITALS.fullmatch(raw) and rule in _WRITTEN_IN_CAPITALS:
            return Route("text", needle, f"{rule}>text-capitals")  # '"EXIT"', "the word SALE"
        channel, margin = _semantic_channel(frame)
        # a number worn is not said; a token no word is ("default.mp4") cannot be heard; a
        # frame of nothing but the needle has no meaning to weigh
        if (channel is None or margin < MIN_MARGIN or rule in ("text-number", "text-token")
                or frame == "X"):
            channel = cue_channel
        elif channel != cue_channel:
            rule = f"{rule}>{channel}-prototypes"
        return Route(channel, needle, rule, change=rule.startswith("text-score-change"),
                     margin=margin)  # fmt: skip
    shown = _GRAPHIC.sub("", re.sub(_SHOWN, "", text, flags=re.I)).strip()
    if _CAPITALS.fullmatch(shown) and not any(map(names_a_thing, shown.lower().split())):
        # "HALF TIME", "SALE": the words as they are written (not "DOG", "TV": the thing)
        return Route("text", clean_needle(shown), "text-capitals")
    return _picture_route(text)


def quoted_alone(text: str) -> str | None:
    """The words of `text` when it is nothing but one quotation, else None.

    >>> quoted_alone(' "Caminandes" '), quoted_alone("'budget' is said")
    ('Caminandes', None)
    """
    found = re.fullmatch(rf"\s*({_QUOTED})\s*", text)
    return found[1][1:-1].strip() if found else None


def _needle(text: str) -> tuple[str, str, str, str, str] | None:
    """`(rule, channel, needle, frame, raw)` of the first cue that finds a needle, or None
    (`raw`: the needle as written)."""
    for rule, channel, pattern in _CUES:
        for match in pattern.finditer(text):
            found = match.groupdict()
            span = next(g for g in ("x", "y", "z", "w") if found.get(g) is not None)
            start, end = match.span(span)
            if rule in _LABELS:  # "X mentioned in the audio": the words are X's own needle
                words = text[start:end]
                inner = _needle(words)
                at = words.find(inner[4]) if inner else -1
                if at >= 0:
                    start, end = start + at, start + at + len(inner[4])
                else:  # no cue inside: "weather comes up" less its verb
                    end = start + re.search(_SHOWN, words, re.I).start()
            raw = _trim_tail(text[start:end])
            end = start + len(raw)
            needle = clean_needle(raw)
            if rule.startswith("text-score"):  # "3 to 1" and "3:1" are shown "3-1"
                needle = re.sub(r"(?<=\d)(?:\s+to\s+|:)(?=\d)", "-", needle)
            if rule == "text-score-change":
                return rule, channel, needle, text, raw
            verb = found.get("v") or ""
            weak = re.fullmatch(_NAMING_WEAK, verb, re.I) is not None
            if (not needle or _GENERIC_NEEDLE.match(needle) or _SCREEN_ONLY.match(needle)
                    or all(w.tag in _FUNCTION_TAGS for w in tag(needle))
                    or not _plausible(rule, raw, weak)):
                continue
            if rule in ("speech-names", "text-shown-by") and not person_noun(match["s"]):
                continue
            frame = f"{text[:start]} X {text[end:]}".strip()
            return rule, channel, needle, " ".join(frame.split()), raw
    return _framed_needle(text)


def _trim_tail(raw: str) -> str:
    """`raw` without the words after its needle that only frame it: function words ("who says
    tomato and when") and the noun of where it is shown ("Travel Plans as its title", "Team
    Members section"); a preposition goes only before such words. Quoted words and words
    written with a capital stay ("Log In", "Spare Parts").

    >>> _trim_tail("tomato and"), _trim_tail("Travel Plans as its title"), _trim_tail("Log In")
    ('tomato', 'Travel Plans', 'Log In')
    >>> _trim_tail("Team Members section"), _trim_tail("Spare Parts")
    ('Team Members', 'Spare Parts')
    """
    words = list(re.finditer(r"\S+", raw))
    tokens = tag(raw)
    if len(tokens) != len(words) or raw.rstrip()[-1:] in _Q:
        return raw
    kept = len(words)
    while kept > 1:
        last = tokens[kept - 1]
        if last.text[:1].isupper():  # written as part of a title: "Log In", "Spare Parts"
            break
        screen = re.fullmatch(rf"(?:{_SCREEN_STRONG}|{_PART_NOUNS})", last.lower, re.I)
        if not (screen or last.tag in _EDGE_TAGS or (kept < len(words) and last.tag == "IN")):
            break
        kept -= 1
    return raw[: words[kept - 1].end()]


def _framed_needle(text: str) -> tuple[str, str, str, str, str] | None:
    """The needle of a query that names its channel and no cue reads ("search the speech for
    passport"): the one to three words left once function words, verbs and the channel's own
    nouns are set aside; on screen only words written as a title (capitals, quotes, digits)."""
    tokens = tag(text)
    for channel, nouns in _CHANNEL_NOUNS.items():
        if not any(re.fullmatch(nouns, t.lower, re.I) for t in tokens):
            continue
        left = [i for i, t in enumerate(tokens) if not (
            t.tag in _FUNCTION_TAGS or t.is_verb or t.tag in ("RB", "POS")
            or re.fullmatch(nouns, t.lower, re.I) or not re.search(r"\w", t.text))]
        if not left or len(left) > 3 or left != list(range(left[0], left[-1] + 1)):
            continue
        raw = " ".join(tokens[i].text for i in left)
        if channel == "text" and not _TITLE_LIKE.match(raw):
            continue
        if person_noun(raw) or raw.lower() in PICTURE_NOUNS:
            continue
        frame = text.replace(raw, " X ", 1) if raw in text else "X"
        return f"{channel}-framed", channel, clean_needle(raw), " ".join(frame.split()), raw
    return None


def _plausible(rule: str, raw: str, weak: bool) -> bool:
    """Whether a cue's needle reads as words to look for rather than as things in the
    picture: after a weak verb ("a screen showing different swimsuits"), in quotes alone or
    after a weak screen noun, only a title-like needle (quoted, capitalised, digits) counts;
    "the X slide" takes a short X that is no person ("the presenter's slide"); a command or an
    address is typed text ("ls /usr", "example.com"), not a word ("the command line")."""
    title_like = bool(_TITLE_LIKE.match(raw.strip(" ,.?!")))
    if weak or rule in ("text-named-weak", "text-quoted"):
        return title_like
    words = clean_needle(raw).split()
    if rule == "text-the-x-slide":  # an owner alone names no words: "the presenter's slide"
        owner = re.search(r"['’]s$", raw.strip()) is not None
        return not owner and len(words) <= 5 and not any(w in PERSON_NOUNS for w in words)
    if rule == "speech-topic":  # a topic is a noun: "the budget talk", not "a heated debate"
        return tag(raw)[-1].is_noun and not any(w in PERSON_NOUNS for w in words)
    if rule == "speech-said":
        return title_like or len(words) <= 3
    if rule == "text-on-screen" and re.fullmatch(r"[A-Z][a-z]+", raw.strip()):
        return not names_a_thing(raw.strip().lower())  # "Agenda on screen", not "Dog on ..."
    if rule == "text-the-caption-words":  # "half time", not "sequence", "of the video", "dog"
        return (words[0] not in _TITLE_COMPOUND and not any(names_a_thing(w) for w in words)
                and not any(t.tag in ("IN", "TO") for t in tag(raw)))  # fmt: skip
    if rule == "text-typed":  # "ls /usr", "rm -rf", "#goal", not "the command line"
        return title_like or re.search(r"[^\w\s]", raw) is not None
    return True


def names_a_thing(word: str) -> bool:
    """A person or something the image encoder knows, by this or another name ("tv")."""
    word = word.strip(_Q + "?.!,:;")
    return word in PERSON_NOUNS or object_noun(canonical_noun(word) or word)


# Words after a needle that only say it is shown or said.
_NEEDLE_TAIL = re.compile(
    rf"\s+(?:(?:is|are)\s+)?(?:on[\s-](?:the\s+)?screen|appears?|is\s+shown|shown|written|"
    rf"printed|displayed|(?:is|are|gets?)\s+(?:said|spoken|mentioned|heard|used)|{_UP}|"
    r"out\s+loud|aloud|again|ever|anywhere|somewhere|at\s+all|at\s+(?:any|some)\s+(?:point|time)|"
    r"on\s+(?:it|them)|"
    # where it is said or shown: "in the audio track", "on the slide", "in the video"
    rf"(?:in|on|from|during)\s+(?:the\s+|a\s+|this\s+)?(?:{_SPEECH_NOUNS}|{_SCREEN_STRONG}|"
    r"video|clip|recording)(?:\s+tracks?)?)$",
    re.I,
)
_NUMBER_LEAD = rf"^(?:the\s+)?(?:number|digit)\s+(?=(?:\d+|{WORD_NUMBER}|zero)\b)"


def clean_needle(raw: str) -> str:
    """The needle without quotes, end punctuation, filler words at its ends, lower-cased,
    with the spaces around a score's dash removed.

    >>> clean_needle('"Quarterly Results" on screen?'), clean_needle("2 - 1")
    ('quarterly results', '2-1')
    >>> [clean_needle(t) for t in ("the number seven", "the number 10", "the number plate")]
    ['seven', '10', 'the number plate']
    """
    text = raw.strip().strip(_Q + "?.!,").strip()
    text = re.sub(r"^[-–—:;]+\s+|\s+[-–—:;]+$", "", text)  # "budget - spoken"
    text = re.sub(r"\s*([-:–])\s*(?=\d)", r"\1", text).replace("–", "-")
    text = re.sub(r"^(?:the\s+(?:word|words|phrase|name|title|caption)\s+)", "", text, flags=re.I)
    text = re.sub(_NUMBER_LEAD, "", text, flags=re.I)  # "the number seven": "seven"
    previous = None
    while previous != text:  # "Safety Rules written on it": both words that only show it
        previous = text
        text = _NEEDLE_TAIL.sub("", text)
    return " ".join(text.strip(_Q + " ?.!,").lower().split())


def _picture_route(text: str) -> Route:
    """People or the image encoder for a sub-event without a needle (see the module text)."""
    tokens = tag(text)
    head = head_noun(tokens)
    if head is None:
        return Route("visual", text, "default")
    noun = tokens[head].lower
    owner = tokens[head - 2] if head > 1 and tokens[head - 1].tag == "POS" else None
    person = person_noun(noun) or _person_like(noun)
    if not person and head and tokens[head - 1].tag == "JJ":  # "a human figure"
        person = _person_like(f"{tokens[head - 1].lower} {noun}")
    if person and owner and owner.tag != "NNP" and not (
        person_noun(owner.lower) or _person_like(owner.lower)
    ):
        person = False  # "the cat's face" is the cat's; "Sheila's face" is a person's
    if not person:  # how many at once is said, not checked: "two dogs" (`methods.explain`)
        least, most = how_many(text)
        return Route("visual", text, "default", least=least, most=most)
    needle = "face" if noun in FACE_NOUNS else "person"
    if noun in BODY_NOUNS or any(t.lower in BODY_VERBS for t in tokens[head + 1 :]):
        needle = "body"
    objects = any(object_noun(t.lower) for t in _acted_on(tokens, head + 1))
    if objects:  # "a man holding a phone": the encoder can check the phone
        return Route("visual", text, "person-object", person=True)
    if not _actions(tokens, head + 1):
        least, most = how_many(text)
        return Route("people", needle, "people-presence", person=True, least=least, most=most)
    return Route("visual", text, "person-action", person=True)


_NUMBER = rf"(?:\d+(?![/.]\d)|{WORD_NUMBER})"  # not "1/3"
_AT_LEAST = re.compile(rf"\b(?:at\s+least\s+(?P<a>{_NUMBER})|"
                       rf"(?P<b>{_NUMBER})\s+(?:\w+\s+)?or\s+more|"  # "3 (people) or more"
                       rf"more\s+than\s+(?P<c>{_NUMBER})|(?P<d>several|many|multiple))\b", re.I)
_AT_MOST = re.compile(rf"\b(?:(?:at\s+most|up\s+to|(?:no|not)\s+more\s+than)\s+(?P<a>{_NUMBER})|"
                      rf"(?:fewer|less)\s+than\s+(?P<b>{_NUMBER})|"
                      rf"(?P<c>{_NUMBER})\s+(?:\w+\s+)?or\s+(?:fewer|less))\b", re.I)
_EXACTLY = re.compile(rf"^(?:(?:only|just|exactly)\s+)?(?P<n>{_NUMBER}|couple)\b", re.I)
_ALONE = re.compile(r"\b(?:alone|on\s+(?:his|her|their)\s+own|by\s+(?:himself|herself|themselves)"
                    r"|a\s+(?:single|lone)|only\s+one|just\s+one)\b", re.I)


def how_many(text: str) -> tuple[int, int | None]:
    """`(least, most)` people at once that a people phrase asks for; `(1, None)` when it says
    no number.

    >>> how_many("two people"), how_many("more than one person"), how_many("a man alone")
    ((2, 2), (2, None), (1, 1))
    >>> how_many("at least 3 people"), how_many("several people"), how_many("a man")
    ((3, None), (2, None), (1, None))
    >>> how_many("at most two people"), how_many("fewer than 3 people")
    ((1, 2), (1, 2))
    >>> how_many("a man and a woman"), how_many("two men and a woman"), how_many("a man and a dog")
    ((2, None), (3, None), (1, None))
    """
    def number(word: str) -> int:
        return int(word) if word.isdigit() else NUMBER_WORDS[word.lower()]

    parts = re.split(r"\s+and\s+", text)
    if len(parts) > 1 and all(_person_head(p) for p in parts):  # "a man and a woman"
        return sum(how_many(p)[0] for p in parts), None
    if _ALONE.search(text):
        return 1, 1
    m = _AT_MOST.search(text)
    if m:
        most = number(m["a"] or m["c"]) if m["b"] is None else number(m["b"]) - 1
        return 1, max(most, 1)  # "fewer than one person": at most one ("nobody" asks for none)
    m = _AT_LEAST.search(text)
    if m:
        if m["d"]:
            return 2, None
        if m["c"]:
            return number(m["c"]) + 1, None
        return max(number(m["a"] or m["b"]), 1), None  # "at least 0 people" is anyone
    m = _EXACTLY.match(re.sub(r"^(?:the|a|an)\s+", "", text.strip()))
    if m:
        n = 2 if m["n"].lower() == "couple" else number(m["n"])  # "a couple (of people)"
        return (n, n) if n > 0 else (1, None)
    return 1, None


def _person_head(phrase: str) -> bool:
    tokens = tag(phrase)
    head = head_noun(tokens)
    return head is not None and person_noun(tokens[head].lower)


def _acted_on(tokens: tuple, start: int) -> list:
    """The nouns from `tokens[start]` on that a person acts on, not where they are or what
    they wear: a noun after a preposition is a place ("sitting on a couch", "standing by a
    horse"), one after "wear" is clothing, up to the next verb.

    >>> [t.text for t in _acted_on(tag("a man holding a cup on a table"), 2)]
    ['cup']
    """
    out, aside = [], False
    for i in range(start, len(tokens)):
        token = tokens[i]
        if token.tag in ("IN", "TO"):
            aside = True
        elif token.is_verb and not _modifier(tokens, i):
            aside = token.lower.startswith("wear") or token.lower == "dressed"
        elif token.is_noun and not aside:
            out.append(token)
    return out


def _actions(tokens: tuple, start: int) -> list:
    """The verbs from `tokens[start]` on that are actions, not presence, posture, a
    participle used as an adjective, the viewer's ("the person we see"), or a noun the
    tagger took for a verb after a determiner ("the man on the left").

    >>> [t.text for t in _actions(tag("the second person we see"), 2)]
    []
    >>> [t.text for t in _actions(tag("the guy on the left"), 2)]
    []
    """
    return [t for i, t in enumerate(tokens) if i >= start and t.is_verb
            and t.lower not in PRESENCE_VERBS and not _modifier(tokens, i)
            and not (t.lower in _SHOWING and _ends(tokens, i))  # "a face showing"
            and not (i and tokens[i - 1].lower in VIEWER_PRONOUNS)
            and not (i and tokens[i - 1].tag == "DT")]  # fmt: skip


_SHOWING = frozenset({"show", "shows", "showing", "showed"})


def _ends(tokens: tuple, i: int) -> bool:
    """Whether nothing but a place or time follows `tokens[i]`: a verb without an object
    ("shows off her bikini" has one)."""
    after = tokens[i + 1] if i + 1 < len(tokens) else None
    return after is None or (after.tag in ("IN", "RB", "CC", ",") and after.lower not in (
        "off", "around", "round"))


def _modifier(tokens: tuple, i: int) -> bool:
    """Whether verb `tokens[i]` is a participle used as an adjective: "-ing" between a
    determiner or adjective and a noun ("a swimming pool"), or "-ed" right after a noun ("a
    building filled with statues")."""
    token = tokens[i]
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    prev = tokens[i - 1] if i else None
    if token.tag == "VBG" and nxt is not None and nxt.tag.startswith("NN"):
        return prev is None or prev.tag in ("DT", "JJ", "PRP$", "CD")
    return token.tag == "VBN" and prev is not None and prev.tag.startswith("NN")


def object_noun(noun: str) -> bool:
    """A noun naming something the image encoder knows (an ImageNet class by a WordNet word),
    other than the picture itself ("camera", "screen") or a person.

    >>> object_noun("phone"), object_noun("campus"), object_noun("camera")
    (True, False, False)
    """
    if noun in PERSON_NOUNS or noun in PICTURE_NOUNS:
        return False
    from ..encoders.class_words import named_classes

    return bool(named_classes(noun))


@lru_cache(maxsize=1)
def _encoder():
    """The sentence model, or None when it is not installed (cues decide alone)."""
    try:
        from ..encoders.minilm import MiniLM

        return MiniLM()
    except Exception:  # noqa: BLE001 - any missing piece of the model means "no model"
        return None


@lru_cache(maxsize=1)
def _prototype_vectors() -> dict[str, np.ndarray] | None:
    model = _encoder()
    if model is None:
        return None
    names = [*PROTOTYPES, "person", "other"]
    texts = [*PROTOTYPES.values(), PERSON_PROTOTYPES, OTHER_PROTOTYPES]
    return {name: model.encode(list(group)) for name, group in zip(names, texts)}


@lru_cache(maxsize=1024)
def _semantic_channel(frame: str) -> tuple[str | None, float]:
    """The channel whose prototypes lie nearest to `frame`, and its lead over the other."""
    vectors = _prototype_vectors()
    if vectors is None:
        return None, 0.0
    v = _encoder().encode([frame])[0]
    scores = {name: float((vectors[name] @ v).max()) for name in PROTOTYPES}
    ranked = sorted(scores, key=scores.get, reverse=True)
    return ranked[0], round(scores[ranked[0]] - scores[ranked[1]], 4)


@lru_cache(maxsize=1024)
def _person_like(noun: str) -> bool:
    """A noun outside `PERSON_NOUNS` that the sentence model places with people."""
    vectors = _prototype_vectors()
    if vectors is None:
        return False
    v = _encoder().encode([noun])[0]
    person = float((vectors["person"] @ v).max())
    other = float((vectors["other"] @ v).max())
    return person >= PERSON_SIMILARITY and person >= other + MIN_MARGIN
