"""`find ... --top N`: the best moments across every video, ranked by one score.

Every method's moment score means the same thing in every video (the retrieval method's is
the encoder's absolute score, the agent's a confidence in [0, 1]), so moments of different
videos compare directly.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import typer

from ..errors import UserError
from ..methods import Grounding
from ..timecode import format_time


@dataclass(frozen=True)
class RankedMoment:
    """One moment of one video, with its score and its place among that video's moments."""

    video: Path
    start_s: float
    end_s: float
    score: float
    index: int = 0

    def line(self) -> str:
        """`VIDEO: HH:MM:SS.s-HH:MM:SS.s  score`."""
        return (
            f"{self.video}: {format_time(self.start_s)}-{format_time(self.end_s)}  {self.score:.3f}"
        )

    def record(self, query: str, method: str) -> dict:
        return {"video": str(self.video), "query": query, "method": method,
                "start_s": self.start_s, "end_s": self.end_s, "score": self.score}  # fmt: skip


def top_moments(results: list[tuple[Path, Grounding]], top: int) -> tuple[list[RankedMoment], int]:
    """The `top` best-scoring moments over every video (ties: video order, then time) and
    how many moments there were in all.

    Raises:
        UserError: the method gave moments without scores (nothing to rank them by).

    >>> from longground.moments import Moments
    >>> a = Grounding(Moments.from_list([[0, 5], [10, 12]], [0.2, 0.9]))
    >>> b = Grounding(Moments.from_list([[3, 4]], [0.5]))
    >>> best, found = top_moments([(Path("a.mp4"), a), (Path("b.mp4"), b)], 2)
    >>> [m.line() for m in best], found
    (['a.mp4: 00:00:10.0-00:00:12.0  0.900', 'b.mp4: 00:00:03.0-00:00:04.0  0.500'], 3)
    """
    spans, scores, owners = [np.zeros((0, 2))], [np.zeros(0)], [np.zeros(0, int)]
    for k, (video, grounding) in enumerate(results):
        moments = grounding.moments
        if len(moments) and moments.scores is None:
            raise UserError(f"{video}: the method gave moments without scores; --top needs them")
        spans.append(moments.spans)
        scores.append(np.zeros(0) if moments.scores is None else moments.scores)
        owners.append(np.full(len(moments), k))
    spans, scores, owners = map(np.concatenate, (spans, scores, owners))
    order = np.lexsort((spans[:, 0], owners, -scores))[:top]
    firsts = np.cumsum([0] + [len(g.moments) for _, g in results])
    best = [
        RankedMoment(results[owners[i]][0], float(spans[i, 0]), float(spans[i, 1]),
                     float(scores[i]), int(i - firsts[owners[i]]))
        for i in order
    ]  # fmt: skip
    return best, len(scores)


def kept_per_video(
    results: list[tuple[Path, Grounding]], best: list[RankedMoment]
) -> list[tuple[Path, Grounding]]:
    """Each searched video with only its moments among `best` (none: the video is still
    listed, so exports keep a row for it).

    >>> from longground.moments import Moments
    >>> a = Grounding(Moments.from_list([[0, 5], [10, 12]], [0.2, 0.9]))
    >>> b = Grounding(Moments.from_list([[3, 4]], [0.1]))
    >>> results = [(Path("a.mp4"), a), (Path("b.mp4"), b)]
    >>> best = top_moments(results, 1)[0]
    >>> [(v.name, g.moments.to_list()) for v, g in kept_per_video(results, best)]
    [('a.mp4', [[10.0, 12.0]]), ('b.mp4', [])]
    """
    out = []
    for video, grounding in results:
        keep = np.array(sorted(m.index for m in best if m.video == video), dtype=int)
        out.append((video, Grounding(grounding.moments[keep], grounding.raw, grounding.trace)))
    return out


def library_candidates(grounder, videos: list[Path], query: str, top: int) -> list[Path]:
    """The videos `--top` runs the method on: every one while the library's computed rows
    are at most `index.library_search.ann_from_rows()` (an exact search), else only those
    owning the best rows of the approximate index, in library order.

    Only methods that read the index (`IndexedGrounder`) are narrowed; a video without an
    index entry keeps its place (the method indexes it).
    """
    from ..index.library_search import candidate_videos
    from ..methods.base import IndexedGrounder

    if not isinstance(grounder, IndexedGrounder) or len(videos) < 2:
        return videos
    return candidate_videos(
        grounder.store, grounder.encoder, grounder.config.fps, videos, query, top
    )


def print_top(
    best: list[RankedMoment], found: int, searched: int, query: str, method: str, as_json: bool
) -> None:
    """Print the `best` moments, one per line, each starting with `VIDEO: ` (or one JSON
    object per moment); a summary (`N of FOUND moments in SEARCHED videos`) goes to stderr
    when any video was searched."""
    for moment in best:
        typer.echo(json.dumps(moment.record(query, method)) if as_json else moment.line())
    if searched:
        typer.echo(f"{len(best)} of {found} moments in {searched} "
                   f"video{'s' if searched != 1 else ''}", err=True)  # fmt: skip
