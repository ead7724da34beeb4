"""The rules of ExtremeWhenBench's pipeline that code enforces (App. B), as pure functions."""

from __future__ import annotations

import math
import re

import numpy as np

# P4: production-side words a viewer's question must not use. Settable with --cinematic-words.
CINEMATIC_WORDS = (
    "scene", "scenes", "shot", "shots", "cut", "cuts", "camera", "frame", "frames", "footage",
    "clip", "montage", "close-up", "closeup", "zoom", "pan", "fade", "transition",
    "establishing", "sequence", "edit", "angle",
)  # fmt: skip
MIN_WORDS, MAX_WORDS = 8, 18
_WORD = re.compile(r"[A-Za-z0-9]+(?:[-'][A-Za-z0-9]+)*")


def word_count(text: str) -> int:
    """Words in a question (hyphenated and apostrophe words count once).

    >>> word_count("When does the man in the red shirt first open the door?")
    12
    """
    return len(_WORD.findall(text))


def question_problem(text: str, banned: tuple[str, ...] = CINEMATIC_WORDS) -> str | None:
    """Why a P4 question breaks the length or vocabulary rule, or None.

    >>> question_problem("When does the dog jump over the fence in the garden?") is None
    True
    >>> question_problem("When does the camera zoom in on the dog in the garden?")
    "cinematic word 'camera'"
    >>> question_problem("When does the dog jump?")
    '5 words (8-18 allowed)'
    """
    n = word_count(text)
    if not MIN_WORDS <= n <= MAX_WORDS:
        return f"{n} words ({MIN_WORDS}-{MAX_WORDS} allowed)"
    words = {w.lower() for w in _WORD.findall(text)}
    for word in banned:
        if word.lower() in words:
            return f"cinematic word {word!r}"
    return None


def group_by_gap(starts_s: np.ndarray, max_size: int = 15, gap_s: float = 300.0) -> list[list[int]]:
    """P5 groups: neighbouring questions in time order, a group ending when the next GT starts
    more than `gap_s` after the previous one or when it holds `max_size`.

    Args:
        starts_s: `(N,)` GT start times of one video's questions.

    Returns:
        lists of indices into `starts_s`, in time order.

    >>> group_by_gap(np.array([10., 50., 900., 20.]), max_size=2)
    [[0, 3], [1], [2]]
    """
    order = np.argsort(starts_s, kind="stable")
    groups: list[list[int]] = []
    for i in order:
        last = groups[-1][-1] if groups else None
        if last is None or len(groups[-1]) >= max_size or starts_s[i] - starts_s[last] > gap_s:
            groups.append([int(i)])
        else:
            groups[-1].append(int(i))
    return groups


def keep_top(scores: list[float], share: float = 0.3, min_score: float = 7.0) -> list[int]:
    """P5 selection in one group: the top `share` (rounded up) by score, then only those with
    score >= `min_score`. Ties keep the earlier question.

    >>> keep_top([9, 6, 8, 7, 10, 7.5, 3, 8, 9, 2])
    [4, 0, 8]
    >>> keep_top([6, 5, 4])
    []
    """
    n = math.ceil(share * len(scores))
    order = sorted(range(len(scores)), key=lambda i: -scores[i])[:n]
    return [i for i in order if scores[i] >= min_score]


def grid_times(spans: np.ndarray, duration_s: float, pad_s: float = 10.0, fps: float = 1.0,
               max_frames: int = 15 * 64) -> np.ndarray:  # fmt: skip
    """P5 frame times: 1 fps over the union of the padded GT spans (empty time skipped),
    thinned evenly to at most `max_frames`.

    >>> grid_times(np.array([[20., 22.], [100., 101.]]), 200.0, pad_s=1.0).tolist()
    [19.0, 20.0, 21.0, 22.0, 23.0, 99.0, 100.0, 101.0, 102.0]
    """
    times: set[float] = set()
    for start, end in np.asarray(spans, dtype=np.float64).reshape(-1, 2):
        lo, hi = max(0.0, start - pad_s), min(duration_s, end + pad_s)
        times.update(np.round(np.arange(math.floor(lo * fps), math.floor(hi * fps) + 1) / fps, 3))
    out = np.array(sorted(t for t in times if t < duration_s), dtype=np.float64)
    if len(out) > max_frames:
        out = out[np.linspace(0, len(out) - 1, max_frames).round().astype(int)]
    return out


def covered(gt: tuple[float, float], windows: np.ndarray) -> bool:
    """P6: is the GT span inside one of the retrieval windows?

    >>> windows = np.array([[50., 170.], [400., 520.]])
    >>> covered((100, 110), windows), covered((165, 175), windows)
    (True, False)
    """
    windows = np.asarray(windows, dtype=np.float64).reshape(-1, 2)
    return bool(np.any((windows[:, 0] <= gt[0]) & (gt[1] <= windows[:, 1])))
