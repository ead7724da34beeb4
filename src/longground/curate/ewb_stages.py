"""ExtremeWhenBench stages P1-P3 (App. B): events from captions, checked on mosaics, deduped.

Events travel between stages as dicts `{"id", "event", "start_s", "end_s"}`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from ..llm.base import Message
from ..timecode import format_time, parse_time
from .prompts import build_prompt
from .source import VIDEO_FILES, FrameSource
from .stage import Call, ReplyError, Stage

VERDICTS = ("verified", "refined", "split", "rejected")
MIN_ASPECTS = 3


def hms(seconds: float) -> str:
    """`HH:MM:SS`, whole seconds (rounded down).

    >>> hms(3723.9)
    '01:02:03'
    """
    return format_time(float(int(seconds)), decimals=0)


def json_value(text: str, kind: type) -> Any:
    """The first JSON `kind` (list or dict) in a reply; `ReplyError` when there is none."""
    decoder = json.JSONDecoder()
    opener = "[" if kind is list else "{"
    for match in re.finditer(re.escape(opener), text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except ValueError:
            continue
        if isinstance(value, kind):
            return value
    raise ReplyError(f"no JSON {'list' if kind is list else 'object'} in the reply")


def span_from(item: dict, duration_s: float) -> tuple[float, float]:
    """`(start_s, end_s)` from an item's "start"/"end" times, checked and clipped to the video.

    >>> span_from({"start": "00:00:05", "end": "00:00:09"}, 60.0)
    (5.0, 9.0)
    """
    try:
        start, end = parse_time(str(item["start"])), parse_time(str(item["end"]))
    except (KeyError, ValueError, TypeError):
        raise ReplyError(f"bad or missing start/end in {json.dumps(item)[:80]}") from None
    start, end = max(0.0, start), min(duration_s, end)
    if not end > start:
        raise ReplyError(f"empty or reversed span in {json.dumps(item)[:80]}")
    return start, end


def caption_lines(captions: list[list], start_s: float, end_s: float) -> str:
    """Caption lines in `[start_s, end_s)`, runs of the same text joined into one line.

    >>> print(caption_lines([[0, "a"], [1, "a"], [2, "b"]], 0, 10))
    00:00:00-00:00:01 a
    00:00:02 b
    """
    lines, run = [], None
    for t, text in captions:
        if not start_s <= t < end_s:
            continue
        if run and run[2] == text:
            run[1] = t
        else:
            if run:
                lines.append(run)
            run = [t, t, text]
    if run:
        lines.append(run)
    return "\n".join(
        f"{hms(a)}-{hms(b)} {c}" if hms(a) != hms(b) else f"{hms(a)} {c}" for a, b, c in lines
    )


class GroupStage(Stage):
    """P1: events from the caption text, one call per `chunk_s` of each video."""

    name = "p1_events"
    prompts = ("build_ewb_group",)

    def __init__(self, captioned: list[dict], chunk_s: float, max_tokens: int = 2048):
        self.captioned, self.chunk_s, self.max_tokens = captioned, chunk_s, max_tokens
        self.settings = {"chunk_s": chunk_s, "videos": [c["qid"] for c in captioned]}

    def calls(self) -> Iterable[Call]:
        for video in self.captioned:
            n = max(1, int(np.ceil(video["duration_s"] / self.chunk_s)))
            for k in range(n):
                lo, hi = k * self.chunk_s, min(video["duration_s"], (k + 1) * self.chunk_s)
                context = {"video": video["video"], "video_id": video["qid"],
                           "duration_s": video["duration_s"], "window": [lo, hi]}  # fmt: skip
                text = build_prompt("build_ewb_group", start_hms=hms(lo), end_hms=hms(hi),
                                    captions=caption_lines(video["captions"], lo, hi))  # fmt: skip
                build = lambda t=text: [Message("user", t)]  # noqa: E731
                yield Call(f"{video['qid']}-w{k}", build, context, self.max_tokens)

    def read(self, call: Call, text: str) -> dict[str, Any]:
        items = json_value(text, list)
        events = []
        for item in items:
            if not isinstance(item, dict) or not str(item.get("event") or "").strip():
                raise ReplyError("an event without a description")
            start, end = span_from(item, call.context["duration_s"])
            events.append({"event": " ".join(str(item["event"]).split()),
                           "start_s": start, "end_s": end})  # fmt: skip
        return {"events": events}


def number_events(records: list[dict]) -> list[dict]:
    """P1 records -> one dict per event with a video-wide id (`VIDEO-e000`), video fields kept."""
    out, seen = [], {}
    for r in records:
        for e in r["events"]:
            k = seen.get(r["video_id"], 0)
            seen[r["video_id"]] = k + 1
            out.append({"id": f"{r['video_id']}-e{k:03d}", "video": r["video"],
                        "video_id": r["video_id"], "duration_s": r["duration_s"], **e})  # fmt: skip
    return out


class VerifyStage(Stage):
    """P2: one 8x8 mosaic of 64 frames over the event +-`pad_s`, one verdict per event."""

    name = "p2_verify"
    prompts = ("build_ewb_verify",)

    def __init__(self, events: list[dict], pad_s: float = 5.0, tile_px: int = 96,
                 max_tokens: int = 512, source: FrameSource = VIDEO_FILES):  # fmt: skip
        self.events, self.pad_s, self.tile_px, self.max_tokens = events, pad_s, tile_px, max_tokens
        self.source = source
        self.settings = {"pad_s": pad_s, "tile_px": tile_px, "grid": [8, 8]}

    def calls(self) -> Iterable[Call]:
        for e in self.events:
            build = lambda e=e: self._messages(e)  # noqa: E731
            yield Call(e["id"], build, dict(e), self.max_tokens)

    def _messages(self, e: dict) -> list[Message]:
        lo = max(0.0, e["start_s"] - self.pad_s)
        hi = min(e["duration_s"], e["end_s"] + self.pad_s)
        times = np.linspace(lo, hi, 64, endpoint=False)
        frames, pts_s = self.source.frames_at(Path(e["video"]), times, self.tile_px)
        image = self.source.sheet(frames, pts_s)
        text = build_prompt("build_ewb_verify", event=e["event"], start_hms=hms(e["start_s"]),
                            end_hms=hms(e["end_s"]), window_start_hms=hms(lo),
                            window_end_hms=hms(hi))  # fmt: skip
        return [Message("user", text, [image])]

    def read(self, call: Call, text: str) -> dict[str, Any]:
        reply = json_value(text, dict)
        verdict = str(reply.get("verdict", "")).strip().lower()
        if verdict not in VERDICTS:
            raise ReplyError(
                f"verdict {reply.get('verdict')!r} is not one of {', '.join(VERDICTS)}"
            )
        e, duration = call.context, call.context["duration_s"]
        kept = {"event": e["event"], "start_s": e["start_s"], "end_s": e["end_s"]}
        if verdict == "refined":
            kept["start_s"], kept["end_s"] = span_from(reply, duration)
        if verdict == "split":
            parts = reply.get("events")
            if not isinstance(parts, list) or len(parts) != 2:
                raise ReplyError("a split must give exactly two events")
            return {"verdict": verdict, "events": [
                {"event": str(p.get("event") or e["event"]), **dict(zip(
                    ("start_s", "end_s"), span_from(p, duration), strict=True))}
                for p in parts if isinstance(p, dict)
            ]}  # fmt: skip
        return {"verdict": verdict, "events": [] if verdict == "rejected" else [kept]}


class DedupStage(Stage):
    """P3: one call per video with two or more events; pairs need >= 3 matching aspects."""

    name = "p3_dedup"
    prompts = ("build_ewb_dedup",)

    def __init__(self, by_video: dict[str, list[dict]], max_tokens: int = 1024):
        self.by_video, self.max_tokens = by_video, max_tokens
        self.settings = {"min_aspects": MIN_ASPECTS}

    def calls(self) -> Iterable[Call]:
        for vid, events in self.by_video.items():
            if len(events) < 2:
                continue
            listing = "\n".join(f"{i + 1}. {e['event']} ({hms(e['start_s'])}-{hms(e['end_s'])})"
                                for i, e in enumerate(events))  # fmt: skip
            text = build_prompt("build_ewb_dedup", events=listing)
            build = lambda t=text: [Message("user", t)]  # noqa: E731
            yield Call(vid, build, {"video_id": vid, "n_events": len(events)}, self.max_tokens)

    def read(self, call: Call, text: str) -> dict[str, Any]:
        reply = json_value(text, dict)
        items = reply.get("duplicates")
        if not isinstance(items, list):
            raise ReplyError("no 'duplicates' list")
        n, pairs, weak = call.context["n_events"], [], 0
        for item in items:
            pair = item.get("pair") if isinstance(item, dict) else None
            if not (isinstance(pair, list) and len(pair) == 2
                    and all(isinstance(i, int) and 1 <= i <= n for i in pair)):  # fmt: skip
                raise ReplyError(f"bad pair {json.dumps(item)[:60]}")
            aspects = item.get("aspects") if isinstance(item.get("aspects"), list) else []
            if len({str(a).lower() for a in aspects}) >= MIN_ASPECTS and pair[0] != pair[1]:
                pairs.append(sorted(pair))
            else:
                weak += 1
        return {"pairs": pairs, "pairs_with_too_few_aspects": weak}


def drop_duplicates(events: list[dict], pairs: list[list[int]]) -> list[dict]:
    """Events without the later (1-based) member of each duplicate pair.

    >>> [e["n"] for e in drop_duplicates([{"n": 1}, {"n": 2}, {"n": 3}], [[1, 3]])]
    [1, 2]
    """
    gone = {max(p) - 1 for p in pairs}
    return [e for i, e in enumerate(events) if i not in gone]
