"""Step 1: turn a query into a plan (rule grammar; the LLM planner fills the same `Plan`).

A plan says what to look for (the target event), under which conditions (condition events and
their relation to the target), where (an explicit time window), and with which graph profile.
The rule planner builds it on the query's analysis (`longground.query`, whose grammar is in
`query/structure.py`), cleaning each event's words into a text for the encoder and reading
the target's motion, ordinal, backdrop and direction from them.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, replace

from ...query import Event, QueryAnalysis, Relation, Route, analyse, route
from ...query import grammar as g
from ...query import structure as st
from ...query.analysis import event_text
from ...query.words import tag
from ..profiles import choose_profile


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
            -1: the last) of the answer, in time order; "longest" or "shortest" keeps the
            one moment of that length ("the longest shot of X"); None keeps every one.
        phrases: the sub-events as the query words them, before cleaning: the target's,
            then each condition's (aligned with `texts`). Evidence channels are chosen from
            these ("the slide reads X" loses "slide" to the motion words when cleaned).
        source: "rules", "llm", or "rules-fallback" (the LLM's answer was unreadable).
        notes: remarks for the trace.
        episode: the target event is one episode of motion inside one shot, bounded by that
            motion (`perception.episode`): "effect" for a cause and its effect ("causes",
            "caused by": something falls), "passing" for something going by something else
            ("misses", "rolls past": nothing falls); None otherwise.
        routes: the channel of each sub-event (aligned with `texts`), from the query's
            analysis; empty for a plan that has none (an LLM planner's).
        reach_s: for "after" / "before", how far in time the condition may lie from the
            target ("within 10 seconds after the cat"), or None (any earlier / later shot
            the relation reaches); for "near", how far on either side.
        length_s: `(least, most or None)` seconds each moment lasts ("dog shots longer than
            5 seconds"), or None.
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
    occurrence: int | str | None = None
    phrases: tuple[str, ...] = ()
    source: str = "rules"
    notes: tuple[str, ...] = field(default=())
    episode: str | None = None
    routes: tuple[Route, ...] = ()
    reach_s: float | None = None
    length_s: tuple[float, float | None] | None = None

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
            routes=[r.to_dict() for r in self.routes],
        )
        return out

    def phrase(self, i: int) -> str:
        """The words of sub-event `i` of `texts` as the query put them (the cleaned text
        when the plan has no phrases, as from an LLM planner)."""
        return self.phrases[i] if i < len(self.phrases) else self.texts[i]

    def route(self, i: int) -> Route:
        """The channel sub-event `i` is answered from: the query analysis's decision, or
        (for a plan without one, as from an LLM planner) the decision on its phrase."""
        return self.routes[i] if i < len(self.routes) else route(self.phrase(i))


def plan_query(query: str, duration_s: float) -> Plan:
    """Rule-based plan for `query` on a video of `duration_s` seconds, built on the query's
    analysis (`longground.query.analyse`).

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
    return plan_from(analyse(query), duration_s)


def plan_from(analysis: QueryAnalysis, duration_s: float) -> Plan:
    """The agent's plan of an analysed query: its texts cleaned for the encoder, and the
    target's ordinal, backdrop, direction, motion and episode read from its words."""
    raw = analysis.target.phrase
    ordinal, target = st.ordinal(g.backdrop_said_of(raw))
    backdrop = g.BACKDROP.search(target) or g.BACKDROP_TEXTURE.search(target)
    target = g.BACKDROP_TEXTURE.sub(" ", g.BACKDROP.sub(" ", target))
    heading = g.DIRECTION.search(target)
    direction = heading[2].lower() if heading and heading[1] != heading[2] else None
    motion, target = _motion(st.clean(event_text(target) or target))  # "the cat please"
    target = _known_as(target, analysis.target)
    body = analysis.body
    target = st.clean(target) or st.clean(body) or body
    cleaned = [(st.clean(_motion(st.clean(e.phrase))[1]), e) for e in analysis.conditions]
    kept = [(c, e) for c, e in cleaned if c and not g.GENERIC.match(c)]
    relation = analysis.relation
    if relation in (Relation.CAUSES, Relation.CAUSED_BY) and motion is None:
        motion = "moving"  # a cause and its effect happen through motion
    passing = bool(g.PASSING_RE.search(body))
    if motion is None and passing:
        motion = "moving"  # what passes by or misses something moves
    causal = relation in (Relation.CAUSES, Relation.CAUSED_BY)
    if not kept and relation is not Relation.BETWEEN:
        relation = Relation.NONE
    window = analysis.window_s(duration_s)
    span = window if window is not None else (0.0, float(duration_s))
    return Plan(
        query=analysis.query,
        target=target,
        conditions=tuple(c for c, _ in kept),
        relation=relation,
        window_s=span,
        motion=motion,
        ordinal=ordinal,
        skip_first=analysis.skip_first,
        backdrop=next(x for x in backdrop.groups() if x).lower() if backdrop else None,
        colourless=bool(g.COLOURLESS.search(target)),
        direction=direction,
        profile=choose_profile(span[1] - span[0], analysis.query).name,
        occurrence=analysis.occurrence,
        phrases=(raw, *(e.phrase for _, e in kept)),
        routes=(analysis.target.route, *(e.route for _, e in kept)),
        episode="passing" if passing else "effect" if causal else None,
        reach_s=analysis.reach_s,
        length_s=analysis.length_s,
    )


def _known_as(text: str, event: Event) -> str:
    """`text` with the event's subject replaced by the encoder's word for it ("a kitty" ->
    "a cat"), when it has one."""
    if event.known_as is None or not event.subject:
        return text
    return re.sub(rf"\b{re.escape(event.subject)}\b", event.known_as, text, count=1)


def _motion(text: str) -> tuple[str | None, str]:
    """The motion kind of `text` and the text without its motion words, unless taking them
    out leaves two noun phrases side by side ("the car passes the truck" stays whole)."""
    kind, rest = st.motion(text)
    tokens = tag(rest)
    juxtaposed = any(a.is_noun and b.tag == "DT" for a, b in zip(tokens, tokens[1:]))
    return kind, text if juxtaposed else rest


def with_source(plan: Plan, source: str, note: str) -> Plan:
    """The same plan, marked as coming from `source`, with a note."""
    return replace(plan, source=source, notes=(*plan.notes, note))
