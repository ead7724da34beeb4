"""Matching spoken words by sound: the recogniser often writes a word it heard as another that
sounds alike ("budget" as "but it"), so words are compared as phone strings from the CMU
pronouncing dictionary that ships with pocketsphinx, by an edit distance that lets the needle
start anywhere in the transcript (semi-global alignment)."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

VOWELS = frozenset("AA AE AH AO AW AY EH ER EY IH IY OW OY UH UW".split())
SIMILAR_COST = 0.5  # one vowel heard as another, which the recogniser does often
_LETTERS = re.compile(r"[a-z0-9']+")
_NUMERAL = re.compile(r"(\d+)(st|nd|rd|th)?")
#: Numerals longer than this are said digit by digit (a phone number, a code).
MAX_SPELLED_DIGITS = 6


@lru_cache(maxsize=1)
def _dictionary() -> dict[str, tuple[str, ...]]:
    import pocketsphinx

    path = Path(pocketsphinx.get_model_path()) / "en-us" / "cmudict-en-us.dict"
    out: dict[str, tuple[str, ...]] = {}
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            word, *phones = line.split()
            if "(" not in word:
                out[word] = tuple(phones)
    return out


def words(text: str) -> list[str]:
    """Lower-case word tokens, numerals as they are said (`num2words`), since the
    recogniser writes what it hears ("seven", never "7").

    >>> words("The Budget, approved!"), words("Room 7, 21st floor")
    (['the', 'budget', 'approved'], ['room', 'seven', 'twenty', 'first', 'floor'])
    >>> words("call 0800123")
    ['call', 'zero', 'eight', 'zero', 'zero', 'one', 'two', 'three']
    """
    out = []
    for token in _LETTERS.findall(text.lower()):
        numeral = _NUMERAL.fullmatch(token)
        out.extend(_LETTERS.findall(_spoken(*numeral.groups())) if numeral else [token])
    return out


def _spoken(digits: str, ordinal: str | None) -> str:
    """A numeral in words: a cardinal or ordinal, or digit by digit when long."""
    from num2words import num2words

    if len(digits) > MAX_SPELLED_DIGITS or (digits.startswith("0") and len(digits) > 1):
        return " ".join(num2words(int(d)) for d in digits)
    return num2words(int(digits), to="ordinal" if ordinal else "cardinal")


def phones(text: str) -> list[str]:
    """The phones of `text`, word by word; a word not in the dictionary is spelled out as its
    letters (upper-case letters are not phone names, so they match only themselves)."""
    table = _dictionary()
    out: list[str] = []
    for word in words(text):
        out.extend(table.get(word) or [f"#{c}" for c in word])
    return out


def _cost(a: str, b: str) -> float:
    if a == b:
        return 0.0
    return SIMILAR_COST if a in VOWELS and b in VOWELS else 1.0


def best_match(needle: list[str], hay: list[str]) -> float:
    """1 − (edit distance of `needle` against its best-matching stretch of `hay`) / len(needle),
    floored at 0: 1 when the phones appear exactly, lower as more of them differ.

    >>> best_match(["B", "AH", "JH"], ["DH", "AH", "B", "AH", "JH", "IH"])
    1.0
    >>> best_match(["B", "AH", "JH"], ["B", "IH", "JH"]), best_match(["K"], [])
    (0.8333333333333334, 0.0)
    """
    if not needle:
        return 0.0
    previous = [0.0] * (len(hay) + 1)  # the needle may start anywhere: row 0 is free
    for i, p in enumerate(needle, 1):
        current = [float(i)] + [0.0] * len(hay)
        for j, h in enumerate(hay, 1):
            current[j] = min(previous[j - 1] + _cost(p, h), previous[j] + 1.0, current[j - 1] + 1.0)
        previous = current
    return max(0.0, 1.0 - min(previous) / len(needle))
