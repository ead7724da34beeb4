"""The channels end to end on a tiny clip: index, find (routing and trace), transcript,
info; and hostile inputs (no audio, junk audio, 8 channels at 96 kHz, silence, noise)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from longground.cli.main import main

from .clips import face, junk_audio, slide, speech, write_clip

pytest.importorskip("pocketsphinx")
pytest.importorskip("rapidocr_onnxruntime")


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    """6 s: a slide "Budget Review" (0-4 s) then the astronaut (4-8 s); speech at 0.5 s."""
    folder = tmp_path_factory.mktemp("channels")
    said = speech("everybody is waiting for the dinosaur")
    track = np.zeros((1, 22050 * 8), np.int16)
    track[:, 11025 : 11025 + said.shape[1]] = said
    path = write_clip(folder / "talk.mp4", [slide("Budget Review"), face()], 4.0, audio=track)
    return path, folder / "cache"


def run(capsys, *args):
    code = main(list(map(str, args)))
    out, err = capsys.readouterr()
    return code, out, err


def test_index_then_find_by_each_channel(clip, capsys, tmp_path):
    path, cache = clip
    code, out, err = run(capsys, "index", path, "--cache-dir", cache, "--fps", 1, "--channels",
                         "auto")  # fmt: skip
    assert code == 0, err
    assert "channels: speech 1 segments" in out and "people in" in out
    trace = tmp_path / "trace.json"
    code, out, _ = run(capsys, "find", path, "someone says dinosaur", "--cache-dir", cache,
                       "--trace", trace)  # fmt: skip
    assert code == 0 and "1 moment" in out
    assert json.loads(trace.read_text())["route"]["channel"] == "speech"
    code, out, _ = run(capsys, "find", path, "the slide reads budget review", "--cache-dir",
                       cache, "--method", "retrieval")  # fmt: skip
    assert code == 0 and out.startswith("00:00:00.0-00:00:04.0")
    code, out, _ = run(capsys, "find", path, "a face", "--cache-dir", cache, "-c")
    assert (code, out.strip()) == (0, "1")
    code, out, _ = run(capsys, "find", path, "someone says volcano", "--cache-dir", cache)
    assert code == 1


def test_transcript_writes_subtitles(clip, capsys, tmp_path):
    path, cache = clip
    srt, vtt = tmp_path / "t.srt", tmp_path / "t.vtt"
    code, out, _ = run(capsys, "transcript", path, "-o", srt, "-o", vtt, "--cache-dir", cache)
    assert code == 0 and "dinosaur" in out
    assert "-->" in srt.read_text() and vtt.read_text().startswith("WEBVTT")
    code, _, err = run(capsys, "transcript", path, "-o", srt, "--cache-dir", cache)
    assert code == 2 and "--overwrite" in err and err.count("\n") == 1


def test_info_shows_audio(clip, capsys):
    code, out, _ = run(capsys, "info", clip[0])
    assert code == 0 and "aac, 22050 Hz, 1 channel" in out


def test_bad_channels_option(clip, capsys):
    code, _, err = run(capsys, "find", clip[0], "a person", "--channels", "smell")
    assert code == 2 and err.count("\n") == 1 and "smell" in err


def test_no_audio_is_a_note_and_a_speech_query_cannot_be_answered(tmp_path, capsys):
    path = write_clip(tmp_path / "mute.mp4", [slide("Hello")], 2.0)
    cache = tmp_path / "cache"
    code, out, err = run(capsys, "index", path, "--cache-dir", cache, "--channels", "speech,text")
    assert code == 0 and "longground: note:" in err and "no audio stream" in err
    assert "text 1 lines" in out and "speech skipped" in out
    code, _, err = run(capsys, "find", path, "someone says hello", "--cache-dir", cache)
    assert code == 2 and err.count("\n") == 1 and "no audio stream" in err
    code, _, err = run(capsys, "transcript", path, "--cache-dir", cache)
    assert code == 2 and err.count("\n") == 1


def test_junk_audio_warns_and_visual_channels_still_indexed(clip, tmp_path, capsys):
    path = junk_audio(clip[0], tmp_path / "junk.mp4")
    code, out, err = run(capsys, "index", path, "--cache-dir", tmp_path / "c", "--channels",
                         "speech,people")  # fmt: skip
    assert code == 0 and "longground: warning:" in err and "audio unreadable" in err
    assert "Traceback" not in err and "people in" in out


def test_eight_channels_at_96khz_and_long_silence(tmp_path, capsys):
    said = np.resize(speech("dinosaur"), (1, 96000 * 2))
    loud = write_clip(tmp_path / "71.mp4", [slide("x")], 2.0, audio=np.repeat(said, 8, axis=0),
                      rate_hz=96000, layout="7.1")  # fmt: skip
    quiet = write_clip(tmp_path / "quiet.mp4", [slide("x")], 2.0,
                       audio=np.zeros((1, 8000 * 120), np.int16), rate_hz=8000)  # fmt: skip
    for path in (loud, quiet):
        code, _, err = run(capsys, "transcript", path, "--cache-dir", tmp_path / "c")
        assert code in (0, 1) and "Traceback" not in err
    code, out, _ = run(capsys, "info", loud)
    assert "96000 Hz, 8 channels" in out


def test_noise_frame_reads_no_text(tmp_path, capsys):
    noise = np.random.default_rng(0).integers(0, 256, (90, 160, 3), np.uint8)
    path = write_clip(tmp_path / "noise.mp4", [noise], 1.0, fps=1)
    code, out, err = run(capsys, "find", path, "the screen shows hello", "--cache-dir",
                         tmp_path / "c", "--channels", "text")  # fmt: skip
    assert code == 1 and "Traceback" not in err


def test_unreadable_video_is_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(b"not a video at all")
    code, _, err = run(capsys, "find", bad, "someone says hello", "--cache-dir", tmp_path / "c")
    assert code == 2 and err.count("\n") == 1


def test_frames_smaller_than_the_person_detector(tmp_path, capsys):
    path = write_clip(tmp_path / "tiny.mp4", [np.zeros((48, 64, 3), np.uint8)], 1.0, fps=1)
    code, _, err = run(capsys, "find", path, "a person", "--cache-dir", tmp_path / "c")
    assert code == 1 and "Traceback" not in err and "error" not in err


def test_channels_sample_no_faster_than_the_video(tmp_path, capsys):
    path = write_clip(tmp_path / "slow.mp4", [slide("Hi")], 2.0, fps=2)
    code, out, _ = run(capsys, "index", path, "--fps", "1e308", "--channels", "people",
                       "--cache-dir", tmp_path / "c", "--encoder", "label-bridge")  # fmt: skip
    assert code == 0 and "people in 0 of 4 frames" in out
