"""The annotation server through its HTTP API: FastAPI's TestClient on a temporary database,
and real `longground annotate serve` processes for the crash test."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import quote

import numpy as np
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("av")

from fastapi.testclient import TestClient  # noqa: E402

from longground.annotate import AnnotatedQuery, AnnotationStore  # noqa: E402
from longground.annotate.app import ATTRIBUTE_ORDER, create_app  # noqa: E402
from longground.annotate.exchange import import_benchmark  # noqa: E402
from longground.cli.main import main  # noqa: E402
from longground.formats import load_samples, write_samples  # noqa: E402
from longground.samples import ATTRIBUTES, CHANNEL_ATTRIBUTES, GROUP_ATTRIBUTES  # noqa: E402
from longground.video.writer import VideoWriter  # noqa: E402

SRC = Path(__file__).resolve().parents[2] / "src"
CLIP_S = 4.0  # 100 frames at 25 fps
EDITS = int(os.environ.get("ANNOTATE_TEST_EDITS", 200))


def write_clip(path: Path, seconds: float = CLIP_S) -> Path:
    """A small H.264 MP4 whose brightness changes every second."""
    with VideoWriter(path, 64, 48, fps=25) as writer:
        for i in range(round(seconds * 25)):
            writer.write(np.full((48, 64, 3), 40 + 50 * (i // 25) % 200, np.uint8))
    return path


BENCH = [
    {
        "qid": "q1",
        "video": "clip.mp4",
        "duration": 4,
        "query": "the screen gets brighter",
        "intervals": [[1, 2], [2.5, 3.25]],
        "attributes": ["dynamic"],
        "domain": "test",
    },
    {
        "qid": "q2",
        "video": "clip.mp4",
        "duration": 4,
        "query": "a dog barks",
        "intervals": [],
        "attributes": ["negative"],
        "domain": "test",
    },
    {
        "qid": "q3",
        "video": "clip.mp4",
        "duration": 4,
        "query": "grey frames",
        "intervals": [[0, 1]],
        "attributes": [],
        "domain": "",
    },
    {
        "qid": "v_x#0",
        "video": "sub/missing",
        "duration": 100,
        "query": "a long event",
        "intervals": [[10, 90]],
        "attributes": ["bounded", "static"],
        "domain": "sports",
    },
]


@pytest.fixture(scope="module")
def clip(tmp_path_factory) -> Path:
    return write_clip(tmp_path_factory.mktemp("clip") / "clip.mp4")


@pytest.fixture
def world(tmp_path, clip):
    """A videos folder with the clip, a secret file beside it, the benchmark and a store."""
    videos = tmp_path / "videos"
    videos.mkdir()
    (videos / "clip.mp4").write_bytes(clip.read_bytes())
    (tmp_path / "secret.txt").write_text("do not serve")
    bench = tmp_path / "bench.jsonl"
    bench.write_text("".join(json.dumps(r) + "\n" for r in BENCH))
    store = AnnotationStore(tmp_path / "a.db")
    import_benchmark(store, bench)
    yield tmp_path, videos, bench, store
    store.close()


@pytest.fixture
def client(world):
    _, videos, _, store = world
    app = create_app(
        store, videos, "alice", predictions={"q1": [[0.5, 1.5]]}, allowed_hosts=["testserver"]
    )
    with TestClient(app) as c:
        yield c


# ---------------------------------------------------------------- reading


def test_attribute_order_covers_the_eight_attributes():
    assert frozenset(ATTRIBUTE_ORDER) == ATTRIBUTES - set(CHANNEL_ATTRIBUTES + GROUP_ATTRIBUTES)
    assert len(ATTRIBUTE_ORDER) == 8


def test_page_static_files_and_session(client):
    page = client.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert client.get("/static/app.js").status_code == 200
    session = client.get("/api/session").json()
    assert session["annotator"] == "alice" and session["attributes"] == list(ATTRIBUTE_ORDER)
    assert session["predictions"] is True


def test_navigator_counts_per_video(client):
    videos = client.get("/api/videos").json()["videos"]
    assert [(v["video"], v["total"], v["verified"], v["annotated"]) for v in videos] == [
        ("clip.mp4", 3, 0, 0),
        ("sub/missing", 1, 0, 0),
    ]
    edit(client, "q1", 1, review="verified", annotated=True)
    first = client.get("/api/videos").json()["videos"][0]
    assert (first["verified"], first["annotated"], first["total"]) == (1, 1, 3)


def test_video_duration_comes_from_the_file_when_it_can_be_read(client):
    found = client.get("/api/video", params={"name": "clip.mp4"}).json()
    assert found["duration_from"] == "file" and abs(found["duration_s"] - CLIP_S) < 0.05
    assert found["available"] and found["media_url"] == "/media/clip.mp4"
    missing = client.get("/api/video", params={"name": "sub/missing"}).json()
    assert (missing["duration_from"], missing["duration_s"], missing["available"]) == (
        "benchmark",
        100.0,
        False,
    )
    assert client.get("/api/video", params={"name": "nope.mp4"}).status_code == 404


def test_queries_list_one_query_and_filters(client):
    listed = client.get("/api/queries", params={"video": "clip.mp4"}).json()["queries"]
    assert [q["qid"] for q in listed] == ["q1", "q2", "q3"]
    q1 = listed[0]
    assert q1["intervals"] == [[1.0, 2.0], [2.5, 3.25]]
    assert q1["intervals_hms"] == [["00:00:01.0", "00:00:02.0"], ["00:00:02.5", "00:00:03.25"]]
    assert q1["predictions"] == [[0.5, 1.5]] and listed[1]["predictions"] is None
    assert (q1["review"], q1["annotated"], q1["version"]) == ("unverified", False, 1)
    assert client.get("/api/queries/v_x%230").json()["video"] == "sub/missing"
    assert client.get("/api/queries/nope").status_code == 404
    edit(client, "q2", 1, review="discarded")
    edit(client, "q3", 1, annotated=True)
    by_status = {
        s: [q["qid"] for q in client.get("/api/queries", params={"status": s}).json()["queries"]]
        for s in ("all", "unverified", "verified", "discarded", "annotated", "unannotated")
    }
    assert by_status == {
        "all": ["q1", "q2", "q3", "v_x#0"],
        "unverified": ["q1", "q3", "v_x#0"],
        "verified": [],
        "discarded": ["q2"],
        "annotated": ["q3"],
        "unannotated": ["q1", "v_x#0"],
    }
    assert client.get("/api/queries", params={"status": "odd"}).status_code == 422


# ---------------------------------------------------------------- editing


def edit(client, qid, version, **fields):
    response = client.patch(f"/api/queries/{qid}", json={"version": version, **fields})
    assert response.status_code == 200, response.text
    return response.json()


def test_an_edit_is_stored_versioned_and_kept_in_the_history(client, world):
    store = world[3]
    after = edit(
        client,
        "q1",
        1,
        review="verified",
        attributes=["Causal", "dynamic"],
        query="  the screen brightens  ",
    )
    assert (after["version"], after["review"], after["query"]) == (
        2,
        "verified",
        "the screen brightens",
    )
    assert after["attributes"] == ["causal", "dynamic"]
    after = edit(client, "q1", 2, intervals=[["00:00:01.5", 2], [3, "3.9"]], annotated=True)
    assert after["intervals"] == [[1.5, 2.0], [3.0, 3.9]] and after["annotated"]
    assert store.get("q1").intervals == ((1.5, 2.0), (3.0, 3.9))
    edits = client.get("/api/history", params={"qid": "q1"}).json()["edits"]
    assert [(e["annotator"], e["version"]) for e in edits] == [("alice", 2), ("alice", 3)]
    assert (
        edits[0]["before"]["review"] == "unverified" and edits[0]["after"]["review"] == "verified"
    )
    assert edits[1]["before"]["intervals"] == [[1.0, 2.0], [2.5, 3.25]]
    assert edits[1]["after"]["intervals"] == [[1.5, 2.0], [3.0, 3.9]]
    assert len(client.get("/api/history").json()["edits"]) == 2


def test_the_history_cannot_be_rewritten(world):
    import sqlite3

    store = world[3]
    store.update("q1", 1, lambda q: q.with_fields(review="verified"), "bob")
    db = sqlite3.connect(store.path)
    for sql in ("UPDATE edits SET annotator = 'eve'", "DELETE FROM edits"):
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            db.execute(sql)
    db.close()
    assert [e.annotator for e in store.history()] == ["bob"]


def test_a_stale_write_gets_409_with_the_current_query(client, world):
    edit(client, "q1", 1, query="first tab")
    stale = client.patch("/api/queries/q1", json={"version": 1, "query": "second tab"})
    assert stale.status_code == 409
    body = stale.json()
    assert body["current"]["query"] == "first tab" and body["current"]["version"] == 2
    assert "changed meanwhile" in body["detail"]
    assert world[3].get("q1").query == "first tab"
    assert edit(client, "q1", 2, query="second tab")["version"] == 3


BAD_EDITS = [
    ({"intervals": [[1, float("nan")]]}, "not a finite"),
    ({"intervals": [[float("-inf"), 1]]}, "not a finite"),
    ({"intervals": [[1, "inf"]]}, "not a time"),
    ({"intervals": [[1, "1e400"]]}, "not a time"),
    ({"intervals": [[2, 1]]}, "must be after its start"),
    ({"intervals": [[2, 2]]}, "must be after its start"),
    ({"intervals": [[-1, 2]]}, "negative"),
    ({"intervals": [[1, 4.5]]}, "after the end of the video (00:00:04.00)"),
    ({"intervals": [[1, "00:61:00"]]}, "not a time"),
    ({"intervals": [[1, 2, 3]]}, "must be [start, end]"),
    ({"intervals": "1-2"}, "list of [start, end]"),
    ({"intervals": [[1, True]]}, "must be a time"),
    ({"attributes": ["static", "spatial"]}, "unknown attribute 'spatial'"),
    ({"attributes": "static"}, "list of attribute names"),
    ({"attributes": ["negative"]}, "'negative' cannot have intervals"),
    ({"query": "   "}, "must not be empty"),
    ({"query": "x" * 3000}, "longer than"),
    ({"review": "accepted"}, "'review' must be one of"),
    ({"annotated": "yes"}, "true or false"),
    ({"count": 3}, "unknown field 'count'"),
    ({"version": "1"}, "'version' must be the integer"),
    ({"version": None}, "'version' must be the integer"),
]


@pytest.mark.parametrize(("fields", "message"), BAD_EDITS)
def test_bad_values_get_422_with_a_readable_message(client, world, fields, message):
    body = {"version": 1, **fields}
    response = client.patch(
        "/api/queries/q1", content=json.dumps(body), headers={"content-type": "application/json"}
    )
    assert response.status_code == 422
    assert message in response.json()["detail"] and response.json()["detail"].startswith("qid q1")
    assert world[3].get("q1").version == 1 and not world[3].history()


def test_non_json_bodies_get_readable_errors(client):
    bad = client.patch("/api/queries/q1", content="{", headers={"content-type": "application/json"})
    assert bad.status_code == 422 and isinstance(bad.json()["detail"], str)
    listed = client.patch("/api/queries/q1", json=[1, 2])
    assert listed.status_code == 422 and isinstance(listed.json()["detail"], str)
    assert client.patch("/api/queries/nope", json={"version": 1}).status_code == 404


@pytest.mark.parametrize(
    "raw",
    [
        '{"version": 1, "query": "a \\ud800 dog"}',  # a lone surrogate, valid JSON
        '{"version": 1, "query": "a\\u0000dog"}',  # a NUL
        '{"version": 1, "attributes": ["\\udfff"]}',
        '{"version": 1, "\\ud800": 1}',  # in a field name
    ],
)
def test_text_that_is_not_valid_unicode_gets_422(client, world, raw):
    response = client.patch(
        "/api/queries/q1", content=raw.encode(), headers={"content-type": "application/json"}
    )
    assert response.status_code == 422 and "is not valid text" in response.json()["detail"]
    assert world[3].get("q1").version == 1 and not world[3].history()


def test_media_types_are_case_insensitive(client):
    for version, kind in enumerate(["Application/JSON", "APPLICATION/json; charset=UTF-8"], 1):
        body = json.dumps({"version": version, "annotated": version == 1})
        response = client.patch("/api/queries/q1", content=body, headers={"content-type": kind})
        assert response.status_code == 200, kind
    wrong = client.patch("/api/queries/q1", content="{}", headers={"content-type": "text/plain"})
    assert wrong.status_code == 415


def test_request_bodies_over_the_limit_get_413_before_they_are_read(world):
    from longground.annotate.access import MAX_BODY_BYTES

    _, videos, _, store = world
    web = TestClient(create_app(store, videos, "alice", max_body_bytes=1000))
    big = json.dumps({"version": 1, "query": "x" * 2000})
    response = web.patch(
        "/api/queries/q1", content=big, headers={"content-type": "application/json"}
    )
    assert response.status_code == 413 and "larger than 1000 bytes" in response.json()["detail"]

    def chunks():  # no Content-Length: counted as it arrives
        for _ in range(10):
            yield b" " * 200

    chunked = web.patch(
        "/api/queries/q1", content=chunks(), headers={"content-type": "application/json"}
    )
    assert chunked.status_code == 413
    small = web.patch("/api/queries/q1", json={"version": 1, "annotated": True})
    assert small.status_code == 200 and store.get("q1").version == 2
    assert MAX_BODY_BYTES >= 10000 * 40  # the largest edit the rules allow still fits


def test_without_a_readable_file_the_benchmark_duration_limits_intervals(client):
    assert edit(client, "v_x%230", 1, intervals=[[10, 99.5]])["intervals"] == [[10.0, 99.5]]
    late = client.patch("/api/queries/v_x%230", json={"version": 2, "intervals": [[10, 101]]})
    assert late.status_code == 422 and "00:01:40.00" in late.json()["detail"]


# ---------------------------------------------------------------- exposure


def test_no_cors_and_no_cross_origin_writes(client, world):
    evil = {"origin": "http://evil.example"}
    got = client.get("/api/queries", headers=evil)
    assert "access-control-allow-origin" not in got.headers
    preflight = client.options(
        "/api/queries/q1", headers={**evil, "access-control-request-method": "PATCH"}
    )
    assert "access-control-allow-origin" not in preflight.headers
    forged = client.patch("/api/queries/q1", json={"version": 1, "query": "x"}, headers=evil)
    assert forged.status_code == 403
    simple = client.patch(
        "/api/queries/q1",
        content='{"version": 1, "query": "x"}',
        headers={"content-type": "text/plain"},
    )
    assert simple.status_code == 415
    own = client.patch(
        "/api/queries/q1",
        json={"version": 1, "query": "x"},
        headers={"origin": "http://testserver"},
    )
    assert own.status_code == 200 and world[3].get("q1").version == 2


def test_other_host_names_are_refused(world):
    _, videos, _, store = world
    app = create_app(store, videos, allowed_hosts=["127.0.0.1"])
    with TestClient(app, base_url="http://rebound.example") as c:
        assert c.get("/api/videos").status_code == 400


# ---------------------------------------------------------------- media


def test_media_is_served_with_ranges(client, clip):
    data = clip.read_bytes()
    size = len(data)
    whole = client.get("/media/clip.mp4")
    assert whole.status_code == 200 and whole.content == data
    assert whole.headers["accept-ranges"] == "bytes"
    cases = {
        "bytes=0-0": (0, 0),  # first byte
        f"bytes={size // 2}-{size // 2 + 99}": (size // 2, size // 2 + 99),  # middle
        f"bytes={size - 1}-{size - 1}": (size - 1, size - 1),  # last byte
        "bytes=-300": (size - 300, size - 1),  # suffix
        f"bytes={size - 10}-": (size - 10, size - 1),  # open end
    }
    for header, (first, last) in cases.items():
        part = client.get("/media/clip.mp4", headers={"range": header})
        assert part.status_code == 206, header
        assert part.content == data[first : last + 1], header
        assert part.headers["content-range"] == f"bytes {first}-{last}/{size}", header
    for bad in (f"bytes={size}-", f"bytes={size + 5}-{size + 9}"):
        refused = client.get("/media/clip.mp4", headers={"range": bad})
        assert refused.status_code == 416, bad
        assert refused.headers["content-range"] == f"bytes */{size}"
    assert client.get("/media/clip", headers={"range": "bytes=0-3"}).content == data[:4]


def test_media_never_leaves_the_videos_folder(client, world):
    tmp, videos, _, _ = world
    (videos / "outside.mp4").symlink_to(tmp / "secret.txt")
    (videos / "sub").mkdir()
    (videos / "sub" / "inside.mp4").symlink_to(videos / "clip.mp4")
    (videos / "loop.mp4").symlink_to(videos / "loop.mp4")
    for path in (
        "/media/%2e%2e/secret.txt",
        "/media/..%2fsecret.txt",
        "/media/%2E%2E%2Fsecret.txt",
        "/media/sub/%2e%2e/%2e%2e/secret.txt",
        f"/media/{tmp}/secret.txt",
        f"/media/%2F{str(tmp).lstrip('/')}/secret.txt",
        "/media//etc/passwd",
        "/media/%252e%252e/secret.txt",
        "/media/outside.mp4",
        "/media/loop.mp4",
        "/media/..%5csecret.txt",
        "/media/sub",
        "/media/",
        "/media/clip.mp4%00",
    ):
        response = client.get(path)
        assert response.status_code == 404, path
        assert b"do not serve" not in response.content
    assert client.get("/media/sub/inside.mp4").status_code == 200


# ---------------------------------------------------------------- concurrency


@pytest.mark.slow
def test_eight_writers_of_two_hundred_edits_lose_none(world):
    """8 threads x 200 edits spread over 4 queries; a 409 is retried with the version the
    conflict answer carries. Every acknowledged edit must be in the history exactly once, and
    each query's history must be one unbroken chain (each edit's `before` is the previous
    edit's `after`), so no write overwrote another it had not seen."""
    _, videos, _, store = world
    app = create_app(store, videos, "many")
    qids = ["q1", "q2", "q3", "v_x#0"]
    acknowledged: list[tuple[str, str]] = []
    lock = threading.Lock()

    def writer(number: int) -> None:
        with TestClient(app) as c:
            seen = {q: c.get(f"/api/queries/{quote(q)}").json() for q in qids}
            for i in range(EDITS):
                qid, text = qids[(number + i) % 4], f"writer {number} edit {i}"
                while True:
                    body = {"version": seen[qid]["version"], "query": text}
                    response = c.patch(f"/api/queries/{quote(qid)}", json=body)
                    if response.status_code == 200:
                        seen[qid] = response.json()
                        with lock:
                            acknowledged.append((qid, text))
                        break
                    assert response.status_code == 409, response.text
                    seen[qid] = response.json()["current"]

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(acknowledged) == 8 * EDITS
    history = store.history()
    assert sorted((e.qid, e.after["query"]) for e in history) == sorted(acknowledged)
    for qid in qids:
        chain = [e for e in history if e.qid == qid]
        assert [e.version for e in chain] == list(range(2, len(chain) + 2))
        assert all(a.after == b.before for a, b in zip(chain, chain[1:]))
        assert store.get(qid).query == chain[-1].after["query"]
        assert store.get(qid).version == len(chain) + 1


# ---------------------------------------------------------------- a real server, killed


def start_server(bench: Path, videos: Path, db: Path, *extra: str) -> tuple[subprocess.Popen, str]:
    """`longground annotate serve` on a free loopback port; returns the process and its URL."""
    env = {**os.environ, "PYTHONPATH": str(SRC), "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "longground",
            "annotate",
            "serve",
            str(bench),
            "--videos",
            str(videos),
            "--db",
            str(db),
            "--port",
            "0",
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    line = process.stdout.readline()
    if "http://" not in line:
        process.kill()
        raise AssertionError(f"no URL: {line!r} {process.stderr.read()}")
    return process, line.split("open ", 1)[1].split()[0]


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.kill()
    process.wait(timeout=10)
    process.stdout.close()
    process.stderr.close()


@pytest.mark.slow
def test_sigkill_loses_no_acknowledged_edit(world):
    httpx = pytest.importorskip("httpx")
    tmp, videos, bench, _ = world
    db = tmp / "served.db"
    process, url = start_server(bench, videos, db, "--annotator", "carol")
    acknowledged: list[str] = []
    stop_writing = threading.Event()

    def writer() -> None:
        with httpx.Client(base_url=url, timeout=5) as c:
            version = c.get("api/queries/q3").json()["version"]
            for i in range(100000):
                if stop_writing.is_set():
                    return
                try:
                    r = c.patch("api/queries/q3", json={"version": version, "query": f"edit {i}"})
                except httpx.TransportError:
                    return  # killed mid-request: not acknowledged
                assert r.status_code == 200, r.text
                version = r.json()["version"]
                acknowledged.append(r.json()["query"])

    thread = threading.Thread(target=writer)
    try:
        thread.start()
        deadline = time.monotonic() + 20
        while len(acknowledged) < 30 and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(process.pid, signal.SIGKILL)
        thread.join(timeout=10)
    finally:
        stop_writing.set()
        stop(process)
    assert len(acknowledged) >= 30
    process, url = start_server(bench, videos, db)
    try:
        with httpx.Client(base_url=url, timeout=5) as c:
            q3 = c.get("api/queries/q3").json()
            edits = c.get("api/history", params={"qid": "q3"}).json()["edits"]
    finally:
        stop(process)
    assert q3["query"] in (acknowledged[-1], f"edit {len(acknowledged)}")
    stored = [e["after"]["query"] for e in edits]
    assert stored[: len(acknowledged)] == acknowledged
    assert {e["annotator"] for e in edits} == {"carol"}


# ---------------------------------------------------------------- the command line


def run_cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_export_of_an_unedited_database_is_the_canonical_benchmark(world, capsys):
    tmp, _, bench, store = world
    canonical = tmp / "canonical.jsonl"
    write_samples(canonical, load_samples(bench))
    out = tmp / "out.jsonl"
    assert run_cli(capsys, "annotate", "export", "--db", str(store.path), "--out", str(out))[0] == 0
    assert out.read_bytes() == canonical.read_bytes()


def test_export_only_annotated_with_history_and_never_discarded(world, capsys):
    tmp, _, _, store = world
    store.update("q1", 1, lambda q: q.with_fields(annotated=True, intervals=((1.0, 1.5),)), "ann")
    store.update("q2", 1, lambda q: q.with_fields(review="discarded"), "ann")
    out = tmp / "out.jsonl"
    run_cli(capsys, "annotate", "export", "--db", str(store.path), "--out", str(out))
    assert [json.loads(line)["qid"] for line in out.read_text().splitlines()] == [
        "q1",
        "q3",
        "v_x#0",
    ]
    code, _, _ = run_cli(
        capsys,
        "annotate",
        "export",
        "--db",
        str(store.path),
        "--out",
        str(out),
        "--only",
        "annotated",
        "--history",
    )
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert code == 0 and [r["qid"] for r in rows] == ["q1"]
    assert rows[0]["intervals"] == [[1.0, 1.5]] and rows[0]["annotated"] is True
    assert rows[0]["history"][0]["after"]["intervals"] == [[1.0, 1.5]]
    assert load_samples(out)[0].gt.to_list() == [[1.0, 1.5]]  # still a readable benchmark


def test_import_adds_queries_and_refuses_duplicates(world, capsys):
    tmp, _, bench, store = world
    more = tmp / "review.jsonl"
    more.write_text(json.dumps({**BENCH[0], "qid": "q9"}) + "\n")
    code, _, err = run_cli(capsys, "annotate", "import", "--db", str(store.path), str(more))
    assert code == 0 and "added 1" in err and store.get("q9").query == BENCH[0]["query"]
    dup = tmp / "dup.jsonl"
    dup.write_text(json.dumps({**BENCH[0], "qid": "q10"}) + "\n" + json.dumps(BENCH[1]) + "\n")
    code, _, err = run_cli(capsys, "annotate", "import", "--db", str(store.path), str(dup))
    assert code == 2 and err.count("\n") == 1 and "qid q2 is already in" in err
    assert store.count() == 5  # q10 was not added either


@pytest.mark.parametrize("target", ["bench", "db", "more"])
def test_export_never_overwrites_an_input(world, capsys, target):
    tmp, _, bench, store = world
    more = tmp / "more.jsonl"
    more.write_text(json.dumps({**BENCH[0], "qid": "q9"}) + "\n")
    import_benchmark(store, more)
    path = {"bench": bench, "db": store.path, "more": more}[target]
    before = path.read_bytes()
    code, _, err = run_cli(
        capsys, "annotate", "export", "--db", str(store.path), "--out", str(path)
    )
    assert code == 2 and "would overwrite the input" in err and err.count("\n") == 1
    assert path.read_bytes() == before


def test_bad_inputs_are_one_line_and_exit_2(world, capsys, tmp_path):
    tmp, videos, bench, _ = world
    malformed = tmp / "bad.jsonl"
    malformed.write_text(json.dumps(BENCH[0]) + '\n{"qid": "q2", "intervals": [[1,\n')
    cases = [
        (["serve", str(tmp / "none.jsonl"), "--videos", str(videos)], "no such file"),
        (["serve", str(malformed), "--videos", str(videos)], "bad.jsonl:2: qid q2: malformed"),
        (["serve", str(bench), "--videos", str(tmp / "novids")], "no such folder"),
        (
            ["serve", str(bench), "--videos", str(videos), "--db", str(bench / "x.db")],
            "is not a folder",
        ),
        (
            ["serve", str(bench), "--videos", str(videos), "--db", "/proc/annotate.db"],
            "virtual file system",
        ),
        (
            ["export", "--db", str(tmp / "none.db"), "--out", str(tmp / "o.jsonl")],
            "no such annotation database",
        ),
        (["export", "--db", str(world[3].path), "--out", str(bench / "o.jsonl")], "not a folder"),
        (["import", "--db", str(world[3].path), str(malformed)], "malformed"),
    ]
    for args, message in cases:
        code, out, err = run_cli(capsys, "annotate", *args)
        assert code == 2, args
        assert err.startswith("longground: error: ") and message in err, (args, err)
        assert err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp / "none.db").exists()


def test_a_port_in_use_is_one_line(world, capsys):
    import socket

    tmp, videos, bench, _ = world
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = str(taken.getsockname()[1])
        code, _, err = run_cli(
            capsys,
            "annotate",
            "serve",
            str(bench),
            "--videos",
            str(videos),
            "--db",
            str(tmp / "p.db"),
            "--port",
            port,
        )
    assert code == 2 and f"cannot listen on 127.0.0.1:{port}" in err and err.count("\n") == 1


def test_serve_needs_a_token_when_not_on_loopback(world, capsys, monkeypatch):
    from longground.annotate import server

    tmp, videos, bench, _ = world
    served = []
    monkeypatch.setattr(server, "bind", lambda host, port: FakeSocket())
    monkeypatch.setattr(server, "run", lambda app, sock: served.append(app))
    argv = ["annotate", "serve", str(bench), "--videos", str(videos), "--db", str(tmp / "b.db")]
    code, out, err = run_cli(capsys, *argv, "--host", "0.0.0.0")
    assert code == 0 and served and "0.0.0.0 is not loopback" in err
    assert "imported 4 queries" in err
    address = out.split("open ")[1].split()[0]
    assert address.startswith("http://0.0.0.0:4321/?token=")
    token = address.split("token=")[1]
    assert len(token) >= 32
    web = TestClient(served[-1], base_url="http://0.0.0.0:4321")
    assert web.get("/api/session").status_code == 401  # no token: nothing, not even reading
    assert web.get("/api/session", headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert web.get("/api/session", headers={"Authorization": f"Bearer {token}"}).is_success
    first = web.get(f"/?token={token}")  # the printed address sets the page's cookie
    assert first.is_success and "HttpOnly" in first.headers["set-cookie"]
    assert web.get("/api/session").is_success  # the cookie now carries the token
    evil = TestClient(served[-1], base_url="http://evil.example")
    assert evil.get(f"/api/session?token={token}").status_code == 400  # the Host check stays
    code, out, err = run_cli(capsys, *argv)
    assert code == 0 and "not loopback" not in err and "reusing" in err
    assert "token" not in out


class FakeSocket:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None

    def getsockname(self):
        return ("0.0.0.0", 4321)


def test_store_round_trips_every_field(tmp_path):
    store = AnnotationStore(tmp_path / "s.db")
    query = AnnotatedQuery(
        "q",
        "v.mp4",
        12.5,
        "text",
        ((0.1, 0.30000000000000004),),
        ("static", "causal"),
        "d",
        "verified",
        True,
        7,
    )
    store.add([query], "x")
    assert store.get("q") == query and math.isclose(store.get("q").intervals[0][1], 0.3)
    store.close()
