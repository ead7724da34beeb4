"""The queries of one montage with their exact truth (pure; truth from `montage_truth`).

Asked of every montage:
- each label: shown there, a positive query about its kind (`object`, `scene`, `person`,
  `text`, `action`); absent, a `negative` one, and a `near-miss` one too when it is a
  near-miss of a label that is shown;
- each phrase of the manifest: `speech`, positive where said, `negative` where not;
- up to `N_COMPOSITE` `sequential` questions ("X right after Y") drawn from the cuts where Y
  gives way to X, and up to `N_COMPOSITE` `synchronous` ones ("someone says W while X is on
  screen") from the words said over a label; plus up to `N_COMPOSITE_NEGATIVE` of each whose
  parts both occur in the montage but never in that order or together;
- then negatives are drawn down to `NEGATIVE_SHARE` of the queries, near-misses first.

Each label or phrase is worded by one of its wordings drawn from `(seed, index)`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..moments import Moments
from .montage_manifest import Manifest
from .montage_plan import MontagePlan
from .montage_truth import (
    Shot,
    label_truth,
    sequential_truth,
    shots_of,
    speech_of,
    speech_truth,
    synchronous_truth,
)

SPEECH = ("someone says '{w}'", "when does someone say '{w}'", "the moment '{w}' is spoken")
SEQUENTIAL = (
    "{x} right after {y}",
    "{x} in the shot that comes right after {y}",
    "{x} on screen just after a shot of {y}",
)
SYNCHRONOUS = (
    "someone says '{w}' with {x} on screen",
    "the words '{w}' are spoken while we see {x}",
    "'{w}' is said over a shot of {x}",
)
N_COMPOSITE = 4
N_COMPOSITE_NEGATIVE = 2
NEGATIVE_SHARE = 0.3  # of a montage's queries at most, as in CoMET-Bench (26.6 %)
#: The order attributes are listed in on each line.
ATTRIBUTES = (
    "object",
    "scene",
    "person",
    "text",
    "action",
    "speech",
    "sequential",
    "synchronous",
    "negative",
    "near-miss",
)


@dataclass(frozen=True)
class MontageQuery:
    """A query, its truth and attributes; `condition` names what it asks, e.g. `label:dog`,
    `speech:Dashwood`, `sequential:dog>taxi`, `synchronous:Dashwood@dog`, `near-miss:cat~dog`."""

    condition: str
    query: str
    gt: Moments
    attributes: frozenset[str]


def montage_queries(
    manifest: Manifest, plan: MontagePlan, seed: int, index: int
) -> list[MontageQuery]:
    """All the queries of montage `index`, in a fixed order."""
    rng = np.random.default_rng([seed, index, 32])
    shots = shots_of(manifest, plan)
    speech = speech_of(manifest, plan)
    out: list[MontageQuery] = []

    def add(condition: str, query: str, gt: Moments, *attributes: str) -> None:
        extra = {"negative"} if len(gt) == 0 else set()
        out.append(MontageQuery(condition, query, gt, frozenset(attributes) | extra))

    shown = {n for n in manifest.labels if len(label_truth(shots, n))}
    near = {m: n for n in sorted(shown) for m in manifest.labels[n].near_misses}
    for name, label in sorted(manifest.labels.items()):
        wording = str(rng.choice(label.wordings))
        if name in shown or name not in near:
            add(f"label:{name}", wording, label_truth(shots, name), label.kind)
        else:
            add(f"near-miss:{name}~{near[name]}", wording, Moments.empty(), label.kind, "near-miss")
    for phrase, wordings in sorted(manifest.phrases.items()):
        wording = str(rng.choice(wordings or SPEECH)).replace("{w}", phrase)
        add(f"speech:{phrase}", wording, speech_truth(speech, phrase), "speech")
    _sequential(rng, manifest, shots, shown, add)
    said = [p for p in sorted(manifest.phrases) if len(speech_truth(speech, p))]
    _synchronous(rng, manifest, shots, speech, said, shown, add)
    return _balanced(rng, out)


def _balanced(rng, queries: list[MontageQuery]) -> list[MontageQuery]:
    """The positives and at most a `NEGATIVE_SHARE` of negatives: near-misses first, then
    others drawn at random; the order kept."""
    positives = sum(len(q.gt) > 0 for q in queries)
    room = round(positives * NEGATIVE_SHARE / (1 - NEGATIVE_SHARE))
    near = [i for i, q in enumerate(queries) if "near-miss" in q.attributes]
    other = [i for i, q in enumerate(queries) if not len(q.gt) and "near-miss" not in q.attributes]
    keep = set(_draw(rng, near, room))
    keep |= set(_draw(rng, other, room - len(keep)))
    return [q for i, q in enumerate(queries) if len(q.gt) or i in keep]


def _name(rng, manifest: Manifest, label: str) -> str:
    return str(rng.choice(manifest.labels[label].names))


def _draw(rng, items: list, n: int) -> list:
    picks = rng.choice(len(items), size=min(n, len(items)), replace=False) if items else []
    return [items[i] for i in sorted(picks)]


def _sequential(rng, manifest: Manifest, shots: list[Shot], shown: set[str], add) -> None:
    changes = sorted(
        {
            (x, y)
            for a, b in zip(shots[:-1], shots[1:])
            for x in b.shows
            for y in a.shows
            if x not in a.shows and y not in b.shows
        }
    )
    never = [
        (x, y)
        for x in sorted(shown)
        for y in sorted(shown)
        if x != y and not len(sequential_truth(shots, x, y))
    ]
    for pairs, n in ((changes, N_COMPOSITE), (never, N_COMPOSITE_NEGATIVE)):
        for x, y in _draw(rng, pairs, n):
            names = {"x": _name(rng, manifest, x), "y": _name(rng, manifest, y)}
            query = str(rng.choice(SEQUENTIAL)).format(**names)
            add(f"sequential:{x}>{y}", query, sequential_truth(shots, x, y), "sequential")


def _synchronous(rng, manifest, shots, speech, said: list[str], shown: set[str], add) -> None:
    pairs = [(w, x) for w in said for x in sorted(shown)]
    truths = {pair: synchronous_truth(shots, speech, *pair) for pair in pairs}
    for ok, n in ((True, N_COMPOSITE), (False, N_COMPOSITE_NEGATIVE)):
        for w, x in _draw(rng, [p for p in pairs if bool(len(truths[p])) == ok], n):
            query = str(rng.choice(SYNCHRONOUS)).format(w=w, x=_name(rng, manifest, x))
            add(f"synchronous:{w}@{x}", query, truths[w, x], "synchronous")
