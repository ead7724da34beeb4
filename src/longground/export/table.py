"""CSV: one row per moment, and one row with empty times for a video searched without a
match, so a count per video (`groupby("video").start_s.count()`) keeps its zeros.

Header `video,query,start,end,start_s,end_s,score,method,channel`: `start`/`end` are
`HH:MM:SS.sss` for people and spreadsheets, `start_s`/`end_s` the seconds as plain floats.
When the moments carry tracks (`find --tracks`), a last column `tracks` holds how many each
moment has, and the boxes go to a companion file (`boxes_path`: `NAME.boxes.csv`), one row
per box, which `write_box_csv` writes.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path
from typing import IO

from ..timecode import format_time
from .found import Found

HEADER = ("video", "query", "start", "end", "start_s", "end_s", "score", "method", "channel")
BOX_HEADER = ("video", "query", "moment", "start_s", "end_s", "track_id", "label", "time_s",
              "x0", "y0", "x1", "y1", "confidence")  # fmt: skip


def write_csv(found: Sequence[Found], handle: IO[str]) -> None:
    """Write every moment of `found` as a CSV row (no score: empty), and a row with empty
    times for each search that found nothing.

    >>> import io
    >>> from pathlib import Path
    >>> from longground.moments import Moments
    >>> out = io.StringIO()
    >>> write_csv([Found(Path("a.mp4"), "a car", Moments.from_list([[1.2, 4.8]], [0.9])),
    ...            Found(Path("b.mp4"), "a car", Moments.empty())], out)
    >>> print(out.getvalue().strip())
    video,query,start,end,start_s,end_s,score,method,channel
    a.mp4,a car,00:00:01.200,00:00:04.800,1.2,4.8,0.9,,
    b.mp4,a car,,,,,,,
    """
    tracked = any(item.tracks is not None for item in found)
    writer = csv.writer(handle, lineterminator="\n")
    writer.writerow(HEADER + (("tracks",) if tracked else ()))
    for item in found:
        tail = [item.method or "", item.channel or ""]
        if not item.moments.count:
            writer.writerow([str(item.video), item.query, "", "", "", "", "", *tail]
                            + ([""] if tracked else []))  # fmt: skip
        scores = item.moments.scores
        for k, (start_s, end_s) in enumerate(item.moments.spans):
            score = "" if scores is None else repr(float(scores[k]))
            count = [] if not tracked else [len(item.tracks[k]) if item.tracks else ""]
            writer.writerow([str(item.video), item.query, format_time(start_s, 3),
                             format_time(end_s, 3), repr(float(start_s)), repr(float(end_s)),
                             score, *tail, *count])  # fmt: skip


def boxes_path(path: Path) -> Path:
    """The companion file of a CSV export that holds the tracks' boxes.

    >>> boxes_path(Path("out/moments.csv")).as_posix()
    'out/moments.boxes.csv'
    """
    return Path(path).with_name(f"{Path(path).stem}.boxes.csv")


def write_box_csv(found: Sequence[Found], handle: IO[str]) -> None:
    """Write every box of every track as a row: the moment it belongs to (its number in the
    video's CSV rows, from 0, and its span), the track, the box's time and its normalised
    corners (fractions of the frame's width and height).

    >>> import io
    >>> from pathlib import Path
    >>> from longground.moments import Moments
    >>> from longground.track import Track
    >>> track = Track([[0.1, 0.2, 0.3, 0.4]], [1.5], [0.8], 0, "car")
    >>> out = io.StringIO()
    >>> write_box_csv([Found(Path("a.mp4"), "a car", Moments.from_list([[1, 2]]),
    ...                      tracks=((track,),))], out)
    >>> print(out.getvalue().strip())
    video,query,moment,start_s,end_s,track_id,label,time_s,x0,y0,x1,y1,confidence
    a.mp4,a car,0,1.0,2.0,0,car,1.5,0.1,0.2,0.3,0.4,0.8
    """
    writer = csv.writer(handle, lineterminator="\n")
    writer.writerow(BOX_HEADER)
    for item in found:
        for k, (start_s, end_s) in enumerate(item.moments.spans):
            for track in item.moment_tracks(k):
                for t_s, box, confidence in zip(track.times_s, track.boxes, track.confidence):
                    writer.writerow([str(item.video), item.query, k, repr(float(start_s)),
                                     repr(float(end_s)), track.track_id, track.label,
                                     repr(float(t_s)), *(repr(float(v)) for v in box),
                                     repr(float(confidence))])  # fmt: skip
