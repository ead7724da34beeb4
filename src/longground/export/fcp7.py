"""FCP7 XML (`xmeml`, `.xml`) for Premiere Pro and DaVinci Resolve, written by
OpenTimelineIO's `otio-fcp-adapter`.

The markers: a sequence of the searched videos as whole clips, each clip carrying a marker
per moment. Importing it puts the clips in the bin with their markers (clip markers live on
the master clip in both tools). Each marker has the query as its `<name>`, the score, rank,
method and channel as its `<comment>`, and its colour as `<pproColor>`, the integer Premiere
writes in its own XML (Resolve reads name and comment; it keeps no colour here).

The adapter writes what it finds in a marker's `metadata["fcp_xml"]`, so comment and colour
go there. It counts a clip item's in and out from the media's first frame but writes a
marker's times as given, so markers are handed to it from the media's first frame too (a
file that starts at timecode 01:00:00;00 keeps it in `<file><timecode>`). It writes SMPTE
timecode, so only SMPTE rates are taken (`check_smpte`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO

from ..errors import require
from .clock import check_smpte
from .found import Found
from .otio_timelines import marker_timeline
from .sources import source_clips

#: Premiere Pro's marker colours, as the integers its FCP7 XML export writes.
PREMIERE_COLOURS = {"GREEN": 4281828977, "RED": 4281740498, "YELLOW": 4281049552,
                    "ORANGE": 4280578025, "CYAN": 4292277273, "BLUE": 4294741314,
                    "MAGENTA": 4289825711, "WHITE": 4294967295}  # fmt: skip


def write_fcp7(found: Sequence[Found], handle: IO[str]) -> None:
    """The marker timeline as FCP7 XML.

    Raises:
        UserError: a video at a rate SMPTE timecode does not count.
    """
    otio = require("opentimelineio", "export")
    require("otio_fcp_adapter", "export")
    check_smpte([(s.video, s.clock) for s in source_clips(found)], "FCP7 XML",
                "the FCP7 XML adapter writes timecode, so it")  # fmt: skip
    timeline = marker_timeline(found)
    for clip in timeline.find_clips():
        start = clip.source_range.start_time
        drop = clip.metadata["longground"]["drop_frame"]
        clip.media_reference.metadata["fcp_xml"] = {
            "timecode": {"displayformat": "DF" if drop else "NDF"}
        }
        for marker in clip.markers:
            marker.marked_range = otio.opentime.TimeRange(
                marker.marked_range.start_time - start, marker.marked_range.duration
            )
            marker.metadata["fcp_xml"] = {
                "comment": marker.metadata["longground"]["comment"],
                "pproColor": str(PREMIERE_COLOURS[marker.color]),
            }
    handle.write(otio.adapters.write_to_string(timeline, "fcp_xml"))
