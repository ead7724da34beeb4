"""A fake `Searcher` for the serve tests (no tests here): answers depend only on the
video's file name and the query, indexing reads the video's header as the real one does."""

from __future__ import annotations

import threading
import zlib
from pathlib import Path

from longground.methods import Grounding
from longground.moments import Moments


class FakeSearcher:
    """Moments by (file name, query): `answers[name]` when given, else from a checksum.

    `hold` (a file name) makes `prepare` of that file wait until `release` is set, so a test
    can delete the file while it is being indexed.
    """

    method = "fake"

    def __init__(self, answers: dict | None = None, channel: str = "visual"):
        self.answers = answers or {}
        self.channel = channel
        self.calls = 0
        self.hold: str | None = None
        self.holding = threading.Event()
        self.release = threading.Event()

    def prepare(self, video: Path) -> float:
        from longground.video import probe

        if video.name == self.hold:
            self.holding.set()
            self.release.wait(10)
        return float(probe(video).duration_s)

    def search(self, video: Path, query: str) -> Grounding:
        self.calls += 1
        spans, scores = self.answers.get(video.name, self._made_up(video.name, query))
        trace = {"route": {"channel": self.channel, "needle": query}, "peak_score": 0.9}
        return Grounding(Moments.from_list(spans, scores) if spans else Moments.empty(),
                         trace=trace)  # fmt: skip

    @staticmethod
    def _made_up(name: str, query: str) -> tuple[list, list]:
        h = zlib.crc32(f"{name}|{query}".encode())
        n = h % 3
        spans = [[0.2 + 1.0 * i, 0.2 + 1.0 * i + 0.6] for i in range(n)]
        return spans, [((h >> (4 * i)) % 100) / 100 for i in range(n)]
