"""Small pieces every wording table uses: articles, drawing options in a random order, and
comparing two wordings."""

from __future__ import annotations

import numpy as np


def article(noun: str, which: str) -> str:
    """`noun` with "the", or with "a"/"an" for any other `which`.

    >>> article("espresso cup", "a"), article("mug", "the")
    ('an espresso cup', 'the mug')
    """
    if which == "the":
        return "the " + noun
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


def permuted(rng: np.random.Generator, options) -> list:
    """`options` in an order drawn by `rng`."""
    return [options[int(i)] for i in rng.permutation(len(options))]


def plain(text: str) -> str:
    """`text` lower-cased, without punctuation and repeated spaces: two wordings that differ
    only there are the same wording.

    >>> plain("Show me  the cat!") == plain("show me the cat")
    True
    """
    return " ".join("".join(c for c in text.lower() if c.isalnum() or c.isspace()).split())
