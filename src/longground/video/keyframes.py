"""Where the keyframes are, so the decoder can tell when a seek saves work.

A seek lands on a keyframe, and decoding resumes from there; it pays off only when the keyframe
before the next wanted frame lies well ahead of the current position. Containers with an
index (MP4, MOV, MKV after its cues are read) list every keyframe; for the rest the tracker
learns the longest keyframe interval from the frames decoded so far.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable

# Until two keyframes have been seen in an unindexed file, assume intervals up to this long.
GUESSED_MAX_GOP_S = 20.0


class KeyframeMap:
    """Keyframe positions of one stream, in pts ticks.

    Args:
        ticks_per_s: stream ticks per second.
        reorder_ticks: how far presentation may lag decoding (B-frame delay), in ticks.
        load_index: returns the keyframe timestamps of the container index (decode-order
            stamps, at or before the presentation stamps), or an empty list when there is
            none. Called once, the first time a seek is considered.

    >>> m = KeyframeMap(ticks_per_s=25, reorder_ticks=0, load_index=lambda: [0, 250, 500])
    >>> m.at_or_before(300), m.at_or_before(249), m.seek_target(300)
    (250, 0, 300)
    >>> unindexed = KeyframeMap(ticks_per_s=25)
    >>> unindexed.observe(0); unindexed.observe(100)
    >>> unindexed.seek_target(1000), unindexed.at_or_before(1000)
    (900, 800)
    """

    def __init__(
        self,
        ticks_per_s: float,
        reorder_ticks: int = 0,
        load_index: Callable[[], list[int]] = list,
    ):
        self.ticks_per_s = ticks_per_s
        self.reorder_ticks = reorder_ticks
        self._load_index = load_index
        self._index: list[int] | None = None
        self._last_seen: int | None = None
        self._max_gap: int | None = None

    @classmethod
    def for_stream(cls, stream, frame_ticks: int) -> KeyframeMap:
        """Keyframes of a PyAV stream; its container index is read when first needed."""

        def load_index() -> list[int]:
            ticks = [e.timestamp for e in stream.index_entries if e.is_keyframe]
            return ticks if len(ticks) > 1 else []

        codec = stream.codec_context
        depth = getattr(codec, "reorder_depth", None)
        reorder = int(depth if depth is not None else bool(codec.has_b_frames)) * frame_ticks
        return cls(float(1 / stream.time_base), reorder, load_index)

    @property
    def index(self) -> list[int]:
        if self._index is None:
            self._index = sorted(self._load_index())
        return self._index

    def observe(self, pts: int) -> None:
        """Note a decoded keyframe (used to learn the interval when there is no index)."""
        if self._last_seen is not None and pts > self._last_seen:
            gap = pts - self._last_seen
            self._max_gap = gap if self._max_gap is None else max(self._max_gap, gap)
        self._last_seen = pts

    def lost_track(self) -> None:
        """Forget the last keyframe seen (after a seek, the next one is not its successor)."""
        self._last_seen = None

    def gap_ticks(self) -> int:
        """The longest keyframe interval seen so far, or the guess before two were seen."""
        if self._max_gap is not None:
            return self._max_gap
        return round(GUESSED_MAX_GOP_S * self.ticks_per_s)

    def at_or_before(self, tick: int) -> int:
        """The earliest tick where a seek for `tick` may resume decoding.

        With an index this is the keyframe before `tick`, allowing for B-frame delay.
        Without one, `seek_target` backs off one interval and the demuxer may land up to one
        more interval earlier, so two intervals before `tick`.
        """
        if self.index:
            i = bisect.bisect_right(self.index, tick - self.reorder_ticks) - 1
            return self.index[max(i, 0)]
        return tick - 2 * self.gap_ticks()

    def seek_target(self, tick: int) -> int:
        """What to ask the demuxer for, to land on a keyframe at or before `tick`.

        Demuxers without an index (MPEG-TS) search by timestamp through the bytes and resume
        at the first keyframe after the point found, so the request goes one interval early.
        """
        return tick if self.index else tick - self.gap_ticks()
