"""ExtremeWhenBench stages P4-P5 (App. B): one question per event, then the quality filter.

Items travel as the event dicts of `ewb_stages` plus `question`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from ..llm.base import Message
from .ewb_rules import CINEMATIC_WORDS, grid_times, question_problem
from .ewb_stages import hms, json_value
from .prompts import build_prompt
from .source import VIDEO_FILES, FrameSource
from .stage import Call, ReplyError, Stage

_WORDS = re.compile(r"[a-z]+")


def similar_events(event: dict, others: list[dict], top: int = 5, min_overlap: float = 0.3):
    """Other events of the video whose descriptions share words with this one (Jaccard),
    most similar first: what the question must tell this occurrence apart from.

    >>> e = {"id": "a", "event": "a man opens the door", "start_s": 0.0}
    >>> b = {"id": "b", "event": "the man opens a door", "start_s": 9.0}
    >>> [o["id"] for o in similar_events(e, [e, b, {"id": "c", "event": "rain", "start_s": 1.0}])]
    ['b']
    """
    mine = set(_WORDS.findall(event["event"].lower()))
    scored = []
    for other in others:
        if other["id"] == event["id"]:
            continue
        theirs = set(_WORDS.findall(other["event"].lower()))
        overlap = len(mine & theirs) / max(1, len(mine | theirs))
        if overlap >= min_overlap:
            scored.append((-overlap, other["start_s"], other))
    return [o for _, _, o in sorted(scored, key=lambda s: s[:2])[:top]]


class QuestionStage(Stage):
    """P4: one question per event; length and vocabulary rules are also checked in code."""

    name = "p4_questions"
    prompts = ("build_ewb_question",)

    def __init__(self, events: list[dict], banned: tuple[str, ...] = CINEMATIC_WORDS,
                 max_tokens: int = 256):  # fmt: skip
        self.events, self.banned, self.max_tokens = events, tuple(banned), max_tokens
        self.settings = {"banned": list(self.banned), "words": [8, 18]}

    def calls(self) -> Iterable[Call]:
        by_video: dict[str, list[dict]] = {}
        for e in self.events:
            by_video.setdefault(e["video_id"], []).append(e)
        for e in self.events:
            near = similar_events(e, by_video[e["video_id"]])
            listing = "\n".join(f"- {o['event']} ({hms(o['start_s'])}-{hms(o['end_s'])})"
                                for o in sorted(near + [e], key=lambda o: o["start_s"])
                                if o is not e) or "- none"  # fmt: skip
            text = build_prompt("build_ewb_question", event=e["event"], start_hms=hms(e["start_s"]),
                                end_hms=hms(e["end_s"]), similar=listing,
                                banned=", ".join(self.banned))  # fmt: skip
            build = lambda t=text: [Message("user", t)]  # noqa: E731
            yield Call(e["id"], build, dict(e), self.max_tokens)

    def read(self, call: Call, text: str) -> dict[str, Any]:
        question = json_value(text, dict).get("question")
        if not isinstance(question, str) or not question.strip():
            raise ReplyError("the reply has no 'question' text")
        question = " ".join(question.split())
        return {"question": question, "rejected": question_problem(question, self.banned)}


class PrefilterStage(Stage):
    """P5 pre-pass: one text-only call per video drops bad items (the GT cutoff is code's)."""

    name = "p5_prefilter"
    prompts = ("build_ewb_prefilter",)

    def __init__(self, by_video: dict[str, list[dict]], max_tokens: int = 1024):
        self.by_video, self.max_tokens = by_video, max_tokens
        self.settings = {}

    def calls(self) -> Iterable[Call]:
        for vid, items in self.by_video.items():
            listing = "\n".join(f"{i + 1}. {q['question']} ({hms(q['start_s'])}-{hms(q['end_s'])})"
                                for i, q in enumerate(items))  # fmt: skip
            text = build_prompt("build_ewb_prefilter", items=listing)
            build = lambda t=text: [Message("user", t)]  # noqa: E731
            yield Call(vid, build, {"video_id": vid, "n_items": len(items)}, self.max_tokens)

    def read(self, call: Call, text: str) -> dict[str, Any]:
        drops = json_value(text, dict).get("drop")
        if not isinstance(drops, list):
            raise ReplyError("no 'drop' list")
        out = {}
        for d in drops:
            i = d.get("id") if isinstance(d, dict) else None
            if not isinstance(i, int) or not 1 <= i <= call.context["n_items"]:
                raise ReplyError(f"bad item id in {str(d)[:60]}")
            out[str(i)] = str(d.get("reason") or "")
        return {"drop": out}


class ScoreStage(Stage):
    """P5 main pass: one call per group, with 8x8 grids over the group's GT spans."""

    name = "p5_score"
    prompts = ("build_ewb_score",)

    def __init__(self, groups: list[tuple[str, list[dict]]], tile_px: int = 64,
                 max_grids: int = 15, max_tokens: int = 2048,
                 source: FrameSource = VIDEO_FILES):  # fmt: skip
        self.groups, self.tile_px, self.max_grids = groups, tile_px, max_grids
        self.max_tokens, self.source = max_tokens, source
        self.settings = {"tile_px": tile_px, "max_grids": max_grids, "pad_s": 10.0, "fps": 1.0}

    def calls(self) -> Iterable[Call]:
        for key, items in self.groups:
            context = {"video_id": items[0]["video_id"], "ids": [q["id"] for q in items]}
            build = lambda items=items: self._messages(items)  # noqa: E731
            yield Call(key, build, context, self.max_tokens)

    def _messages(self, items: list[dict]) -> list[Message]:
        spans = np.array([[q["start_s"], q["end_s"]] for q in items])
        times = grid_times(spans, items[0]["duration_s"], max_frames=64 * self.max_grids)
        frames, pts_s = self.source.frames_at(Path(items[0]["video"]), times, self.tile_px)
        grids = [self.source.sheet(frames[i : i + 64], pts_s[i : i + 64])
                 for i in range(0, len(frames), 64)]  # fmt: skip
        listing = "\n".join(f"{i + 1}. {q['question']} (marked: {hms(q['start_s'])}-"
                            f"{hms(q['end_s'])})" for i, q in enumerate(items))  # fmt: skip
        text = build_prompt("build_ewb_score", n_grids=len(grids), items=listing)
        return [Message("user", text, grids)]

    def read(self, call: Call, text: str) -> dict[str, Any]:
        rows = json_value(text, dict).get("scores")
        if not isinstance(rows, list):
            raise ReplyError("no 'scores' list")
        n, scores, details = len(call.context["ids"]), {}, {}
        for row in rows:
            i = row.get("id") if isinstance(row, dict) else None
            overall = row.get("overall") if isinstance(row, dict) else None
            if not isinstance(i, int) or not 1 <= i <= n:
                raise ReplyError(f"bad item id in {str(row)[:60]}")
            if isinstance(overall, bool) or not isinstance(overall, int | float) \
                    or not 1 <= overall <= 10:  # fmt: skip
                raise ReplyError(f"item {i}: overall score {overall!r} is not in 1-10")
            qid = call.context["ids"][i - 1]
            scores[qid] = float(overall)
            details[qid] = {k: row.get(k) for k in ("validity", "uniqueness", "difficulty")}
        return {"scores": scores, "criteria": details, "unscored": n - len(scores)}
