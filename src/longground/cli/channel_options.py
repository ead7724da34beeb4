"""The `--channels` option shared by `index`, `find` and `run`."""

from __future__ import annotations

from typing import Annotated

import typer

Channels = Annotated[
    str | None,
    typer.Option(
        "--channels",
        help="Evidence channels beside the frames: a comma-separated list of speech, text, "
        "people; 'none'; default every channel whose models are installed.",
    ),
]


def index_channels(video, names: tuple[str, ...], fps: float, cache_dir) -> str | None:
    """Extract (or find in the cache) the channels `names` of `video`; the summary line, or
    None when no channel was asked for. Notes and warnings go out as warnings."""
    if not names:
        return None
    from ..channels import ChannelStore

    evidence = ChannelStore(cache_dir).get_or_build(video, names, fps)
    parts = []
    speech, text, people = (evidence.get(n) for n in ("speech", "text", "people"))
    if speech is not None:
        parts.append(f"speech {len(speech.segments)} segments, {len(speech)} words")
    if text is not None:
        parts.append(f"text {len(text)} lines from {text.n_read} frames read")
    if people is not None:
        parts.append(f"people in {int((people.persons > 0).sum())} of {len(people.times_s)} frames")
    parts += [f"{name} skipped" for name in evidence.notes]
    return f"{video}: channels: {'; '.join(parts)}"
