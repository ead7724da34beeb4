"""`find --tracks` and `--count-objects/--count-shots`: the object's tracks on the found
moments, and whether a count is of objects or of shots.

Tracks are a step after grounding (`tracking.on_moments`), whatever the method: the moments
are found first, then the query's target is followed through each of them. A count is of
*objects* (distinct tracks, `tracking.count.count_objects`) when `--count-objects` is given,
or when the query asks how many and neither option is; otherwise it is of *shots* (the
moments). docs/tracks.md defines both.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from ..errors import UserError

Tracks = Annotated[
    bool,
    typer.Option(
        "--tracks",
        help="Follow the query's object through each moment (5 frames a second) and give "
        "its boxes: in --json, --export .jsonl/.csv, and drawn by --thumbs, --timeline and "
        "--clips. Moments found by speech or on-screen text get none.",
    ),
]
CountObjects = Annotated[
    bool | None,
    typer.Option(
        "--count-objects/--count-shots",
        help="Count distinct objects (tracks across the moments) or the moments (shots). "
        "Default: objects when the query asks how many and its object can be followed in "
        "the frame, else shots.",
        show_default=False,
    ),
]


@dataclass(frozen=True)
class TrackRequest:
    """What a search asks of tracks: `tracks` to give them, `count_objects` True/False to
    count objects/shots (None: as the query asks)."""

    tracks: bool = False
    count_objects: bool | None = None

    def check(self, query: str) -> None:
        """Refuse, before any work, `--count-objects` on a target no localiser can follow."""
        from ..tracking.on_moments import target_words

        if self.count_objects:
            words, why = target_words(query)
            if words is None:
                raise UserError(f"--count-objects: {why}")

    def counts_objects(self, query: str) -> bool:
        """Whether the count asked for is of objects (before knowing the target can be
        followed)."""
        from ..query import analyse

        if self.count_objects is not None:
            return self.count_objects
        analysis = analyse(query)
        return analysis.count and not analysis.derived  # gaps and next shots: no objects

    def asks_count(self, query: str) -> bool:
        """Whether the output should say what its count is of."""
        from ..query import analyse

        analysis = analyse(query)  # cuts, shots and black frames are the moments themselves
        return self.count_objects is not None or (analysis.count and not analysis.target.route.edit)

    def attach(self, video: Path, query: str, moments, channel: str | None,
               progress: bool = True) -> tuple[tuple | None, int | None]:  # fmt: skip
        """The tracks of each moment (None: not asked for) and the objects count (None: the
        count is of shots). A target that cannot be followed gives a note, not an error."""
        from ..tracking.count import count_objects
        from ..tracking.on_moments import target_words, tracks_on

        objects_wanted = self.counts_objects(query)
        if not (self.tracks or objects_wanted):
            return None, None
        words, why = target_words(query, channel)
        if words is None:
            what = "no tracks" if self.tracks else "counting shots, not objects"
            _note(f"{video}: {what}: {why}")
            return (tuple(() for _ in range(moments.count)) if self.tracks else None), None
        tracks = tracks_on(video, moments, words, progress=progress)
        objects = count_objects([t for ts in tracks for t in ts]) if objects_wanted else None
        return (tuple(tuple(ts) for ts in tracks) if self.tracks else None), objects


def count_line(n: int, found: int, objects: int | None, asks_count: bool) -> str:
    """The last line of `find`: the moments (`found` before `--max`), and what a count is of.

    >>> count_line(3, 3, 7, True), count_line(3, 5, None, True), count_line(1, 1, None, False)
    ('3 moments, 7 objects (distinct tracks)', '3 of 5 moments (shots)', '1 moment')
    """
    of = f" of {found}" if found != n else ""
    noun = "moment" if (found if of else n) == 1 else "moments"
    line = f"{n}{of} {noun}"
    if objects is not None:
        return f"{line}, {objects} object{'' if objects == 1 else 's'} (distinct tracks)"
    return f"{line} (shots)" if asks_count else line


def record_fields(record: dict, tracks: tuple | None, objects: int | None,
                  asks_count: bool) -> dict:  # fmt: skip
    """The `--json` object with each moment's `tracks` (when given), `objects` (when
    counted) and `counted` ("objects" or "shots", when the query asks how many or an option
    chose)."""
    if tracks is not None:
        for moment, moment_tracks in zip(record["moments"], tracks):
            moment["tracks"] = [track.to_dict() for track in moment_tracks]
    if objects is not None:
        record["objects"] = objects
    if objects is not None or asks_count:
        record["counted"] = "objects" if objects is not None else "shots"
    return record


def _note(line: str) -> None:
    typer.echo(f"longground: note: {line}", err=True)
