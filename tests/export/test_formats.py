"""Every export reads back, through the library that owns the format, as the same moments to
one frame; markers keep the query, score and colour wherever the format can hold them.

The acceptance matrix: every editing format x {5, 24000/1001, 25, 30000/1001 drop-frame,
60} fps. A format that cannot count a rate refuses it with one line (`check_rates`, which
`find` calls before searching). Where an adapter drops a field, a plain XML or text reader
checks it: the FCPXML adapter reads no `note` and counts 29.97 as 29 frames a second; the
CMX adapter reads `* LOC:` lines only with `:` (not the `;` of drop-frame timecode).
"""

from __future__ import annotations

import csv
import re
from fractions import Fraction
from pathlib import Path
from urllib.parse import unquote, urlparse
from xml.etree import ElementTree

import pytest

from longground.errors import UserError
from longground.export import EXPORTERS, Found, SourceClock, check_rates, export, export_selects
from longground.export.fcp7 import PREMIERE_COLOURS
from longground.moments import Moments

otio = pytest.importorskip("opentimelineio")
pysubs2 = pytest.importorskip("pysubs2")

SPANS = [[1.2, 4.8], [6.0, 7.03], [12.345, 20.5], [3599.9, 3605.25]]
SCORES = [0.9, 0.5, 0.7, 0.1]
COLOURS = ["GREEN", "YELLOW", "YELLOW", "RED"]  # the score bands of SCORES
VIDEO = "/footage/Day 1/clip é #1.mp4"
RATES = {  # name -> (rate, drop frame)
    "5": (Fraction(5), False),
    "23.976": (Fraction(24000, 1001), False),
    "25": (Fraction(25), False),
    "29.97DF": (Fraction(30000, 1001), True),
    "60": (Fraction(60), False),
}
SMPTE_ONLY = {".edl", ".xml"}  # formats that write timecode


def found(rate: Fraction, drop: bool = False, video: str = VIDEO, start: int = 0) -> Found:
    clock = SourceClock(rate, 3700.0, drop, start, 640, 360)
    return Found(Path(video), "a Car", Moments.from_list(SPANS, SCORES), clock, "agent", "visual")


def assert_to_a_frame(read: list[tuple[float, float]], rate: Fraction) -> None:
    assert len(read) == len(SPANS), read
    frame_s = float(1 / rate)
    for (start_s, end_s), (want_start, want_end) in zip(read, SPANS):
        assert abs(start_s - want_start) <= frame_s, (start_s, want_start, rate)
        assert abs(end_s - want_end) <= frame_s, (end_s, want_end, rate)


def path_of(url: str) -> str:
    return unquote(urlparse(url).path)


def otio_markers(timeline) -> list:
    clip = next(iter(timeline.find_clips()))
    return clip, list(clip.markers)


def seconds(value: float, rate: Fraction) -> float:
    return float(Fraction(value).limit_denominator(10**6) / rate)


def read_otio(path: Path, rate: Fraction, drop: bool) -> None:
    timeline = otio.adapters.read_from_file(str(path))
    clip, markers = otio_markers(timeline)
    assert path_of(clip.media_reference.target_url) == VIDEO
    assert clip.metadata["longground"]["drop_frame"] is drop
    assert_to_a_frame([(m.marked_range.start_time.to_seconds(),
                        m.marked_range.end_time_exclusive().to_seconds()) for m in markers], rate)
    assert [m.name for m in markers] == ["a Car"] * 4
    assert [m.color for m in markers] == COLOURS
    assert [m.metadata["longground"]["score"] for m in markers] == SCORES
    assert markers[0].metadata["longground"]["comment"] == "score 0.900, 1st of 4, agent"


LOC = re.compile(r"^\* LOC: (\d\d:\d\d:\d\d[:;]\d\d) (\w+)\s+(.*)$")


def read_edl(path: Path, rate: Fraction, drop: bool) -> None:
    text = path.read_text(encoding="utf-8")
    assert f"FCM: {'DROP FRAME' if drop else 'NON-DROP FRAME'}" in text
    assert f"* FROM CLIP NAME:  {Path(VIDEO).name}" in text
    assert "AX " in text and "clip  1" not in text  # the reel, not a truncated file name
    timeline = otio.adapters.read_from_file(str(path), rate=float(rate))
    clip = next(iter(timeline.find_clips()))
    assert clip.name == Path(VIDEO).name
    assert clip.source_range.start_time.value == 0
    locators = [LOC.match(line) for line in text.splitlines() if line.startswith("* LOC:")]
    starts = [otio.opentime.from_timecode(m.group(1), float(rate)).to_seconds() for m in locators]
    assert [m.group(2) for m in locators] == COLOURS
    assert all(m.group(3).startswith("a Car (score ") for m in locators)
    assert all((";" in m.group(1)) is drop for m in locators)
    frame_s = float(1 / rate)
    assert all(abs(s - want) <= frame_s for s, (want, _) in zip(starts, SPANS)), starts
    if not drop:  # the adapter reads locators written with ':'
        markers = clip.markers
        assert [m.color for m in markers] == COLOURS
        assert [m.marked_range.start_time.to_seconds() for m in markers] == starts


def read_fcp7(path: Path, rate: Fraction, drop: bool) -> None:
    timeline = otio.adapters.read_from_file(str(path), adapter_name="fcp_xml")
    clip, markers = otio_markers(timeline)
    assert path_of(clip.media_reference.target_url) == VIDEO
    assert [m.name for m in markers] == ["a Car"] * 4
    # In and out count frames from the media's first frame, as clip items do.
    assert_to_a_frame([(seconds(m.marked_range.start_time.value, rate),
                        seconds(m.marked_range.end_time_exclusive().value, rate))
                       for m in markers], rate)  # fmt: skip
    comments = [m.metadata["fcp_xml"]["comment"] for m in markers]
    assert comments[0] == "score 0.900, 1st of 4, agent"
    colours = [int(m.metadata["fcp_xml"]["pproColor"]) for m in markers]
    assert colours == [PREMIERE_COLOURS[c] for c in COLOURS]
    root = ElementTree.parse(path).getroot()
    assert root.find(".//file/timecode/displayformat").text == ("DF" if drop else "NDF")


def fcpx_time(text: str) -> Fraction:
    return Fraction(text.rstrip("s"))


def read_fcpxml(path: Path, rate: Fraction, drop: bool) -> None:
    root = ElementTree.parse(path).getroot()
    fmt = root.find("resources/format")
    assert fcpx_time(fmt.get("frameDuration")) == 1 / rate
    assert path_of(root.find("resources/asset").get("src")) == VIDEO
    clip = root.find("asset-clip")
    assert clip.get("tcFormat") == ("DF" if drop else "NDF")
    markers = clip.findall("marker")
    starts = [fcpx_time(m.get("start")) for m in markers]
    ends = [s + fcpx_time(m.get("duration")) for s, m in zip(starts, markers)]
    assert all((s * rate).denominator == 1 for s in starts + ends)  # on whole frames
    assert_to_a_frame([(float(s), float(e)) for s, e in zip(starts, ends)], rate)
    assert [m.get("value") for m in markers] == ["a Car"] * 4
    assert markers[0].get("note") == "score 0.900, 1st of 4, agent, green"
    assert [m.get("completed") for m in markers] == ["1", None, None, "0"]
    read = otio.adapters.read_from_file(str(path), adapter_name="fcpx_xml")
    adapted = next(iter(read.find_clips()))
    assert [m.name for m in adapted.markers] == ["a Car"] * 4
    assert [m.color for m in adapted.markers] == ["GREEN", "PURPLE", "PURPLE", "RED"]
    if rate.denominator == 1:  # the adapter counts a rate as its integer part
        frame_s = float(1 / rate)  # and truncates start and duration apart: starts only
        read = [m.marked_range.start_time.to_seconds() for m in adapted.markers]
        assert all(abs(got - want) <= frame_s for got, (want, _) in zip(read, SPANS)), read


READERS = {".otio": read_otio, ".edl": read_edl, ".xml": read_fcp7, ".fcpxml": read_fcpxml}


@pytest.mark.parametrize("rate_name", sorted(RATES))
@pytest.mark.parametrize("suffix", sorted(READERS))
def test_markers_read_back_in_every_format_at_every_rate(tmp_path, suffix, rate_name):
    rate, drop = RATES[rate_name]
    path = tmp_path / f"m{suffix}"
    item = found(rate, drop)
    if suffix in SMPTE_ONLY and rate == 5:
        with pytest.raises(UserError, match="cannot hold .* at 5 fps"):
            check_rates(path, [(item.video, item.clock)], "--export")
        with pytest.raises(UserError, match="5 fps"):
            export(path, [item])
        assert not path.exists()
        return
    check_rates(path, [(item.video, item.clock)], "--export")
    export(path, [item])
    READERS[suffix](path, rate, drop)


@pytest.mark.parametrize("suffix", sorted(READERS))
def test_a_start_timecode_moves_the_markers_with_it(tmp_path, suffix):
    """A camera file starting at 01:00:00;00 (frame 107892 at 29.97 drop-frame)."""
    rate, start = Fraction(30000, 1001), 107892
    path = tmp_path / f"m{suffix}"
    export(path, [found(rate, True, start=start)])
    first = round(Fraction(1.2) * rate)  # the first moment's first frame, from the file start
    if suffix == ".otio":
        marker = otio_markers(otio.adapters.read_from_file(str(path)))[1][0]
        assert marker.marked_range.start_time.value == start + first
    elif suffix == ".edl":
        assert "* LOC: 01:00:01;06 GREEN" in path.read_text(encoding="utf-8")
    elif suffix == ".xml":
        root = ElementTree.parse(path).getroot()
        assert root.find(".//file/timecode/string").text == "01:00:00;00"
        assert root.find(".//clipitem/marker/in").text == str(first)
    else:
        clip = ElementTree.parse(path).getroot().find("asset-clip")
        assert fcpx_time(clip.get("start")) * rate == start
        assert fcpx_time(clip.find("marker").get("start")) * rate == start + first


def test_several_videos_are_clips_of_their_own_with_names_that_differ(tmp_path):
    rate = Fraction(25)
    items = [found(rate, video="/a/day1/c.mp4"), found(rate, video="/a/day2/c.mp4")]
    export(tmp_path / "m.otio", items)
    names = [c.name for c in otio.adapters.read_from_file(str(tmp_path / "m.otio")).find_clips()]
    assert names == ["day1/c.mp4", "day2/c.mp4"]
    export_selects(tmp_path / "s.otio", items)
    selects = otio.adapters.read_from_file(str(tmp_path / "s.otio"))
    names = [c.name for c in selects.find_clips()]
    assert len(names) == 8 and len(set(names)) == 8, names  # were "a Car 1" twice
    assert_to_a_frame([(c.source_range.start_time.to_seconds(),
                        c.source_range.end_time_exclusive().to_seconds())
                       for c in list(selects.find_clips())[:4]], rate)  # fmt: skip


@pytest.mark.parametrize("rate_name", ["23.976", "25", "29.97DF"])
def test_the_selects_edl_reads_back_a_clip_per_moment(tmp_path, rate_name):
    rate, drop = RATES[rate_name]
    export_selects(tmp_path / "s.edl", [found(rate, drop)])
    timeline = otio.adapters.read_from_file(str(tmp_path / "s.edl"), rate=float(rate))
    assert_to_a_frame([(c.source_range.start_time.to_seconds(),
                        c.source_range.end_time_exclusive().to_seconds())
                       for c in timeline.find_clips()], rate)  # fmt: skip


def test_an_edl_refuses_videos_of_different_rates(tmp_path):
    items = [found(Fraction(25)), found(Fraction(30), video="/videos/b.mp4")]
    with pytest.raises(UserError, match="one frame rate"):
        check_rates(tmp_path / "m.edl", [(i.video, i.clock) for i in items], "--export")
    with pytest.raises(UserError, match="one frame rate"):
        export(tmp_path / "m.edl", items)
    assert not (tmp_path / "m.edl").exists()


def test_fcp7_xml_refuses_a_rate_without_timecode_but_fcpxml_takes_it(tmp_path):
    item = found(Fraction(25, 2))
    with pytest.raises(UserError, match="12.5 fps"):
        check_rates(tmp_path / "m.xml", [(item.video, item.clock)], "--export")
    export(tmp_path / "m.fcpxml", [item])
    fmt = ElementTree.parse(tmp_path / "m.fcpxml").getroot().find("resources/format")
    assert fmt.get("frameDuration") == "2/25s"


@pytest.mark.parametrize("suffix", [".srt", ".vtt"])
def test_subtitles_read_back_one_cue_per_moment(tmp_path, suffix):
    path = tmp_path / f"m{suffix}"
    export(path, [found(Fraction(25))])
    subs = pysubs2.load(str(path))
    assert_to_a_frame([(e.start / 1000, e.end / 1000) for e in subs], Fraction(25))
    assert {e.text for e in subs} == {"a Car"}


def test_csv_has_clock_times_and_a_row_for_a_video_without_a_moment(tmp_path):
    path = tmp_path / "m.csv"
    none = Found(Path("/v/b.mp4"), "a Car", Moments.empty(), method="agent")
    export(path, [found(Fraction(25)), none])
    rows = list(csv.DictReader(path.open(encoding="utf-8")))
    assert list(rows[0]) == ["video", "query", "start", "end", "start_s", "end_s", "score",
                             "method", "channel"]  # fmt: skip
    assert [[float(r["start_s"]), float(r["end_s"])] for r in rows[:4]] == SPANS
    assert [r["start"] for r in rows[:4]] == ["00:00:01.200", "00:00:06.000", "00:00:12.345",
                                              "00:59:59.900"]  # fmt: skip
    assert rows[3]["end"] == "01:00:05.250" and rows[0]["score"] == "0.9"
    assert rows[4] == {"video": "/v/b.mp4", "query": "a Car", "start": "", "end": "",
                       "start_s": "", "end_s": "", "score": "", "method": "agent",
                       "channel": ""}  # fmt: skip


@pytest.mark.parametrize("suffix", sorted(EXPORTERS))
def test_no_moments_still_writes_a_readable_file(tmp_path, suffix):
    path = tmp_path / f"m{suffix}"
    clock = SourceClock(Fraction(25), 10.0)
    export(path, [Found(Path("/v/a.mp4"), "a giraffe", Moments.empty(), clock)])
    assert path.exists()
    if suffix == ".edl":
        assert not list(otio.adapters.read_from_file(str(path), rate=25).find_clips())
    if suffix in (".xml", ".fcpxml"):
        ElementTree.parse(path)


def test_an_unknown_suffix_names_the_known_ones(tmp_path):
    with pytest.raises(UserError, match=r"\.csv, \.srt.*\.fcpxml, \.xml"):
        export(tmp_path / "m.mov", [found(Fraction(25))])
    with pytest.raises(UserError, match=r"--selects .*use one of \.otio, \.edl"):
        export_selects(tmp_path / "m.csv", [found(Fraction(25))])
