"""CSV: one row per moment, header `video,query,start_s,end_s,score`."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from typing import IO

from .found import Found

HEADER = ("video", "query", "start_s", "end_s", "score")


def write_csv(found: Sequence[Found], handle: IO[str]) -> None:
    """Write every moment of `found` as a CSV row (seconds as plain floats; no score: empty).

    >>> import io
    >>> from pathlib import Path
    >>> from longground.moments import Moments
    >>> out = io.StringIO()
    >>> write_csv([Found(Path("a.mp4"), "a car", Moments.from_list([[1.2, 4.8]], [0.9]))], out)
    >>> print(out.getvalue().strip())
    video,query,start_s,end_s,score
    a.mp4,a car,1.2,4.8,0.9
    """
    writer = csv.writer(handle, lineterminator="\n")
    writer.writerow(HEADER)
    for item in found:
        scores = item.moments.scores
        for k, (start_s, end_s) in enumerate(item.moments.spans):
            score = "" if scores is None else repr(float(scores[k]))
            writer.writerow([str(item.video), item.query, repr(float(start_s)),
                             repr(float(end_s)), score])  # fmt: skip
