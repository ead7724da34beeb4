"""The `--channels` option shared by `index`, `find` and `run`, and `--subtitles` (`find`,
`run`)."""

from __future__ import annotations

from typing import Annotated

import typer

from ..errors import UserError

Channels = Annotated[
    str | None,
    typer.Option(
        "--channels",
        help="Evidence channels beside the frames: a comma-separated list of speech, text, "
        "people; 'none'; default every channel whose models are installed.",
    ),
]

Subtitles = Annotated[
    str | None,
    typer.Option(
        "--subtitles",
        help="Video-LLM methods (monolithic, hybrid): put the time-stamped transcript and "
        "on-screen text into the prompt: on or off. Default: on; off with --preset paper.",
    ),
]
#: The methods whose prompts take subtitles (`methods.subtitles`).
SUBTITLED_METHODS = ("monolithic", "hybrid")


def subtitles_on(text: str | None, method: str, preset: str | None) -> bool:
    """`--subtitles`: "on" / "off"; unset is on for the Video-LLM methods, except under
    `--preset paper` (both papers send frames only).

    >>> subtitles_on(None, "monolithic", None), subtitles_on(None, "hybrid", "paper")
    (True, False)
    >>> subtitles_on("on", "hybrid", "paper"), subtitles_on(None, "agent", None)
    (True, False)
    """
    if text is None:
        return method in SUBTITLED_METHODS and preset != "paper"
    choice = text.strip().lower()
    if choice not in ("on", "off"):
        raise UserError(f"--subtitles: {text!r}; choose on or off")
    if choice == "on" and method not in SUBTITLED_METHODS:
        raise UserError(
            f"--subtitles on: only the Video-LLM methods take subtitles "
            f"({', '.join(SUBTITLED_METHODS)}), not {method}"
        )
    return choice == "on"


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
