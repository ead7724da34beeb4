"""Writing a synthetic benchmark to disk: the MP4s, a shot list per video, and the JSONL.

The JSONL is the canonical benchmark format that `longground.formats` reads: one object per
line with the keys, in this order, `qid`, `video` (path relative to the JSONL's folder),
`duration` (seconds), `query`, `intervals` (`[[start_s, end_s], ...]`, empty for a negative
query), `attributes` and `domain`.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from ..timecode import format_time
from ..video.writer import VideoWriter
from .render import iter_frames
from .script import Shot, VideoScript


def write_video(
    script: VideoScript,
    path: Path,
    width: int,
    height: int,
    crf: int = 23,
    preset: str = "ultrafast",
    progress: bool = False,
) -> None:
    """Render and encode a script as an H.264 MP4 at the script's constant frame rate."""
    frames = iter_frames(script, width, height)
    if progress:
        from tqdm import tqdm

        frames = tqdm(frames, total=script.n_frames, unit="frame", desc=path.name, leave=False)
    with VideoWriter(path, width, height, fps=script.fps, crf=crf, preset=preset) as writer:
        for frame in frames:
            writer.write(frame)


def _describe(shot: Shot) -> str:
    parts = []
    for app in shot.appearances:
        inst = app.instance
        look = "" if inst.variant == "original" else f" ({inst.variant})"
        how = app.motion + (f" {app.direction}" if app.direction else "")
        parts.append(f"{inst.category}{look} {how}")
    if shot.causal is not None:
        parts.append(f"ball {shot.causal.outcome} {shot.causal.target.category}")
    return "; ".join(parts) or "-"


def shot_list(script: VideoScript) -> str:
    """A tab-separated list of the shots, for people checking what a video shows.

    Columns: start, end (`HH:MM:SS.s`), kind, background, contents.
    """
    lines = ["start\tend\tkind\tbackground\tcontents"]
    fps = Fraction(script.fps)
    for shot in script.shots:
        start = format_time(float(shot.start_frame / fps))
        end = format_time(float(shot.stop_frame / fps))
        bg = shot.background.pattern + (
            f" {shot.background.color}" if shot.background.color else ""
        )
        lines.append(f"{start}\t{end}\t{shot.kind}\t{bg}\t{_describe(shot)}")
    return "\n".join(lines) + "\n"
