"""Exact truth of a montage plan, read from the manifest's clip-local spans (pure).

- A label is on screen where a piece's window meets one of the label's spans in that clip,
  moved to montage time; touching spans (the same label either side of a cut) join.
- Shots are the pieces split at the clips' own `cuts`. "X right after Y" holds over X's
  spans in every shot whose previous shot shows Y anywhere.
- Speech is whole utterances: a recording's, laid over the montage, and a kept clip's that
  its piece plays in full. An utterance a piece cuts into is left out of the truth, and
  `cut_utterances` lists it so the renderer silences it. "Someone says W" holds over every
  utterance whose words include W (case and punctuation aside); "... while X is on screen"
  holds where such an utterance and X's spans overlap, for `MIN_OVERLAP_S` or more.
- Times are rounded to the millisecond.

>>> phrase_in("Oh, I'm originally from Chicago also.", "chicago")
True
>>> phrase_in("he was not an ill disposed young man", "disposed young woman")
False
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..moments import Moments
from .montage_manifest import Manifest, Utterance
from .montage_plan import MontagePlan

DIGITS = 3
MIN_OVERLAP_S = 0.1  # shorter overlaps of words and pictures are no moment anyone could see


@dataclass(frozen=True)
class Shot:
    """Montage time `[start_s, end_s)` of one shot of clip `clip`, and what it shows:
    label -> montage-time spans inside the shot."""

    start_s: float
    end_s: float
    clip: str
    shows: dict[str, Moments]


def _moments(spans) -> Moments:
    return Moments(np.round(np.asarray(spans, np.float64).reshape(-1, 2), DIGITS)).merge(0.0)


def shots_of(manifest: Manifest, plan: MontagePlan) -> list[Shot]:
    """The montage's shots in order."""
    clips = {c.id: c for c in manifest.clips}
    out = []
    for p in plan.placements:
        clip = clips[p.clip]
        w0, w1 = plan.window(p)
        edges = [w0, *(c for c in clip.cuts if w0 < c < w1), w1]
        for a, b in zip(edges[:-1], edges[1:]):
            shows = {}
            for label, spans in clip.shows.items():
                inside = Moments(np.array(spans)).clip(a, b)
                inside = inside[inside.lengths_s > 0]
                if len(inside):
                    shows[label] = _moments(inside.spans - w0 + p.at_s)
            out.append(
                Shot(round(p.at_s + a - w0, DIGITS), round(p.at_s + b - w0, DIGITS), clip.id, shows)
            )
    return out


def label_truth(shots: list[Shot], label: str) -> Moments:
    """Where `label` is on screen."""
    spans = [s.shows[label].spans for s in shots if label in s.shows]
    return _moments(np.concatenate(spans) if spans else [])


def sequential_truth(shots: list[Shot], x: str, y: str) -> Moments:
    """X's spans in the shots right after a shot showing Y."""
    spans = [
        b.shows[x].spans for a, b in zip(shots[:-1], shots[1:]) if y in a.shows and x in b.shows
    ]
    return _moments(np.concatenate(spans) if spans else [])


def _placed(manifest: Manifest, plan: MontagePlan) -> tuple[list[Utterance], list[Utterance]]:
    """Utterances in montage time: those heard whole, and those a piece cuts into."""
    recordings = {r.id: r for r in manifest.recordings}
    whole: list[Utterance] = []
    for o in plan.overlays:
        rec = recordings[o.recording]
        whole += [_moved(u, o.at_s - rec.trim[0]) for u in rec.says]
    cut: list[Utterance] = []
    clips = {c.id: c for c in manifest.clips}
    for p in plan.placements:
        w0, w1 = plan.window(p)
        for u in clips[p.clip].says if clips[p.clip].keep_audio else ():
            if u.end_s <= w0 or u.start_s >= w1:
                continue
            moved = _moved(u, p.at_s - w0)
            if w0 <= u.start_s and u.end_s <= w1:
                whole.append(moved)
            else:
                cut.append(moved)
    return sorted(whole, key=lambda u: u.start_s), cut


def _moved(u: Utterance, offset_s: float) -> Utterance:
    return Utterance(round(u.start_s + offset_s, DIGITS), round(u.end_s + offset_s, DIGITS), u.text)


def speech_of(manifest: Manifest, plan: MontagePlan) -> list[Utterance]:
    """The utterances heard whole, in montage time, by start."""
    return _placed(manifest, plan)[0]


def cut_utterances(manifest: Manifest, plan: MontagePlan) -> list[Utterance]:
    """Kept clips' utterances a piece cuts into (montage time, unclipped): to be silenced."""
    return _placed(manifest, plan)[1]


def words(text: str) -> list[str]:
    """Lower-case words, apostrophes kept: `"I'm in New Jersey."` -> `["i'm", "in", ...]`."""
    return re.findall(r"[a-z0-9']+", text.lower().replace("\u2019", "'"))


def phrase_in(text: str, phrase: str) -> bool:
    """Whether `phrase`'s words occur in `text` in a row."""
    have, want = words(text), words(phrase)
    return any(have[i : i + len(want)] == want for i in range(len(have) - len(want) + 1))


def speech_truth(speech: list[Utterance], phrase: str) -> Moments:
    """The utterances that say `phrase`."""
    return _moments([(u.start_s, u.end_s) for u in speech if phrase_in(u.text, phrase)])


def intersect(a: Moments, b: Moments) -> Moments:
    """Where spans of `a` and of `b` overlap (by more than nothing).

    >>> intersect(Moments.from_list([[0, 5]]), Moments.from_list([[4, 8], [9, 10]])).to_list()
    [[4.0, 5.0]]
    """
    starts = np.maximum(a.starts_s[:, None], b.starts_s[None, :]).ravel()
    ends = np.minimum(a.ends_s[:, None], b.ends_s[None, :]).ravel()
    keep = ends > starts
    return _moments(np.stack([starts[keep], ends[keep]], axis=1))


def synchronous_truth(
    shots: list[Shot], speech: list[Utterance], phrase: str, label: str
) -> Moments:
    """Where `phrase` is being said while `label` is on screen (`MIN_OVERLAP_S` or more)."""
    both = intersect(speech_truth(speech, phrase), label_truth(shots, label))
    return both[both.lengths_s >= MIN_OVERLAP_S - 1e-9]
