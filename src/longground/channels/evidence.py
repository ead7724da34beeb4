"""What the channels extract from one video, as small frozen value types that round-trip
through JSON (the cache entry is one JSON file per video).

- `Transcript`: speech cues `(K, 2)` s and words with `(W,)` start/end times.
- `Readings`: on-screen text, one reading per OCR'd frame and line, held on screen from
  `start_s` until the picture next changed.
- `People`: per sampled frame, face and person counts, with boxes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..moments import Moments


@dataclass(frozen=True)
class Transcript:
    """Speech: its cues `segments` (Moments, seconds; `speech.cues`) and words `text[i]`
    spoken over `[start_s[i], end_s[i])`.

    >>> t = Transcript.from_words([(1.0, 1.4, "hello"), (1.5, 2.0, "world")], Moments.empty())
    >>> len(t), t.text_between(0.0, 1.45)
    (2, 'hello')
    """

    segments: Moments
    start_s: np.ndarray
    end_s: np.ndarray
    text: tuple[str, ...]

    def __post_init__(self):
        if not len(self.start_s) == len(self.end_s) == len(self.text):
            raise ValueError("word times and words differ in length")

    @classmethod
    def from_words(cls, words: list[tuple[float, float, str]], segments: Moments) -> Transcript:
        words = sorted(words)
        return cls(
            segments,
            np.array([w[0] for w in words], np.float64),
            np.array([w[1] for w in words], np.float64),
            tuple(w[2] for w in words),
        )

    def __len__(self) -> int:
        return len(self.text)

    def text_between(self, start_s: float, end_s: float) -> str:
        """The words that start inside `[start_s, end_s)`, joined by spaces."""
        keep = (self.start_s >= start_s) & (self.start_s < end_s)
        return " ".join(t for t, k in zip(self.text, keep) if k)

    def lines(self) -> list[tuple[float, float, str]]:
        """One `(start_s, end_s, text)` per voice-activity segment that holds words."""
        out = []
        for start_s, end_s in self.segments.spans:
            text = self.text_between(float(start_s), float(end_s))
            if text:
                out.append((float(start_s), float(end_s), text))
        return out

    def to_dict(self) -> dict:
        return {
            "segments": self.segments.spans.tolist(),
            "words": [
                [float(a), float(b), t] for a, b, t in zip(self.start_s, self.end_s, self.text)
            ],
        }

    @classmethod
    def from_dict(cls, data: dict) -> Transcript:
        spans = np.array(data["segments"], np.float64).reshape(-1, 2)
        words = [tuple(w) for w in data["words"]]
        return cls.from_words(words, Moments(spans))


@dataclass(frozen=True)
class Readings:
    """On-screen text: line `text[i]` was read on the frame at `start_s[i]` and stays until
    `end_s[i]` (the next change of picture, or the end); `score[i]` is the OCR confidence."""

    start_s: np.ndarray
    end_s: np.ndarray
    text: tuple[str, ...]
    score: np.ndarray
    n_read: int = 0  # frames OCR was run on

    def __len__(self) -> int:
        return len(self.text)

    def to_dict(self) -> dict:
        rows = zip(self.start_s, self.end_s, self.text, self.score)
        return {"lines": [[float(a), float(b), t, float(c)] for a, b, t, c in rows],
                "n_read": self.n_read}  # fmt: skip

    @classmethod
    def from_rows(cls, rows: list[tuple[float, float, str, float]], n_read: int = 0) -> Readings:
        rows = sorted(rows)
        return cls(
            np.array([r[0] for r in rows], np.float64),
            np.array([r[1] for r in rows], np.float64),
            tuple(r[2] for r in rows),
            np.array([r[3] for r in rows], np.float64),
            n_read,
        )

    @classmethod
    def from_dict(cls, data: dict) -> Readings:
        return cls.from_rows([tuple(r) for r in data["lines"]], data.get("n_read", 0))


@dataclass(frozen=True)
class People:
    """Per sampled frame at `times_s` `(N,)`: `faces` `(N,)` and `persons` `(N,)` counts, and
    the boxes `[x, y, w, h]` in pixels of the frame as sampled (`boxes[i]`: faces, persons)."""

    times_s: np.ndarray
    faces: np.ndarray
    persons: np.ndarray
    boxes: tuple = field(default=())
    step_s: float = 1.0

    @property
    def bodies(self) -> np.ndarray:
        """`(N,)` the pedestrian detector's count per frame, from its boxes (zeros when the
        boxes were not kept)."""
        if len(self.boxes) != len(self.times_s):
            return np.zeros(len(self.times_s), np.int64)
        return np.array([len(b[1]) for b in self.boxes], np.int64)

    def to_dict(self) -> dict:
        return {"times_s": self.times_s.tolist(), "faces": self.faces.tolist(),
                "persons": self.persons.tolist(), "boxes": list(self.boxes),
                "step_s": self.step_s}  # fmt: skip

    @classmethod
    def from_dict(cls, data: dict) -> People:
        return cls(
            np.array(data["times_s"], np.float64),
            np.array(data["faces"], np.int64),
            np.array(data["persons"], np.int64),
            tuple(data["boxes"]),
            float(data["step_s"]),
        )


CHANNEL_TYPES = {"speech": Transcript, "text": Readings, "people": People}


@dataclass(frozen=True)
class Evidence:
    """Every channel extracted from one video (a missing key: not extracted), the notes
    saying why a channel is missing (no audio stream, unreadable audio, model not installed),
    and the keyword-spotting scores of the needles asked about so far."""

    duration_s: float
    channels: dict = field(default_factory=dict)
    notes: dict = field(default_factory=dict)
    #: Keyword-spotting scores per needle, one per speech segment (`keyword.spot`); filled
    #: for the query being answered, not stored with the channels.
    spotted: dict = field(default_factory=dict)

    def get(self, name: str):
        return self.channels.get(name)

    def to_dict(self) -> dict:
        return {"duration_s": self.duration_s,
                "channels": {k: v.to_dict() for k, v in self.channels.items()},
                "notes": dict(self.notes)}  # fmt: skip

    @classmethod
    def from_dict(cls, data: dict) -> Evidence:
        channels = {k: CHANNEL_TYPES[k].from_dict(v) for k, v in data["channels"].items()}
        return cls(float(data["duration_s"]), channels, dict(data.get("notes", {})))
