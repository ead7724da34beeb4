"""Every export reads back, through the library that owns the format, as the same moments to
one frame."""

from __future__ import annotations

import csv
from fractions import Fraction
from pathlib import Path

import pytest

from longground.errors import UserError
from longground.export import EXPORTERS, Found, export
from longground.moments import Moments

otio = pytest.importorskip("opentimelineio")
pysubs2 = pytest.importorskip("pysubs2")

RATES = [Fraction(25), Fraction(30000, 1001), Fraction(24000, 1001)]
SPANS = [[1.2, 4.8], [6.0, 7.03], [12.345, 20.5], [3599.9, 3605.25]]


def found(rate: Fraction, video: str = "/videos/a.mp4") -> Found:
    return Found(Path(video), "a car", Moments.from_list(SPANS, [0.9, 0.5, 0.7, 0.1]), rate)


def assert_same_to_a_frame(read: list[tuple[float, float]], rate: Fraction) -> None:
    assert len(read) == len(SPANS)
    frame_s = float(1 / rate)
    for (start_s, end_s), (want_start, want_end) in zip(read, SPANS):
        assert abs(start_s - want_start) <= frame_s, (start_s, want_start)
        assert abs(end_s - want_end) <= frame_s, (end_s, want_end)


def clips_of(timeline) -> list[tuple[float, float]]:
    out = []
    for clip in timeline.find_clips():
        r = clip.source_range
        out.append((r.start_time.to_seconds(), r.end_time_exclusive().to_seconds()))
    return out


@pytest.mark.parametrize("rate", RATES)
def test_otio_reads_back_frame_exact_with_the_video_as_media(tmp_path, rate):
    path = tmp_path / "m.otio"
    export(path, [found(rate)])
    timeline = otio.adapters.read_from_file(str(path))
    assert_same_to_a_frame(clips_of(timeline), rate)
    clip = next(iter(timeline.find_clips()))
    assert clip.media_reference.target_url == "file:///videos/a.mp4"
    assert clip.source_range.start_time.rate == pytest.approx(float(rate))
    assert clip.source_range.start_time.value == round(1.2 * rate)


@pytest.mark.parametrize("rate", RATES)
def test_edl_reads_back_through_the_cmx_adapter(tmp_path, rate):
    path = tmp_path / "m.edl"
    export(path, [found(rate)])
    timeline = otio.adapters.read_from_file(str(path), rate=float(rate))
    assert_same_to_a_frame(clips_of(timeline), rate)


def test_edl_refuses_videos_of_different_rates(tmp_path):
    with pytest.raises(UserError, match="one frame rate"):
        export(tmp_path / "m.edl", [found(Fraction(25)), found(Fraction(30), "/videos/b.mp4")])
    assert not (tmp_path / "m.edl").exists()


@pytest.mark.parametrize("suffix", [".srt", ".vtt"])
def test_subtitles_read_back_one_cue_per_moment(tmp_path, suffix):
    path = tmp_path / f"m{suffix}"
    export(path, [found(Fraction(25))])
    subs = pysubs2.load(str(path))
    assert_same_to_a_frame([(e.start / 1000, e.end / 1000) for e in subs], Fraction(25))
    assert {e.text for e in subs} == {"a car"}


def test_csv_has_the_header_and_every_moment(tmp_path):
    path = tmp_path / "m.csv"
    export(path, [found(Fraction(25))])
    rows = list(csv.DictReader(path.open(encoding="utf-8")))
    assert list(rows[0]) == ["video", "query", "start_s", "end_s", "score"]
    assert [[float(r["start_s"]), float(r["end_s"])] for r in rows] == SPANS
    assert rows[0]["score"] == "0.9"


@pytest.mark.parametrize("suffix", sorted(EXPORTERS))
def test_no_moments_still_writes_a_readable_file(tmp_path, suffix):
    path = tmp_path / f"m{suffix}"
    export(path, [Found(Path("/v/a.mp4"), "a giraffe", Moments.empty(), Fraction(25))])
    assert path.exists()
    if suffix == ".edl":
        assert not list(otio.adapters.read_from_file(str(path), rate=25).find_clips())


def test_an_unknown_suffix_names_the_known_ones(tmp_path):
    with pytest.raises(UserError, match=r"\.csv, \.srt"):
        export(tmp_path / "m.xml", [found(Fraction(25))])
