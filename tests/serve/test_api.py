"""`longground serve`'s API in process (FastAPI's TestClient) over a real library of small
generated videos and a fake method: indexing states, hostile files, ranked hits with counts
per video (zero too), filters, explain, exports that read back, thumbnails, Range requests,
the guards, and 50 searches at once."""

from __future__ import annotations

import io
import json
import os
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from longground.serve import Indexer, Library, create_app  # noqa: E402
from tests.serve.fakes import FakeSearcher  # noqa: E402
from tests.support.media import tone_video  # noqa: E402

ANSWERS = {  # file name -> (spans, scores)
    "a.mp4": ([[0.4, 1.2], [2.0, 2.6]], [0.9, 0.3]),
    "b.mp4": ([[1.0, 1.8]], [0.6]),
    "c.mp4": ([], []),
}


def wait_until(check, timeout_s: float = 20.0):
    end = time.time() + timeout_s
    while time.time() < end:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("timed out")


def make_library(root: Path) -> Path:
    footage = root / "footage"
    (footage / "day 1").mkdir(parents=True)
    tone_video(footage / "a.mp4", 3.0, Fraction(25), "aac")
    tone_video(footage / "day 1" / "b.mp4", 3.0, Fraction(30000, 1001), "aac")
    tone_video(footage / "c.mp4", 3.0, Fraction(25), None)
    return footage


@pytest.fixture
def served(tmp_path):
    """A library, its indexer (rescanning every 0.2 s) and a client; stopped at the end."""
    footage = make_library(tmp_path)
    searcher = FakeSearcher(ANSWERS)
    library = Library([footage])
    client = TestClient(create_app(library, searcher, allowed_hosts=["testserver"]))
    indexer = Indexer(library, searcher, rescan_s=0.2).start()
    try:
        yield client, footage, searcher, library
    finally:
        searcher.release.set()
        indexer.stop()


def states(client) -> dict[str, tuple]:
    videos = client.get("/api/library").json()["videos"]
    return {v["name"]: (v["state"], v["error"]) for v in videos}


def ready(client, n: int) -> dict:
    return wait_until(lambda: (s := states(client)) and
                      sum(state == "ready" for state, _ in s.values()) >= n and s)  # fmt: skip


def test_hits_are_ranked_across_the_library_with_a_count_per_video(served):
    client, _, _, _ = served
    ready(client, 3)
    result = client.get("/api/search", params={"q": "a car"}).json()
    assert [(h["name"], h["start"], h["score"]) for h in result["hits"]] == [
        ("a.mp4", "00:00:00.4", 0.9), ("day 1/b.mp4", "00:00:01.0", 0.6),
        ("a.mp4", "00:00:02.0", 0.3)]  # fmt: skip
    counts = {v["name"]: v["count"] for v in result["videos"]}
    assert counts == {"a.mp4": 2, "c.mp4": 0, "day 1/b.mp4": 1}
    assert result["total"] == 3 and result["pending"] == 0 and result["method"] == "fake"
    hit = result["hits"][1]
    assert hit["media_url"] == "/media/0/day%201/b.mp4" and hit["channel"] == "visual"
    assert client.get(hit["thumb_url"]).headers["content-type"] == "image/jpeg"


def test_filters_by_video_channel_and_score(served):
    client, _, _, _ = served
    ready(client, 3)
    ids = {v["name"]: v["id"] for v in client.get("/api/library").json()["videos"]}
    by_video = client.get("/api/search", params={"q": "x", "video": ids["a.mp4"]}).json()
    assert {h["name"] for h in by_video["hits"]} == {"a.mp4"}
    by_score = client.get("/api/search", params={"q": "x", "min_score": 0.5}).json()
    assert [h["score"] for h in by_score["hits"]] == [0.9, 0.6]
    assert {v["name"]: v["shown"] for v in by_score["videos"]}["a.mp4"] == 1
    by_channel = client.get("/api/search", params={"q": "x", "channel": "speech"}).json()
    assert by_channel["hits"] == [] and by_channel["total"] == 3


def test_explain_returns_the_methods_trace(served):
    client, _, _, _ = served
    ready(client, 3)
    video = next(v["id"] for v in client.get("/api/library").json()["videos"]
                 if v["name"] == "a.mp4")  # fmt: skip
    why = client.get("/api/explain", params={"q": "a car", "video": video}).json()
    assert why["line"] == "fake: why: frame scores of 'a car' peak at 0.900, threshold 0.000"
    assert why["trace"]["route"]["needle"] == "a car"
    assert client.get("/api/explain", params={"q": "a car", "video": "nope"}).status_code == 404


@pytest.mark.parametrize("kind", ["fcpxml", "xml", "otio", "edl", "csv", "srt", "vtt", "clips"])
def test_the_chosen_hits_export_as_the_cli_writes_them(served, kind):
    otio = pytest.importorskip("opentimelineio")
    client, _, _, _ = served
    ready(client, 3)
    hits = client.get("/api/search", params={"q": "a car"}).json()["hits"]
    chosen = [h for h in hits if h["name"] == "a.mp4"]
    answer = client.post("/api/export", json={"query": "a car", "format": kind,
                                              "hits": [h["id"] for h in chosen]})  # fmt: skip
    assert answer.status_code == 200, answer.text
    assert "attachment" in answer.headers["content-disposition"]
    if kind == "clips":
        names = zipfile.ZipFile(io.BytesIO(answer.content)).namelist()
        assert names == ["a_00-00-00.400-00-00-01.200.mp4", "a_00-00-02.000-00-00-02.600.mp4"]
    elif kind in ("fcpxml", "xml", "otio", "edl"):
        adapter = {"fcpxml": "fcpx_xml", "xml": "fcp_xml", "otio": "otio_json",
                   "edl": "cmx_3600"}[kind]  # fmt: skip
        extra = {"rate": 25} if kind == "edl" else {}
        read = otio.adapters.read_from_string(answer.text, adapter, **extra)
        markers = [m for clip in read.find_clips() for m in clip.markers]
        assert len(markers) == 2
    elif kind == "csv":
        assert answer.text.count("\n") == 3 and "00:00:00.400" in answer.text


def test_an_export_that_a_format_cannot_hold_is_one_line(served):
    client, _, _, _ = served
    ready(client, 3)
    hits = client.get("/api/search", params={"q": "a car"}).json()["hits"]
    answer = client.post("/api/export", json={"query": "a car", "format": "edl",
                                              "hits": [h["id"] for h in hits]})  # fmt: skip
    assert answer.status_code == 422 and "one frame rate" in answer.json()["detail"]
    answer = client.post("/api/export", json={"query": "a car", "format": "csv",
                                              "hits": ["zzz:0"]})  # fmt: skip
    assert answer.status_code == 422 and "no searched video" in answer.json()["detail"]


def test_hostile_files_are_error_lines_and_the_rest_still_searched(served):
    """A symbolic link that loops, a 0-byte .mp4, a FIFO, an unreadable file (not as root)
    and a file deleted while it is indexed: each an error line; the server answers on."""
    client, footage, searcher, _ = served
    ready(client, 3)
    (footage / "loop.mp4").symlink_to("loop.mp4")
    (footage / "empty.mp4").touch()
    os.mkfifo(footage / "pipe.mp4")
    if os.geteuid() != 0:
        (footage / "locked.mp4").write_bytes((footage / "a.mp4").read_bytes())
        (footage / "locked.mp4").chmod(0)
    searcher.hold = "doomed.mp4"
    (footage / "doomed.mp4").write_bytes((footage / "c.mp4").read_bytes())
    wait_until(searcher.holding.is_set)
    (footage / "doomed.mp4").unlink()
    searcher.release.set()
    found = wait_until(lambda: (s := states(client)) and s.get("doomed.mp4", ("",))[0] == "error"
                       and s)  # fmt: skip
    assert found["loop.mp4"] == ("error", "a symbolic link that loops")
    assert found["empty.mp4"] == ("error", "the file is empty (0 bytes)")
    assert found["pipe.mp4"][0] == "error" and "not a regular file" in found["pipe.mp4"][1]
    assert found["doomed.mp4"][1].startswith("the file is gone")
    if os.geteuid() != 0:
        assert found["locked.mp4"] == ("error", "cannot be read (permission denied)")
    result = client.get("/api/search", params={"q": "a car"}).json()
    assert len(result["hits"]) == 3
    errors = {v["name"]: v["error"] for v in result["videos"] if v["error"]}
    assert set(errors) >= {"loop.mp4", "empty.mp4", "pipe.mp4", "doomed.mp4"}
    page = client.get("/")
    assert page.status_code == 200 and "error-line" in client.get("/static/app.js").text


def test_new_and_mended_files_are_picked_up_while_serving(served, tmp_path):
    client, footage, _, _ = served
    ready(client, 3)
    tone_video(tmp_path / "late.mp4", 1.0, Fraction(25), None)
    (footage / "late.mp4").write_bytes(b"")  # copied in later: first empty, then whole
    assert wait_until(lambda: states(client).get("late.mp4", ("",))[0] == "error")
    (footage / "late.mp4").write_bytes((tmp_path / "late.mp4").read_bytes())
    assert wait_until(lambda: states(client).get("late.mp4", ("",))[0] == "ready")


def test_media_is_served_with_ranges_and_only_inside_its_folder(served, tmp_path):
    client, footage, _, _ = served
    ready(client, 3)
    size = (footage / "a.mp4").stat().st_size
    part = client.get("/media/0/a.mp4", headers={"Range": "bytes=10-19"})
    assert part.status_code == 206 and len(part.content) == 10
    assert client.get("/media/0/a.mp4", headers={"Range": f"bytes={size + 5}-"}).status_code == 416
    (tmp_path / "secret.mp4").write_bytes(b"secret")
    (footage / "out.mp4").symlink_to(tmp_path / "secret.mp4")
    for url in ("/media/0/out.mp4", "/media/0/..%2Fsecret.mp4", "/media/1/a.mp4",
                "/media/0/%2Fetc%2Fpasswd"):  # fmt: skip
        assert client.get(url).status_code == 404, url


def test_the_guards_of_the_annotation_tool(tmp_path):
    footage = make_library(tmp_path)
    library = Library([footage])
    app = create_app(library, FakeSearcher(ANSWERS), allowed_hosts=["127.0.0.1"], token="t0k")
    client = TestClient(app, base_url="http://127.0.0.1")
    assert client.get("/api/library").status_code == 401
    assert "longground serve" in client.get("/api/library").json()["detail"]
    assert client.get("/api/library?token=t0k").status_code == 200  # sets the cookie
    assert client.get("/api/library").status_code == 200
    evil = TestClient(app, base_url="http://evil.example")
    assert evil.get("/api/library?token=t0k").status_code == 400  # Host check
    body = {"query": "x", "format": "csv", "hits": ["a:0"]}
    cross = client.post("/api/export", json=body, headers={"Origin": "http://evil.example"})
    assert cross.status_code == 403
    plain = client.post("/api/export", content=json.dumps(body),
                        headers={"Content-Type": "text/plain"})  # fmt: skip
    assert plain.status_code == 415


def test_fifty_searches_at_once_all_answer(served):
    client, _, searcher, _ = served
    ready(client, 3)
    queries = [f"query {k % 10}" for k in range(50)]
    with ThreadPoolExecutor(50) as pool:
        answers = list(pool.map(lambda q: client.get("/api/search", params={"q": q}), queries))
    assert all(a.status_code == 200 for a in answers)
    assert searcher.calls == 10 * 3  # each video answered each distinct query once
