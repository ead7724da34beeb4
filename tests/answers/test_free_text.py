"""Free-text answers as models write them: the shapes peer scorers quote, and a generated set
of answers in 25 phrasings whose parsed intervals must score like the intervals they state."""

from __future__ import annotations

import numpy as np
import pytest

from longground.answers import parse_answer
from longground.timecode import format_time

# Model outputs quoted in the comments of lmms-eval's Charades-STA scorer
# (lmms_eval/tasks/charades_sta/eval_tvg.py, `extract_time`) and in issue 22's survey.
PEER_QUOTED = [
    ("Starting time: 0.8 seconds\nEnding time: 1.1 seconds", [[0.8, 1.1]]),
    ("1 .Starting time: 0.8 seconds\nEnding time: 1.1 seconds", [[0.8, 1.1]]),
    ("The start time for this event is 0 seconds, and the end time is 12 seconds.", [[0, 12]]),
    (
        "The event 'person flipped the light switch near the door' starts at 00:00:18 and "
        "ends at 00:00:23.",
        [[18, 23]],
    ),
    ("The given query happens in 20.8 - 30.0 seconds.", [[20.8, 30.0]]),
    ("Starting time: 3.5 seconds\nEnding time: 11.9 seconds", [[3.5, 11.9]]),
    ("The start time for this event is 4 seconds, and the end time is 10 seconds.", [[4, 10]]),
    ("The person starts at 3.5 seconds. It ends at 11.9 seconds.", [[3.5, 11.9]]),
    # Shapes lmms-eval's scorer misreads and longground must keep reading right.
    ("<think>At 2 s nothing; maybe 30 s.</think> 8.7s - 15.2s", [[8.7, 15.2]]),
    ("25.5 - 31.3 seconds", [[25.5, 31.3]]),
    ('{"start": 12.0, "end": 18.5}', [[12.0, 18.5]]),
    ("From 00:01:05 to 00:01:20.", [[65, 80]]),
]

# Variants of the three shapes: labels, verbs, units and line breaks.
VARIANTS = [
    ("Start time: 3.5s, End time: 11.9s", [[3.5, 11.9]]),
    ("Start: 00:03\nEnd: 00:11", [[3, 11]]),
    ("Starting time: 3.5\nEnding time: 11.9", [[3.5, 11.9]]),
    ("The action begins at 3.5 seconds and concludes at 11.9 seconds.", [[3.5, 11.9]]),
    ("The start timestamp is 3.5 seconds and the end timestamp is 11.9 seconds.", [[3.5, 11.9]]),
    ("It begins at about 1 min 5 s.\nIt finishes at around 1 min 20 s.", [[65, 80]]),
    (
        "Event 1 starts at 10 s and ends at 20 s. Event 2 starts at 30 s and ends at 40 s.",
        [[10, 20], [30, 40]],
    ),
    ("The event starts at 00:10:00.\n\nThe event stops at 00:10:30.", [[600, 630]]),
]


@pytest.mark.parametrize(("text", "expected"), PEER_QUOTED + VARIANTS)
def test_quoted_and_variant_shapes(text, expected):
    parsed = parse_answer(text)
    assert parsed.moments is not None, parsed.error
    np.testing.assert_allclose(parsed.moments.spans, np.array(expected, float))


def _s(x: float) -> str:
    return f"{x:g}"


# 25 ways of stating one interval (start_s, end_s), as models phrase them.
PHRASINGS = [
    lambda a, b: f"Starting time: {_s(a)} seconds\nEnding time: {_s(b)} seconds",
    lambda a, b: (
        f"The start time for this event is {_s(a)} seconds, and the end time is {_s(b)} seconds."
    ),
    lambda a, b: f"The person starts at {_s(a)} seconds. It ends at {_s(b)} seconds.",
    lambda a, b: f"The event happens in {_s(a)} - {_s(b)} seconds.",
    lambda a, b: f"{_s(a)}s - {_s(b)}s",
    lambda a, b: f"From {_s(a)} seconds to {_s(b)} seconds.",
    lambda a, b: f"The moment occurs between {_s(a)} and {_s(b)} seconds.",
    lambda a, b: f"[[{_s(a)}, {_s(b)}]]",
    lambda a, b: f'```json\n{{"start": {_s(a)}, "end": {_s(b)}}}\n```',
    lambda a, b: f"It happens from {format_time(a)} to {format_time(b)}.",
    lambda a, b: f"{format_time(a)} - {format_time(b)}",
    lambda a, b: f"Start time: {_s(a)}s, End time: {_s(b)}s",
    lambda a, b: f"The action begins at {_s(a)} seconds and concludes at {_s(b)} seconds.",
    lambda a, b: f"<think>Looking at the frames...</think>\n{_s(a)} - {_s(b)} seconds",
    lambda a, b: f"Answer: The query matches {_s(a)}-{_s(b)} s.",
    lambda a, b: f"The relevant segment is [{_s(a)}, {_s(b)}].",
    lambda a, b: f"Start: {_s(a)} s\nEnd: {_s(b)} s",
    lambda a, b: (
        f"The start timestamp is {_s(a)} seconds and the end timestamp is {_s(b)} seconds."
    ),
    lambda a, b: f"This occurs roughly {_s(a)} s to {_s(b)} s into the video.",
    lambda a, b: f"The event takes place from around {_s(a)} until {_s(b)} seconds.",
    lambda a, b: f'{{"intervals": [[{_s(a)}, {_s(b)}]]}}',
    lambda a, b: f"It starts at {_s(a)} seconds and ends at {_s(b)} seconds.",
    lambda a, b: f"Timestamps: {_s(a)}s–{_s(b)}s.",
    lambda a, b: f"The man begins the action at {_s(a)} seconds.\nHe stops at {_s(b)} seconds.",
    lambda a, b: f"Final answer: {_s(a)} to {_s(b)} seconds",
]


def _iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    inter = np.clip(np.minimum(a[:, 1], b[:, 1]) - np.maximum(a[:, 0], b[:, 0]), 0, None)
    union = (a[:, 1] - a[:, 0]) + (b[:, 1] - b[:, 0]) - inter
    return np.where(union > 0, inter / np.where(union > 0, union, 1), 0.0)


def test_generated_answers_score_like_what_they_state():
    rng = np.random.default_rng(22)
    n_per = 20
    gt_start = np.round(rng.uniform(0, 25, len(PHRASINGS) * n_per), 1)
    gt = np.stack([gt_start, gt_start + np.round(rng.uniform(2, 12, len(gt_start)), 1)], 1)
    stated = np.round(gt + rng.normal(0, 2.0, gt.shape), 1)
    stated[:, 0] = np.clip(stated[:, 0], 0, None)
    stated[:, 1] = np.maximum(stated[:, 1], stated[:, 0] + 0.5)
    parsed = np.zeros_like(stated)
    failures = 0
    for i, (a, b) in enumerate(stated):
        answer = parse_answer(PHRASINGS[i % len(PHRASINGS)](a, b), duration_s=40.0)
        if answer.moments is None or len(answer.moments) == 0:
            failures += 1
            parsed[i] = [0.0, 0.0]  # scored as IoU 0, as the single protocol scores it
        else:
            parsed[i] = answer.moments.spans[0]
    miou_stated = _iou(stated, gt).mean()
    miou_parsed = _iou(parsed, gt).mean()
    assert abs(miou_parsed - miou_stated) <= 0.01, (miou_parsed, miou_stated, failures)
    assert failures <= len(stated) // 100
