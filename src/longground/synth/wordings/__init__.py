"""Other everyday wordings of a generated query, made from what it asks (`synth.meaning`).

`longground synth --wordings K` writes every query in K wordings: the generator's own, then
K - 1 of these. They are the kinds of wording people use that the templates do not: synonyms
("a motorbike", "the kitty", "a mug"), questions ("where does the rocket appear?", "is there a
horse?"), commands ("show me the cat"), bare noun phrases, possessives, role nouns, and clock
times as people write them ("from 2:40 to 5:20", "after the 10 minute mark", "in the last 5
minutes"). Each wording states exactly the condition of the original, so the truth does not
change. Every table is written by hand (`scenes`, `events`, `audiovisual`, `times`); a
wording is drawn from the query's parts, never from its finished text, with a generator the
caller seeds, so a seed gives the same wordings.

>>> import numpy as np
>>> from longground.synth.meaning import Shown
>>> texts = wordings(Shown("cat"), 2, np.random.default_rng(0), original="a cat")
>>> len(texts), "a cat" in texts
(2, False)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from ...errors import UserError
from ...formats.canonical import sample_record
from ...samples import Sample
from ..meaning import Cut, Knocked, Meaning, Named, Ordinal, Shown, Together
from . import audiovisual, events, scenes
from .phrasing import plain

#: The most wordings of one query (the original and four others).
MAX_WORDINGS = 5

#: How each kind of meaning is worded: candidate texts, one per sentence frame, in an order
#: drawn by the generator.
WORDERS: dict[type, Callable[[Meaning, np.random.Generator], list[str]]] = {
    Shown: scenes.shown,
    Named: scenes.named,
    Knocked: events.knocked,
    Cut: events.cut,
    Together: events.together,
    Ordinal: events.ordinal,
    **audiovisual.WORDERS,
}


def wordings(meaning: Meaning, n: int, rng: np.random.Generator, original: str = "") -> list[str]:
    """`n` wordings of `meaning`, each other than `original` and than one another (ignoring
    case and punctuation); about half start with a capital, as people type.

    Raises:
        ValueError: the tables hold fewer than `n` such wordings (a bug in a table).
    """
    seen, out = {plain(original)}, []
    for text in WORDERS[type(meaning)](meaning, rng):
        if len(out) == n:
            break
        if plain(text) not in seen:
            seen.add(plain(text))
            out.append(text[:1].upper() + text[1:] if rng.random() < 0.5 else text)
    if len(out) < n:
        raise ValueError(f"only {len(out)} other wordings of {meaning}, asked for {n}")
    return out


def check_wordings(k: int) -> int:
    """`k` when it is a number of wordings the tables can give.

    >>> check_wordings(6)
    Traceback (most recent call last):
    longground.errors.UserError: --wordings must be in [1, 5], got 6
    """
    if not 1 <= k <= MAX_WORDINGS:
        raise UserError(f"--wordings must be in [1, {MAX_WORDINGS}], got {k}")
    return k


def reworded(sample: Sample, meaning: Meaning, k: int, rng: np.random.Generator) -> list[Sample]:
    """`sample` first, then `k - 1` other wordings of it: qid `QID_wN`, the same truth,
    video and attributes.

    >>> from longground.moments import Moments
    >>> s = Sample("q7", "v.mp4", 60.0, "a cat", Moments.from_list([[1, 2]]))
    >>> [w.qid for w in reworded(s, Shown("cat"), 3, np.random.default_rng(0))]
    ['q7', 'q7_w1', 'q7_w2']
    """
    texts = wordings(meaning, k - 1, rng, original=sample.query) if k > 1 else []
    return [sample] + [
        replace(sample, qid=f"{sample.qid}_w{n}", query=text) for n, text in enumerate(texts, 1)
    ]


def records(groups: Sequence[Sequence[Sample]], attribute_order: Sequence[str]) -> list[dict]:
    """Benchmark lines for reworded groups, each line with its `wording` (0: the original)
    when the groups hold more than one wording; otherwise exactly the lines without it."""
    worded = any(len(group) > 1 for group in groups)
    return [
        sample_record(s, {"wording": n} if worded else None, attribute_order)
        for group in groups
        for n, s in enumerate(group)
    ]


__all__ = ["MAX_WORDINGS", "WORDERS", "check_wordings", "records", "reworded", "wordings"]
