"""One analysis of a query, computed once and read by every method, the router and the trace.

`analyse(query)` returns a `QueryAnalysis`: the events the query names (the target
first, then its conditions), each with the channel it is answered from (`channel.Route`), the
relation between them, the time window, which occurrence is asked for, and whether the query
asks for a count. The agent's plan (`agent.plan.planner.plan_query`) is built on it; retrieval
reads its channel and window; the trace shows it whole (`to_record`).

>>> a = analyse("Where does the rocket appear?")
>>> a.target.text, a.target.route.channel, a.window_s(600)
('the rocket', 'visual', None)
>>> a = analyse("when does the Hiring Plan slide appear after 2:40")
>>> a.target.route.channel, a.target.route.needle, a.window_s(600)
('text', 'hiring plan', (160.0, 600.0))
>>> a = analyse("people walk across the street then talk in front of a store")
>>> a.target.text, a.conditions[0].text, a.relation.value
('people talk in front of a store', 'people walk across the street', 'right after')
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, replace
from functools import lru_cache

from ..errors import UserError
from ..text import MAX_TEXT_CHARS
from . import grammar as g
from .channel import (
    SAID_OR_WRITTEN,
    Route,
    names_a_thing,
    object_noun,
    quoted_alone,
    route,
)
from .structure import (
    Relation,
    every_nth,
    main_sentence,
    not_shown,
    occurrence,
    split_relation,
    strip_lead_ins,
)
from .vocabulary import canonical_noun
from .windows import AROUND_S, extract_window, length_words, reach_words, window_words
from .words import SOUND_NOUNS, head_noun, tag

#: Longest query read, in characters (`text.MAX_TEXT_CHARS`, the limit of every text value).
MAX_QUERY_CHARS = MAX_TEXT_CHARS
_COUNT = re.compile(r"^\s*(?:how\s+many(?!\s+(?:seconds|minutes)\b)|how\s+(?:often|frequently)|"
                    r"count\b|(?:the\s+)?(?:total\s+)?number\s+of\b)", re.I)
_TRAILING = re.compile(
    r"(?:\s+(?:appears?|appeared|appearing|(?:(?:is|are|gets?)\s+)?(?:shown|seen|visible|"
    r"displayed|present)|(?:is|are)\s+there|shows?\s+up|showing\s+up|comes?\s+(?:into\s+view|up)|"
    r"(?:pops?|turns?)\s+up|"
    r"(?:is|are)\s+on[\s-]screen|on[\s-]screen|(?:(?:is|are)\s+)?in\s+(?:the|this)\s+(?:video|clip|footage)|"
    r"(?:(?:is|are)\s+)?in\s+(?:the\s+)?(?:frame|view|picture|image)|"
    r"happens?|occurs?|is\s+there|are\s+there|again|at\s+all|ever|anywhere|somewhere|does|do|"
    # "the shots with a dog in them", "the dog, but only", "where is the cat at", "please",
    # "the second person to (appear)", "the dog that comes (after the cat)"
    r"in\s+(?:them|it)|(?:but\s+)?only|at|to|please|pls|that|which|comes?|came|,?\s*where|"
    r"at\s+(?:any|some)\s+(?:point|time)|asap|"
    # "zebra sightings", "the zebra, if it's there"
    r"appearances|sightings|,?\s*if\s+(?:it'?s|it\s+is|they'?re|they\s+are|any)(?:\s+(?:there|"
    r"present|shown|in\s+(?:it|there)))?|"
    r"(?:(?:wide|close[\s-]?up|aerial|drone)\s+)?shots|"  # "crowd shots"
    # "X in the shot that comes right after Y": the shot is X's own
    r"(?:in|during)\s+the\s+(?:shot|scene|clip)(?:\s+(?:that|which)\s+(?:comes?|came|is|follows?))?"
    r"))+$",
    re.I,
)
# "dog pics", "beach footage": a thing and the kind of media it is in (not "the photo", "for
# photos" or "a music video": there the photo or the video is the thing).
_MEDIA = re.compile(r"^((?:(?:the|a|an|any|some)\s+)?(?:\w+\s+)?\w+)\s+(?:pics?|pictures?|photos?|"
                    r"vids?|videos?|clips?|footage)$", re.I)
#: "is seen", "are shown" inside an event only say it is there ("a person is seen walking").
_SEEN = re.compile(r"\b(?:is|are|was|were|gets?|being)\s+(?:seen|shown)\b(?=\s+\w)", re.I)
_LEADING = re.compile(r"^(?:(?:is|are|was|were|does|do|did)\s+)+", re.I)


@dataclass(frozen=True)
class Event:
    """One event of the query.

    Attributes:
        role: "target" (what the answer covers) or "condition".
        phrase: the event's words as the query put them (relation and window cut away).
        text: the event itself: the phrase without asking words and presence fillers ("the
            HALF TIME caption", "a person's face", "people talk in front of a store").
        route: the channel that answers it and the words looked for there.
        subject: the head noun of its first noun phrase ("the HALF TIME caption" ->
            "caption", "a person's face" -> "face"), or "".
        known_as: for the image encoder, the vocabulary word of the subject when the
            subject is another name for it ("kitty" -> "cat"), else None.
    """

    role: str
    phrase: str
    text: str
    route: Route
    subject: str = ""
    known_as: str | None = None

    def to_record(self) -> dict:
        return {"role": self.role, "phrase": self.phrase, "text": self.text,
                "subject": self.subject, "known_as": self.known_as,
                **self.route.to_dict()}  # fmt: skip


@dataclass(frozen=True)
class QueryAnalysis:
    """What a query asks for.

    Attributes:
        query: the query as given.
        events: the target, then the conditions.
        relation: how the conditions constrain the target (`Relation.NONE` without them;
            `Relation.BETWEEN` for a window alone).
        window: the words that name a time window ("from 2:40 to 5:20"), or "" (read into
            seconds by `window_s` once the video's length is known).
        occurrence: "the first / last time X": 1-based (-1: the last); "longest" or
            "shortest" for "the longest shot of X"; or None.
        skip_first: returns only ("comes back", "seen again").
        count: the query asks how many ("how many times", "count").
        body: the words that state the events (asking words, window and occurrence cut).
        hidden: the query asks where its one event is *not* shown ("when is the cat not on
            screen", "the car is missing"); the events are what would be shown.
        adjacent: the target names nothing but the shot next to its one condition ("what
            comes after the cat", "the shot before the dog"); the relation says which side.
        alternatives: the one event is one of several things ("a car or a truck", "someone
            says hello or goodbye"): each as a query of its own, answered together; else ().
        reach_s: for "after" and "before", how far in time the condition may lie from the
            target ("within 10 seconds after the cat": 10), or None (anywhere before or
            after); for "near", how far on either side ("within 10 seconds of the cat": 10;
            `windows.AROUND_S` unsaid: "around the time the cat shows up").
        length_s: `(least, most or None)` seconds each moment lasts ("dog shots longer than
            5 seconds", "the cat for at least 10 seconds", "3 seconds or shorter"), or None.
    """

    query: str
    events: tuple[Event, ...]
    relation: Relation
    window: str
    occurrence: int | str | None
    skip_first: bool
    count: bool
    body: str = ""
    hidden: bool = False
    adjacent: bool = False
    alternatives: tuple[str, ...] = ()
    reach_s: float | None = None
    length_s: tuple[float, float | None] | None = None

    @property
    def target(self) -> Event:
        return self.events[0]

    @property
    def conditions(self) -> tuple[Event, ...]:
        return self.events[1:]

    def window_s(self, duration_s: float) -> tuple[float, float] | None:
        """`(start_s, end_s)` of the window on a video of `duration_s` seconds (clipped to
        it; empty when it lies outside), or None when the query names none."""
        return extract_window(self.window, duration_s)[0] if self.window else None

    @property
    def derived(self) -> bool:
        """The answer is not the target's own moments but derived from another event's
        (`hidden`, `adjacent`) or read from the edit (`Route.edit`): it has no objects to
        follow or count."""
        return self.hidden or self.adjacent or bool(self.target.route.edit)

    @property
    def channels(self) -> tuple[str, ...]:
        """Every channel the events are answered from, in event order, once each."""
        return tuple(dict.fromkeys(e.route.channel for e in self.events))

    @property
    def compound(self) -> bool:
        """More than one event, a window or an occurrence: answered event by event."""
        return (
            len(self.events) > 1
            or self.relation is not Relation.NONE
            or self.occurrence is not None
            or self.length_s is not None
            or self.skip_first
        )

    def to_record(self) -> dict:
        return {"query": self.query, "events": [e.to_record() for e in self.events],
                "relation": self.relation.value,
                "window": self.window,
                "occurrence": self.occurrence, "skip_first": self.skip_first,
                "hidden": self.hidden, "adjacent": self.adjacent,
                "alternatives": list(self.alternatives), "reach_s": self.reach_s,
                "length_s": None if self.length_s is None else list(self.length_s),
                "count": self.count}  # fmt: skip


def check_query(query: str) -> str:
    """`query` with its spaces collapsed, "where's"-style contractions and arrows written out,
    pictographs dropped beside words and named alone, or a one-line error for an empty,
    over-long or unreadable one.

    >>> check_query("  where's   the cat "), check_query("dog -> cat"), check_query("wheres it")
    ('where is the cat', 'dog, then cat', 'where is it')
    >>> check_query("the cat 🐱"), check_query("🐶"), check_query("🐶 then 🐱")
    ('the cat', 'dog', 'dog then cat')
    """
    if not isinstance(query, str) or not query.strip():
        raise UserError("the query is empty")
    if len(query) > MAX_QUERY_CHARS:
        raise UserError(
            f"the query is {len(query):,} characters long; at most {MAX_QUERY_CHARS:,} are read "
            f"(it starts {query[:40]!r})"
        )
    if "\x00" in query or any(0xD800 <= ord(c) <= 0xDFFF for c in query):
        raise UserError(f"the query {query[:40]!r} is not valid text (a NUL or a lone surrogate)")
    text = " ".join(_pictographs(query).replace("’", "'").replace("‘", "'").split())
    text = g.ARROW.sub(", then ", text)
    text = g.NO_APOSTROPHE.sub(lambda m: f"{m[1]}'s" if m[1] else f"{m[2] or m[3]}n't", text)
    return g.CONTRACTED.sub(r"\1 is", text)


def _pictographs(text: str) -> str:
    """Emoji and other pictographs (Unicode "So") dropped where the query's words name a thing,
    and read by their Unicode names where they do not ("🐶" DOG FACE: "dog"; "🐶 then 🐱")."""
    if not any(unicodedata.category(c) == "So" for c in text):
        return text
    text = re.sub("[\ufe0f\u200d]", "", text)  # the emoji style selector and joiner
    words = "".join(" " if unicodedata.category(c) == "So" else c for c in text)
    if any(t.is_noun and t.text.isalnum() for t in tag(words)):
        return words
    return "".join(
        f" {unicodedata.name(c, '').lower().removesuffix(' face')} "
        if unicodedata.category(c) == "So" else c
        for c in text
    )


def analyse(query: str) -> QueryAnalysis:
    """The analysis of `query` (see the module text); it does not depend on the video.

    Raises:
        UserError: the query is empty, too long, not text, or names an impossible time.
    """
    return _analyse(check_query(query), query)


@lru_cache(maxsize=512)
def _analyse(text: str, query: str) -> QueryAnalysis:
    reach_s, text = reach_words(text)
    length_s, text = length_words(text)
    window, text = window_words(text)
    count = bool(_COUNT.match(text))
    every, text = every_nth(text)
    skip_first = bool(g.AGAIN.search(text) or g.AFTER_FIRST.search(text))
    body = main_sentence(g.FIRST_INCLUDED.sub("", g.AFTER_FIRST.sub("", text)))
    body = strip_lead_ins(g.AGAIN.sub(" ", body))
    edit = g.EDIT.match(body) or g.EDIT.match(text.strip(" ,.?!"))
    if edit:  # "every cut", "how many shots are there", "the longest shot"
        return _edit_analysis(query, edit, window, every, count, length_s)
    hidden, shown = not_shown(body)
    hidden = hidden and not split_relation(shown)[1]  # one event turned inside out, not a pair
    body = shown if hidden else body
    nth, body = occurrence(body)
    nth = every or nth
    target, conditions, relation = _negated_beside(*split_relation(body))
    if relation is Relation.CAUSED_BY and conditions and g.GENERIC.match(event_text(target)):
        # "something gets knocked over by the ball": what the ball does is asked for
        target, conditions, relation = conditions[0], (target,), Relation.CAUSES
    phrases = carry_subject([target.strip(" ,.?!"), *(c.strip(" ,.?!") for c in conditions)])
    if not event_text(phrases[0]):  # "show me", "the first 30 seconds"
        inside = f" in its time window ({window!r})" if window else ""
        raise UserError(f"query {query!r} names nothing to look for{inside}")
    events = [_event("target", phrases[0])]
    sound = _sound(events[0])
    if sound:
        raise UserError(f"query {query!r} asks for a sound ({sound!r}): only speech is heard "
                        "(words, talking, silence), not music or other sounds")  # fmt: skip
    conditions = [
        _event("condition", p)
        for p in phrases[1:]
        if event_text(p) and not g.GENERIC.match(event_text(p))
    ]
    events += [c for c in conditions if not _sound(c)]  # "as a song is played": unheard
    # a cause whose effect names nothing ("the ball knocks something over") stays causal
    keeps = (Relation.BETWEEN, Relation.CAUSES, Relation.CAUSED_BY)
    if len(events) == 1 and relation not in keeps:
        relation = Relation.NONE
    seen_with = _seen_with(events[0])
    if seen_with and len(events) == 1:
        events += [Event("condition", c, c, Route("visual", c, "seen-with-the-person"))
                   for c in seen_with]  # fmt: skip
        relation = Relation.WHILE
    if relation is Relation.NONE and window:
        relation = Relation.BETWEEN
    sides = (Relation.AFTER, Relation.RIGHT_AFTER, Relation.BEFORE, Relation.RIGHT_BEFORE)
    adjacent = len(events) == 2 and relation in sides and bool(g.WHATEVER.match(events[0].text))
    single = len(events) == 1 and not hidden and relation in (Relation.NONE, Relation.BETWEEN)
    return QueryAnalysis(
        query, tuple(events), relation, window, nth, skip_first, count, body, hidden, adjacent,
        _alternatives(events[0]) if single else (),
        _reach(relation, reach_s), length_s,
    )


def _edit_analysis(
    query: str, edit: re.Match, window: str, every: str | None, count: bool,
    length_s: tuple[float, float | None] | None,
) -> QueryAnalysis:  # fmt: skip
    """The analysis of a query about the edit itself (`g.EDIT`): one event read from the
    pixels (`Route.edit`), with the window, occurrence, count and lengths asked for.

    >>> a = analyse("the longest shot after 1:00")
    >>> a.target.route.edit, a.occurrence, a.window_s(600)
    ('shot', 'longest', (60.0, 600.0))
    """
    kind = next(k for k in ("cut", "shot", "black") if edit[k])
    which = edit["which"]
    nth = every or (None if which is None else which.lower() if which.lower() in
                    ("longest", "shortest") else g.ordinal_value(which))  # fmt: skip
    phrase = edit[0]
    event = Event("target", phrase, phrase, Route("visual", "", f"edit-{kind}", edit=kind))
    relation = Relation.BETWEEN if window else Relation.NONE
    return QueryAnalysis(query, (event,), relation, window, nth, False, count, phrase,
                         length_s=length_s)  # fmt: skip


def _reach(relation: Relation, said_s: float | None) -> float | None:
    """How far in time the condition may lie from the target: as said for "after" and
    "before", as said or `windows.AROUND_S` for "near" ("around the time the cat shows up").
    """
    if relation is Relation.NEAR:
        return AROUND_S if said_s is None else said_s
    return said_s if relation in (Relation.AFTER, Relation.BEFORE) else None


# Words heard or read, either: "budget, spoken or written", "said or shown", "on screen or
# spoken", "in speech or on screen".
_HEARD = r"(?:spoken|said|heard|(?:in\s+(?:the\s+)?)?(?:speech|audio))"
_READ = r"(?:written|shown|read|(?:on[\s-]|in\s+)(?:screen|text)|in\s+(?:the\s+)?captions?)"
_HEARD_OR_READ = re.compile(
    rf",?\s+(?:either\s+)?(?:{_HEARD}\s+or\s+{_READ}|{_READ}\s+or\s+{_HEARD})\s*$", re.I
)

# A name or title alone: capitalised words (small joining words between them), at most six.
_TITLE = re.compile(
    r"[A-Z0-9][\w'&.-]*(?:\s+(?:of|and|the|in|on|for|to|a|an|[A-Z0-9][\w'&.-]*)){0,5}"
)
#: Words of one option of a needle ("hello or goodbye"): more is a phrase, not an option.
MAX_OPTION_WORDS = 3


def _sound(event: Event) -> str:
    """The word of a sound other than speech the event names ("when music is playing",
    "applause", "the sound of a horn"), or "": no channel hears it, and the image encoder
    would answer for something it cannot see. Speech, silence and written words are no such
    sound."""
    visual = event.route.channel == "visual"
    return event.subject if visual and event.subject.lower() in SOUND_NOUNS else ""


def _alternatives(event: Event) -> tuple[str, ...]:
    """The things an event names with "or", each as a query of its own: noun phrases for the
    image encoder and the people channel, the words of a speech or text needle quoted.

    >>> _alternatives(_event("target", "a car or a truck"))
    ('a car', 'a truck')
    >>> _alternatives(_event("target", "someone says hello or goodbye"))
    ('someone says "hello"', 'someone says "goodbye"')
    >>> _alternatives(_event("target", "the Hello slide or the Goodbye slide"))
    ('the Hello slide', 'the Goodbye slide')
    >>> [_alternatives(_event("target", q)) for q in ("either a dog or a cat", "dog/cat")]
    [('a dog', 'a cat'), ('dog', 'cat')]
    >>> _alternatives(_event("target", "a cat, a dog or a horse"))
    ('a cat', 'a dog', 'a horse')
    >>> _alternatives(_event("target", "the word budget, spoken or written"))
    ('someone says "budget"', '"budget" on screen')
    >>> _alternatives(_event("target", "the red or blue car"))
    ()
    >>> _alternatives(_event("target", 'someone says "now or never"'))
    ()

    A name or title alone that names no person or thing the encoder knows is said or
    written ("Quarterly Results", "Chicago"; not "Big Buck Bunny": a rabbit), and so is an
    interjection ("hello", "wow") or a quotation alone ('"Caminandes"'):

    >>> _alternatives(_event("target", "Quarterly Results"))
    ('someone says "Quarterly Results"', '"Quarterly Results" on screen')
    >>> _alternatives(_event("target", "hello"))
    ('someone says "hello"', '"hello" on screen')
    >>> _alternatives(_event("target", "the line with budget in it"))
    ('someone says "budget"', '"budget" on screen')
    """
    own = event.route
    either = _HEARD_OR_READ.search(event.phrase)
    if either:  # "the word budget, spoken or written": said, or on screen
        words = event.phrase[: either.start()]
        found = route(words)
        words = found.needle if found.channel in ("speech", "text") and found.needle else words
        return f'someone says "{words}"', f'"{words}" on screen'
    quoted = quoted_alone(event.phrase)
    if own.rule.split(">")[0] in SAID_OR_WRITTEN:  # "the line with budget in it"
        quoted = own.needle
    if quoted:  # '"Caminandes"': nothing says whether it is said or written
        return f'someone says "{quoted}"', f'"{quoted}" on screen'
    title = _TITLE.fullmatch(event.phrase) and not any(
        names_a_thing(w) for w in event.phrase.lower().split()
    )
    if own.rule == "default" and (title or all(t.tag == "UH" for t in tag(event.phrase))):
        return f'someone says "{event.phrase}"', f'"{event.phrase}" on screen'
    if re.search(r"[\"“][^\"”]*\sor\s[^\"”]*[\"”]", event.text):
        return ()  # one quoted line: "to be or not to be"
    whole = [p.strip(" ,") for p in re.split(r"\s+or\s+", event.text)]
    routes = [route(p) for p in whole] if len(whole) > 1 else []
    if routes and all(r.channel in ("speech", "text") and r.needle for r in routes):
        return tuple(whole)  # "the Hello slide or the Goodbye slide"
    if own.channel in ("speech", "text"):
        options = re.split(r"\s+or\s+", own.needle) if own.needle else []
        if len(options) < 2 or any(not 0 < len(o.split()) <= MAX_OPTION_WORDS for o in options):
            return ()
        form = 'someone says "{}"' if own.channel == "speech" else '"{}" on screen'
        return tuple(form.format(o) for o in options)
    text = re.sub(r"^either\s+", "", event.text, flags=re.I)  # "either a dog or a cat"
    if not re.search(r"\sor\s|\w/\w", text):
        return ()
    # "dog/cat" is "dog or cat" when each side is a thing ("AC/DC", "on/off" are not)
    slash = not re.search(r"\sor\s", text)
    parts = [p.strip(" ,") for p in re.split(r",\s*(?:or\s+)?|\s+or\s+|(?<=\w)/(?=\w)", text)]
    for part in parts:  # each a thing of its own: "a cat or dog", not "the red or blue car"
        tokens = tag(part)
        head = head_noun(tokens)
        if head is None or any(t.is_verb for t in tokens):
            return ()
        if slash and not object_noun(canonical_noun(tokens[head].lower) or tokens[head].lower):
            return ()
    return tuple(parts)


def _negated_beside(
    target: str, conditions: tuple[str, ...], relation: Relation
) -> tuple[str, tuple[str, ...], Relation]:
    """A thing not shown beside another: "the dog when the cat is not on screen" is the dog
    without the cat, and so is "the cat is not on screen while the dog is"; "the dog after
    the cat is gone" is the dog after the cat.

    >>> _negated_beside("the dog", ("there is no cat",), Relation.WHILE)
    ('the dog', ('cat',), <Relation.WITHOUT: 'without'>)
    >>> _negated_beside("the cat is not on screen", ("the dog is",), Relation.WHILE)
    ('the dog is', ('the cat',), <Relation.WITHOUT: 'without'>)
    """
    if len(conditions) != 1:
        return target, conditions, relation
    hidden, shown = not_shown(conditions[0])
    if hidden:
        return target, (shown,), Relation.WITHOUT if relation is Relation.WHILE else relation
    hidden, shown = not_shown(target)
    if hidden and relation is Relation.WHILE:
        return conditions[0], (shown,), Relation.WITHOUT
    return target, conditions, relation


def _seen_with(event: Event) -> list[str]:
    """The things a people event names beside the person, which the image encoder can check
    ("a man with a beard in front of books" -> "books", "a man in a grey sweater" -> "a grey
    sweater"): each becomes a condition seen at the same time.

    >>> _seen_with(_event("target", "a man in a grey suit"))
    ['a grey suit']
    """
    if event.route.channel != "people" or event.route.absent:
        return []
    tokens = tag(event.text)
    head = head_noun(tokens)
    out = []
    for i in range(0 if head is None else head + 1, len(tokens)):
        compound = i + 1 < len(tokens) and tokens[i + 1].tag in ("NN", "NNS")
        if tokens[i].is_noun and not compound and object_noun(tokens[i].lower):
            start = i
            while start > 0 and tokens[start - 1].tag in ("DT", "JJ", "PRP$", "NN", "NNS"):
                start -= 1
            out.append(" ".join(t.text for t in tokens[start : i + 1]))
    return out


def _event(role: str, phrase: str) -> Event:
    text = event_text(g.backdrop_said_of(phrase)) or phrase
    # The channel is read on the words that say it is shown or heard ("on screen", "is
    # spoken"), which the event's text leaves out.
    choice = route(strip_lead_ins(phrase.strip(" ,.?!")) or text)
    if choice.rule == "speech-the-word" and g.SEEING.match(phrase.strip()):
        choice = replace(choice, channel="text", rule="text-the-word-seen")  # "can I see ..."
    tokens = tag(text)
    head = head_noun(tokens)
    subject = tokens[head].text if head is not None else ""
    known_as = None
    if choice.channel == "visual" and head and tokens[head - 1].is_noun:
        # an open compound of a closed one the encoder knows: "tea pot" -> "teapot"
        closed = (tokens[head - 1].text + subject).lower()
        if canonical_noun(closed) == closed:
            return Event(role, phrase, text, choice, f"{tokens[head - 1].text} {subject}", closed)
    if choice.channel == "visual" and subject:
        word = canonical_noun(subject)
        plural = subject.lower() in (f"{word}s", f"{word}es")
        known_as = word if word and word != subject.lower() and not plural else None
    return Event(role, phrase, text, choice, subject, known_as)


def event_text(phrase: str) -> str:
    """The event without the words that only ask or say it is there.

    >>> event_text("does the HALF TIME caption appear"), event_text("a face is on screen")
    ('the HALF TIME caption', 'a face')
    >>> event_text("A person is seen walking into frame")
    'A person walking into frame'
    """
    text = _SEEN.sub(" ", strip_lead_ins(phrase.strip(" ,.?!")))
    text = " ".join(text.split())
    previous = None
    while previous != text:
        previous = text
        text = _TRAILING.sub("", _LEADING.sub("", text)).strip(" ,.?!")
    media = _MEDIA.match(text)
    if media is None:
        return text
    before = tag(media[0])[-2]  # "dog pics", not "a music video"
    return media[1] if before.is_noun and before.lower not in SOUND_NOUNS else text


def carry_subject(phrases: list[str]) -> list[str]:
    """Phrases that begin with a verb take the subject of the phrase before them in the
    sentence ("people walk across the street, then talk" -> "people talk").

    Args:
        phrases: the target's phrase, then the conditions' (as `split_relation` gives them;
            for "X then Y" the condition X comes first in the sentence).

    >>> carry_subject(["talk in front of a store", "people walk across the street"])
    ['people talk in front of a store', 'people walk across the street']
    """
    subjects = [_subject(p) for p in phrases]
    out = []
    for i, phrase in enumerate(phrases):
        tokens = tag(phrase)
        starts_with_verb = bool(tokens) and tokens[0].is_verb and tokens[0].tag != "MD"
        donor = next((s for j, s in enumerate(subjects) if j != i and s), None)
        out.append(f"{donor} {phrase}" if starts_with_verb and donor else phrase)
    return out


def _subject(phrase: str) -> str | None:
    """The words before the first verb, when they hold a noun ("people", "the old man")."""
    tokens = tag(phrase)
    for i, token in enumerate(tokens):
        if token.is_verb:
            head = tokens[:i]
            return " ".join(t.text for t in head) if any(t.is_noun for t in head) else None
    return None
