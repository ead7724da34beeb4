"""FCPXML (`.fcpxml`) for Final Cut Pro, written by OpenTimelineIO's `otio-fcpx-xml-adapter`
and finished here.

The markers: each searched video becomes a browser clip (an `<asset-clip>` at the top of
the document, which Final Cut imports into the event you pick) with a `<marker>` per moment:
`value` = the query, `note` = the score, rank, method, channel and colour. Final Cut has
three marker looks, so the colour goes where it can: GREEN is a completed to-do
(`completed="1"`), RED a to-do (`completed="0"`), every other colour a standard marker (its
name is in the note).

The adapter writes the assets and their clips; it drops markers on top-level clips, knows
eight frame rates (25 fps and 29.97 among them, but not 5, 12.5 or 30000/1001 as it
is exactly) and starts every clip at 0. So the formats are written here from each video's
exact rate (`frameDuration="1001/30000s"`, `"1/5s"`), each clip starts at its file's
timecode with `tcFormat` DF or NDF, and the markers are added, all on whole frames.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import IO
from xml.etree import ElementTree

from ..errors import require
from .clock import SourceClock
from .found import Found
from .otio_timelines import frames_range, media_url
from .sources import SourceClip, source_clips

#: The marker attributes each colour gets (Final Cut's to-do states).
FCP_LOOKS = {"GREEN": {"completed": "1"}, "RED": {"completed": "0"}}


def write_fcpxml(found: Sequence[Found], handle: IO[str]) -> None:
    """The searched videos as Final Cut browser clips with their markers."""
    sources = source_clips(found)
    root = ElementTree.fromstring(_adapter_text(sources))
    resources = root.find("resources")
    for old in resources.findall("format"):
        resources.remove(old)
    formats: dict[tuple, str] = {}
    for k, source in enumerate(sources):
        key = (source.clock.fps, source.clock.width, source.clock.height)
        if key not in formats:
            formats[key] = f"lg-format-{len(formats) + 1}"
            resources.insert(len(formats) - 1, _format(formats[key], source.clock))
        asset = resources.find(f"asset[@name='c{k}']")
        clip = root.find(f"asset-clip[@name='c{k}']")
        _finish(asset, clip, source, formats[key])
    ElementTree.indent(root, "    ")
    text = ElementTree.tostring(root, encoding="unicode")
    handle.write('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE fcpxml>\n' + text + "\n")


def _adapter_text(sources: list[SourceClip]) -> str:
    """The adapter's FCPXML of the videos as top-level clips named `c0`, `c1`, ... (the
    adapter looks clips up by name in XPath, which a `'` in a file name would break; the
    real names are put back afterwards)."""
    otio = require("opentimelineio", "export")
    require("otio_fcpx_xml_adapter", "export")
    bin_ = otio.schema.SerializableCollection(name="longground markers")
    for k, source in enumerate(sources):
        whole = frames_range(otio, source.clock, 0, source.clock.frames)
        reference = otio.schema.ExternalReference(target_url=media_url(source.video),
                                                  available_range=whole)  # fmt: skip
        bin_.append(otio.schema.Clip(name=f"c{k}", media_reference=reference,
                                     source_range=whole))  # fmt: skip
    return otio.adapters.write_to_string(bin_, "fcpx_xml")


def _format(format_id: str, clock: SourceClock) -> ElementTree.Element:
    attributes = {"id": format_id, "frameDuration": _time(Fraction(1) / clock.fps)}
    if clock.width and clock.height:
        attributes.update(width=str(clock.width), height=str(clock.height))
    return ElementTree.Element("format", attributes)


def _finish(asset, clip, source: SourceClip, format_id: str) -> None:
    """The asset and its browser clip with exact times, real names and the markers."""
    clock = source.clock
    start, duration = _frames(clock.start_frame, clock), _frames(clock.frames, clock)
    asset.attrib.update(name=source.video.name, format=format_id, start=start,
                        duration=duration, hasVideo="1")  # fmt: skip
    clip.attrib.update(name=source.label, format=format_id, start=start, duration=duration,
                       tcFormat="DF" if clock.drop_frame else "NDF")  # fmt: skip
    for element in list(clip):  # the adapter's empty note, keywords or metadata go last
        clip.remove(element)
    for _, marker in source.markers:
        attributes = {
            "start": _frames(clock.start_frame + marker.first_frame, clock),
            "duration": _frames(marker.frames, clock),
            "value": marker.name,
            "note": f"{marker.comment}, {marker.colour.lower()}",
            **FCP_LOOKS.get(marker.colour, {}),
        }
        ElementTree.SubElement(clip, "marker", attributes)


def _frames(frames: int, clock: SourceClock) -> str:
    """A whole number of frames as an FCPXML time."""
    return _time(Fraction(frames) / clock.fps)


def _time(seconds: Fraction) -> str:
    """`1001/30000s`, `3s`, `0s`: FCPXML's rational seconds.

    >>> _time(Fraction(1001, 30000)), _time(Fraction(3)), _time(Fraction(0))
    ('1001/30000s', '3s', '0s')
    """
    if seconds.denominator == 1:
        return f"{seconds.numerator}s"
    return f"{seconds.numerator}/{seconds.denominator}s"
