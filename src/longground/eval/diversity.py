"""Query diversity of a benchmark (ExtremeWhenBench Table 8), under fixed conventions.

Conventions (docs/analysis.md):

- text is lower-cased; tokens match `[a-z0-9]+(?:'[a-z]+)?` (so "don't" is one token);
- TTR = unique tokens / all tokens over the whole corpus;
- MATTR (moving-average TTR) with a window of W = 50 tokens slid one token at a time over
  the concatenated token stream of all queries in file order; a stream shorter than W has
  one window, the whole stream (MATTR = TTR);
- Distinct-n = unique n-grams / all n-grams for n = 1..4; n-grams never cross a query
  boundary;
- a query's 4-gram stem is its first 4 tokens (all of them if it has fewer); the top-5
  stem coverage is the fraction of queries whose stem is one of the 5 most common stems.

A ratio whose denominator is 0 (no tokens, no n-grams) is reported as 0.0.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

import numpy as np

TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
MATTR_WINDOW = 50
STEM_LENGTH = 4
TOP_STEMS = 5


def tokenize(text: str) -> list[str]:
    """The tokens of one query: lower-cased matches of `[a-z0-9]+(?:'[a-z]+)?`.

    >>> tokenize("The man DOESN'T open 2 doors -- again!")
    ['the', 'man', "doesn't", 'open', '2', 'doors', 'again']
    """
    return TOKEN.findall(text.lower())


@dataclass(frozen=True)
class Diversity:
    """The diversity figures of a set of queries (names are the `stats --json` keys).

    Attributes:
        n_queries: number of queries.
        n_tokens: tokens over all queries.
        ttr: type-token ratio over the corpus, in [0, 1].
        mattr: moving-average TTR (window `MATTR_WINDOW` tokens), in [0, 1].
        distinct_1 .. distinct_4: unique / all n-grams within queries, in [0, 1].
        unique_bigrams: number of distinct bigrams (within queries).
        unique_stems: number of distinct 4-token stems.
        top5_stem_coverage: fraction of queries whose stem is among the 5 most common.
    """

    n_queries: int
    n_tokens: int
    ttr: float
    mattr: float
    distinct_1: float
    distinct_2: float
    distinct_3: float
    distinct_4: float
    unique_bigrams: int
    unique_stems: int
    top5_stem_coverage: float

    def to_dict(self) -> dict:
        """The figures as a JSON-ready dict with the documented keys."""
        return asdict(self)


def _ratio(numerator: int, denominator: int) -> float:
    return numerator / denominator if denominator else 0.0


def mattr(stream: Sequence[str], window: int = MATTR_WINDOW) -> float:
    """Moving-average type-token ratio of a token stream.

    Vectorised: a window's type count changes, when it slides by one, by -1 if the token
    leaving it does not occur again before the window's end, and by +1 if the token entering
    it did not occur inside the window already.

    Args:
        stream: tokens `(N,)` in order.
        window: window length W in tokens (>= 1).

    Returns:
        The mean over the N - W + 1 windows of (types / W); TTR when N < W; 0.0 when N = 0.

    >>> mattr("a b a b c".split(), window=2)
    1.0
    >>> mattr("a a a b".split(), window=2)
    0.6666666666666666
    """
    n = len(stream)
    if n == 0:
        return 0.0
    if n < window:
        return len(set(stream)) / n
    codes = np.unique(np.asarray(stream, dtype=object).astype(str), return_inverse=True)[1]
    order = np.arange(n)
    prev, nxt = np.full(n, -1), np.full(n, n)
    by_type = np.lexsort((order, codes))  # positions grouped by type, in order
    same = codes[by_type[1:]] == codes[by_type[:-1]]
    prev[by_type[1:][same]] = by_type[:-1][same]
    nxt[by_type[:-1][same]] = by_type[1:][same]
    first = int((prev[:window] < 0).sum())
    s = np.arange(n - window)  # each slide: window [s, s+W) -> [s+1, s+W]
    lost = nxt[s] > s + window - 1
    gained = prev[s + window] < s + 1
    counts = first + np.concatenate([[0], np.cumsum(gained.astype(int) - lost.astype(int))])
    return float(counts.mean() / window)


def ngrams(tokens: Sequence[str], n: int) -> list[tuple[str, ...]]:
    """The n-grams of one query's tokens, in order.

    >>> ngrams(["a", "b", "c"], 2)
    [('a', 'b'), ('b', 'c')]
    """
    return list(zip(*(tokens[i:] for i in range(n)), strict=False))


def stem(tokens: Sequence[str]) -> tuple[str, ...]:
    """A query's 4-gram stem: its first `STEM_LENGTH` tokens (all of them if fewer)."""
    return tuple(tokens[:STEM_LENGTH])


def diversity(queries: Iterable[str], window: int = MATTR_WINDOW) -> Diversity:
    """The diversity figures of queries given in file order.

    Args:
        queries: query texts.
        window: MATTR window in tokens.

    >>> d = diversity(["a dog jumps", "a dog runs", "a cat"])
    >>> d.n_tokens, d.ttr, d.distinct_2, d.unique_stems, d.top5_stem_coverage
    (8, 0.625, 0.8, 3, 1.0)
    """
    tokenized = [tokenize(q) for q in queries]
    stream = [t for tokens in tokenized for t in tokens]
    distinct = {}
    for n in range(1, 5):
        grams = [g for tokens in tokenized for g in ngrams(tokens, n)]
        distinct[n] = (len(set(grams)), len(grams))
    stems = Counter(stem(tokens) for tokens in tokenized)
    top = sum(count for _, count in stems.most_common(TOP_STEMS))
    return Diversity(
        n_queries=len(tokenized),
        n_tokens=len(stream),
        ttr=_ratio(len(set(stream)), len(stream)),
        mattr=mattr(stream, window),
        distinct_1=_ratio(*distinct[1]),
        distinct_2=_ratio(*distinct[2]),
        distinct_3=_ratio(*distinct[3]),
        distinct_4=_ratio(*distinct[4]),
        unique_bigrams=distinct[2][0],
        unique_stems=len(stems),
        top5_stem_coverage=_ratio(top, len(tokenized)),
    )


def length_distribution(queries: Iterable[str]) -> dict:
    """Tokens per query: min, mean, median, 90th percentile, max and a histogram.

    Returns:
        `{"min", "mean", "median", "p90", "max", "histogram": {length: n_queries}}`
        (all 0 and an empty histogram for no queries).

    >>> length_distribution(["a b", "c", "d e"])["histogram"]
    {'1': 1, '2': 2}
    """
    lengths = np.array([len(tokenize(q)) for q in queries], dtype=float)
    if lengths.size == 0:
        return {"min": 0, "mean": 0.0, "median": 0.0, "p90": 0.0, "max": 0, "histogram": {}}
    values, counts = np.unique(lengths.astype(int), return_counts=True)
    return {
        "min": int(lengths.min()),
        "mean": float(lengths.mean()),
        "median": float(np.median(lengths)),
        "p90": float(np.percentile(lengths, 90)),
        "max": int(lengths.max()),
        "histogram": {str(v): int(c) for v, c in zip(values, counts, strict=True)},
    }
