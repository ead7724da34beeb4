"""`--clips`: each moment is a playable MP4 (PyAV decodes it) of the moment's length, with
the video's sound; pictures: a contact sheet and a timeline strip whose frames keep their
shape; clocks read from files."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from longground.errors import UserError
from longground.export import Found, read_clock
from longground.export.clips import existing_clips, write_clips
from longground.export.pictures import contact_sheet, timeline_strip
from longground.moments import Moments
from tests.support.media import bikes_path, cat_video, tone_video

av = pytest.importorskip("av")
BIKES_KEYFRAMES_S = [0.0, 1.2, 3.04, 5.48, 7.48, 9.68]


def decoded_times(path: Path) -> tuple[list[float], Fraction]:
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        return [float(f.time) for f in container.decode(stream)], stream.average_rate


@pytest.fixture(scope="module")
def cat(tmp_path_factory) -> Path:
    return cat_video(tmp_path_factory.mktemp("media") / "cat.mp4")


def test_exact_clips_have_the_moments_length_to_a_frame(cat, tmp_path):
    spans = [[0.5, 2.0], [3.2, 5.9]]
    written = write_clips([Found(cat, "a cat", Moments.from_list(spans))], tmp_path, exact=True)
    assert [p.name for p in written] == sorted(p.name for p in written)
    for path, (start_s, end_s) in zip(written, spans):
        times, rate = decoded_times(path)
        frame_s = float(1 / rate)
        assert rate == Fraction(30000, 1001)
        assert abs(len(times) * frame_s - (end_s - start_s)) <= frame_s, (path, len(times))
        assert times[0] == 0.0


def test_copied_clips_start_at_the_keyframe_before_and_cover_the_moment(tmp_path):
    bikes = bikes_path()
    spans = [[1.5, 4.0], [7.25, 10.0]]
    written = write_clips([Found(bikes, "x", Moments.from_list(spans))], tmp_path)
    for path, (start_s, end_s) in zip(written, spans):
        keyframe_s = max(k for k in BIKES_KEYFRAMES_S if k <= start_s)
        times, rate = decoded_times(path)
        shown_s = len(times) / float(rate)
        want_s = end_s - keyframe_s
        # Copied packets end with the frames B-frames refer to: a few frames over, never under.
        assert want_s - 1 / float(rate) <= shown_s <= want_s + 4 / float(rate), (path, shown_s)


def test_names_sort_in_time_order_and_existing_clips_are_refused(tmp_path):
    bikes = bikes_path()
    moments = Moments.from_list([[7.0, 8.0], [0.5, 1.0], [2.0, 3.0]])
    written = write_clips([Found(bikes, "x", moments)], tmp_path)
    assert [p.name for p in written] == sorted(p.name for p in written)
    assert written[0].name == "bikes_00-00-00.500-00-00-01.000.mp4"
    before = written[0].stat().st_mtime_ns
    with pytest.raises(UserError, match="exists; pass --overwrite"):
        write_clips([Found(bikes, "x", moments)], tmp_path)
    assert written[0].stat().st_mtime_ns == before
    assert existing_clips([bikes], tmp_path) == written
    assert existing_clips([Path("other.mp4")], tmp_path) == []
    write_clips([Found(bikes, "x", moments)], tmp_path, overwrite=True)
    assert written[0].stat().st_mtime_ns != before


def test_contact_sheet_and_timeline_are_pngs_with_a_frame_per_moment(cat, tmp_path):
    from PIL import Image

    found = [Found(cat, "a cat", Moments.from_list([[3.0, 6.0], [0.2, 1.0]], [0.9, 0.2]))]
    assert contact_sheet(found, tmp_path / "sheet.png") == 2
    timeline_strip(found, tmp_path / "strip.png")
    sheet = np.asarray(Image.open(tmp_path / "sheet.png").convert("RGB"))
    strip = np.asarray(Image.open(tmp_path / "strip.png").convert("RGB"))
    assert sheet.shape[1] > sheet.shape[0] and strip.shape[1] == 1280
    # The moment bars are drawn in orange (tab:orange, #ff7f0e).
    orange = (np.abs(strip.astype(int) - [255, 127, 14]).sum(axis=2) < 30).sum()
    assert orange > 1000
    assert contact_sheet([Found(cat, "a dog", Moments.empty())], tmp_path / "none.png") == 0


def test_the_timeline_strip_keeps_each_frames_shape(tmp_path):
    """A 64x48 (4:3) video of one red scene: its strip is 10 frames side by side, so the red
    box must be 10 x 4 : 3 (`aspect="auto"` in a box of the figure's shape squashed it to
    about 10 x 4 : 5.6)."""
    from PIL import Image

    from tests.support.videos import write_scenes

    video = write_scenes(tmp_path / "red.mp4", seconds=2, fps=10)
    timeline_strip([Found(video, "a car", Moments.empty())], tmp_path / "strip.png")
    picture = np.asarray(Image.open(tmp_path / "strip.png").convert("RGB")).astype(int)
    red = np.abs(picture - [230, 20, 20]).max(axis=2) <= 40
    rows, columns = np.nonzero(red)
    height, width = rows.max() - rows.min() + 1, columns.max() - columns.min() + 1
    assert red[rows.min():rows.max() + 1, columns.min():columns.max() + 1].mean() > 0.95
    assert abs(height / (width / 10) - 0.75) < 0.03, (height, width)


@pytest.mark.parametrize(("name", "audio"), [("a.mp4", "aac"), ("p.mov", "pcm_s16le"),
                                             ("n.mp4", None)])  # fmt: skip
@pytest.mark.parametrize("exact", [False, True])
def test_clips_carry_the_sound_of_the_moment(tmp_path, name, audio, exact):
    """AAC is copied, PCM (which MP4 cannot hold) re-encoded as AAC, a silent video stays
    silent; the sound runs from the clip's first frame to its end."""
    video = tone_video(tmp_path / name, 4.0, Fraction(30000, 1001), audio)
    (clip,) = write_clips([Found(video, "x", Moments.from_list([[1.0, 2.5]]))],
                          tmp_path / "clips", exact=exact)  # fmt: skip
    with av.open(str(clip)) as container:
        kinds = [s.type for s in container.streams]
        if audio is None:
            assert kinds == ["video"]
            return
        assert kinds == ["video", "audio"]
        assert container.streams.audio[0].codec_context.name == "aac"
        samples = sum(frame.samples for frame in container.decode(audio=0))
    times, rate = decoded_times(clip)
    shown_s = len(times) / float(rate)
    assert abs(samples / 16000 - shown_s) <= 0.13, (samples, shown_s)  # two AAC frames


def test_the_clock_of_a_file_reads_its_rate_drop_frame_and_start(tmp_path):
    tagged = tone_video(tmp_path / "cam.mp4", 1.0, Fraction(30000, 1001), None, "01:00:00;00")
    clock = read_clock(tagged)
    assert (clock.fps, clock.drop_frame, clock.start_frame) == (Fraction(30000, 1001), True,
                                                                107892)  # fmt: skip
    assert (clock.width, clock.height) == (64, 48)
    plain = read_clock(tone_video(tmp_path / "plain.mp4", 1.0, Fraction(25), None))
    assert (plain.fps, plain.drop_frame, plain.start_frame) == (Fraction(25), False, 0)
