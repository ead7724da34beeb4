"""`find --export/--clips/--thumbs/--timeline`, `run` over a query file, and the Python API
against the CLI's `--json`, on bikes.mp4 and on a generated video."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

import longground
from longground.cli.main import main
from tests.support.media import bikes_path, cat_video

otio = pytest.importorskip("opentimelineio")
pysubs2 = pytest.importorskip("pysubs2")
av = pytest.importorskip("av")


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="module")
def cat(tmp_path_factory) -> Path:
    return cat_video(tmp_path_factory.mktemp("media") / "cat.mp4")


def cli_json(video: Path, query: str, cache: Path, monkeypatch, capsys, *extra) -> dict:
    monkeypatch.setenv("LONGGROUND_CACHE", str(cache))
    assert main(["find", str(video), query, "--json", *extra]) in (0, 1)
    return json.loads(capsys.readouterr().out)


def spans(read) -> list[tuple[float, float]]:
    return [(float(s), float(e)) for s, e in read]


def assert_same_to_a_frame(read, moments, fps: float) -> None:
    want = [(m["start_s"], m["end_s"]) for m in moments]
    assert len(read) == len(want), (read, want)
    for got, expected in zip(read, want):
        assert abs(got[0] - expected[0]) <= 1 / fps and abs(got[1] - expected[1]) <= 1 / fps


def test_every_export_reads_back_as_the_json_moments(tmp_path, cache, monkeypatch, capsys):
    bikes, fps = bikes_path(), 25.0
    suffixes = (".csv", ".srt", ".vtt", ".edl", ".otio", ".xml", ".fcpxml")
    files = {s: tmp_path / f"m{s}" for s in suffixes}
    extra = [a for path in files.values() for a in ("--export", str(path))]
    extra += ["--selects", str(tmp_path / "s.otio"), "--selects", str(tmp_path / "s.edl"),
              "--clips", str(tmp_path / "clips"), "--exact", "--thumbs", str(tmp_path / "t.png"),
              "--timeline", str(tmp_path / "tl.png")]  # fmt: skip
    result = cli_json(bikes, "a car", cache, monkeypatch, capsys, *extra)
    moments = result["moments"]
    assert moments, result
    rows = list(csv.DictReader(files[".csv"].open(encoding="utf-8")))
    assert_same_to_a_frame(spans((r["start_s"], r["end_s"]) for r in rows), moments, fps)
    assert {r["method"] for r in rows} == {"agent"} and {r["channel"] for r in rows} == {"visual"}
    for suffix in (".srt", ".vtt"):
        subs = pysubs2.load(str(files[suffix]))
        assert_same_to_a_frame([(e.start / 1000, e.end / 1000) for e in subs], moments, fps)
    for suffix, kw in ((".otio", {}), (".xml", {"adapter_name": "fcp_xml"})):
        timeline = otio.adapters.read_from_file(str(files[suffix]), **kw)
        markers = next(iter(timeline.find_clips())).markers
        read = [(m.marked_range.start_time.to_seconds(),
                 m.marked_range.end_time_exclusive().to_seconds()) for m in markers]
        assert_same_to_a_frame(read, moments, fps)
        assert {m.name for m in markers} == {"a car"}
    for name, kw in (("s.otio", {}), ("s.edl", {"rate": fps})):
        timeline = otio.adapters.read_from_file(str(tmp_path / name), **kw)
        ranges = [c.source_range for c in timeline.find_clips()]
        read = [(r.start_time.to_seconds(), r.end_time_exclusive().to_seconds()) for r in ranges]
        assert_same_to_a_frame(read, moments, fps)
    edl = otio.adapters.read_from_file(str(files[".edl"]), rate=fps)
    read = [m.marked_range.start_time.to_seconds() for m in next(iter(edl.find_clips())).markers]
    assert_same_to_a_frame([(s, m["end_s"]) for s, m in zip(read, moments)], moments, fps)
    fcpxml = otio.adapters.read_from_file(str(files[".fcpxml"]), adapter_name="fcpx_xml")
    assert len(next(iter(fcpxml.find_clips())).markers) == len(moments)
    clips = sorted((tmp_path / "clips").iterdir())
    assert len(clips) == len(moments)
    for clip, moment in zip(clips, moments):
        with av.open(str(clip)) as container:
            n = sum(1 for _ in container.decode(container.streams.video[0]))
        assert abs(n / fps - (moment["end_s"] - moment["start_s"])) <= 1 / fps
    assert (tmp_path / "t.png").stat().st_size > 0 and (tmp_path / "tl.png").stat().st_size > 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--export", "{tmp}/m.mov"], "unknown format '.mov'"),
        (["--selects", "{tmp}/m.csv"], "unknown format '.csv'"),
        (["--export", "{tmp}/no/m.csv"], "does not exist"),
        (["--thumbs", "{tmp}/t.jpg"], "give a .png"),
        (["--exact"], "--exact applies to --clips"),
        (["--thumbs", "{tmp}/a.png", "--timeline", "{tmp}/a.png"],
         "--thumbs and --timeline both name {tmp}/a.png"),
    ],
)
def test_bad_outputs_are_refused_before_the_search(tmp_path, capsys, args, message):
    argv = ["find", "/no/such/video.mp4", "a car", *(a.format(tmp=tmp_path) for a in args)]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message.format(tmp=tmp_path) in err, err


@pytest.mark.parametrize(("video", "query"), [("bikes", "a car"), ("cat", "a cat")])
def test_python_find_equals_the_cli_json(video, query, cat, cache, monkeypatch, capsys):
    path = bikes_path() if video == "bikes" else cat
    cli = cli_json(path, query, cache, monkeypatch, capsys)
    moments = longground.find(path, query, cache_dir=cache)
    assert cli["count"] >= 1
    assert moments.to_list() == [[m["start_s"], m["end_s"]] for m in cli["moments"]]
    assert moments.scores.tolist() == [m["score"] for m in cli["moments"]]
    found = longground.find_many([path], [query, "a giraffe"], cache_dir=cache)
    assert [f.query for f in found] == [query, "a giraffe"]
    assert found[0].moments == moments and found[1].moments.count == 0


def test_run_takes_a_query_file_and_skips_eval(tmp_path, cache, monkeypatch, capsys):
    bikes = bikes_path()
    queries = tmp_path / "queries.jsonl"
    queries.write_text(json.dumps({"video": str(bikes), "query": "a car"}) + "\n"
                       + json.dumps({"qid": "b", "video": str(bikes), "query": "a bicycle"})
                       + "\n", encoding="utf-8")  # fmt: skip
    monkeypatch.setenv("LONGGROUND_CACHE", str(cache))
    out, table = tmp_path / "p.jsonl", tmp_path / "all.csv"
    assert main(["run", str(queries), "--out", str(out), "--eval", "--export", str(table)]) == 0
    err = capsys.readouterr().err
    assert "--eval skipped" in err
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["qid"] for r in records] == ["q1", "b"]
    rows = list(csv.DictReader(table.open(encoding="utf-8")))
    assert {r["query"] for r in rows} == {"a car", "a bicycle"}
    assert len(rows) == sum(len(r["intervals"]) for r in records)
