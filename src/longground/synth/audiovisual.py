"""An audio-visual synthetic benchmark: spoken sentences, slides, captions, a changing
scoreboard and faces at known times, with exact ground truth for queries about what is said
(`speech`), written on screen (`text`) and whether a person is there (`person`).

`plan_av(seed, index, minutes)` is pure: it draws one video's timeline and its queries from
`(seed, index)`. `synth.av_render` turns a plan into an MP4 with an AAC track (espeak-ng).
Faces appear only in videos with an even index, so odd videos hold the person negatives.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import UserError
from ..moments import Moments
from ..samples import Sample
from .meaning import Caption, Meaning, Person, Said, Score, Slide

KEYWORDS = ("budget", "weather", "elephant", "hospital", "chocolate", "volcano", "library",
            "umbrella", "tomato", "airport", "dinosaur", "bicycle", "piano", "computer",
            "festival", "passport")  # fmt: skip
SENTENCES = ("Now let us talk about the {}.", "Everybody is waiting for the {}.",
             "I will tell you about the {} today.", "Please remember the {} later.")  # fmt: skip
TITLES = ("Quarterly Results", "Project Timeline", "Safety Rules", "Team Members",
          "Market Analysis", "Next Steps", "Travel Plans", "Final Summary")  # fmt: skip
CAPTIONS = ("GOAL", "BREAKING NEWS", "HALF TIME", "PENALTY", "WEATHER ALERT", "LIVE")
SCENES = ("slide", "face", "photo")
PHOTOS = ("coffee", "chelsea", "rocket", "camera")
ATTRIBUTES = ("speech", "text", "person", "negative")
MIN_MINUTES = 0.25
MAX_MINUTES = 180.0


@dataclass(frozen=True)
class Scene:
    """The picture behind the overlays from `start_s` to `end_s`: a slide with `label` as its
    title, the astronaut photo (`face`) or another photo named `label`."""

    start_s: float
    end_s: float
    kind: str
    label: str


@dataclass(frozen=True)
class Overlay:
    """A caption (bottom bar) or a scoreboard (top-left box) showing `text` over the span."""

    start_s: float
    end_s: float
    kind: str
    text: str


@dataclass(frozen=True)
class Utterance:
    """A sentence spoken from `start_s` (its end is known only once it is synthesised)."""

    start_s: float
    keyword: str
    text: str


@dataclass(frozen=True)
class AvPlan:
    """One video: its length, scenes, overlays and utterances, and the queries to ask."""

    duration_s: float
    scenes: tuple[Scene, ...]
    overlays: tuple[Overlay, ...]
    utterances: tuple[Utterance, ...]
    unspoken: tuple[str, ...]
    with_faces: bool


def plan_av(seed: int, index: int, minutes: float) -> AvPlan:
    """Draw a video's timeline from `(seed, index)` (the same inputs give the same plan)."""
    if not MIN_MINUTES <= minutes <= MAX_MINUTES:
        raise UserError(f"--minutes: {minutes:g} is outside {MIN_MINUTES:g}..{MAX_MINUTES:g}")
    rng = np.random.default_rng([seed, index, 21])
    duration_s = round(minutes * 60.0, 1)
    with_faces = index % 2 == 0
    scenes = _scenes(rng, duration_s, with_faces)
    overlays = _captions(rng, duration_s) + _scoreboard(rng, duration_s)
    keywords = list(rng.permutation(KEYWORDS))
    n_spoken = max(2, min(6, int(duration_s // 90)))
    spoken, unspoken = keywords[:n_spoken], tuple(keywords[n_spoken : n_spoken + 2])
    return AvPlan(duration_s, scenes, overlays, _utterances(rng, duration_s, spoken), unspoken,
                  with_faces)  # fmt: skip


def _scenes(rng, duration_s: float, with_faces: bool) -> tuple[Scene, ...]:
    kinds = SCENES if with_faces else ("slide", "photo")
    out, t, titles = [], 0.0, list(rng.permutation(TITLES))[:5]
    while t < duration_s:
        length = float(rng.uniform(8.0, 30.0))
        kind = str(rng.choice(kinds))
        label = {"slide": str(rng.choice(titles[:4])), "face": "astronaut",
                 "photo": str(rng.choice(PHOTOS))}[kind]  # fmt: skip
        end = min(duration_s, round(t + length, 1))
        if out and out[-1].kind == kind and out[-1].label == label:
            out[-1] = Scene(out[-1].start_s, end, kind, label)
        else:
            out.append(Scene(t, end, kind, label))
        t = end
    return tuple(out)


def _captions(rng, duration_s: float) -> tuple[Overlay, ...]:
    words = list(rng.permutation(CAPTIONS))[:3]
    out, t = [], float(rng.uniform(5.0, 20.0))
    while t + 4.0 < duration_s:
        out.append(Overlay(round(t, 1), round(t + 4.0, 1), "caption", str(rng.choice(words[:2]))))
        t += float(rng.uniform(30.0, 90.0))
    return tuple(out)


def _scoreboard(rng, duration_s: float) -> tuple[Overlay, ...]:
    """A match over the middle half: the score changes a few times, one side at a time."""
    start, end = round(duration_s * 0.25, 1), round(duration_s * 0.75, 1)
    changes = np.sort(rng.uniform(start + 5.0, end - 5.0, size=int(rng.integers(2, 5))))
    home = away = 0
    out, t = [], start
    for change in [*changes.round(1), end]:
        if change - t >= 2.0:
            out.append(Overlay(t, float(change), "scoreboard", f"HOME {home}-{away} AWAY"))
        t = float(change)
        home, away = (home + 1, away) if rng.random() < 0.5 else (home, away + 1)
    return tuple(out)


def _utterances(rng, duration_s: float, spoken: list[str]) -> tuple[Utterance, ...]:
    """Each spoken keyword said 1-3 times, in sentences at least 12 s apart."""
    said = [k for k in spoken for _ in range(int(rng.integers(1, 4)))]
    slots = np.arange(2.0, duration_s - 6.0, 12.0)
    if len(slots) < len(said):
        said = said[: len(slots)]
    starts = np.sort(rng.choice(slots, size=len(said), replace=False))
    order = rng.permutation(said)
    return tuple(Utterance(float(s + rng.uniform(0, 4.0)), str(k),
                           str(rng.choice(SENTENCES)).format(k))
                 for s, k in zip(starts, order))  # fmt: skip


def av_samples(plan: AvPlan, video: str, spoken_s: dict[int, tuple[float, float]],
               prefix: str) -> list[Sample]:  # fmt: skip
    """The queries of one rendered video with exact ground truth; `spoken_s[i]` is the span of
    utterance `i` as synthesised."""
    return [sample for sample, _ in av_queries(plan, video, spoken_s, prefix)]


def av_queries(plan: AvPlan, video: str, spoken_s: dict[int, tuple[float, float]],
               prefix: str) -> list[tuple[Sample, Meaning]]:  # fmt: skip
    """`av_samples`, each with what it asks (`synth.meaning`), for rewording."""
    out: list[tuple[Sample, Meaning]] = []

    def add(name: str, query: str, spans: list, attributes: tuple[str, ...], meaning: Meaning):
        gt = Moments(np.array(spans, np.float64).reshape(-1, 2)).merge(0.0)
        attrs = set(attributes) | ({"negative"} if len(gt) == 0 else set())
        out.append((Sample(f"{prefix}_{name}", video, plan.duration_s, query, gt,
                           frozenset(attrs), "synthetic-av"), meaning))  # fmt: skip

    said = sorted({u.keyword for u in plan.utterances})
    for word in said + list(plan.unspoken):
        spans = [spoken_s[i] for i, u in enumerate(plan.utterances) if u.keyword == word]
        add(f"say_{word}", f"someone says {word}", spans, ("speech",), Said(word))
    titles = sorted({s.label for s in plan.scenes if s.kind == "slide"})
    unseen = [t for t in TITLES if t not in titles][:1]
    for title in titles[:3] + unseen:
        spans = [
            (s.start_s, s.end_s) for s in plan.scenes if s.kind == "slide" and s.label == title
        ]
        name, query = f"slide_{title.split()[0].lower()}", f"the slide reads {title}"
        add(name, query, spans, ("text",), Slide(title))
    _overlay_queries(plan, add)
    faces = [(s.start_s, s.end_s) for s in plan.scenes if s.kind == "face"]
    add("person", "a person", faces, ("person",), Person())
    add("face", "a face", faces, ("person",), Person(face=True))
    return out


def _overlay_queries(plan: AvPlan, add) -> None:
    captions = sorted({o.text for o in plan.overlays if o.kind == "caption"})
    for word in captions[:2] + [c for c in CAPTIONS if c not in captions][:1]:
        spans = [(o.start_s, o.end_s) for o in plan.overlays if o.text == word]
        add(f"caption_{word.split()[0].lower()}", f"the caption says {word}", spans,
            ("text",), Caption(word))  # fmt: skip
    scores = [o.text.split()[1] for o in plan.overlays if o.kind == "scoreboard"]
    for score in sorted(set(scores), key=scores.index)[1:3] + ["7-5"]:
        spans = [(o.start_s, o.end_s) for o in plan.overlays if o.text == f"HOME {score} AWAY"]
        home, away = (int(n) for n in score.split("-"))
        add(f"score_{score}", f"the score is {score}", spans, ("text",), Score(home, away))
