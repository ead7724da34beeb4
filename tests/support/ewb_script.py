"""A scripted stand-in for a chat model that answers every `build ewb` prompt plausibly.

It reads each prompt the way a model would, from its text (and, for P0, the frames' colours),
and answers deterministically: P0 (with `--captioner llm`) names each frame's strongest colour
channel; P1 turns every run of two or more identical captions into an event; P2 verifies every
event; P3 finds no duplicates; P4 asks when the view first shows the event's first classes; the
P5 pre-pass keeps everything; the main pass scores the i-th question 10 - i (at least 1).
Serve it with `OpenAIStub(responder=ewb_reply)` (tests/openai_stub.py) to run the whole
pipeline offline. It shows the plumbing; it knows nothing about any video.
"""

from __future__ import annotations

import json
import re

import numpy as np

from tests.support.openai_stub import Reply, SeenRequest

_RUN = re.compile(r"^(\d\d:\d\d:\d\d)-(\d\d:\d\d:\d\d) (?:top classes: )?(.+)$", re.M)
_CHANNELS = ("red", "green", "blue")
_MOMENT = re.compile(r'The moment: "(.+?)" \(')
_ITEM = re.compile(r"^(\d+)\. ", re.M)


def _seconds(clock: str) -> int:
    h, m, s = (int(x) for x in clock.split(":"))
    return 3600 * h + 60 * m + s


def group_reply(text: str) -> str:
    events = [
        {"event": f"the view shows {classes.split(',')[0].strip()}", "start": a, "end": b}
        for a, b, classes in _RUN.findall(text)
        if _seconds(b) - _seconds(a) >= 1
    ]
    return json.dumps(events)


def caption_reply(seen: SeenRequest) -> str:
    """P0 with a chat model: each frame's strongest colour channel."""
    captions = [f"mostly {_CHANNELS[int(np.argmax(image.reshape(-1, 3).mean(axis=0)))]}"
                for image in seen.images]  # fmt: skip
    return json.dumps(captions)


def question_reply(text: str) -> str:
    match = _MOMENT.search(text)
    subject = match.group(1).removeprefix("the view shows ") if match else "something"
    words = subject.split()[:4]
    return json.dumps({"question": f"When does the view first show {' '.join(words)} "
                                   "in this recording?"})  # fmt: skip


def score_reply(text: str) -> str:
    ids = [int(i) for i in _ITEM.findall(text.split("Score every question")[0])]
    rows = [{"id": i, "validity": 8, "uniqueness": 8, "difficulty": 8, "overall": max(1, 10 - i)}
            for i in ids]  # fmt: skip
    return json.dumps({"scores": rows})


def ewb_reply(seen: SeenRequest) -> Reply:
    """The scripted answer to one `build ewb` request."""
    text = seen.text
    if "For each frame, write one short sentence" in text:
        return Reply(caption_reply(seen))
    if "Group neighbouring lines" in text:
        return Reply(group_reply(text))
    if "Proposed event:" in text:
        return Reply(json.dumps({"verdict": "verified"}))
    if "describe the same event twice" in text:
        return Reply(json.dumps({"duplicates": []}))
    if "Write one question a viewer" in text:
        return Reply(question_reply(text))
    if "Mark the questions to drop" in text:
        return Reply(json.dumps({"drop": []}))
    if "Score every question" in text:
        return Reply(score_reply(text))
    return Reply.error(400, "the ewb script does not know this prompt")
