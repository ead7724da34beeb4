"""The fast path of reading records: orjson for parsing, numpy for clean interval lists.

Both fall back to the exact, slower readers whenever the input is anything but plain:
a line orjson refuses (NaN literals, integers past 64 bits, lone surrogates) is parsed by
the standard `json` module, and an interval list that is not all finite non-negative
numbers in ordered pairs goes through the per-interval checks, so errors and their messages
are the same either way. `orjson` comes with the `fast` extra; without it, `json` is used.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from itertools import chain

import numpy as np

_NUMBERS = {int, float}
_LIMIT_S = 1e300  # larger numbers are refused (huge integers overflow float seconds)


def _loader() -> Callable[[str], object]:
    try:
        import orjson
    except ImportError:
        return json.loads
    fast_loads, decode_error = orjson.loads, orjson.JSONDecodeError

    def loads(text: str) -> object:
        try:
            return fast_loads(text)
        except decode_error:  # what orjson refuses, json may accept (NaN, huge ints)
            return json.loads(text)

    return loads


loads = _loader()
loads.__doc__ = """Decode one JSON text: orjson when installed, else (or where it refuses) json.

>>> loads('{"a": [1, 2.5]}'), loads('[NaN]')
({'a': [1, 2.5]}, [nan])
"""


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
    try:  # the pairs' members, in C; a dict pair gives its keys, a string its characters
        kinds = set(map(type, chain.from_iterable(value)))
    except TypeError:  # a pair that is a number
        return None
    if not kinds <= _NUMBERS:  # no bool, str, None, nested list
        return None
    try:
        spans = np.array(value, dtype=np.float64)
    except (OverflowError, TypeError, ValueError):  # ragged, or an int past float range
        return None
    if spans.shape != (len(value), 2):
        return None
    start, end = spans[:, 0], spans[:, 1]
    if not (start.min() >= 0 and (end - start).min() >= 0 and end.max() < _LIMIT_S):
        return None  # also catches nan and inf
    return spans
