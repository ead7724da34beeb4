"""Spoken words as the recogniser writes them (`words`: lower case, numerals spelled out) and
their phones from the CMU pronouncing dictionary that ships with pocketsphinx (`phones`: how
long a needle is when said, which picks its null words, `match.null_words`)."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from ..errors import require

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
    num2words = require("num2words", "channels").num2words

    if len(digits) > MAX_SPELLED_DIGITS or (digits.startswith("0") and len(digits) > 1):
        return " ".join(num2words(int(d)) for d in digits)
    return num2words(int(digits), to="ordinal" if ordinal else "cardinal")


def phones(text: str) -> list[str]:
    """The phones of `text`, word by word; a word not in the dictionary is spelled out as its
    letters (one symbol each, never a phone's name).

    >>> phones("budget"), len(phones("qxz"))
    (['B', 'AH', 'JH', 'IH', 'T'], 3)
    """
    table = _dictionary()
    out: list[str] = []
    for word in words(text):
        out.extend(table.get(word) or [f"#{c}" for c in word])
    return out
