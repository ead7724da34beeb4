"""Rejecting CoMET candidate queries that reduce to spatial counting (App. B.5, Stage 1).

A query is rejected when either
- the model itself says one frame could answer it (`"single_frame": true` in its reply), or
- its wording is a count or a co-occurrence of things with no temporal cue: it asks "how
  many" / "count" / "number of", or has things "next to" / "together with" / "at the same
  place as" each other, and contains none of the words that tie it to time (when, while,
  after, before, until, during, each time, starts, ...).

This is a cheap screen in front of the human check the paper relies on, not a replacement:
it catches the forms the paper names ("how many birds are in the sky") and trusts the model's
own flag for the rest.
"""

from __future__ import annotations

import re

_COUNTING = re.compile(
    r"\bhow\s+many\b|\bcount(?:s|ing)?\b|\bnumber\s+of\b|\bnext\s+to\b|\btogether\s+with\b"
    r"|\bside\s+by\s+side\b|\bat\s+the\s+same\s+(?:place|spot|location)\b",
    re.I,
)
_TEMPORAL = re.compile(
    r"\b(?:when|whenever|while|after|afterwards|before|until|till|during|then|each\s+time|"
    r"every\s+time|times?|moments?|starts?|starting|begins?|beginning|ends?|ending|finish(?:es)?|"
    r"first|last|again|repeatedly|follow(?:s|ed|ing)?|once|as\s+soon\s+as|meanwhile|"
    r"simultaneously|at\s+the\s+same\s+time|enters?|leaves?|arrives?|picks?|throws?|falls?)\b",
    re.I,
)


def spatial_counting_reason(query: str, single_frame: object = False) -> str | None:
    """Why `query` reduces to spatial counting, or None when it does not.

    Args:
        query: the candidate query.
        single_frame: the model's own answer to "could one frame answer it?".

    >>> spatial_counting_reason("How many birds are in the sky?")
    'a count or co-occurrence with no temporal condition'
    >>> spatial_counting_reason("Each time the goalkeeper catches the ball after a corner") is None
    True
    >>> spatial_counting_reason("A red car", single_frame=True)
    'the model says a single frame answers it'
    """
    if single_frame is True:
        return "the model says a single frame answers it"
    if _COUNTING.search(query) and not _TEMPORAL.search(query):
        return "a count or co-occurrence with no temporal condition"
    return None
