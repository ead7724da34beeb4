"""Pictures of found moments: a contact sheet (a frame per moment, with its timecode and
score) and a timeline strip of each whole video with its moments marked. PNG, matplotlib.
Moments that carry tracks have them drawn (`overlay.draw_tracks`): on the sheet's frame,
which then shows the moment where a track has a box, and on the strip's frames that fall
inside a tracked moment."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..atomic import atomic_open
from ..errors import require
from ..timecode import format_time
from .found import Found
from .overlay import draw_tracks, shown_time

THUMB_SIDE = 180  # short side of each frame, in pixels
SHEET_COLUMNS = 4
STRIP_FRAMES = 10  # frames shown along each video's strip
STRIP_WIDTH_IN = 12.0  # the strip's width
MARGIN_IN, TITLE_IN, BAR_IN, BAR_GAP_IN, TICKS_IN = 0.4, 0.3, 0.4, 0.08, 0.3  # inches
DPI = 100


def moment_label(start_s: float, end_s: float, score: float | None) -> str:
    """`00:00:01.2-00:00:04.8  0.90`: the moment's timecodes and its score.

    >>> moment_label(1.2, 4.8, 0.9)
    '00:00:01.2-00:00:04.8  0.90'
    """
    text = f"{format_time(start_s)}-{format_time(end_s)}"
    return text if score is None else f"{text}  {score:.2f}"


def contact_sheet(found: Sequence[Found], path: Path) -> int:
    """Write a grid of the middle frame of every moment to `path`; returns the frame count.

    With no moment at all the sheet says so in words.
    """
    from ..video import frames_at

    cells = []
    named = len({item.video for item in found}) > 1
    for item in found:
        if not item.moments.count:
            continue
        shown = [shown_time(s, e, item.moment_tracks(k))
                 for k, (s, e) in enumerate(item.moments.spans)]  # fmt: skip
        frames = frames_at(item.video, shown, short_side=THUMB_SIDE).frames
        scores = item.moments.scores
        for k, ((start_s, end_s), frame) in enumerate(zip(item.moments.spans, frames)):
            label = moment_label(start_s, end_s, None if scores is None else scores[k])
            frame = draw_tracks(frame, item.moment_tracks(k), shown[k])
            cells.append((frame, f"{item.video.name}  {label}" if named else label))
    fig = _sheet(cells, found)
    _save(fig, path)
    return len(cells)


def _sheet(cells: list[tuple[np.ndarray, str]], found: Sequence[Found]):
    columns = max(1, min(SHEET_COLUMNS, len(cells)))
    rows = max(1, -(-len(cells) // columns))
    aspect = cells[0][0].shape[1] / cells[0][0].shape[0] if cells else 16 / 9
    fig = _figure(width_in=3.0 * columns * aspect / (16 / 9), height_in=2.0 * rows + 0.5)
    queries = "; ".join(sorted({item.query for item in found}))
    counted = [item.objects for item in found if item.objects is not None]
    objects = f", {sum(counted)} object{'s' if sum(counted) != 1 else ''} (distinct tracks)"
    fig.suptitle(f"{queries!r}: {len(cells)} moment{'s' if len(cells) != 1 else ''}"
                 f"{objects if counted else ''}", fontsize=12)  # fmt: skip
    axes = fig.subplots(rows, columns, squeeze=False)
    for ax in axes.flat:
        ax.set_axis_off()
    for ax, (frame, label) in zip(axes.flat, cells):
        ax.imshow(frame)
        ax.set_title(label, fontsize=10, family="monospace")
    if not cells:
        axes[0, 0].text(0.5, 0.5, "no moment found", ha="center", va="center", fontsize=12)
    return fig


def timeline_strip(found: Sequence[Found], path: Path) -> None:
    """Write, per video, a strip of frames across the whole video with the moments drawn as
    bars beneath it (time ticks in HH:MM:SS) to `path`.

    Each frame keeps its aspect ratio: the axes are placed in inches, the strip exactly as
    tall as its frames side by side need at the figure's width, and the bar beneath it
    shares its time axis.
    """
    from ..video import frames_at, probe

    rows = []
    for item in found:
        duration_s = float(probe(item.video).duration_s)
        edges_s = np.linspace(0.0, duration_s, STRIP_FRAMES + 1)
        middles_s = (edges_s[:-1] + edges_s[1:]) / 2
        frames = frames_at(item.video, middles_s, short_side=96).frames
        tracks = [t for k in range(item.moments.count) for t in item.moment_tracks(k)]
        picture = np.concatenate([draw_tracks(f, tracks, t) for f, t in zip(frames, middles_s)],
                                 axis=1)  # fmt: skip
        rows.append((item, duration_s, picture, STRIP_WIDTH_IN * len(picture) / picture.shape[1]))
    height_in = sum(TITLE_IN + strip_in + BAR_IN + TICKS_IN for *_, strip_in in rows) + MARGIN_IN
    fig = _figure(STRIP_WIDTH_IN + 2 * MARGIN_IN, height_in, layout=None)
    top_in = height_in - MARGIN_IN / 2
    for item, duration_s, picture, strip_in in rows:
        top_in -= TITLE_IN + strip_in
        strip = fig.add_axes(_inches(fig, top_in, strip_in))
        top_in -= BAR_IN
        bar = fig.add_axes(_inches(fig, top_in, BAR_IN - BAR_GAP_IN))
        top_in -= TICKS_IN
        strip.imshow(picture, extent=(0, duration_s, 0, 1), aspect="auto")  # the box fits it
        strip.set_xlim(0, duration_s)
        strip.set_axis_off()
        strip.set_title(f"{item.video.name}: {item.query!r}, {item.moments.count} moment"
                        f"{'s' if item.moments.count != 1 else ''}", fontsize=11, loc="left")
        _mark_moments(bar, item, duration_s)
        for start_s, end_s in item.moments.spans:  # tint the frames inside a moment too
            strip.axvspan(start_s, end_s, color="tab:orange", alpha=0.25, lw=0)
    _save(fig, path)


def _inches(fig, bottom_in: float, height_in: float) -> list[float]:
    """An axes rectangle `STRIP_WIDTH_IN` wide, in figure fractions."""
    width_in, total_in = fig.get_size_inches()
    return [MARGIN_IN / width_in, bottom_in / total_in, STRIP_WIDTH_IN / width_in,
            height_in / total_in]  # fmt: skip


def _mark_moments(ax, item: Found, duration_s: float) -> None:
    """Moments as orange bars on a 0..duration axis, ticks as HH:MM:SS."""
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    for start_s, end_s in item.moments.spans:
        ax.axvspan(start_s, max(end_s, start_s + duration_s / 500), color="tab:orange")
    ax.set_xlim(0, duration_s)
    ax.set_yticks([])
    ax.xaxis.set_major_locator(MaxNLocator(nbins=10, steps=[1, 2, 3, 5, 6, 10]))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda t, _: format_time(t, decimals=0)))
    ax.tick_params(labelsize=9)


def _figure(width_in: float, height_in: float, layout: str | None = "constrained"):
    require("matplotlib", "report")
    from matplotlib.figure import Figure

    return Figure(figsize=(width_in, height_in), layout=layout)


def _save(fig, path: Path) -> None:
    with atomic_open(path, "wb") as handle:
        fig.savefig(handle, format="png", dpi=DPI)
