"""Inputs that used to hang or pass silently (issue 38): text arguments over the length limit,
empty values and text that is not Unicode are usage errors before any work; files that FFmpeg
opens but that are not video (text it draws as ANSI art, a still image) are "not a video",
exit 2, in every command that reads a video.
"""

from __future__ import annotations

import json
import time

import pytest

from longground.cli.checks import MAX_PATH_CHARS, MAX_TEXT_CHARS
from tests.support.hostile import FAKE, TEST_ENCODER, call, make_world, register_test_encoder

# A few hundred bytes of notes: FFmpeg's tty demuxer takes a .nfo (or .asc, .ans, .diz) file
# for ANSI art and shows it as a 640x400 "video" of a frame or two.
NOTES = "Shoot notes, day 2\n" + "Bikes at the park; the light was better after four.\n" * 6


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    world = make_world(tmp_path_factory.mktemp("limits"))
    (world.root / "notes.nfo").write_text(NOTES)
    from PIL import Image

    Image.new("RGB", (64, 48), (200, 30, 30)).save(world.root / "still.png")
    for name in ("notes.nfo", "still.png"):
        record = json.loads(world.bench.read_text().splitlines()[0]) | {"video": name}
        (world.root / f"{name}.jsonl").write_text(json.dumps(record) + "\n")
    return world


@pytest.fixture(autouse=True)
def isolated(world, monkeypatch):
    monkeypatch.setenv("LONGGROUND_CACHE", str(world.cache))
    register_test_encoder(monkeypatch)


def one_line_error(argv: list[str]) -> tuple[str, float]:
    """Run `argv`: exit 2 and one error line, returned with the seconds it took."""
    started = time.perf_counter()
    code, _, err = call(argv)
    took_s = time.perf_counter() - started
    lines = err.strip().splitlines()
    assert code == 2 and "Traceback" not in err, err
    assert len(lines) == 1 and lines[0].startswith("longground: error: "), err
    return lines[0], took_s


def test_a_100000_character_query_is_refused_at_once(world):
    query = "a red bicycle " * (100_000 // 14)
    line, took_s = one_line_error(["find", str(world.video), query, "--method", "retrieval"])
    assert "'QUERY'" in line and f"the limit is {MAX_TEXT_CHARS:,}" in line
    assert took_s < 2.0  # refused while parsing: no index, no encoder


@pytest.mark.parametrize(
    ("argv", "name"),
    [
        (["find", "{video}", "a cat", "-m", FAKE, "-p", "k=" + "9" * MAX_TEXT_CHARS], "'--param'"),
        (["eval", "{bench}", "{preds}", "--by", "x" * (MAX_TEXT_CHARS + 1)], "'--by'"),
        (["info", "/" + "d" * MAX_PATH_CHARS], "'videos'"),
        (["run", "{bench}", "-m", FAKE, "--out", "/" + "o" * MAX_PATH_CHARS], "'--out'"),
    ],
)
def test_every_text_and_path_has_a_length_limit(world, argv, name):
    line, _ = one_line_error(world.fill(argv))
    assert name in line and "characters long; the limit is" in line


@pytest.mark.parametrize(
    ("argv", "name"),
    [
        (["sweep", "{bench}", "--out", "{root}/s", "--windows", "", "--encoder", TEST_ENCODER],
         "'--windows'"),
        (["sweep", "{bench}", "--out", "{root}/s", "--frames", ""], "'--frames'"),
        (["find", "", "a cat"], "'VIDEO'"),
        (["report", "{bench}", "{preds}", "--out", ""], "'--out'"),
        (["find", "{video}", "a cat", "-m", FAKE, "--export", ""], "'--export'"),
    ],
)  # fmt: skip
def test_an_empty_value_is_refused_with_its_name(world, argv, name):
    line, _ = one_line_error(world.fill(argv))
    assert name in line and line.endswith("is empty (see 'longground " + argv[0] + " --help')")
    assert not (world.root / "s").exists()


def test_a_query_that_is_not_unicode_is_refused(world):
    query = b"a \xff dog".decode("utf-8", "surrogateescape")  # as Python hands argv over
    line, _ = one_line_error(["find", str(world.video), query, "-m", FAKE])
    assert "'QUERY': is not valid text (a lone surrogate U+DCFF at character 3)" in line


@pytest.mark.parametrize(
    ("name", "reason"),
    [("notes.nfo", "text that FFmpeg would draw as a picture"), ("still.png", "a still image")],
)
@pytest.mark.parametrize(
    "argv",
    [
        ["info", "{file}"],
        ["find", "{file}", "a bicycle", "--encoder", TEST_ENCODER, "--channels", "none"],
        ["find", "{file}", "a bicycle", "--method", "retrieval", "--encoder", TEST_ENCODER],
        ["index", "{file}", "--encoder", TEST_ENCODER],
    ],
    ids=lambda argv: argv[0] + ("-retrieval" if "retrieval" in argv else ""),
)
def test_a_file_that_is_not_video_is_not_a_video(world, argv, name, reason):
    path = world.root / name
    line, _ = one_line_error([a.replace("{file}", str(path)) for a in argv])
    assert line.startswith(f"longground: error: {path}: not a video: {reason}")


@pytest.mark.parametrize("name", ["notes.nfo", "still.png"])
def test_run_records_a_file_that_is_not_video_and_exits_2(world, name, tmp_path):
    out = tmp_path / "p.jsonl"
    bench = world.root / f"{name}.jsonl"
    code, _, err = call(["run", str(bench), "-m", "retrieval", "--encoder", TEST_ENCODER,
                         "--out", str(out)])  # fmt: skip
    assert code == 2 and "Traceback" not in err, err
    (record,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert record["intervals"] is None and f"{name}: not a video" in record["error"]


def test_a_video_whose_length_reads_as_zero_is_not_a_video(world, monkeypatch):
    """A stream with a decodable picture but no positive duration (headers silent, packets
    without durations) is one picture, not a video."""
    import longground.video.container as container
    import longground.video.info as info

    monkeypatch.setattr(container, "_duration_s", lambda *args: None)
    monkeypatch.setattr(info, "_scan_duration_s", lambda video: 0.0)
    line, _ = one_line_error(["info", str(world.video)])
    assert line == f"longground: error: {world.video}: not a video: one picture with no duration"
