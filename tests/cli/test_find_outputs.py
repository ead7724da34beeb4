"""`find`'s outputs made whole (issue 35) and its messages (issue 38): every output checked
before the search, `--top` writing every output it is given, media links an editor can
follow, one overwrite rule, a silent video a note in a library's speech search, and the
one-line errors that send a person the right way.

The searches use the fake method of `tests/support/run_plugin.py`, registered as `lg-fake`
(its answers depend only on the file's bytes and the query; `$FAKE_INDEX_LOG` records every
video it searched, which proves a refusal came before the search), on small generated
videos.
"""

from __future__ import annotations

import csv
import json
from fractions import Fraction
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from longground.timecode import format_time
from tests.cli.test_hostile_inputs import assert_one_line_error
from tests.support.hostile import call, register_test_encoder
from tests.support.media import tone_video
from tests.support.run_plugin import FAKE, install_plugin

otio = pytest.importorskip("opentimelineio")
# The fake method's spans reach 28 s; scaled to a tenth they fit a 3 s video.
SEARCH = ["-m", "lg-fake", "-p", "scale=0.1"]


@pytest.fixture(scope="module")
def plugin(tmp_path_factory) -> Path:
    return Path(install_plugin(tmp_path_factory.mktemp("plugin")))


@pytest.fixture(autouse=True)
def isolated(plugin, tmp_path, monkeypatch):
    import importlib

    from longground.methods import METHODS

    make = importlib.import_module(FAKE.split(":")[0]).make
    monkeypatch.setitem(METHODS, "lg-fake", make)
    monkeypatch.setenv("LONGGROUND_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("FAKE_INDEX_LOG", str(tmp_path / "searched.log"))
    register_test_encoder(monkeypatch)


def searched(tmp_path: Path) -> list[str]:
    log = tmp_path / "searched.log"
    return log.read_text().split("\n")[:-1] if log.exists() else []


def test_an_edl_at_5_fps_is_refused_before_the_search(tmp_path):
    """It was a traceback (`SMPTE timecode does not support this rate`, exit 1) after the
    search, and the other outputs of the command were never written."""
    video = tone_video(tmp_path / "synth.mp4", 3.0, Fraction(5), None)
    outputs = ["--export", str(tmp_path / "m.edl"), "--export", str(tmp_path / "m.otio"),
               "--thumbs", str(tmp_path / "t.png")]  # fmt: skip
    code, _, err = call(["find", str(video), "a car", *SEARCH, *outputs])
    assert_one_line_error(code, err, "cannot hold")
    assert "at 5 fps" in err and "export .otio, .fcpxml or .csv instead" in err
    assert searched(tmp_path) == [] and not list(tmp_path.glob("m.*"))
    code, _, err = call(["find", str(video), "a car", *SEARCH, *outputs[2:]])
    assert code in (0, 1) and (tmp_path / "m.otio").exists(), err


def test_run_refuses_an_edl_at_5_fps_before_the_run(tmp_path):
    video = tone_video(tmp_path / "synth.mp4", 3.0, Fraction(5), None)
    queries = tmp_path / "q.jsonl"
    queries.write_text(json.dumps({"video": video.name, "query": "a car"}) + "\n")
    code, _, err = call(["run", str(queries), "-m", FAKE, "--out", str(tmp_path / "p.jsonl"),
                         "--export", str(tmp_path / "x.edl")])  # fmt: skip
    assert_one_line_error(code, err, "at 5 fps")
    assert searched(tmp_path) == [] and not (tmp_path / "p.jsonl").exists()


def test_an_edl_of_videos_at_two_rates_is_refused_before_the_search(tmp_path):
    a = tone_video(tmp_path / "a.mp4", 3.0, Fraction(25), None)
    b = tone_video(tmp_path / "b.mp4", 3.0, Fraction(30), None)
    code, _, err = call(["find", str(a), str(b), "a car", *SEARCH, "--export",
                         str(tmp_path / "m.edl"), "--thumbs", str(tmp_path / "t.png")])  # fmt: skip
    assert_one_line_error(code, err, "one frame rate")
    assert searched(tmp_path) == []


@pytest.fixture
def library(tmp_path) -> Path:
    """Three small videos of different lengths (so the fake method answers each its own)."""
    root = tmp_path / "lib"
    root.mkdir()
    for k, seconds in enumerate((2.8, 3.0, 3.2)):
        tone_video(root / f"v{k}.mp4", seconds, Fraction(25), "aac")
    return root


def test_top_writes_every_output_it_is_given(library, tmp_path):
    """`--top` silently ignored --export, --thumbs, --timeline, --clips and --trace."""
    out = tmp_path / "out"
    out.mkdir()
    argv = ["find", str(library), "a car", *SEARCH, "--top", "2", "--export", str(out / "m.csv"),
            "--export", str(out / "m.fcpxml"), "--export", str(out / "m.otio"),
            "--thumbs", str(out / "t.png"), "--timeline", str(out / "l.png"),
            "--clips", str(out / "clips")]  # fmt: skip
    code, stdout, err = call(argv)
    assert code == 0, err
    printed = stdout.splitlines()
    assert len(printed) == 2 and all(": 00:00:0" in line for line in printed)
    rows = list(csv.DictReader((out / "m.csv").open(encoding="utf-8")))
    assert sorted({Path(r["video"]).name for r in rows}) == ["v0.mp4", "v1.mp4", "v2.mp4"]
    hits = [r for r in rows if r["start_s"]]
    assert len(hits) == 2
    starts = [(video, times.split("-")[0]) for video, times in map(layout, printed)]
    assert sorted((r["video"], format_time(float(r["start_s"]))) for r in hits) == sorted(starts)
    assert len(list((out / "clips").iterdir())) == 2
    assert (out / "t.png").stat().st_size and (out / "l.png").stat().st_size
    timeline = otio.adapters.read_from_file(str(out / "m.otio"))
    assert sum(len(clip.markers) for clip in timeline.find_clips()) == 2
    for name in ("wrote", "2 clips"):
        assert name in err
    trace = tmp_path / "t.json"
    code, _, err = call(["find", str(library / "v0.mp4"), "a car", *SEARCH, "--top", "1",
                         "--trace", str(trace)])  # fmt: skip
    assert code in (0, 1) and trace.exists(), err


def test_media_links_survive_spaces_accents_and_a_hash(tmp_path):
    """`#1.mp4` read as a URL fragment, and the EDL's reel became `clip  1` (a space in a
    field of the event line)."""
    folder = tmp_path / "footage" / "Day 1"
    folder.mkdir(parents=True)
    video = tone_video(folder / "clip é #1.mp4", 3.0, Fraction(25), "aac")
    files = {s: tmp_path / f"m{s}" for s in (".otio", ".edl", ".xml", ".fcpxml")}
    outputs = [a for p in files.values() for a in ("--export", str(p))]
    for query in ("a bicycle", "a car", "a dog", "a bus"):  # one the fake answers with moments
        code, _, err = call(["find", str(video), query, *SEARCH, *outputs, "--overwrite"])
        if code == 0:
            break
    assert code == 0, err
    timeline = otio.adapters.read_from_file(str(files[".otio"]))
    url = next(iter(timeline.find_clips())).media_reference.target_url
    assert "%20" in url and "%23" in url and "%C3%A9" in url
    assert unquote(urlparse(url).path) == str(video.resolve())
    xml = otio.adapters.read_from_file(str(files[".xml"]), adapter_name="fcp_xml")
    assert next(iter(xml.find_clips())).media_reference.target_url == url
    assert f'src="{url}"' in files[".fcpxml"].read_text(encoding="utf-8")
    edl = files[".edl"].read_text(encoding="utf-8")
    assert "001  AX " in edl and "* FROM CLIP NAME:  clip é #1.mp4" in edl
    assert "clip  1" not in edl


def test_existing_outputs_are_refused_before_the_search_unless_overwrite(tmp_path):
    """`--export` overwrote silently while an existing clip was refused after the search."""
    video = tone_video(tmp_path / "v.mp4", 3.0, Fraction(25), None)
    mine = tmp_path / "mine.csv"
    mine.write_text("my table\n")
    code, _, err = call(["find", str(video), "a car", *SEARCH, "--export", str(mine)])
    assert_one_line_error(code, err, "exists; pass --overwrite")
    assert mine.read_text() == "my table\n" and searched(tmp_path) == []
    clips = tmp_path / "clips"
    clips.mkdir()
    (clips / "v_00-00-00.100-00-00-00.800.mp4").write_bytes(b"mine")
    code, _, err = call(["find", str(video), "a car", *SEARCH, "--clips", str(clips)])
    assert_one_line_error(code, err, "holds v_00-00-00.100-00-00-00.800.mp4")
    assert searched(tmp_path) == []
    code, _, err = call(["find", str(video), "a car", *SEARCH, "--export", str(mine),
                         "--overwrite"])  # fmt: skip
    assert code in (0, 1) and mine.read_text().startswith("video,query,start,end"), err


def test_a_silent_video_is_a_note_in_a_library_speech_search(tmp_path):
    """It printed an `error:` line and exit 2 though the search of the other videos worked;
    a lone silent video keeps its error (tests/channels/test_cli.py)."""
    pytest.importorskip("pocketsphinx")
    library = tmp_path / "lib"
    library.mkdir()
    tone_video(library / "loud.mp4", 2.0, Fraction(10), "aac")
    tone_video(library / "mute.mp4", 2.0, Fraction(10), None)
    argv = ["find", str(library), "someone says hello", "--method", "retrieval", "--encoder",
            "lg-test-mean", "--channels", "speech", "-j", "1"]  # fmt: skip
    code, out, err = call(argv)
    assert code == 1, err  # searched, nothing said: no error
    assert "error" not in err and f"note: {library / 'mute.mp4'}: no audio stream" in err
    assert out.splitlines() == [f"{library / 'loud.mp4'}: 0 moments"]


def layout(line: str) -> tuple[str, str]:
    """`VIDEO: rest` of a printed line."""
    video, _, rest = line.rpartition(": ")
    return video, rest


def test_per_video_and_top_lines_share_one_layout(library):
    """Per-video lines read `video:00:00:01.2`, `--top` lines `video: 00:00:01.2`."""
    code, per_video, _ = call(["find", str(library), "a car", *SEARCH])
    code_top, top, _ = call(["find", str(library), "a car", *SEARCH, "--top", "3"])
    assert code == code_top == 0
    moments = {layout(line) for line in per_video.splitlines() if " moment" not in line}
    assert all(video.endswith(".mp4") and rest.startswith("00:00:") for video, rest in moments)
    assert {layout(line) for line in top.splitlines()} <= moments
    counts = [layout(line) for line in per_video.splitlines() if " moment" in line]
    assert [Path(video).name for video, _ in counts] == ["v0.mp4", "v1.mp4", "v2.mp4"]


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["find", "{video}"], "missing the QUERY after {video}"),
        (["find", "a red car"], "missing the VIDEO"),
        (["find", "{root}/footag", "a car", "--top", "5"], "footag: no such file"),
        (["find", "{video}", "a car", "--export", "{root}/a.otio", "--thumbs", "{root}/t.png",
          "--selects", "{root}/a.otio"], "--export and --selects both name {root}/a.otio"),
        (["find", "{video}", "a car", "--trace", "{video}"],
         "(even --overwrite does not allow that)"),
    ],
)
def test_messages_name_what_is_wrong_in_one_line(tmp_path, argv, fragment):
    """A forgotten query said `Missing argument 'VIDEO'`; a mistyped folder with --top added
    "0 of 0 moments in 0 videos"; two options naming one file did not say which file."""
    video = tone_video(tmp_path / "v.mp4", 1.0, Fraction(25), None)
    names = {"video": str(video), "root": str(tmp_path)}
    code, out, err = call([a.format(**names) for a in [*argv, *SEARCH]])
    assert_one_line_error(code, err, fragment.format(**names))
    assert out == ""


def test_only_a_command_with_overwrite_mentions_it(tmp_path):
    """`eval` has no --overwrite, so its refusal of an input as output must not offer one."""
    bench = tmp_path / "b.jsonl"
    bench.write_text(json.dumps({"qid": "a", "video": "v.mp4", "duration": 10, "query": "x",
                                 "intervals": [[0, 1]]}) + "\n")  # fmt: skip
    code, _, err = call(["eval", str(bench), str(bench), "--per-query", str(bench)])
    assert_one_line_error(code, err, "would overwrite the input")
    assert "--overwrite" not in err
    code, _, err = call(["find", "--help"])
    assert "--overwrite" in _ + err
