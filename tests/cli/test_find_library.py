"""`longground find DIR "QUERY" --top N`: moments ranked across a library of videos."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from longground.cli.main import main
from tests.cli.test_find import bikes  # noqa: F401  (fixture)

# The fast method; the threshold is low enough that bikes.mp4 gives moments to rank.
RETRIEVAL = ["--method", "retrieval", "-p", "threshold=0"]


@pytest.fixture(scope="module")
def library(tmp_path_factory, bikes):  # noqa: F811
    """bikes.mp4 three times (two in a subfolder, one with an older mtime), plus a text file."""
    root = tmp_path_factory.mktemp("library")
    (root / "sub").mkdir()
    for name in ("a.mp4", "sub/b.mp4", "sub/c.MP4"):
        shutil.copyfile(bikes, root / name)
    os.utime(root / "sub/c.MP4", (1e9, 1e9))
    (root / "notes.txt").write_text("not a video")
    return root


def test_top_ranks_moments_of_every_video_by_score(library, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("LONGGROUND_CACHE", str(tmp_path / "cache"))
    videos = [library / "a.mp4", library / "sub/b.mp4", library / "sub/c.MP4"]
    per_video = []
    for video in videos:
        main(["find", str(video), "a bicycle", "--json", *RETRIEVAL])
        record = json.loads(capsys.readouterr().out)
        per_video += [(m["score"], str(video), m["start_s"]) for m in record["moments"]]
    assert main(["find", str(library), "a bicycle", "--top", "4", "-j", "1", *RETRIEVAL]) == 0
    out = capsys.readouterr()
    lines = out.out.splitlines()
    assert len(lines) == min(4, len(per_video)) and len(per_video) >= 3
    assert all(any(line.startswith(f"{v}: ") for v in videos) for line in lines)
    scores = [float(line.rsplit(maxsplit=1)[1]) for line in lines]
    assert scores == sorted(scores, reverse=True)
    expected = sorted(per_video, key=lambda m: (-m[0], videos.index(type(videos[0])(m[1])), m[2]))
    assert [round(s, 3) for s in scores] == [round(m[0], 3) for m in expected[:4]]
    assert f"of {len(per_video)} moments in 3 videos" in out.err
    assert main(["find", str(library), "a bicycle", "--top", "2", "--json", *RETRIEVAL]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["score"] for r in records] == [m[0] for m in expected[:2]]


def test_a_library_is_indexed_first_in_parallel_processes(library, tmp_path, monkeypatch, capsys):
    cache = tmp_path / "cache"
    monkeypatch.setenv("LONGGROUND_CACHE", str(cache))
    assert main(["find", str(library), "a car", "-c", "-j", "2", *RETRIEVAL]) == 0
    assert len(list((cache / "timelines").glob("*.npz"))) == 3
    counts = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in counts] == [
        str(library / "a.mp4"),
        str(library / "sub/b.mp4"),
        str(library / "sub/c.MP4"),
    ]


@pytest.mark.parametrize(
    ("extra", "message"),
    [(["--top", "3", "-c"], "--top ranks moments"), (["--top", "0"], "--top")],
)
def test_bad_top_options_are_one_line(library, extra, message, capsys):
    assert main(["find", str(library), "a car", *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_a_folder_without_videos_is_one_line(tmp_path, capsys):
    (tmp_path / "x.txt").write_text("x")
    assert main(["find", str(tmp_path), "a car", "--top", "3"]) == 2
    assert "no video files in this folder" in capsys.readouterr().err


def test_top_through_the_ann_index_prints_what_exact_search_prints(
    library, tmp_path, monkeypatch, capsys
):
    cache = tmp_path / "cache"
    monkeypatch.setenv("LONGGROUND_CACHE", str(cache))
    command = ["find", str(library), "a bicycle", "--top", "3", "-j", "1", *RETRIEVAL]
    assert main(command) == 0
    exact = capsys.readouterr().out
    assert not (cache / "library").exists()  # a small library is searched exactly
    monkeypatch.setenv("LONGGROUND_ANN_FROM_ROWS", "0")  # force the ANN index
    assert main(command) == 0
    assert capsys.readouterr().out == exact
    assert len(list((cache / "library").glob("*.json"))) == 1  # one library index
    assert main(command) == 0  # the stored index, memory-mapped
    assert capsys.readouterr().out == exact
    assert main(["cache", "info"]) == 0  # `cache` knows the library kind
    rows = [line.split() for line in capsys.readouterr().out.splitlines()]
    assert ["library", "4"] in [row[:2] for row in rows]  # its manifest, 3 videos' rows


def test_real_cars_rank_above_a_motorcycle_photo_for_a_car(tmp_path, monkeypatch, capsys):
    """Scores mean the same on every video: in a library of bikes.mp4 (real cars) and a
    generated video of a motorcycle photo (no car), `--top` puts the real cars first, and the
    motorcycle, a near miss, is not answered at all."""
    from tests.support.media import bikes_path, cat_video

    library = tmp_path / "library"
    library.mkdir()
    shutil.copy(bikes_path(), library / "bikes.mp4")
    cat_video(library / "motorcycle.mp4", photo="motorcycle_left")
    monkeypatch.setenv("LONGGROUND_CACHE", str(tmp_path / "cache"))
    assert main(["find", str(library), "a car", "--top", "3"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert lines and lines[0].startswith(str(library / "bikes.mp4"))
    assert not any("motorcycle.mp4" in line for line in lines)
