"""Answers about the edit itself rather than what it shows: its cuts, its shots and its black
frames ("every cut", "how many shots are there", "the longest shot", "when does it fade to
black"; `query.Route.edit`).

One pass over the video's frames on the cut detector's grid (`agent.frames.SAMPLER_FPS`),
shrunk as the cut detector reads them (`agent.perception.cuts.shrink`) and read by it a chunk
at a time, so memory holds one chunk whatever the video's length. A cut is answered as the
span between the two grid frames around it, a shot as the span between two cuts (or an end
of the video), black as each run of black grid frames. The reading is kept with the video's
evidence channels (`channels/<fingerprint>-<digest>.json` under the cache root), so a video
is read once.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..agent.frames import SAMPLER_FPS
from ..agent.perception.cuts import cuts, shrink
from ..channels import ChannelStore
from ..moments import Moments
from ..progress import progress_bar
from ..query import QueryAnalysis
from ..video import probe, sample_frames
from .base import Grounding

#: A frame is black when at least `BLACK_SHARE` of its pixels are at most `BLACK_LEVEL`
#: bright (0-255): FFmpeg's `blackdetect` defaults (pixel threshold 0.10, picture 0.98).
BLACK_LEVEL = 0.10 * 255
BLACK_SHARE = 0.98
#: Frames the cut detector reads at once, and the frames of context kept on each side of the
#: pairs it decides: it compares a pair with the two pairs that move on each side, so where
#: those lie further off (in a still stretch), it sees the ones inside the chunk only.
CHUNK = 512
CONTEXT = 4
#: Bump when what `read_edit` reads changes; readings kept from before are then read again.
EDIT_VERSION = 2  # 2: the grid's rate and length, not its times
#: What each kind of answer holds, as `--explain` says it.
RULES = {
    "cut": "cuts: a pair of frames that changes the whole picture at once",
    "shot": "shots: from cut to cut (a pair of frames that changes the whole picture at once)",
    "black": f"black frames: at least {BLACK_SHARE:.0%} of the pixels at most "
             f"{BLACK_LEVEL / 255:.0%} bright",
}  # fmt: skip


@dataclass(frozen=True)
class EditReading:
    """What one pass read on the grid `k / fps` from 0: which consecutive pairs of frames
    hold a cut, which frames are black.

    >>> reading = EditReading(2.0, np.array([0, 0, 1, 0, 0], bool),
    ...                       np.array([0, 0, 0, 1, 1, 0], bool), 3.0)
    >>> reading.cuts().to_list(), reading.shots().to_list(), reading.black().to_list()
    ([[1.0, 1.5]], [[0.0, 1.25], [1.25, 3.0]], [[1.5, 2.5]])
    """

    fps: float
    cut_pairs: np.ndarray
    black_frames: np.ndarray
    duration_s: float

    @property
    def times_s(self) -> np.ndarray:
        """`(N,)` the times of the frames read."""
        return np.arange(len(self.black_frames)) / self.fps

    def to_dict(self) -> dict:
        """The rate, the number of frames, the cut pairs by number and the black frames as
        runs `[first, after)`; `from_dict` reads it back.

        >>> r = EditReading(8.0, np.array([0, 1, 0], bool), np.array([1, 1, 0, 0], bool), 0.5)
        >>> d = r.to_dict(); d["cut_pairs"], d["black_runs"]
        ([1], [[0, 2]])
        >>> back = EditReading.from_dict(d); back.cuts() == r.cuts(), back.black() == r.black()
        (True, True)
        """
        runs = zip(*(part.tolist() for part in self._black_runs()))
        return {"fps": self.fps, "frames": len(self.black_frames),
                "cut_pairs": np.flatnonzero(self.cut_pairs).tolist(),
                "black_runs": [list(r) for r in runs], "duration_s": self.duration_s}  # fmt: skip

    @classmethod
    def from_dict(cls, data: dict) -> EditReading:
        frames = int(data["frames"])
        pairs = np.zeros(max(frames - 1, 0), bool)
        pairs[np.asarray(data["cut_pairs"], int)] = True
        black = np.zeros(frames, bool)
        for first, after in data["black_runs"]:
            black[first:after] = True
        return cls(float(data["fps"]), pairs, black, float(data["duration_s"]))

    def _black_runs(self) -> tuple[np.ndarray, np.ndarray]:
        """`(first, after)` frame numbers of each run of black frames."""
        edges = np.diff(np.r_[0, self.black_frames.astype(np.int8), 0])
        return np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)

    def cuts(self) -> Moments:
        """Each cut: from the last grid frame before it to the first after it (cuts in
        consecutive pairs are one: a change spread over two grid steps)."""
        at, times_s = np.flatnonzero(self.cut_pairs), self.times_s
        return _scored(np.stack([times_s[at], times_s[at + 1]], axis=1)).merge()

    def shots(self) -> Moments:
        """From the video's start to the first cut (its middle), from cut to cut, and on to
        the end."""
        cuts = self.cuts().spans
        bounds = np.r_[0.0, cuts.mean(axis=1), self.duration_s]
        return _scored(np.stack([bounds[:-1], bounds[1:]], axis=1))

    def black(self) -> Moments:
        """Each run of black grid frames, from its first frame to the next frame read (the
        video's end after the last)."""
        first, after = self._black_runs()
        times_s = self.times_s
        ends = np.r_[times_s, self.duration_s][after]
        return _scored(np.stack([times_s[first], ends], axis=1))


def _scored(spans: np.ndarray) -> Moments:
    """Moments read from the pixels, each scored 1 (a cut is there or not)."""
    spans = spans.reshape(-1, 2)
    spans = spans[spans[:, 1] > spans[:, 0]]
    return Moments(spans, np.ones(len(spans)))


def black(small: np.ndarray) -> np.ndarray:
    """`(N,)` bool: which shrunk frames `(N, h, w, 3)` are black (`BLACK_LEVEL`,
    `BLACK_SHARE`; the brightness is the mean of the three channels).

    >>> f = np.zeros((2, 10, 10, 3), np.int16); f[1, 0, :3] = 200  # 3 % of it bright
    >>> black(f).tolist()
    [True, False]
    """
    dark = np.asarray(small, np.float32).mean(axis=-1) <= BLACK_LEVEL
    return dark.reshape(len(dark), -1).mean(axis=1) >= BLACK_SHARE


def read_edit(video: str | Path, progress: bool = True) -> EditReading:
    """Cuts and black frames of `video`, read in one pass (`EditReading`).

    Raises:
        BadVideo: the file cannot be read as a video.
    """
    duration_s = probe(video).duration_s
    pairs, dark = [], []
    window = np.zeros((0, 1, 1, 3), np.int16)  # the frames from number `since` on
    since = decided = 0  # pairs before number `decided` are decided
    with progress_bar(total=duration_s, desc="reading cuts", unit="s", enabled=progress) as bar:
        for batch in sample_frames(video, SAMPLER_FPS):
            small = shrink(batch.frames)
            dark.append(black(small))
            window = np.concatenate([window, small]) if len(window) else small
            if len(window) >= CHUNK:  # decide the pairs with `CONTEXT` frames on both sides
                stop = since + len(window) - 1 - CONTEXT
                pairs.append(cuts(window)[decided - since : stop - since])
                decided = stop
                window, since = window[decided - CONTEXT - since :], decided - CONTEXT
            bar.update(len(small) / SAMPLER_FPS)
    pairs.append(cuts(window)[decided - since :])
    return EditReading(SAMPLER_FPS, np.concatenate(pairs),
                       np.concatenate(dark) if dark else np.zeros(0, bool), duration_s)  # fmt: skip


def kept_reading(video: Path, root: str | Path | None = None) -> EditReading:
    """`read_edit` of `video`, read once and kept under the cache root `root` (None: the
    default) beside the video's evidence channels (`ChannelStore.kept`); an entry that cannot
    be read is read again from the video and rewritten."""
    key = {"channel": "edit", "version": EDIT_VERSION, "fps": f"{SAMPLER_FPS:g}"}
    data = ChannelStore(root).kept(video, key, lambda: read_edit(video).to_dict(), _readable)
    return EditReading.from_dict(data)


def _readable(data: dict) -> bool:
    """Whether a kept entry reads back as an `EditReading`."""
    try:
        EditReading.from_dict(data)
    except (ValueError, KeyError, TypeError, IndexError):
        return False
    return True


def edit_grounding(
    video: Path, analysis: QueryAnalysis, single: bool = False, cache_dir: Path | None = None
) -> Grounding | None:
    """The answer to a query about the edit (`Route.edit`: "cut", "shot" or "black"), or None
    for any other query: the moments of that kind inside the query's window, the occurrence
    and lengths asked for (the longest one alone with `single`), each scored 1; the reading
    kept under `cache_dir` (`kept_reading`)."""
    kind = analysis.target.route.edit
    if not kind:
        return None
    from ..agent.perception.intervals import occurrence

    reading = kept_reading(Path(video), cache_dir)
    found = {"cut": reading.cuts, "shot": reading.shots, "black": reading.black}[kind]()
    start_s, end_s = analysis.window_s(reading.duration_s) or (0.0, reading.duration_s)
    found = occurrence(found.clip(start_s, end_s), analysis.occurrence, analysis.length_s)
    if single and len(found) > 1:
        found = found[np.argsort(-found.lengths_s, kind="stable")[:1]]
    trace = {"analysis": analysis.to_record(),
             "edit": {"kind": kind, "rule": RULES[kind], "frames_read": len(reading.black_frames),
                      "fps": SAMPLER_FPS}}  # fmt: skip
    return Grounding(moments=found, trace=trace)
