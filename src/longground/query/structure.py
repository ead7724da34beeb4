"""The structure of a query's words: its sentence, its sub-events and how they relate.

The grammar, in short (word lists in grammar.py, the whole of it in docs/find.md):

    query    := sentence+            instruction sentences ("List every interval.") are dropped
    sentence := [window] [lead-in] body [window]
    body     := target [relation condition]
              | relation condition "," target
              | [both] target "and" condition together-marker
              | ... "cuts from" condition "to" target
              | condition ("," | "and") "then" target
    relation := right after | after | right before | before | while | without | near
              | caused by | causes               (each with several phrasings)
    target   := [the ORDINAL] noun-phrase [motion] | noun-phrase "that appeared" ORDINAL

These functions are pure string work; `analysis.analyse` puts them together.
"""

from __future__ import annotations

import re
from enum import StrEnum

from . import grammar as g
from .words import tag


class Relation(StrEnum):
    """How the condition events constrain the target event."""

    NONE = "none"
    RIGHT_AFTER = "right after"
    AFTER = "after"
    RIGHT_BEFORE = "right before"
    BEFORE = "before"
    WHILE = "while"
    WITHOUT = "without"
    NEAR = "near"
    BETWEEN = "between times"
    CAUSED_BY = "caused by"
    CAUSES = "causes"


def main_sentence(text: str) -> str:
    """The sentence that states the event, with "the one" resolved from a context sentence.

    >>> main_sentence("There may be more than one cat in this video. When is the one shown?")
    'When is the cat shown'
    >>> main_sentence("score: 2-1")
    'score: 2-1'
    """
    label = g.CHANNEL_LABEL.match(text)  # "speech: budget" is one sentence
    head, text = (label[0], text[label.end() :]) if label else ("", text)
    sentences = [s.strip() for s in re.split(r"(?<=[.?!:])\s+", text) if s.strip(" .?!:")]
    for i in range(len(sentences) - 2, -1, -1):  # "score: 2-1": a label, not a sentence
        if sentences[i].endswith(":") and len(sentences[i].split()) <= 2:
            sentences[i : i + 2] = [f"{sentences[i]} {sentences[i + 1]}"]
    noun, kept = None, []
    for sentence in sentences:
        bare = sentence.strip(" .?!:")
        found = g.COREFERENCE.match(bare)
        if found:
            noun = found[1]
        elif not g.INSTRUCTION.match(bare):
            kept.append(bare)
    body = kept[0] if kept else text.strip(" .?!")
    if noun:
        body = re.sub(r"\bthe\s+one\b", f"the {noun}", body, flags=re.I)
    return head + body


def strip_lead_ins(text: str) -> str:
    """`text` without the words that only ask ("find", "when does", "every time", ...).

    >>> strip_lead_ins("can you show me every time the cat appears")
    'the cat appears'
    """
    previous = None
    while previous != text:
        previous = text
        text = g.LEAD_IN.sub("", text.strip(" ,"), count=1)
    return text


def split_relation(body: str) -> tuple[str, tuple[str, ...], Relation]:
    """(target, conditions, relation) from the event part of a query.

    >>> split_relation("a cat right after a rocket")
    ('a cat', ('a rocket',), <Relation.RIGHT_AFTER: 'right after'>)

    In a chain of three or more the one asked for is related to its neighbour alone: "the
    cat, then the dog, then a car" asks for the car right after the dog, "the cat followed by
    the dog followed by a car" for the cat right before the dog.
    """
    cut = g.CUT_FROM.search(body)
    if cut:
        return cut[2], (cut[1],), Relation.RIGHT_AFTER
    found = [
        (m.start(1), -(m.end(1) - m.start(1)), rel, m)
        for rel, pattern in g.MARKER_RES
        for m in pattern.finditer(body)
        if not _chasing(body, rel, m)
    ]
    if found:
        _, _, rel, m = min(found, key=lambda f: (f[0], f[1]))
        left, right = body[: m.start(1)].strip(" ,"), body[m.end(1) :].strip(" ,")
        if not left:  # "After X, Y": the condition comes first
            if m[1].lower().startswith("the moment") and "," not in right:
                return "what", (right,), Relation(rel)  # "the moment after the goal"
            if "," not in right:  # "when X while Y": the first marker was a lead-in
                return split_relation(right) if right != body else (right, (), Relation.NONE)
            cond, target = right.split(",", 1)
            return strip_lead_ins(target.strip()), (cond.strip(),), Relation(rel)
        inner, more, again = split_relation(right)
        if more and again is Relation(rel):  # "X followed by Y followed by Z": Y is next to X
            right = inner
        return left, (right,), Relation(rel)
    then = g.THEN.match(body)
    if then and not _adverbial_then(then["first"], then["rest"]):
        last = g.THEN.match(then["rest"])  # "the cat, then the dog, then a car": the last two,
        if last and not any(tag(last[part])[0].is_verb for part in ("first", "rest")):
            return split_relation(then["rest"])  # with subjects
        # "then later", "and afterwards": some time after, not the next shot
        later = then["later"] or then["after"]
        return (then["rest"], (g.FIRST_OF_TWO.sub("", then["first"]),),
                Relation.AFTER if later else Relation.RIGHT_AFTER)  # fmt: skip
    if g.TOGETHER.search(body):
        rest = g.TOGETHER.sub(" ", body)
        parts = re.split(r"\s+and\s+", rest, maxsplit=1)
        if len(parts) != 2:  # "the cat with the cup in the same frame"
            joined = g.WITH_TOGETHER.match(" ".join(rest.split()))
            parts = [joined[1], joined[2]] if joined else parts
        if len(parts) == 2:
            return parts[0], (parts[1],), Relation.WHILE
    return body, (), Relation.NONE


def _chasing(body: str, rel: str, m: re.Match) -> bool:
    """"The dog runs after the ball", "a man looks after a child": "after" is part of the
    verb, with a thing after it and no event of its own (not "the dog runs after the cat
    appears")."""
    if rel != "after" or not g.CHASE_VERB.search(body[: m.start(1)]):
        return False
    return not any(t.is_verb for t in tag(body[m.end(1) :]))


def _adverbial_then(left: str, right: str) -> bool:
    """"The little boy then leaves": a subject without a verb before "then" and a verb after
    it is one event told in order, not two ("a rocket, then a cat")."""
    before = tag(left)
    after = tag(f"{left} then {right}")[len(before) + 1 :]  # "leaves" alone may be a noun
    return bool(after) and after[0].is_verb and not any(t.is_verb for t in before)


def occurrence(text: str) -> tuple[int | str | None, str]:
    """(1, "X") for "the first time X", (-1, "X") for "the last time X", ("longest", "X")
    for "the longest shot of X", ("first 2", "X") for "the first two times X"
    (`agent.perception.intervals.occurrence` picks it).

    >>> occurrence("the last time a cat appears")
    (-1, 'a cat appears')

    Also "the cat's last appearance", and "first" or "last" said of what a noun does: "when
    is the cat first seen", "the dog last shows up" (not "the first dog": that is a rank).

    >>> occurrence("the cat's last appearance"), occurrence("the cat first seen")
    ((-1, 'the cat'), (1, 'the cat seen'))
    >>> occurrence("the first two times the cat shows up"), occurrence("the last 3 dog shots")
    (('first 2', 'the cat shows up'), ('last 3', 'the dog'))
    >>> occurrence("the first dog shot"), occurrence("the first dog")
    ((1, 'the dog'), (None, 'the first dog'))
    >>> occurrence("the longest shot of the cat"), occurrence("when is a dog on screen the longest")
    (('longest', 'the cat'), ('longest', 'a dog on screen'))
    """
    m = g.FIRST_FEW.search(text)
    if m:  # "the first two times", "the last 3 shots of the dog": "first 2", "last 3"
        side = "first" if m[1].lower() == "first" else "last"
        which: int | str = f"{side} {g.few_value(m[2])}"
        kept = f" the {m['thing']} " if m["thing"] else " "
    elif m := g.EXTREME.search(text):
        which = (m[1] or m[3]).lower()
        kept = f" the {m['thing']} " if m["thing"] else " "  # "the longest dog clip": the dog
    else:
        m = g.OCCURRENCE.search(text)
        if m is None:
            m = g.ADVERB_ORDINAL.search(text)
            if m is None or not tag(text[: m.start()].split()[-1])[-1].is_noun:
                return None, text
        thing = m.groupdict().get("thing")  # "the first dog shot": the dog
        which, kept = g.ordinal_value(m[1]), f" the {thing} " if thing else " "
    rest = (text[: m.start()] + kept + text[m.end() :]).strip()
    rest = re.sub(r"(?<=\w)['\u2019]s$", "", rest)  # "the cat's (first appearance)"
    return which, strip_lead_ins(re.sub(r"\s+", " ", rest))


def every_nth(text: str) -> tuple[str | None, str]:
    """("every N", text without those words) for "every other time X" (N 2), "every third
    appearance of X" (N 3); (None, text) otherwise. Read before the lead-ins are cut, since
    "every" alone is one ("every time X").

    >>> every_nth("every other time the cat appears"), every_nth("every third shot of a dog")
    (('every 2', 'the cat appears'), ('every 3', 'a dog'))
    >>> every_nth("every time the cat appears")
    (None, 'every time the cat appears')

    With nothing else named, the stretches themselves are asked for ("every other shot":
    the video's shots, `g.EDIT`):

    >>> every_nth("every other shot"), every_nth("every third cut of the film")
    (('every 2', 'shots'), ('every 3', 'cuts'))
    """
    m = g.EVERY_NTH.search(text)
    if m is None:
        return None, text
    step = 2 if m[1].lower() == "other" else g.ordinal_value(m[1])
    rest = " ".join((text[: m.start()] + " " + text[m.end() :]).split())
    whole = r"(?:(?:the|this)\s+(?:video|film|clip|footage|movie))?"  # "... of the film"
    if m["unit"] and re.fullmatch(whole, rest, re.I):
        rest = f"{m['unit']}s"
    return f"every {step}", rest


def not_shown(text: str) -> tuple[bool, str]:
    """(True, "X") when `text` asks where X is not shown, else (False, text).

    >>> not_shown("the cat not on screen"), not_shown("when isn't there a dog")
    ((True, 'the cat'), (True, 'a dog'))
    >>> not_shown("a cat on screen"), not_shown("the cat sliding out of view")[0]
    ((False, 'a cat on screen'), False)
    """
    if g.NOTHING_WRITTEN.match(text.strip(" ,.?!")):
        return True, "text"
    for pattern in (*g.NOT_SHOWN, g.OFF_FRAME):
        m = pattern.match(text.strip(" ,.?!"))
        if not m or not m["x"].strip():
            continue
        if pattern is g.OFF_FRAME and tag(m["x"])[-1].is_verb:  # "sliding out of view"
            continue
        return True, m["x"].strip()
    return False, text


def motion(text: str) -> tuple[str | None, str]:
    """The motion kind the text asks for (`agent.perception.motion.MOTION_KINDS`) and the text
    without its motion words.

    >>> motion("a slow zoom in on a horse")[0], motion("the cat leaving the frame")[0]
    ('zoom_in', 'leaving')
    """
    text = g.FILMING_CAMERA.sub("", text)
    if g.STILL.search(text):
        return "still", g.STILL.sub(" ", text)
    if g.MOVING.search(text):
        kind = next((k for k, words in g.MOTION_KIND_WORDS if words.search(text)), "moving")
        return kind, g.MOVING.sub(" ", text)
    return None, text


def ordinal(text: str) -> tuple[int | None, str]:
    """(2, "cat") for "the second cat" or "the cat that appeared second".

    >>> ordinal("the cat that appeared second")
    (2, 'cat')
    """
    m = g.ORDINAL_SUFFIX.search(text)
    if m:
        return g.ordinal_value(m[2]), m[1]
    m = g.ORDINAL_PREFIX.search(text)
    if m:
        return g.ordinal_value(m[1]), m[2]
    return None, text


def clean(text: str) -> str:
    """The noun phrase left once presence fillers and dangling words are removed.

    >>> clean("the cat is shown on screen")
    'the cat'
    """
    previous = None
    while previous != text:
        previous = text
        text = g.FILLERS.sub(" ", text)
        text = g.LEADING_WORDS.sub("", text)
        text = g.TRAILING_WORDS.sub("", text)
        text = re.sub(r"\s{2,}", " ", text).strip(" ,;:.-?!")
    return text
