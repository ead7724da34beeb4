"""Step 1: turn a query into a plan (rule grammar; the LLM planner fills the same `Plan`).

A plan says what to look for (the target event), under which conditions (condition events and
their relation to the target), where (an explicit time window), and with which graph profile.
The grammar, in short (written out in full in docs/agent.md; word lists in phrases.py):

    query    := sentence+            instruction sentences ("List every interval.") are dropped
    sentence := [window] [lead-in] body [window]
    body     := target [relation condition]
              | relation condition "," target
              | [both] target "and" condition together-marker
              | ... "cuts from" condition "to" target
              | condition ("," | "and") "then" target
    relation := right after | after | right before | before | while | without
              | caused by | causes               (each with several phrasings)
    target   := [the ORDINAL] noun-phrase [motion] | noun-phrase "that appeared" ORDINAL
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum

from ..profiles import choose_profile
from . import phrases as ph
from .windows import extract_window


class Relation(StrEnum):
    """How the condition events constrain the target event."""

    NONE = "none"
    RIGHT_AFTER = "right after"
    AFTER = "after"
    RIGHT_BEFORE = "right before"
    BEFORE = "before"
    WHILE = "while"
    WITHOUT = "without"
    BETWEEN = "between times"
    CAUSED_BY = "caused by"
    CAUSES = "causes"


@dataclass(frozen=True, kw_only=True)
class Plan:
    """What the agent searches for.

    Attributes:
        query: the original query.
        target: text of the event to ground (what the answer intervals cover).
        conditions: texts of the condition events.
        relation: how the conditions relate to the target.
        window_s: `(start_s, end_s)` searched (the whole video when the query names none).
        motion: a motion requirement on the target, a key of
            `perception.motion.MOTION_KINDS` ("moving", "still", "zoom_in", "zoom_out", "pan",
            "entering", "leaving", "crossing"), or None.
        ordinal: 1-based rank of one identity by first appearance (-1: the last), or None.
        skip_first: leave out the first showing of that identity (queries about returns).
        backdrop: colour name (or texture name, "brick") of the background the target must
            be seen against, or None.
        colourless: the target's object must itself be colourless ("the black-and-white cat").
        direction: "right" (moving left to right), "left" (right to left) or None.
        profile: name of the graph profile (see `profiles.PROFILES`).
        occurrence: "the first / second / last time X": keep only that occurrence (1-based,
            -1: the last) of the answer, in time order; None keeps every one.
        phrases: the sub-events as the query words them, before cleaning: the target's,
            then each condition's (aligned with `texts`). Evidence channels are chosen from
            these ("the slide reads X" loses "slide" to the motion words when cleaned).
        source: "rules", "llm", or "rules-fallback" (the LLM's answer was unreadable).
        notes: remarks for the trace.
        episode: the target event is one episode of motion inside one shot, bounded by that
            motion (`perception.episode`): "effect" for a cause and its effect ("causes",
            "caused by": something falls), "passing" for something going by something else
            ("misses", "rolls past": nothing falls); None otherwise.
    """

    query: str
    target: str
    conditions: tuple[str, ...] = ()
    relation: Relation = Relation.NONE
    window_s: tuple[float, float] = (0.0, 0.0)
    motion: str | None = None
    ordinal: int | None = None
    skip_first: bool = False
    backdrop: str | None = None
    colourless: bool = False
    direction: str | None = None
    profile: str = "medium"
    occurrence: int | None = None
    phrases: tuple[str, ...] = ()
    source: str = "rules"
    notes: tuple[str, ...] = field(default=())
    episode: str | None = None

    @property
    def texts(self) -> tuple[str, ...]:
        """The target followed by the conditions: every text the encoder scores."""
        return (self.target, *self.conditions)

    def to_record(self) -> dict:
        out = asdict(self)
        out.update(
            relation=self.relation.value,
            conditions=list(self.conditions),
            window_s=list(self.window_s),
            notes=list(self.notes),
            phrases=list(self.phrases),
        )
        return out

    def phrase(self, i: int) -> str:
        """The words of sub-event `i` of `texts` as the query put them (the cleaned text
        when the plan has no phrases, as from an LLM planner)."""
        return self.phrases[i] if i < len(self.phrases) else self.texts[i]


def plan_query(query: str, duration_s: float) -> Plan:
    """Rule-based plan for `query` on a video of `duration_s` seconds.

    >>> p = plan_query("Every time a cat appears right after a rocket", 1200)
    >>> p.target, p.conditions, p.relation.value, p.profile
    ('a cat', ('a rocket',), 'right after', 'medium')
    >>> p = plan_query("Between 00:10:00 and 00:20:00, find every moving car", 3600)
    >>> p.target, p.relation.value, p.window_s, p.motion, p.profile
    ('car', 'between times', (600.0, 1200.0), 'moving', 'medium')
    >>> p = plan_query("when someone says goal while the slide reads Summary", 600)
    >>> p.target, p.conditions, p.relation.value
    ('someone says goal', ('the reads Summary',), 'while')
    >>> p.phrases
    ('someone says goal', 'the slide reads Summary')
    >>> plan_query("the first time the score changes after half time", 600).occurrence
    1
    """
    text = re.sub(r"\s+", " ", query.replace("’", "'")).strip()
    window, text = extract_window(text, duration_s)
    skip_first = bool(ph.AGAIN.search(text) or ph.AFTER_FIRST.search(text))
    body = _main_sentence(ph.FIRST_INCLUDED.sub("", ph.AFTER_FIRST.sub("", text)))
    body = _strip_lead_ins(ph.AGAIN.sub(" ", body))
    occurrence, body = _occurrence(body)
    target, conditions, relation = _split_relation(body)
    raw = (target.strip(" ,.?!"), *(c.strip(" ,.?!") for c in conditions))
    ordinal, target = _ordinal(target)
    backdrop = ph.BACKDROP.search(target) or ph.BACKDROP_TEXTURE.search(target)
    target = ph.BACKDROP_TEXTURE.sub(" ", ph.BACKDROP.sub(" ", target))
    heading = ph.DIRECTION.search(target)
    direction = heading[2].lower() if heading and heading[1] != heading[2] else None
    motion, target = _motion(_clean(target))
    target = _clean(target) or _clean(body) or body
    cleaned = [(_clean(_motion(_clean(c))[1]), r) for c, r in zip(conditions, raw[1:])]
    kept = [(c, r) for c, r in cleaned if c and not ph.GENERIC.match(c)]
    conditions = tuple(c for c, _ in kept)
    if relation in (Relation.CAUSES, Relation.CAUSED_BY) and motion is None:
        motion = "moving"  # a cause and its effect happen through motion
    passing = bool(ph.PASSING_RE.search(body))
    if motion is None and passing:
        motion = "moving"  # what passes by or misses something moves
    causal = relation in (Relation.CAUSES, Relation.CAUSED_BY)
    episode = "passing" if passing else "effect" if causal else None
    if not conditions and relation is not Relation.BETWEEN:
        relation = Relation.NONE
    if relation is Relation.NONE and window is not None:
        relation = Relation.BETWEEN
    span = window if window is not None else (0.0, float(duration_s))
    profile = choose_profile(span[1] - span[0], query).name
    return Plan(
        query=query,
        target=target,
        conditions=conditions,
        relation=relation,
        window_s=span,
        motion=motion,
        ordinal=ordinal,
        skip_first=skip_first,
        backdrop=next(g for g in backdrop.groups() if g).lower() if backdrop else None,
        colourless=bool(ph.COLOURLESS.search(target)),
        direction=direction,
        profile=profile,
        occurrence=occurrence,
        phrases=(raw[0], *(r for _, r in kept)),
        episode=episode,
    )


def with_source(plan: Plan, source: str, note: str) -> Plan:
    """The same plan, marked as coming from `source`, with a note."""
    return replace(plan, source=source, notes=(*plan.notes, note))


def _main_sentence(text: str) -> str:
    """The sentence that states the event, with "the one" resolved from a context sentence."""
    sentences = [s.strip() for s in re.split(r"(?<=[.?!:])\s+", text) if s.strip(" .?!:")]
    noun, kept = None, []
    for sentence in sentences:
        bare = sentence.strip(" .?!:")
        found = ph.COREFERENCE.match(bare)
        if found:
            noun = found[1]
        elif not ph.INSTRUCTION.match(bare):
            kept.append(bare)
    body = kept[0] if kept else text.strip(" .?!")
    if noun:
        body = re.sub(r"\bthe\s+one\b", f"the {noun}", body, flags=re.I)
    return body


def _strip_lead_ins(text: str) -> str:
    previous = None
    while previous != text:
        previous = text
        text = ph.LEAD_IN.sub("", text.strip(" ,"), count=1)
    return text


def _split_relation(body: str) -> tuple[str, tuple[str, ...], Relation]:
    """(target, conditions, relation) from the event part of a query."""
    cut = ph.CUT_FROM.search(body)
    if cut:
        return cut[2], (cut[1],), Relation.RIGHT_AFTER
    found = [
        (m.start(1), -(m.end(1) - m.start(1)), rel, m)
        for rel, pattern in ph.MARKER_RES
        for m in pattern.finditer(body)
    ]
    if found:
        _, _, rel, m = min(found, key=lambda f: (f[0], f[1]))
        left, right = body[: m.start(1)].strip(" ,"), body[m.end(1) :].strip(" ,")
        if not left:  # "After X, Y": the condition comes first
            if "," not in right:  # "when X while Y": the first marker was a lead-in
                return _split_relation(right) if right != body else (right, (), Relation.NONE)
            cond, target = right.split(",", 1)
            return _strip_lead_ins(target.strip()), (cond.strip(),), Relation(rel)
        return left, (right,), Relation(rel)
    then = ph.THEN.match(body)
    if then:
        return then[2], (then[1],), Relation.RIGHT_AFTER
    if ph.TOGETHER.search(body) or re.match(r"^both\s", body, re.I):
        parts = re.split(r"\s+and\s+", ph.TOGETHER.sub(" ", body), maxsplit=1)
        if len(parts) == 2:
            return parts[0], (parts[1],), Relation.WHILE
    return body, (), Relation.NONE


def _occurrence(text: str) -> tuple[int | None, str]:
    """(1, "X") for "the first time X", (-1, "X") for "the last time X"."""
    m = ph.OCCURRENCE.search(text)
    if m is None:
        return None, text
    rest = (text[: m.start()] + " " + text[m.end() :]).strip()
    return ph.ORDINALS[m[1].lower()], _strip_lead_ins(rest)


def _motion(text: str) -> tuple[str | None, str]:
    """The motion kind the text asks for (`perception.motion.MOTION_KINDS`) and the text
    without its motion words.

    >>> _motion("a slow zoom in on a horse")[0], _motion("the cat leaving the frame")[0]
    ('zoom_in', 'leaving')
    """
    if ph.STILL.search(text):
        return "still", ph.STILL.sub(" ", text)
    if ph.MOVING.search(text):
        kind = next((k for k, words in ph.MOTION_KIND_WORDS if words.search(text)), "moving")
        return kind, ph.MOVING.sub(" ", text)
    return None, text


def _ordinal(text: str) -> tuple[int | None, str]:
    m = ph.ORDINAL_SUFFIX.search(text)
    if m:
        return ph.ORDINALS[m[2].lower()], m[1]
    m = ph.ORDINAL_PREFIX.search(text)
    if m:
        return ph.ORDINALS[m[1].lower()], m[2]
    return None, text


def _clean(text: str) -> str:
    previous = None
    while previous != text:
        previous = text
        text = ph.FILLERS.sub(" ", text)
        text = ph.LEADING_WORDS.sub("", text)
        text = ph.TRAILING_WORDS.sub("", text)
        text = re.sub(r"\s{2,}", " ", text).strip(" ,;:.-?!")
    return text
