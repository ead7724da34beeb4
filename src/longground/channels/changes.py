"""When what is read on screen changes: the moments where the score shown becomes another.

A score is a pair of numbers read on one line ("HOME 2-1 AWAY", "2 : 1"; OCR's letter O for a
0 is undone as in `match`); on a frame that shows both, a pair joined by "-" wins over one
joined by ":", which is more often a clock. The readings give, per frame OCR ran on, the
scores on screen; a change is a frame whose score differs from the last score seen before
it. A score seen on one reading only, between two readings of the same other score, is taken
as a misreading and skipped. Appearing (the first score) and disappearing are not changes.
"""

from __future__ import annotations

import re

import numpy as np

from ..moments import Moments
from .evidence import Readings

#: A change is a moment of this many seconds either side of the frame it was first read on
#: (the picture was sampled; the change happened between that frame and the one before).
CHANGE_HALF_S = 1.0
_SCORE = re.compile(r"(?<![\d.])([\do]{1,3})\s*[-:–]\s*([\do]{1,3})(?![\d.])")


def read_score(line: str) -> tuple[int, int] | None:
    """The score on one line of on-screen text, or None.

    >>> read_score("HOME 2-1 AWAY"), read_score("HOMEO-OAWAY"), read_score("Quarterly")
    ((2, 1), (0, 0), None)
    """
    found = _SCORE.search(line.lower().replace("–", "-"))
    if found is None:
        return None
    home, away = (int(x.replace("o", "0")) for x in found.groups())
    return home, away


def score_sequence(readings: Readings) -> list[tuple[float, tuple[int, int]]]:
    """`(time_s, score)` per frame read that shows a score, in time order (one per frame)."""
    out: list[tuple[float, tuple[int, int]]] = []
    for start_s in np.unique(readings.start_s):
        lines = [t for t, s in zip(readings.text, readings.start_s) if s == start_s]
        found = [(":" in line, score) for line in lines if (score := read_score(line))]
        if found:
            out.append((float(start_s), min(found, key=lambda f: f[0])[1]))
    return out


def score_changes(readings: Readings) -> tuple[Moments, dict]:
    """The moments where the score on screen changes (see the module docstring), and trace
    details: the scores read and the changes found.

    >>> r = Readings.from_rows([(0, 5, "HOME 0-0 AWAY", 1), (5, 9, "HOME 1-0 AWAY", 1),
    ...                         (9, 12, "HOME 1-8 AWAY", 1), (12, 20, "HOME 1-0 AWAY", 1),
    ...                         (20, 30, "HOME 1-1 AWAY", 1)])
    >>> score_changes(r)[0].to_list()
    [[4.0, 6.0], [19.0, 21.0]]
    """
    sequence = score_sequence(readings)
    kept = [
        item
        for i, item in enumerate(sequence)
        if not (0 < i < len(sequence) - 1 and sequence[i - 1][1] == sequence[i + 1][1] != item[1])
    ]
    changes = [(t, score) for i, (t, score) in enumerate(kept) if i and score != kept[i - 1][1]]
    spans = np.array([[t - CHANGE_HALF_S, t + CHANGE_HALF_S] for t, _ in changes], np.float64)
    details = {
        "scores_read": len(sequence),
        "changes": [{"at_s": t, "score": f"{a}-{b}"} for t, (a, b) in changes][:20],
    }
    return Moments(spans.reshape(-1, 2), np.ones(len(changes))), details
