"""Parts of speech and the word classes the channel decision reads.

Tags come from the Pattern tagger that ships inside TextBlob's wheel (a lexicon and contextual
rules, MIT licence, no data download): it tells a verb from a noun ("walk" in "people walk
across the street", "showing" in "computer screen showing swimsuits"), which the query analysis
needs to find an event's subject and to tell presence ("a man on screen") from an action ("a
man opens a door"). Without TextBlob a small closed-class fallback tags the words it knows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

#: Nouns that name a person, a group of people or a face (singular and plural forms).
PERSON_NOUNS = frozenset(
    """person people persons someone somebody anyone anybody human humans being beings man men
    woman women
    walker walkers jogger joggers runner runners
    boy boys girl girls child children kid kids guy guys lady ladies gentleman gentlemen baby
    babies toddler adult adults teenager teenagers individual individuals crowd audience
    pedestrian pedestrians passer-by passersby player players presenter presenters speaker
    speakers host hosts anchor anchors commentator commentators narrator reporter reporters
    interviewer interviewee lecturer lecturers teacher teachers instructor student students
    actor actors actress singer singers dancer dancers athlete athletes referee coach driver
    drivers cyclist cyclists rider riders officer officers worker workers customer customers
    passenger passengers couple family friend friends he she they him her them face faces
    headshot selfie webcam soldier soldiers doctor doctors nurse nurses pilot
    pilots chef chefs goalkeeper goalkeepers goalie umpire policeman policemen policewoman
    firefighter firefighters fireman firemen surgeon patient patients waiter waitress shopper
    shoppers tourist tourists visitor visitors spectator spectators musician musicians guitarist
    drummer""".split()
)


def person_noun(word: str) -> bool:
    """Whether `word` (singular or plural) names a person: `PERSON_NOUNS`, or a noun whose
    commonest WordNet sense is a kind of person (`data/person_nouns.tsv`, written by
    `perf/wordnet_person_nouns.py`: "newsreaders", "witnesses", "children").

    >>> person_noun("newsreaders"), person_noun("guest"), person_noun("dragon")
    (True, True, False)
    """
    word = word.lower()
    forms = [word]
    if word.endswith("ies"):  # "deputies"
        forms.append(f"{word[:-3]}y")
    elif word.endswith("es"):  # "witnesses", "nurses"
        forms += [word[:-2], word[:-1]]
    elif word.endswith("s") and not word.endswith("ss"):  # "guests", not "dress"
        forms.append(word[:-1])
    return word in PERSON_NOUNS or any(form in _wordnet_people() for form in forms)


@lru_cache(maxsize=1)
def _wordnet_people() -> frozenset[str]:
    text = resources.files("longground.data").joinpath("person_nouns.tsv").read_text("utf-8")
    return frozenset(line for line in text.splitlines() if line and not line.startswith("#"))


#: Nouns that only count what follows "of": "lots of people", "a couple of dogs".
QUANTITY_NOUNS = frozenset("lot lots bunch plenty number handful couple pair dozens".split())
FACE_NOUNS = frozenset({"face", "faces", "headshot", "selfie", "webcam"})
#: People seen whole, by the pedestrian detector rather than the face detector.
BODY_NOUNS = frozenset(
    "pedestrian pedestrians passer-by passersby walker walkers cyclist cyclists jogger joggers "
    "runner runners crowd crowds".split()
)
#: Sounds other than speech: no channel hears them ("when music is playing", "applause").
SOUND_NOUNS = frozenset(
    "music song songs melody tune applause clapping laughter noise noises sound sounds siren "
    "sirens beep beeps ringtone".split()
)
BODY_VERBS = frozenset("walk walks walking walked stroll strolls strolling".split())
#: Verbs (lemmas) that say only that a person is there, or how they hold themselves: the
#: people channel can check these; any other verb is an action it cannot.
PRESENCE_VERBS = frozenset(
    """be is are was were been being am appear appears appeared appearing shown seen seeing
    visible recorded filmed photographed stand stands standing stood sit sits sitting sat smile
    smiles smiling look looks looking pose poses posing wait waits waiting stay stays staying
    remain remains remaining wear wears wearing talk talks talking speak speaks speaking walk
    walks walking come comes coming get gets lie lies lying lay lays laying monologue
    monologues monologuing vlog vlogs vlogging seated enter enters entered entering leave leaves
    leaving exit exits exiting""".split()
)
#: Subjects of a verb that is the viewer's, not the person's: "the second person we see",
#: "the man you meet first" (the person is there; what they do is not asked).
VIEWER_PRONOUNS = frozenset({"we", "you", "i"})
_FALLBACK_TAGS = {
    **dict.fromkeys("a an the this that these those every each some any".split(), "DT"),
    **dict.fromkeys("in on at of from with by across into over under near behind".split(), "IN"),
    **dict.fromkeys("he she they it him her them we you i".split(), "PRP"),
    **dict.fromkeys("is are was were be am".split(), "VBZ"),
    "'s": "POS",
}
_TOKEN = re.compile(r"'s\b|[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*(?:'(?!s\b)[A-Za-z]+)?|[^\sA-Za-z0-9]")


@dataclass(frozen=True)
class Token:
    """A word and its Penn Treebank tag."""

    text: str
    tag: str

    @property
    def lower(self) -> str:
        return self.text.lower()

    @property
    def is_noun(self) -> bool:
        return self.tag.startswith("NN") or self.tag == "PRP"

    @property
    def is_verb(self) -> bool:
        return self.tag.startswith("VB") or self.tag == "MD"


@lru_cache(maxsize=4096)
def tag(text: str) -> tuple[Token, ...]:
    """The words of `text` with their parts of speech.

    >>> [(t.text, t.tag) for t in tag("people walk across the street")]
    [('people', 'NNS'), ('walk', 'VB'), ('across', 'IN'), ('the', 'DT'), ('street', 'NN')]
    """
    words = _TOKEN.findall(text.replace("\u2019", "'"))
    try:
        from textblob.en import tag as pattern_tag
    except ImportError:  # the `nlp` extra is missing: closed classes only
        return tuple(Token(w, _FALLBACK_TAGS.get(w.lower(), "NN")) for w in words)
    return _retag(tuple(Token(w, t) for w, t in pattern_tag(" ".join(words), tokenize=False)))


_BE = frozenset("is are was were be been being am 's 're".split())


def _retag(tokens: tuple[Token, ...]) -> tuple[Token, ...]:
    """Verbs the lexicon tagger reads as nouns, in the short sentences of queries: an -ing
    word after a form of "be" ("is cooking"), an -s word after a singular person noun ("man
    talks") or before a determiner or possessive ("films her outfits"); and plural nouns it
    reads as verbs or adjectives, where no subject comes before them and no object after
    ("faces", "the faces on screen", "a motor-bike", "a human being").

    >>> [t.tag for t in _retag((Token("man", "NN"), Token("talks", "NNS")))]
    ['NN', 'VBZ']
    """
    out = list(tokens)
    for i, token in enumerate(out):
        if token.tag not in ("NN", "NNS"):
            continue
        before = out[i - 1] if i else None
        after = out[i + 1] if i + 1 < len(out) else None
        word = token.lower
        if word.endswith("ing") and before is not None and before.lower in _BE:
            out[i] = Token(token.text, "VBG")
        elif token.tag == "NNS" and before is not None and before.tag == "NN" and (
            before.lower in PERSON_NOUNS
        ):
            out[i] = Token(token.text, "VBZ")
        elif token.tag == "NNS" and after is not None and after.tag in ("DT", "PRP$"):
            out[i] = Token(token.text, "VBZ")
        elif i == 0 and token.tag == "NN" and after is not None and after.tag in ("DT", "PRP$"):
            out[i] = Token(token.text, "VB")  # "spray the sink": a clause without its subject
    for i, token in enumerate(out):  # "faces", "the faces on screen": a plural, not a verb;
        before = out[i - 1] if i else None  # "a motor-bike": a hyphened noun, not an adjective
        after = out[i + 1] if i + 1 < len(out) else None
        alone = (before is None or before.tag in ("DT", "JJ", "CD", "PRP$", "POS")) and (
            after is None or after.tag in ("IN", "CC", ",")
        )
        ends = after is None or after.tag in ("IN", "CC", ",") or after.lower in PRESENCE_VERBS
        if token.tag == "VBZ" and (alone or (token.lower in FACE_NOUNS and ends)):
            out[i] = Token(token.text, "NNS")  # "close-up faces", "smiling faces": no verb
        elif alone and token.tag == "JJ" and "-" in token.text.strip("-"):
            out[i] = Token(token.text, "NN")
        elif token.tag == "JJ" and token.lower in PERSON_NOUNS and (after is None or (
            after.tag in ("IN", "CC", ",") or after.lower in ("being", "beings")
        )):
            out[i] = Token(token.text, "NN")  # "a human", "a human being"
        elif token.lower in ("being", "beings") and before is not None and before.lower == "human":
            out[i] = Token(token.text, "NN")
    return tuple(out)


def head_noun(tokens: tuple[Token, ...]) -> int | None:
    """The index of the head of the first noun phrase: the last noun of the first run of
    nouns, or the noun after a possessive ("a person's face" -> face), or after a quantity
    ("lots of people" -> people).

    >>> toks = tag("a person's face on screen")
    >>> toks[head_noun(toks)].text
    'face'
    >>> toks = tag("the second person we see")
    >>> toks[head_noun(toks)].text
    'person'
    """
    head = next((i for i, token in enumerate(tokens) if token.is_noun), None)
    if head is None:
        return None
    of = head + 1 < len(tokens) and tokens[head + 1].lower == "of"
    if of and tokens[head].lower in QUANTITY_NOUNS:
        rest = head_noun(tokens[head + 2 :])  # "lots of people": the people
        return None if rest is None else head + 2 + rest
    for i in range(head + 1, len(tokens)):
        token, possessed = tokens[i], tokens[i - 1].tag == "POS"
        if token.is_noun and not token.tag.startswith("PRP"):  # "the person we see": not "we"
            head = i
        elif token.tag != "POS" and not (possessed and token.tag.startswith("JJ")):
            break
    return head
