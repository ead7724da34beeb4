"""Windows of bounded queries as people write them: "from 2:40 to 5:20", "between minute 3
and minute 5", "in the first 5 minutes", "after the 10 minute mark", "in the last 5 minutes".

Every time here is a form `longground.timecode.grammar` reads as a point in time (a clock
time `M:SS` or `H:MM:SS`, an amount with its unit, "minute N"); numbers are digits, never
words ("five"), which that grammar does not read.
"""

from __future__ import annotations

from ..meaning import Window
from .phrasing import permuted


def clock(seconds: float) -> str:
    """A time as people write it: `M:SS`, or `H:MM:SS` from an hour on.

    >>> clock(160), clock(3900)
    ('2:40', '1:05:00')
    """
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def _amount(seconds: float, unit_s: int, mark: bool = False) -> str:
    """`5 minutes` (or `the 5 minute mark` with `mark`) in the window's unit."""
    n, word = (round(seconds / 60), "minute") if unit_s == 60 else (round(seconds), "second")
    if mark:
        return f"the {n} {word} mark"
    return f"{n} {word}{'s' * (n != 1)}"


def window_phrases(w: Window) -> list[str]:
    """Every way the wordings say the window `w`.

    >>> window_phrases(Window(160.0, 320.0, 10, to_end=False))
    ['from 2:40 to 5:20', 'between 2:40 and 5:20']
    >>> window_phrases(Window(600.0, 1200.0, 60, to_end=True))[-3:]
    ['after the 10 minute mark', 'in the last 10 minutes', 'from 10:00 until the end']
    """
    a, b = clock(w.start_s), clock(w.end_s)
    out = [f"from {a} to {b}", f"between {a} and {b}"]
    if w.unit_s == 60 and 0 < w.start_s and w.end_s % 60 == 0:
        out.append(f"between minute {w.start_s / 60:g} and minute {w.end_s / 60:g}")
    if w.start_s == 0:
        span = _amount(w.end_s, w.unit_s)
        out += [f"in the first {span}", f"during the first {span}", f"before {b}"]
    if w.to_end and w.start_s > 0:
        out += [f"after {a}", f"from {a} on", f"after {_amount(w.start_s, w.unit_s, True)}"]
        if (w.end_s - w.start_s) % w.unit_s == 0:
            out.append(f"in the last {_amount(w.end_s - w.start_s, w.unit_s)}")
        out.append(f"from {a} until the end")
    return out


def windowed(rng, texts: list[str], w: Window) -> list[str]:
    """Each text with a window phrase in front or behind, the phrases taken in turn."""
    phrases = permuted(rng, window_phrases(w))
    out = []
    for i, text in enumerate(texts):
        phrase = phrases[i % len(phrases)]
        if rng.random() < 0.5:
            out.append(f"{phrase}, {text}")
        elif text.endswith("?"):
            out.append(f"{text[:-1]} {phrase}?")
        else:
            out.append(f"{text} {phrase}")
    return out
