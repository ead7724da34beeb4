"""`GET /api/tracks` in process: a hit's tracks come from the tracker once, with a colour
per track and the boxes the thumbnail shows; a hit found by speech has none and says why;
bad hit ids are 404."""

from __future__ import annotations

from fractions import Fraction

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from longground.errors import UserError  # noqa: E402
from longground.serve import Library, create_app  # noqa: E402
from longground.track import Track  # noqa: E402
from tests.serve.fakes import FakeSearcher  # noqa: E402
from tests.serve.test_api import ready, wait_until  # noqa: E402
from tests.support.media import tone_video  # noqa: E402

ANSWERS = {"a.mp4": ([[0.4, 1.2], [2.0, 2.6]], [0.9, 0.3])}


class FakeTracker:
    """One track per moment, a box moving right across its span; records each call."""

    def __init__(self, fail: bool = False):
        self.calls, self.fail = [], fail

    def __call__(self, video, query, moment, channel):
        self.calls.append((video.name, query, moment.to_list(), channel))
        if self.fail:
            raise UserError(f"{video}: decoding stopped")
        if channel == "speech":
            return None, "the speech channel answers it: it finds words, not objects"
        start_s, end_s = moment.spans[0]
        times = [start_s, (start_s + end_s) / 2, end_s]
        boxes = [[0.1 * k, 0.2, 0.1 * k + 0.3, 0.7] for k in range(3)]
        return [Track(boxes, times, [0.9] * 3, 4, "cat")], ""


def serve(tmp_path, tracker, channel="visual"):
    from longground.serve import Indexer

    (tmp_path / "footage").mkdir()
    tone_video(tmp_path / "footage" / "a.mp4", 3.0, Fraction(25), None)
    searcher = FakeSearcher(ANSWERS, channel=channel)
    library = Library([tmp_path / "footage"])
    client = TestClient(create_app(library, searcher, allowed_hosts=["testserver"],
                                   tracker=tracker))  # fmt: skip
    indexer = Indexer(library, searcher, rescan_s=0.2).start()
    ready(client, 1)
    return client, indexer


def hit_ids(client, query="a cat"):
    return [h["id"] for h in client.get("/api/search", params={"q": query}).json()["hits"]]


def test_a_hits_tracks_are_followed_once_and_come_with_what_the_thumbnail_shows(tmp_path):
    tracker = FakeTracker()
    client, indexer = serve(tmp_path, tracker)
    try:
        first = wait_until(lambda: hit_ids(client))[0]  # the best hit: 0.4-1.2 s
        body = client.get("/api/tracks", params={"q": "a cat", "hit": first}).json()
        again = client.get("/api/tracks", params={"q": "a cat", "hit": first}).json()
    finally:
        indexer.stop()
    assert body == again and len(tracker.calls) == 1
    assert tracker.calls[0] == ("a.mp4", "a cat", [[0.4, 1.2]], "visual")
    (track,) = body["tracks"]
    assert track["track_id"] == 4 and track["colour"] == "#9467bd" and track["label"] == "cat"
    assert body["note"] is None and body["max_gap_s"] == 1.0
    thumb = body["thumb"]
    assert thumb["t_s"] == pytest.approx(0.8) and "t=0.800" in thumb["url"]
    assert thumb["boxes"] == [{"track_id": 4, "box": pytest.approx([0.1, 0.2, 0.4, 0.7]),
                               "colour": "#9467bd"}]  # fmt: skip


def test_a_hit_found_by_speech_has_no_track_and_says_why(tmp_path):
    client, indexer = serve(tmp_path, FakeTracker(), channel="speech")
    try:
        first = wait_until(lambda: hit_ids(client, "says hello"))[0]
        body = client.get("/api/tracks", params={"q": "says hello", "hit": first}).json()
    finally:
        indexer.stop()
    assert body["tracks"] == [] and "speech channel" in body["note"]
    assert body["thumb"]["boxes"] == []


def test_a_tracker_that_fails_gives_a_note_not_an_error(tmp_path):
    client, indexer = serve(tmp_path, FakeTracker(fail=True))
    try:
        first = wait_until(lambda: hit_ids(client))[0]
        response = client.get("/api/tracks", params={"q": "a cat", "hit": first})
    finally:
        indexer.stop()
    assert response.status_code == 200 and response.json()["note"] == "decoding stopped"


@pytest.mark.parametrize("hit", ["nope:0", "{video}:9", "{video}:x", "{video}", ":0", "x" * 65])
def test_unknown_hits_are_404_or_422(tmp_path, hit):
    client, indexer = serve(tmp_path, FakeTracker())
    try:
        video = wait_until(lambda: hit_ids(client))[0].rpartition(":")[0]
        response = client.get("/api/tracks", params={"q": "a cat", "hit": hit.format(video=video)})
    finally:
        indexer.stop()
    assert response.status_code in (404, 422), response.text
