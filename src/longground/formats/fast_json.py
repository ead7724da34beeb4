"""The fast path of reading records: orjson for parsing, numpy for clean interval lists.

Both fall back to the exact, slower readers whenever the input is anything but plain: a line
orjson refuses (NaN literals, lone surrogates) or would read differently (integers past 64
bits, which it makes floats) is parsed by the standard `json` module, and an interval list
that is not all finite non-negative numbers in ordered pairs goes through the per-interval
checks, so errors and their messages are the same either way. `orjson` comes with the `fast`
extra; without it, `json` is used.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import reduce
from itertools import chain
from operator import ge, iadd

import numpy as np

_NUMBERS = {int, float}
_LIMIT_S = 1e300  # larger numbers are refused (huge integers overflow float seconds)
# Every byte to b"0", digits to b"1": a run of 19 digits becomes a substring search.
_DIGITS = bytes(0x31 if 0x30 <= i <= 0x39 else 0x30 for i in range(256))
_LONG_RUN = b"1" * 19


def has_long_number(text: str) -> bool:
    """Whether `text` holds a run of 19 or more digits, where orjson may read an integer past
    64 bits as a float; one pass in C (a regular expression took 25 times as long).

    >>> has_long_number('{"a": 12, "b": 1.5}'), has_long_number('[1234567890123456789]')
    (False, True)
    """
    return _LONG_RUN in text.encode("utf-8", "surrogatepass").translate(_DIGITS)


def _loader(check_long: bool = True) -> Callable[[str], object]:
    try:
        import orjson
    except ImportError:
        return json.loads
    fast_loads, decode_error = orjson.loads, orjson.JSONDecodeError

    def loads(text: str) -> object:
        if check_long and has_long_number(text):  # orjson turns ints past 64 bits into floats
            return json.loads(text)
        try:
            return fast_loads(text)
        except decode_error:  # what orjson refuses, json may accept (NaN, lone surrogates)
            return json.loads(text)

    return loads


loads = _loader()
loads.__doc__ = """Decode one JSON text: orjson when installed, else (or where it refuses) json.

>>> loads('{"a": [1, 2.5]}'), loads('[NaN]')
({'a': [1, 2.5]}, [nan])
"""
_loads_unchecked = _loader(check_long=False)


def loader_for(text: str) -> Callable[[str], object]:
    """`loads` for the parts of `text` (the lines of a JSON Lines file): when `text` holds no
    long number at all, one check over the whole text spares the check per part.

    >>> loader_for('{"a": 1}')('{"a": 1}'), loader_for('[1, 12345678901234567890]') is loads
    ({'a': 1}, True)
    """
    return loads if has_long_number(text) else _loads_unchecked


def clean_pairs(value: object) -> np.ndarray | None:
    """`value` as a `(K, 2)` float64 array when it is a list of `[start, end]` pairs of plain
    numbers with `0 <= start <= end < 1e300`; None for anything else (the caller then runs
    its exact checks, which give the same result for clean input and the right message
    otherwise).

    >>> clean_pairs([[1, 2.5], [3, 3]]).tolist(), clean_pairs([]).shape
    ([[1.0, 2.5], [3.0, 3.0]], (0, 2))
    >>> [clean_pairs(v) for v in ([[2, 1]], [[True, 2]], [["1", 2]], [[1, 2, 3]], [[-1, 2]])]
    [None, None, None, None, None]
    """
    if type(value) is not list:
        return None
    if not value:
        return np.empty((0, 2), dtype=np.float64)
    # Every check runs in C (map, set, min, max) instead of a Python loop per pair.
    if set(map(type, value)) != {list} or set(map(len, value)) != {2}:
        return None
    flat = list(chain.from_iterable(value))
    if not set(map(type, flat)) <= _NUMBERS:  # no bool, str, None, nested list
        return None
    starts, ends = flat[0::2], flat[1::2]
    # nan fails every comparison, so `end >= start` also refuses it; inf fails the bounds
    if not (min(starts) >= 0 and max(ends) < _LIMIT_S and all(map(ge, ends, starts))):
        return None
    return np.array(flat, dtype=np.float64).reshape(-1, 2)


def clean_pair_lists(values: list[object]) -> list[np.ndarray | None]:
    """`clean_pairs` of every item of `values` (the interval lists of a whole file) with one
    pass in C over all of them: one `numpy.array` and three vectorised comparisons instead of
    a dozen calls per record.

    Items that are not lists give None. When any list is not clean, every item goes through
    `clean_pairs` one by one, so the items the bulk pass gives an array for are exactly
    those whose exact checks accept them, with the values those checks give.

    Returns:
        One `(K_i, 2)` float64 array (a view into one array for the whole file) or None per
        item, in order.

    >>> [None if s is None else s.tolist() for s in clean_pair_lists([[[1, 2]], None, []])]
    [[[1.0, 2.0]], None, []]
    >>> clean_pair_lists([[[1, 2]], [[2, 1]]])
    [array([[1., 2.]]), None]
    """
    lists = [value for value in values if type(value) is list]
    spans = _bulk_pairs(lists)
    if spans is None:
        return [clean_pairs(value) for value in values]
    found = iter(spans)
    return [next(found) if type(value) is list else None for value in values]


def _bulk_pairs(lists: list[list]) -> list[np.ndarray] | None:
    """The arrays of `lists` when every one is a clean pair list, else None."""
    if not lists:
        return []
    pairs = list(chain.from_iterable(lists))
    try:
        if pairs and set(map(len, pairs)) != {2}:
            return None
        # A pair that is a string or an object (their length is 2) adds characters or keys,
        # which the check of the numbers below refuses.
        flat = reduce(iadd, pairs, [])  # a third faster than list(chain(...)) here
    except TypeError:  # a number or null where a pair should be
        return None
    if not set(map(type, flat)) <= _NUMBERS:
        return None
    try:
        spans = np.array(flat, dtype=np.float64).reshape(-1, 2)
    except OverflowError:  # an integer past float's range (read by `json`, not orjson)
        return None
    starts, ends = spans[:, 0], spans[:, 1]
    if not ((starts >= 0).all() and (ends < _LIMIT_S).all() and (ends >= starts).all()):
        return None
    stops = np.cumsum(np.fromiter(map(len, lists), dtype=np.intp, count=len(lists))).tolist()
    return [spans[start:stop] for start, stop in zip([0, *stops[:-1]], stops, strict=True)]


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while a file's records are read (restarting it
    after, if it ran before).

    Parsed JSON holds no reference cycles, so reference counting frees all of it; but each
    of the millions of lists a large file parses into counts towards the next collection,
    and the collections walk every record and sample still held: about a third of the CPU
    time of reading 30,000 queries (perf/bench_score_process.py).
    """
    running = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if running:
            gc.enable()
