"""Subtitles for a Video-LLM: the time-stamped transcript and on-screen text of a video,
put into the prompt after the instructions (`--subtitles on`, the default of `find` and `run`
for the Video-LLM methods; off under `--preset paper`, since both papers send frames only).

Each line is one speech segment with its words (`said`) or one line of text read on screen
for as long as it stays there (`on screen`), with its span in seconds and clock time. The
channels come from the channels cache (`longground index`), or are extracted on first use
(speech and text only, of those `--channels` selects).
"""

from __future__ import annotations

from pathlib import Path

from ..channels import ChannelStore, Readings, parse_channels
from ..llm.prompts import render_prompt
from ..moments import Moments
from ..timecode import format_time
from .base import MethodConfig

SUBTITLE_CHANNELS = ("speech", "text")
#: At most this many lines go into one prompt (the earliest; the trace says how many were cut).
MAX_LINES = 400

Line = tuple[float, float, str, str]  # (start_s, end_s, "said" | "on screen", text)


def on_screen(readings: Readings) -> list[tuple[float, float, str]]:
    """Each line of text with the span it stays on screen: readings of the same text that
    follow each other without a gap are one span.

    >>> r = Readings.from_rows([(0, 4, "GOAL", 1), (4, 9, "GOAL", 1), (12, 15, "GOAL", 1)])
    >>> on_screen(r)
    [(0.0, 9.0, 'GOAL'), (12.0, 15.0, 'GOAL')]
    """
    open_at: dict[str, list[float]] = {}
    out = []
    for start_s, end_s, text in sorted(zip(readings.start_s, readings.end_s, readings.text)):
        span = open_at.get(text)
        if span is not None and start_s <= span[1] + 1e-6:
            span[1] = max(span[1], float(end_s))
            continue
        if span is not None:
            out.append((span[0], span[1], text))
        open_at[text] = [float(start_s), float(end_s)]
    out += [(a, b, text) for text, (a, b) in open_at.items()]
    return sorted(out)


def subtitle_lines(video: Path, config: MethodConfig, windows: Moments | None = None) -> list[Line]:
    """The subtitle lines of `video` in time order (only those touching `windows` when
    given), from the speech and text channels `config.channels` selects."""
    names = tuple(n for n in parse_channels(config.channels) if n in SUBTITLE_CHANNELS)
    if not names:
        return []
    evidence = ChannelStore(config.cache_dir).get_or_build(video, names, config.fps)
    lines: list[Line] = []
    speech, text = evidence.get("speech"), evidence.get("text")
    if speech is not None:
        lines += [(a, b, "said", words) for a, b, words in speech.lines()]
    if text is not None:
        lines += [(a, b, "on screen", words) for a, b, words in on_screen(text)]
    if windows is not None:
        lines = [line for line in lines if _touches(line, windows)]
    return sorted(lines)


def _touches(line: Line, windows: Moments) -> bool:
    return bool(((windows.starts_s <= line[1]) & (windows.ends_s >= line[0])).any())


def subtitle_text(lines: list[Line]) -> str:
    """The prompt block (`prompts/subtitles.md`) for `lines`, at most `MAX_LINES` of them;
    empty when there are none.

    >>> subtitle_text([(4.1, 6.9, "said", "hello there")]).splitlines()[-1]
    '[4.1 s - 6.9 s] (00:00:04.1 - 00:00:06.9) said: hello there'
    """
    if not lines:
        return ""
    rows = [f"[{a:.1f} s - {b:.1f} s] ({format_time(a)} - {format_time(b)}) {kind}: {text}"
            for a, b, kind, text in lines[:MAX_LINES]]  # fmt: skip
    return render_prompt("subtitles", lines="\n".join(rows))


def with_subtitles(
    prompt: str, video: Path, config: MethodConfig, windows: Moments | None = None
) -> tuple[str, dict]:
    """`prompt` followed by the subtitles block when `config.subtitles` is on, and what
    went into the trace (`lines` sent, `cut` beyond `MAX_LINES`)."""
    if not config.subtitles:
        return prompt, {"subtitles": False}
    lines = subtitle_lines(video, config, windows)
    block = subtitle_text(lines)
    record = {"subtitles": True, "lines": min(len(lines), MAX_LINES),
              "cut": max(0, len(lines) - MAX_LINES)}  # fmt: skip
    return (prompt + "\n" + block if block else prompt), record
