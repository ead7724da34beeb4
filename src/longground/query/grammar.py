"""The word lists of the planner's grammar: lead-ins, relation markers, fillers, motion words,
ordinals, and the sentence-level rules (instructions, "the one" co-reference, "again").

Every list is a regular expression matched case-insensitively on word boundaries. The grammar
that uses them is in planner.py, summed up in docs/agent.md ("Step 1") and written out in
docs/notes/agent-log.md ("Grammar").
"""

from __future__ import annotations

import re

from ..timecode.grammar import NUMBER_WORDS

IGNORE = re.IGNORECASE

# "where's the cat", "what's on the board": the question word and "is" (a possessive such as
# "the cat's" is left alone).
CONTRACTED = re.compile(r"\b(where|what|when|who|how|which|there|here|that)'s\b", IGNORE)
# The same typed without the apostrophe: "wheres the cat", "when isnt there a dog", "cant".
NO_APOSTROPHE = re.compile(
    r"\b(?:(where|what|there|here|that)s|(is|are|was|were|does|do|did|has|have)nt|(ca)nt)\b", IGNORE
)

# Sentences that only say how to answer ("List every interval.") carry no event.
INSTRUCTION = re.compile(
    r"^(?:please\s+)?(?:list|give|show|return|report)\s+(?:me\s+)?(?:every|each|all)\s+(?:the\s+)?"
    r"(?:intervals?|time\s+spans?|returns?|moments?|times?|occurrences?)\b",
    IGNORE,
)
# "There may be more than one cat in this video. When is the one that ..." -> "the cat".
COREFERENCE = re.compile(
    r"^there\s+(?:may|might|could|can)\s+be\s+(?:more\s+than\s+one|several|many)\s+(.+?)"
    r"(?:\s+in\s+(?:this|the)\s+(?:video|clip))?$",
    IGNORE,
)
# What a channel is called in a label: "speech: budget", "on screen: SALE", "budget (spoken)".
SPEECH_LABEL = r"speech|spoken|said|audio|transcript|voice|dialog(?:ue)?"
TEXT_LABEL = (r"(?:on[- ]screen\s+)?(?:text|captions?|subtitles?|titles?)|"
              r"(?:words?\s+)?on[- ]screen|ocr|screen|slides?|written")
CHANNEL_LABEL = re.compile(rf"^(?:{SPEECH_LABEL}|{TEXT_LABEL})\s*:\s*", IGNORE)
# Lead-ins that say the thing is looked at ("can I see the word X": written, not said).
SEEING = re.compile(
    r"^(?:when\s+)?(?:(?:do|does|did|can|could)\s+(?:we|you|i)\s+see|we\s+see|show\s+me)\b", IGNORE
)
# Asking only for returns of an entity: its first showing is left out.
AGAIN = re.compile(
    r"\b(?:comes?\s+back|coming\s+back|seen\s+again|shown\s+again|appears?\s+again|every\s+return"
    r"|(?:shows?|showing|showed)\s+up\s+again|turns?\s+up\s+again|(?:is|are)\s+back"
    r"|returns?|reappears?|not\s+(?:its|the)\s+first(?:\s+(?:appearance|showing))?)\b",
    IGNORE,
)
AFTER_FIRST = re.compile(
    r"\b(?:after|since)\s+its\s+first\s+(?:appearance|showing),?\s*|"
    # "every dog except the first one", "all the cats but the first"
    r",?\s*\b(?:except(?:\s+for)?|but(?:\s+not)?|other\s+than|apart\s+from)\s+the\s+first"
    r"(?:\s+(?:one|time|appearance|showing))?\b",
    IGNORE,
)
FIRST_INCLUDED = re.compile(
    r",?\s*(?:its\s+first\s+(?:appearance|showing)\s+included|including\s+its\s+first"
    r"\s+(?:appearance|showing))\b",
    IGNORE,
)

_UNITS = (
    r"(?:moments?|times?|instances?|occurrences?|appearances?|sightings?|clips?|segments?|"
    r"intervals?|scenes?|shots?|frames?|"
    r"parts?(?:\s+of\s+the\s+video)?|time\s*spans?|timestamps?|time\s*codes?)"
)
# What a stretch of footage holds: "scenes featuring a zebra", "clips that include a zebra".
_HOLDING = (r"featuring|containing|including|(?:that|which)\s+(?:features?|contains?|includes?|"
            r"shows?|has|have)")
# What a verb acts on: "clip every goal", "tag the cars".
_OBJECT = r"(?=\s+(?:the|a|an|every|all|each|any|this|that|these|those)\b)"
# A clause's own subject after a lead-in noun: "the times a dog appears", "the instant the dog
# shows up" (not "the second cat").
_CLAUSE = r"(?=\s+(?:a|an|the|someone|somebody|anyone|we|he|she|they|it)\b)"
_LEAD_INS = (
    r"please|pls|plz|(?:hey|yo|ok(?:ay)?|so)(?=[\s,])",
    r"i\s+(?:think|believe|guess|suppose|reckon)(?:\s+that)?",  # "I think there's a rocket"
    r"(?:can|could|would)\s+(?:you|u)",
    r"in\s+the\s+part\s+of\s+the\s+video",
    r"(?:find|show|locate|list|return|give|identify|detect|mark|highlight|ground|count|get|"
    r"track|fetch)(?:\s+(?:me|us))?|tell\s+(?:me|us)",
    r"(?:i\s+(?:want|need|would\s+like|wanna)\s+to\s+(?:see|find|know|watch)|i'?m\s+looking\s+for|"
    r"i\s+am\s+looking\s+for|look(?:ing)?\s+for|search(?:ing)?\s+for|hunt(?:ing)?\s+for|"
    r"jump\s+to|take\s+me\s+to|"
    r"skip\s+to|go\s+to|spot|point\s+out|pull\s+up|bring\s+up|cue\s+up|"
    # an editor's verbs, before what they act on ("clip every goal", not "clip of the cat")
    rf"(?:tag|clip|cut\s+out|extract|export|grab|pull|save){_OBJECT}|"
    r"make\s+(?:a\s+)?(?:clips?|reel|montage|supercut)\s+(?:of|with)|"
    r"i\s+(?:want|need|would\s+like|wanna)(?!\s+to\b))",
    # "let me know when the zebra is on", "tell me when you see a zebra", "ping me if"
    r"(?:let\s+(?:me|us)\s+know|tell\s+(?:me|us)|show\s+(?:me|us)|alert\s+(?:me|us)|"
    r"notify\s+(?:me|us)|ping\s+(?:me|us))\s+(?:when(?:ever)?|if)",
    r"when(?:ever)?\s+(?:you|we|i)\s+(?:can\s+)?see",
    r"where\s+can\s+(?:i|we|you)\s+(?:find|see|spot)",
    r"(?:i\s+)?need(?=\s+(?:the|a|an|every|all|some|any)\b)",  # "need the zebra shots asap"
    # an editor's in and out points: "mark in and out points for the zebra"
    r"(?:mark\s+|set\s+)?(?:the\s+)?in\s+and\s+out\s+(?:points?|times?)\s+(?:for|of)",
    r"how\s+long\s+(?:is|are|was|were|does|do|did)",  # a length: the moments themselves
    r"how\s+many\s+(?:seconds|minutes)\s+(?:is|are|was|were|does|do|did)",
    r"how\s+many\s+times",
    r"how\s+many",
    r"(?:the\s+)?number\s+of(?:\s+times)?",
    r"how\s+(?:often|frequently)",
    r"(?:the\s+)?total\s+number\s+of",
    r"at\s+what\s+(?:times?|points?|moments?|timestamps?)",
    r"what\s+(?:times?|minutes?|seconds?|timestamps?)",
    rf"(?:in\s+)?which\s+{_UNITS}(?:\s+of\s+the\s+video)?"
    r"(?:\s+(?:has|have|features?|shows?|contains?|includes?))?",
    r"where\s+in\s+the\s+(?:video|clip|footage)",
    r"(?:is|are|was|were)\s+there(?:\s+ever)?",
    r"there\s+(?:is|are)",
    rf"(?:all|every|each)\s+(?:of\s+)?(?:the\s+)?{_UNITS}(?:\s+(?:showing|with|when|where|"
    r"in\s+which|that|of))?",
    rf"(?:the\s+|a\s+|an\s+)?{_UNITS}\s+(?:{_HOLDING}|showing|with|when|where|in\s+which|of|that|"
    r"for)",
    # "the bit where X" (not "bits of paper": there "of" names what is shown)
    r"(?:the\s+|a\s+)?(?:bits?|sections?|portions?|spots?|places?|points?)\s+(?:where|when|"
    r"in\s+which|showing|with)",
    r"(?:every|any)\s*time",
    r"the\s+moments?(?:\s+(?:when|that))?(?!\s+(?:after|before)\b)",
    # "the exact moment the car arrives", "the instant the dog shows up", "the second the cat
    # appears", "the times a dog appears"
    rf"the\s+(?:exact\s+|very\s+|precise\s+)?(?:moment|instant|second|minute|point)"
    rf"(?:\s+(?:when|that))?{_CLAUSE}",
    rf"(?:the\s+)?{_UNITS}{_CLAUSE}",
    # ... or a bare noun as that subject: "times festival is pronounced"
    rf"(?:the\s+)?{_UNITS}(?=\s+\w+(?:\s+\w+)?\s+(?:is|are|was|were|gets?|got)\b)",
    r"(?:at\s+)?which\s+(?:times?|timestamps?|time\s*codes?|points?|moments?)",
    r"(?:just|only)(?=\s+(?:the|a|an)\b)",
    r"each\s+time",
    r"whenever",
    r"when\s+(?:does|do|is|are)\s+(?:the\s+video|we|you)\s+(?:show|see)",
    r"(?:do|does|did|can)\s+(?:we|you|i)\s+(?:ever\s+)?see",
    r"(?:the\s+video\s+)?shows?",
    r"we\s+(?:then\s+|again\s+|now\s+)?see",
    r"the\s+(?:video|clip)\s+(?:ends|begins|starts|opens|closes|continues)\s+with",
    r"(?:more\s+)?shots?\s+(?:are\s+|is\s+)?shown\s+of",
    r"(?:when(?:ever)?|where)\s+(?:is|are|was|were)\s+there",
    r"when(?:ever)?(?:\s+(?:exactly|precisely))?\s+(?:does|do|did|is|are|was|were)",
    r"when(?:ever)?(?=\s+(?:nothing|nobody|no\s+one|no-one)\b)",  # "when nothing is written"
    r"where\s+(?:does|do|is|are)",
    r"where(?=\s+\w)",  # "yo where the dog at", "show me where Texas is said"
    r"(?:does|do|did|is|are|was|were)",
    r"(?:all|every|each|any)",
    r"instances?\s+of",
    # what the footage is, not what it shows: "any footage of a horse", "a close-up of a face",
    # "wide shots of the stadium", "drone footage of the coast"
    r"(?:the\s+|a\s+|an\s+)?(?:(?:wide|medium|long|aerial|drone|establishing|tracking|"
    r"overhead|slow[\s-]motion)\s+)?(?:footage|videos?|vids?|recordings?|close[\s-]?ups?|shots?|"
    r"b[\s-]?roll)\s+"
    rf"(?:{_HOLDING}|of|showing|with)",
)
# One lead-in at the start of the event text, with the spaces or comma after it.
LEAD_IN = re.compile(rf"^(?:{'|'.join(_LEAD_INS)})(?:[\s,]+|$)", IGNORE)

# "X misses Y", "X rolls past Y", "X passes an object": X moves by Y, both on screen ("the car
# passes the truck" stays one event).
# Words for a thing left unnamed: "something", "an object".
_SOMETHING = r"(?:something|anything|an?\s+(?:object|thing|item))"
PASSING = (
    r"miss(?:es|ed)?|(?:rolls?|rolled|rolling|goes|go|going|went|pass(?:es|ed)?|passing)"
    rf"\s+(?:by|past)|pass(?:es|ed)?(?=\s+{_SOMETHING}\b)"
)
# Making something fall, in the words people use for it: "knocks it over", "knocks the cup
# down", "topples it", "tips it over", "bowls it over" ("brings it over", "pushes the chair
# over to the table" and "is upset by" say something else).
_KNOCK_VERB = r"(?:knock(?:s|ed|ing)?|tip(?:s|ped|ping)?|bowl(?:s|ed|ing)?)"
_TOPPLE = r"topple[sd]?|toppling|overturn(?:s|ed|ing)?"
KNOCK = rf"{_KNOCK_VERB}\s+(?:over|down)|{_TOPPLE}"
KNOCKED = r"(?:(?:knocked|tipped|bowled)\s+(?:over|down)|toppled|overturned)"
# the verb with its object between it and the particle: "knocks the cup over"
KNOCK_SPLIT = rf"{_KNOCK_VERB}(?=(?:\s+\S+){{1,3}}?\s+(?:over|down)\b)"
# "stays standing", "stays up", "remains upright", "does not fall"
STAYS_UP = (
    r"(?:stays?|remains?|staying|remaining|keeps?\s+standing|is\s+left)\s+(?:standing|upright|"
    r"up|on\s+its\s+feet)|(?:does|do)\s*(?:n't|\s+not)\s+(?:fall|topple|tip)(?:\s+(?:over|down))?"
)

# Relation markers, most specific first; the leftmost match in the query wins.
MARKERS: list[tuple[str, str]] = [
    (
        "caused by",
        r"caused\s+by|because\s+of|because|as\s+a\s+result\s+of|due\s+to|triggered\s+by"
        r"|in\s+response\s+to|resulting\s+from"
        rf"|(?:(?:is|are|gets?|got|was|were|being)\s+)?{KNOCKED}\s+by",
    ),
    (
        "causes",
        r"(?:that|which)\s+(?:causes?|makes?|leads?\s+to|results?\s+in)|causing|leading\s+to"
        # a knock needs "over" or "down" ("the waves knock him off his surfboard" is one
        # event), a hit the fall that follows ("a man hits the ball" is one event)
        rf"|resulting\s+in|{KNOCK}|{KNOCK_SPLIT}"
        r"|hit(?:s|ting)?(?=\s+.{1,40}?\s+(?:and\s+(?:knock|mak|topp|tip)\w*|so\s+(?:that\s+)?"
        r"(?:it|they)\s+f[ae]ll|making\s+(?:it|them)\s+fall)\w*\b)",
    ),
    (
        "right after",
        r"(?:right|immediately|just|directly|shortly|soon|straight)\s+after|as\s+soon\s+as"
        r"|(?:immediately|directly|right)\s+following|the\s+moment\s+after"
        # "X that directly follows a shot of Y" (not "a car just follows the bus")
        r"|(?:(?:that|which)\s+)?(?:immediately|directly|right|just)\s+follows?"
        r"(?=\s+(?:a|the)\s+(?:shot|scene|clip)s?\s+of\b)",
    ),
    (
        "right before",
        r"(?:right|immediately|just|directly|shortly)\s+(?:before|prior\s+to)"
        r"|(?:immediately|directly)\s+preceding|(?:(?:that|which)\s+(?:is|are)\s+)?"
        r"(?:immediately\s+|directly\s+|right\s+)?followed\s+by",
    ),
    # Passing by something, or missing it, needs both in the scene: co-presence, as "while".
    ("while", PASSING),
    # close in time, either side: "around the time the cat shows up", "close to when the
    # truck appears" (a reach in seconds, "within 10 seconds of", is read into these words)
    (
        "near",
        r"(?:(?:at\s+)?(?:(?:around|close\s+to|near|roughly)\s+the(?:\s+same)?|about\s+the\s+same)"
        r"\s+time(?:\s+(?:of|when|that|as))?|(?:around|close\s+to|near|roughly)\s+when"
        r"|(?:close|near)\s+in\s+time\s+to)",
    ),
    ("after", r"after|following|later\s+than|subsequent\s+to|once(?=\s+(?:the|a|an|we|you)\b)"),
    ("before", r"before|prior\s+to|preceding|ahead\s+of|earlier\s+than|(?:up\s+)?until|till"
               r"|(?:later|eventually)\s+followed\s+by|followed\s+(?:later|eventually)\s+by"),
    (
        "while",
        r"while|whilst|at\s+the\s+same\s+time\s+as|simultaneously\s+with|together\s+with"
        r"|along\s+with|alongside|accompanied\s+by|during|whenever|when|shares?\s+the\s+(?:frame|"
        r"screen|shot)\s+with|in\s+the\s+same\s+(?:shot|frame|scene)\s+as"
        # "said over a shot of X", "with X on screen" after something said or read
        r"|over\s+(?:a\s+|the\s+)?(?:shot|picture|view|image)s?\s+of"
        r"|with(?!\s+(?:nothing|no|none)\b)(?=\s+.{1,60}?\s+(?:on[\s-]screen|in\s+(?:the\s+)?"
        r"(?:frame|shot|view|background)|visible|in\s+sight)\s*$)"
        # "a car in silence", "a car and nobody is talking": the car while no one speaks
        r"|in(?=\s+(?:silence|quiet)$)|and(?=\s+(?:nobody|no\s+one|no-one)\s+(?:is\s+)?"
        r"(?:speak|talk|say))"
        # "as" joining two clauses ("laughing as he was undressing"), not "dressed as a clown"
        # nor "X appears as a slide heading"
        r"|(?<!appears\s)(?<!appear\s)(?<!appeared\s)"
        r"as(?=\s+(?:he|she|they|it|we|you|i|his|her|their|its|the|a|an|someone|somebody)\s+"
        r"(?:\S+\s+){0,5}?(?:is|are|was|were|\w+s|\w+ed|\w+ing)\b)",
    ),
    ("without", r"without|with\s+no|but\s+no|but\s+not|in\s+the\s+absence\s+of"),
]
# Verbs that take "after" as their own word: "runs after the ball", "looks after a child".
CHASE_VERB = re.compile(
    r"\b(?:run|runs|ran|running|chas(?:e|es|ed|ing)|go|goes|went|going|race[sd]?|racing|"
    r"rush(?:es|ed|ing)?|look(?:s|ed|ing)?|named|tak(?:e|es|ing)|took)\s*$",
    IGNORE,
)
PASSING_RE = re.compile(rf"\b(?:{PASSING})\b", IGNORE)
MARKER_RES = [(rel, re.compile(rf"(?:^|\s|,)({pat})(?=\s|,|$)", IGNORE)) for rel, pat in MARKERS]
CUT_FROM = re.compile(
    r"\b(?:the\s+video\s+)?cuts?\s+from\s+(.+?)\s+(?:straight\s+|directly\s+|right\s+)?to\s+"
    r"(.+?)(?:,|$)",
    IGNORE,
)
# "dog -> cat": one thing, then the other.
ARROW = re.compile(r"\s*(?:-+>|=>|→|⟶)\s*")
THEN = re.compile(
    r"^(?P<first>.+?)(?:,\s*|\s+)(?:(?:and\s+)?then(?P<later>\s+later(?:\s+on)?)?|and\s+(?:leads?|leading)\s+"
    r"(?:into|to)|(?:leads?|leading)\s+into|(?:and\s+)?(?P<after>later(?:\s+on)?|afterwards?|"
    r"after\s+that|eventually))\s+(?P<rest>.+)$",
    IGNORE,
)
# "first the cat, then the dog": "first" only orders the two.
FIRST_OF_TWO = re.compile(r"^(?:(?:at\s+)?first(?:ly)?|to\s+begin\s+with),?\s+", IGNORE)
TOGETHER = re.compile(
    r"\b(?:together|at\s+the\s+same\s+time|simultaneously|in\s+the\s+same\s+(?:shot|frame|scene)"
    r"|both)\b",
    IGNORE,
)
#: "X with Y together / in the same frame": the second thing joined by "with".
WITH_TOGETHER = re.compile(r"^(.+?)\s+with\s+(.+)$", IGNORE)

FILLERS = re.compile(
    r"\b(?:appears?|appeared|appearing|(?:is|are|gets?)\s+(?:shown|seen|visible|displayed|"
    r"present|on[\s-]screen)|shows?\s+up|showing\s+up|can\s+be\s+seen|comes?\s+into\s+view|"
    r"pops?\s+up|on[\s-]screen|in\s+view|in\s+(?:the\s+)?frame|"
    r"in\s+the\s+(?:video|scene|shot|picture|image)|"
    r"is\s+there|"
    r"there\s+(?:is|are)|there's|shown|visible|both|again|(?:a|the)\s+shots?\s+of|"
    r"(?:that\s+)?(?:we|you)\s+(?:see|saw)|,?\s*(?:every|each)\s+time$|"
    r"(?:the\s+video\s+)?cuts?\s+to|(?:that|which)\s+(?:comes?|is|are|was|were)$|"
    rf"and\s+(?:{_KNOCK_VERB}|makes?|make)\s+(?:it|them)\s+(?:over|down|fall)|over$|"
    r"so\s+(?:that\s+)?(?:it|they)\s+(?:falls?|fell)(?:\s+(?:over|down))?|"
    r"making\s+(?:it|them)\s+fall(?:\s+(?:over|down))?|"
    rf"without\s+(?:{_KNOCK_VERB}|toppling|overturning)\s+(?:it|them)(?:\s+(?:over|down))?|"
    rf"(?:and\s+.+?|that|which)\s+(?:{STAYS_UP})$)\b",
    IGNORE,
)
LEADING_WORDS = re.compile(
    r"^\s*(?:that|which|who|where|when|and|then|is|are|was|were|does|do)\s+", IGNORE
)
TRAILING_WORDS = re.compile(r"\s+(?:is|are|was|were|does|do|did|and|that|which|it|to)\s*$", IGNORE)

STILL = re.compile(
    r"\b(?:(?:in\s+a\s+)?still\s+shot(?:\s+where\s+nothing\s+moves)?|(?:with\s+)?nothing\s+"
    r"(?:moving|moves|is\s+moving)(?:\s+at\s+all)?(?:\s+on[\s-]screen)?|standing\s+still|"
    r"stands?\s+still|"
    r"stationary|motionless|not\s+moving|(?:does|do)\s*(?:n't|\s+not)\s+move|at\s+rest|idle)\b",
    IGNORE,
)
# "when is the cat not on screen", "when isn't there a dog", "when can't we see the car",
# "the bus is missing": where the thing is not shown.
_NOT_SEEN = (r"(?:visible|on[\s-]?screen|shown|seen|there|present|"
             r"in\s+(?:the\s+)?(?:picture|frame|shot|video|view))")  # fmt: skip
NOT_SHOWN = (
    re.compile(rf"^(?:when\s+)?(?:is|are)(?:n't|\s+not)\s+(?:there\s+)?(?P<x>.+?)"
               rf"(?:\s+{_NOT_SEEN})?$", IGNORE),
    re.compile(rf"^(?P<x>.+?)\s+(?:(?:is|are)(?:n't|\s+not)|not)\s+{_NOT_SEEN}$", IGNORE),
    re.compile(r"^(?:when\s+)?(?:can't|cannot|can\s+not|don't|do\s+not)\s+(?:we|you|i)\s+see\s+"
               r"(?P<x>.+)$", IGNORE),
    re.compile(r"^(?P<x>.+?)\s+(?:(?:is|are)\s+)?(?:absent|missing|gone)$", IGNORE),
    # "no dog", "no text" (not "no one": the people channel's own "nobody"; not "no speech":
    # the silences; not "no more than two people": a count)
    re.compile(r"^(?:there\s+(?:is|are)\s+)?no\s+(?!(?:one|body|people|person|persons|faces?|"
               r"humans?|speech|dialog(?:ue)?|talking|sound|audio|voices?|"
               r"(?:more|fewer|less)\s+than)\b)(?P<x>.+)$", IGNORE),
    # "shots without people", "every shot with no text", "anything but a dog"
    re.compile(rf"^(?:(?:the\s+)?{_UNITS}\s+)?(?:without|with\s+no|lacking)\s+(?P<x>.+)$",
               IGNORE),
    re.compile(r"^(?:anything|everything|all)\s+(?:but|except(?:\s+for)?|other\s+than)\s+"
               r"(?P<x>.+)$", IGNORE),
    re.compile(r"^not\s+(?P<x>(?:the|a|an|any)\s+.+)$", IGNORE),  # "not the dog"
)  # fmt: skip
# "what comes after the cat", "the shot before the dog", "what do we see right after X": no
# thing named, only the shot next to X.
WHATEVER = re.compile(
    r"^(?:what(?:ever)?(?:\s+(?:comes?|came|happens?|happened|follows?|is\s+shown|is\s+on"
    r"(?:\s+the)?\s+screen|(?:do|can|did)\s+(?:we|you|i)\s+see|we\s+see|is\s+going\s+on))?|"
    r"(?:the\s+)?(?:next|following|previous|preceding)\s+(?:shot|scene|clip|thing|one|slide|"
    r"page)|the\s+(?:shot|scene|clip|slide|page)|something|anything)$",
    IGNORE,
)
# "nothing written on screen": where no text is read.
NOTHING_WRITTEN = re.compile(
    r"^(?:nothing\s+(?:is\s+)?(?:written|displayed|printed|typed)|no\s+(?:writing|words))"
    r"(?:\s+on[\s-]?(?:the\s+)?screen)?$",
    IGNORE,
)
# "the host off camera", "the cat is out of frame" (not "the cat sliding out of view": a thing
# leaving; `structure.not_shown` looks at the word before)
OFF_FRAME = re.compile(r"^(?P<x>.+?)\s+(?:(?:is|are)\s+)?(?:off[\s-]?(?:camera|screen)|out\s+of\s+"
                       r"(?:the\s+)?(?:frame|shot|view|picture))$", IGNORE)
# "the camera zooms out from the horse": the camera that films, named as the subject of its
# own move (zoom, pan, tilt), is not a thing in the picture.
FILMING_CAMERA = re.compile(
    r"\b(?:the\s+)?camera\s+(?=(?:slowly\s+)?(?:zoom|pan|tilt)(?:s|ed|ing|ning|ned)?\b)", IGNORE
)
MOVING = re.compile(
    r"\b(?:moving|moves?|moved|crossing|cross(?:es)?|running|runs?|flying|fl(?:y|ies)|driving|"
    r"drives?|passing|pass(?:es)?|rolling|rolls?|sliding|slides?|walking|walks?|travell?ing|"
    r"travels?|in\s+motion|(?:coming|going|sliding|slides?)\s+(?:into|out\s+of)(?:\s+(?:view|the\s+"
    r"frame|the\s+screen))?|(?:entering|enters?|leaving|leaves|exiting|exits?)(?:\s+the\s+"
    r"(?:frame|screen))?|"
    r"falls?(?:\s+(?:over|down))?|falling|fell|miss(?:es|ed)?|(?:goes|go|going|went)\s+(?:by|past)|"
    r"(?:slowly\s+)?zoom(?:s|ing)?(?:\s+(?:in|out))?(?:\s+(?:on|from))?|"
    r"(?:slowly\s+)?pan(?:s|ning)?(?:\s+sideways)?(?:\s+(?:across|over))?)\b"
    r"|\b(?:across\s+the\s+(?:screen|frame|scene|picture)|from\s+(?:left|right)\s+to\s+"
    r"(?:left|right)|(?:from\s+)?(?:left|right)\s+to\s+(?:left|right)|from\s+one\s+side\s+of\s+"
    r"the\s+(?:frame|screen|picture|image|shot)\s+to\s+the\s+other|through\s+the\s+(?:frame|screen)|"
    r"into\s+(?:view|the\s+"
    r"frame)|out\s+of\s+(?:view|the\s+frame)|the\s+view|a\s+slow|slowly)\b",
    IGNORE,
)

# Which motion kind (`perception.motion.MOTION_KINDS`) a moving query asks for, first match
# wins; a query matching none of them but `MOVING` asks for plain "moving".
_INTO = r"\s+into\s+(?:view|the\s+(?:frame|screen|shot|picture))"
_OUT_OF = r"\s+out\s+of\s+(?:view|the\s+(?:frame|screen|shot|picture))"
_GO = r"(?:com(?:es?|ing)|came|slid(?:es?|ing)|mov(?:es?|ing)|go(?:es|ing)?|walk(?:s|ing)?)"
MOTION_KIND_WORDS = (
    ("zoom_in", re.compile(r"\bzoom(?:s|ing|ed)?\s+in\b", IGNORE)),
    ("zoom_out", re.compile(r"\bzoom(?:s|ing|ed)?\s+out\b", IGNORE)),
    ("pan", re.compile(r"\bpan(?:s|ning|ned)?\b", IGNORE)),
    ("entering", re.compile(rf"\b(?:enter(?:s|ing|ed)?\b|{_GO}{_INTO})", IGNORE)),
    (
        "leaving",
        re.compile(
            rf"\b(?:leav(?:es?|ing)|left\s+the\s+(?:frame|screen)|exit(?:s|ing|ed)?\b|"
            rf"{_GO}{_OUT_OF})",
            IGNORE,
        ),
    ),
    (
        "crossing",
        re.compile(
            r"\b(?:across\s+the\s+(?:screen|frame|scene|picture)|from\s+one\s+side\s+of\s+the\s+"
            r"(?:frame|screen|picture|image|shot)\s+to\s+the\s+other|through\s+the\s+(?:frame|"
            r"screen)|"
            r"(?:left\s+to\s+right|right\s+to\s+left))\b",
            IGNORE,
        ),
    ),
)

ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
            "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10, "last": -1, "final": -1}
_ORD = "|".join(ORDINALS) + r"|[1-9]\d{0,2}(?:st|nd|rd|th)"  # "the 3rd dog", "the 2nd time"


def ordinal_value(word: str) -> int:
    """The rank an ordinal word names, -1 for the last.

    >>> [ordinal_value(w) for w in ("Second", "3rd", "12th", "final")]
    [2, 3, 12, -1]
    """
    word = word.lower()
    return ORDINALS[word] if word in ORDINALS else int(word[:-2])


ORDINAL_PREFIX = re.compile(
    rf"\bthe\s+({_ORD})\s+(?!time\b|half\b)(.+?)(?:\s+to\s+(?:appear|be\s+shown|show\s+up))?$",
    IGNORE,
)
ORDINAL_SUFFIX = re.compile(
    rf"\b(?:the\s+)?(.+?)\s+(?:that|which|who)\s+(?:appears?|appeared|(?:is|was)\s+shown|"
    rf"shows?\s+up|showed\s+up|(?:is|was)\s+seen|came|comes)\s+({_ORD})\b",
    IGNORE,
)
# "the first time X", "the last time that X", "first time we see X", "the last appearance of
# X", "the last shot of X": one occurrence of the answer, in time order.
OCCURRENCE = re.compile(
    rf"\b(?:for\s+)?(?:the\s+)?(?:very\s+)?({_ORD})\s+(?:(?:time|appearance|showing|occurrence|"
    r"sighting)(?:\s+(?:that|when|of))?|(?:shot|frame|scene|clip)s?\s+(?:of|with|showing|where|"
    r"in\s+which|that\s+shows?)"
    # "the first dog shot", "the 2nd cat appearance": the thing named inside
    r"|(?P<thing>\w+)\s+(?:shot|frame|scene|clip|appearance|sighting))\b\s*",
    IGNORE,
)
# "the first two times the cat shows up", "the last 3 shots of the dog", "the dog's first two
# appearances", "the first three dog shots": several moments from one end (`few_value` says
# how many).
_FEW = "|".join(w for w, n in NUMBER_WORDS.items() if 2 <= n <= 10) + r"|couple of|[2-9]|[1-9]\d"
_STRETCHES = r"(?:shot|frame|scene|clip|appearance|sighting|showing|occurrence)s"


def few_value(word: str) -> int:
    """How many `FIRST_FEW` names: "two" 2, "couple of" 2, "12" 12."""
    word = word.lower()
    return 2 if word == "couple of" else NUMBER_WORDS.get(word) or int(word)


FIRST_FEW = re.compile(
    rf"\b(?:the\s+)?(?:very\s+)?(first|last|final)\s+(?:(?:a\s+)?({_FEW}))\s+(?:times(?:\s+(?:that|"
    rf"when|of))?|{_STRETCHES}(?:\s+(?:of|with|showing|where|in\s+which|that\s+shows?))?|"
    rf"(?P<thing>\w+)\s+{_STRETCHES})\b\s*",
    IGNORE,
)
# "the longest shot of the cat", "the cat's shortest appearance", "the longest dog clip": the
# one moment picked by its length (the thing, if named inside, is `thing`); "when is the cat on
# screen the longest" says it at the end.
_STRETCH = r"(?:time|stretch|period|shot|scene|clip|moment|segment|part|bit|appearance|sighting)s?"
EXTREME = re.compile(
    rf"\b(?:the\s+)?(longest|shortest)\s+(?:(?P<thing>\w+)\s+)?{_STRETCH}\b(?:\s+(?:of|with|"
    r"showing|where|when|in\s+which|that\s+shows?))?\s*|\s+(?:for\s+)?the\s+(longest|shortest)"
    r"(?:\s+(?:time|stretch|while))?\s*$",
    IGNORE,
)
# "every other time the cat appears", "every third appearance of the dog": every Nth moment
# in time order, from the first.
EVERY_NTH = re.compile(
    r"\b(?:every|each)\s+(other|second|third|fourth|fifth|[2-9](?:nd|rd|th))\s+(?:time(?:\s+"
    r"(?:that|when))?|(?P<unit>shot|cut|frame|scene|clip|appearance|sighting|showing|occurrence)"
    r"(?:\s+(?:of|with|showing|where|in\s+which))?)\b\s*",
    IGNORE,
)
# The edit itself, not what it shows (`methods.edits`): "every cut", "scene changes", "how many
# shots are there", "the longest shot", "black frames", "when does it fade to black". A group
# per `Route.edit` kind; `which` is an occurrence ("the first cut").
_TO_BLACK = (r"(?:fades?|fading|faded|cuts?|cutting|go|goes|going|went|turns?|turning|turned|"
             r"dips?|dipping|dipped)\s+(?:out\s+)?to\s+black")
EDIT = re.compile(
    r"^(?:(?:please\s+)?(?:show|list|find|mark|give|get|tag|count)(?:\s+(?:me|us))?\s+)?"
    r"(?:(?:all|every|each|any)(?:\s+(?:one\s+)?of)?(?:\s+the)?\s+|the\s+|an?\s+)?"
    rf"(?:(?P<which>first|last|final|longest|shortest|{_ORD})\s+)?(?:"
    r"(?P<cut>(?:(?:scene|shot|camera|hard|jump)\s+)?cuts?|(?:scene|shot|camera[\s-]angle)\s+"
    r"(?:changes?|transitions?|boundar(?:y|ies)|breaks?)|transitions?|edit\s+points?|edits|"
    r"(?:the\s+)?(?:video|film|footage|clip|it)\s+cuts?(?:\s+away)?|(?:the\s+)?(?:shot|scene|"
    r"camera\s+angle)\s+changes?)"
    r"|(?P<shot>shots?|scenes?|shot\s+list)"
    rf"|(?P<black>black(?:ness|\s+(?:frames?|screens?|sections?|segments?|parts?|gaps?))|"
    rf"(?:a\s+)?{_TO_BLACK}|(?:the\s+)?(?:screen|picture|image|video|frame|it)\s+(?:is\s+)?"
    rf"(?:{_TO_BLACK}|(?:(?:goes|go|going|went|turns?|turning|turned|is|gets?|getting)\s+)?"
    r"(?:black|dark))|fade[\s-]?outs?|fades?\s+out))"
    r"(?:\s+(?:are|is)\s+there|\s+(?:happens?|occurs?)|\s+in\s+(?:the|this)\s+(?:video|film|"
    r"clip|footage))?$",
    IGNORE,
)
# "the cat first seen", "when does the dog last show up": "first" or "last" after a noun and
# before what it does (the word before is checked by the tagger).
ADVERB_ORDINAL = re.compile(r"(?<=\w\s)(first|last)\s+(?=\w)", IGNORE)
# Condition texts that name nothing in particular: the encoder cannot check them.
GENERIC = re.compile(
    rf"^(?:(?:{_SOMETHING}|someone|anyone|it|them)"
    r"(?:\s+(?:over|down))?|"
    rf"(?:{_KNOCK_VERB}|toppling|overturning)(?:\s+(?:it|them))?(?:\s+(?:over|down))?)$",
    IGNORE,
)

# "on a green background", "against a blue backdrop", "with a blue background (behind it)":
# the colour of what fills the frame edges.
_COLOURS = (
    r"red|orange|yellow|green|cyan|turquoise|blue|purple|violet|pink|magenta|white|gr[ae]y|black"
)
_BEHIND = r"(?:\s+(?:behind|in\s+the\s+background)(?:\s+(?:it|them|him|her))?)?"
BACKDROP = re.compile(
    rf"\s*\b(?:on|against|in\s+front\s+of|over|with)\s+(?:a|an|the)\s+({_COLOURS})\s+"
    rf"(?:background|backdrop|backcloth|wall|screen){_BEHIND}\b",
    IGNORE,
)
# "in front of a brick wall", "with a brick wall behind it", "with bricks behind it": a
# textured backdrop (`agent.composited.backdrops.BACKDROP_TEXTURES`), removed from the target text
# like a colour.
BACKDROP_TEXTURE = re.compile(
    r"\s*\b(?:(?:on|against|in\s+front\s+of|over|by)\s+(?:a|an|the)\s+(brick)\s+(?:wall|"
    r"background|backdrop)|with\s+(?:(?:a|an|the)\s+)?(brick)s?(?:\s+wall)?\s+(?:behind|"
    r"in\s+the\s+background)(?:\s+(?:it|them|him|her))?)\b",
    IGNORE,
)
# "the cat's background is green", "the cat's backdrop green": the same, said of the thing.
POSSESSIVE_BACKDROP = re.compile(
    rf"^(.+?)'s\s+(?:background|backdrop)\s+(?:is\s+|was\s+)?(?:all\s+)?({_COLOURS}|brick)$",
    IGNORE,
)


# "a brick wall behind the cat", "there is a green background behind the rocket": the same,
# with the backdrop named first.
BACKDROP_FIRST = re.compile(
    rf"^(?:there\s+(?:is|are)\s+)?(?:(?:a|an|the)\s+)?(?:({_COLOURS})\s+(?:background|backdrop|"
    r"backcloth|wall|screen)|(brick)s?(?:\s+wall)?)\s+(?:is\s+|are\s+)?behind\s+(.+)$",
    IGNORE,
)


def indefinite(word: str) -> str:
    """The word with its indefinite article.

    >>> indefinite("red"), indefinite("orange"), indefinite("Arctic fox")
    ('a red', 'an orange', 'an Arctic fox')
    """
    return f"{'an' if word[0].lower() in 'aeiou' else 'a'} {word}"


def backdrop_said_of(text: str) -> str:
    """`text` with a possessive backdrop, or one named first, put the usual way round.

    >>> backdrop_said_of("the motorbike's background is red")
    'the motorbike on a red background'
    >>> backdrop_said_of("there is a brick wall behind the horse's silhouette")
    "the horse's silhouette in front of a brick wall"
    >>> backdrop_said_of("an orange wall behind the cat")
    'the cat on an orange background'
    """
    first = BACKDROP_FIRST.match(text.strip())
    if first is not None:
        thing = first[3]
        if first[2]:
            return f"{thing} in front of a brick wall"
        return f"{thing} on {indefinite(first[1])} background"
    said = POSSESSIVE_BACKDROP.match(text.strip())
    if said is None:
        return text
    if said[2].lower() == "brick":
        return f"{said[1]} in front of a brick wall"
    return f"{said[1]} on {indefinite(said[2])} background"


# "the black-and-white cat", "a grey horse": the object itself has no colour (checked on its
# pixels, `agent.composited.object_colors`); the words stay in the target text.
COLOURLESS = re.compile(
    r"\b(?:black[\s-]+and[\s-]+white|monochrome|gr[ae]y(?:[\s-]?scale)?)\s+(?!background|backdrop)\w",
    IGNORE,
)

# Horizontal direction of a movement: "right" for left-to-right, "left" for right-to-left.
DIRECTION = re.compile(r"\b(?:from\s+)?(left|right)\s+to\s+(?:the\s+)?(right|left)\b", IGNORE)
