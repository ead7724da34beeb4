"""`FeatureStore`: timelines cached on disk and in memory, keyed by video, encoder, rate and
the size frames are decoded at (the encoder's input size)."""

from __future__ import annotations

import os
import threading
import time
import warnings
from collections import OrderedDict
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path

from ..cache.fingerprint import video_fingerprint
from ..cache.kinds import STALE_TEMP_S, index_dir, index_entry_name, is_temp, lock_path
from ..encoders.base import ImageTextEncoder
from ..video import BadVideo, TruncatedVideo
from ..video.sampling import as_fraction, truncation_message
from .build import build_timeline
from .change import ChangeGate
from .rate import sampling_rate
from .storage import CorruptEntry, half_precision, read_timeline, write_timeline
from .timeline import Timeline

# Timelines kept in memory across FeatureStore instances of one process.
MEMORY_BYTES = 512 << 20
# Wall time between checkpoints of a build in progress (and the most an interruption loses).
CHECKPOINT_S = 60.0
# The decode short side of every entry written before the size followed the encoder; keys
# at this size omit it, so those entries stay valid (see `FeatureStore.key`).
LEGACY_SHORT_SIDE = 224
# Set to 1 to encode every sampled frame (no content-adaptive indexing) by default.
EVERY_FRAME_ENV = "LONGGROUND_INDEX_EVERY_FRAME"
# Set to 1 to decode keyframes only (an opt-in, lossy mode; entries keyed apart) by default.
KEYFRAMES_ENV = "LONGGROUND_INDEX_KEYFRAMES"
DEFAULT_GATE = ChangeGate()


def default_gate() -> ChangeGate | None:
    """The change gate new stores use: `DEFAULT_GATE`, or None (every frame encoded) when
    `$LONGGROUND_INDEX_EVERY_FRAME` is 1."""
    return None if os.environ.get(EVERY_FRAME_ENV, "").strip() == "1" else DEFAULT_GATE


def decode_side(encoder: ImageTextEncoder) -> int:
    """The short side, in pixels, frames are decoded at for `encoder`: its `input_size`.

    >>> class Big(ImageTextEncoder):
    ...     encoder_id, input_size = "big", 336
    ...     def encode_images(self, frames): ...
    ...     def encode_texts(self, texts): ...
    >>> decode_side(Big())
    336
    """
    side = getattr(encoder, "input_size", LEGACY_SHORT_SIDE)
    if isinstance(side, bool) or not isinstance(side, int) or side <= 0:
        raise ValueError(f"{encoder.encoder_id}: input_size must be a positive int, got {side!r}")
    return side


class FeatureStore:
    """Per-video feature timelines, built once and reused.

    An entry is identified by the video's fingerprint (size, mtime, hash of head and tail
    bytes), the encoder id and the sampling rate; a changed file or encoder gets a new entry.
    Entries are written atomically; a damaged or truncated entry is rebuilt. A build saves its
    progress every `CHECKPOINT_S` seconds and when interrupted, and the next build of the same
    entry continues from there. Loaded timelines stay in an in-process LRU, so a second query
    on a video in the same process costs no I/O.

    Args:
        root: cache folder; default `$LONGGROUND_CACHE` or `~/.cache/longground`.
        gate: content-adaptive indexing: only frames this gate finds changed are encoded
            (`index/change.py`); None encodes every sampled frame. Default `default_gate()`.
            The gate is part of the key.
        keyframes_only: decode keyframes only (`"decode": "keyframes"` in the key); default
            `$LONGGROUND_INDEX_KEYFRAMES` is 1.

    >>> import tempfile
    >>> FeatureStore(tempfile.mkdtemp()).root.name
    'timelines'
    """

    _UNSET = object()

    def __init__(
        self,
        root: str | Path | None = None,
        gate: ChangeGate | None = _UNSET,
        keyframes_only: bool | None = None,
    ):
        self.root = index_dir(root)
        self.gate = default_gate() if gate is FeatureStore._UNSET else gate
        if keyframes_only is None:
            keyframes_only = os.environ.get(KEYFRAMES_ENV, "").strip() == "1"
        self.keyframes_only = keyframes_only

    def key(
        self, video: str | Path, encoder_id: str, fps: float, short_side: int = LEGACY_SHORT_SIDE
    ) -> dict:
        """What identifies an entry: `{"video": fingerprint, "encoder": id, "fps": "n/d"}`,
        plus `"short_side"` when frames are decoded at another size than 224 pixels, and
        `"change"` (the gate's key) when only changed frames are encoded.

        KEY FORMAT NOTE (for porting to the cache package): the decode size joined the key
        in issue 13. It is left out at 224, the size every entry was decoded at before, so
        those entries keep their digest and stay valid; at any other size it is an int.
        """
        rate = sampling_rate(video, fps)
        return {"video": video_fingerprint(video), **self.setting(encoder_id, rate, short_side)}

    def setting(
        self, encoder_id: str, fps: float | Fraction, short_side: int = LEGACY_SHORT_SIDE
    ) -> dict:
        """An entry's key without its video: what every video of a library is indexed with
        (`fps` as given, not capped at a video's own rate).

        >>> FeatureStore("/tmp/c", gate=None).setting("e", Fraction(1, 2))
        {'encoder': 'e', 'fps': '1/2'}
        """
        setting = {"encoder": encoder_id, "fps": str(as_fraction(fps))}
        if short_side != LEGACY_SHORT_SIDE:
            setting["short_side"] = int(short_side)
        if self.gate is not None:
            setting["change"] = self.gate.key
        if self.keyframes_only:
            setting["decode"] = "keyframes"
        return setting

    def path_for(self, video: str | Path, key: dict) -> Path:
        """Where the entry for `key` lives: `<root>/<stem>.<digest>.npz`."""
        return self.root / index_entry_name(video, key)

    def get(
        self, video: str | Path, encoder_id: str, fps: float, short_side: int = LEGACY_SHORT_SIDE
    ) -> Timeline | None:
        """The cached timeline (frames decoded at `short_side`), or None when there is none
        (or it is damaged)."""
        key = self.key(video, encoder_id, fps, short_side)
        return self._load(self.path_for(video, key), key)

    def has(
        self, video: str | Path, encoder_id: str, fps: float, short_side: int = LEGACY_SHORT_SIDE
    ) -> bool:
        """Whether the entry exists, judged from its manifest alone (no features read; a
        damaged entry is found out, and rebuilt, when it is read)."""
        from .cache_kind import read_manifest

        key = self.key(video, encoder_id, fps, short_side)
        path = self.path_for(video, key)
        return _MEMORY.get(path, key) is not None or (
            path.is_file() and read_manifest(path).get("key") == key
        )

    def get_or_build(
        self,
        video: str | Path,
        encoder: ImageTextEncoder,
        fps: float,
        progress: bool = True,
    ) -> Timeline:
        """The timeline of `video` under `encoder` at `fps`, built and stored if missing.

        Args:
            video: any video FFmpeg reads.
            encoder: its `encoder_id` is part of the key; frames are decoded with their
                shorter side at its `input_size` (`decode_side`), also part of the key.
            fps: samples per second; capped at the video's frame rate (with a warning).
            progress: show a progress bar while building (only on a terminal).

        Raises:
            BadVideo: the file cannot be read as a video.
        """
        if not Path(video).is_file():
            raise BadVideo(video, "no such file")
        key = self.key(video, encoder.encoder_id, fps, decode_side(encoder))
        path = self.path_for(video, key)
        timeline = self._load(path, key)
        if timeline is None:
            with _build_lock(path):
                timeline = self._load(path, key)  # another process may have built it
                if timeline is None:
                    rate = Fraction(key["fps"])
                    timeline = self._build(video, encoder, rate, progress, path, key)
                    _MEMORY.put(path, key, timeline.freeze())
                    _remove_stale_temps(path.parent)
                    return timeline
        _warn_if_truncated(video, timeline)
        return timeline

    def _build(self, video, encoder, fps, progress: bool, path: Path, key: dict) -> Timeline:
        """Build and write the entry, resuming from and checkpointing to `<entry>.partial.npz`,
        so that an interrupted build (Ctrl-C, a crash) loses at most `CHECKPOINT_S` of work."""
        partial, partial_key = path.with_suffix(".partial.npz"), {**key, "partial": True}

        def save(so_far: Timeline) -> None:
            write_timeline(partial, so_far, partial_key, video_path=video)

        try:
            resume = read_timeline(partial, partial_key)
        except (FileNotFoundError, CorruptEntry):
            resume = None
        timeline = build_timeline(
            video, encoder, fps, progress=progress, short_side=decode_side(encoder),
            resume=resume, checkpoint=save, checkpoint_every_s=CHECKPOINT_S, gate=self.gate,
            keyframes_only=self.keyframes_only,
        )  # fmt: skip
        timeline = half_precision(timeline)
        write_timeline(path, timeline, key, video_path=video)
        partial.unlink(missing_ok=True)
        return timeline

    def _load(self, path: Path, key: dict) -> Timeline | None:
        cached = _MEMORY.get(path, key)
        if cached is not None:
            return cached
        try:
            timeline = read_timeline(path, key)
        except FileNotFoundError:
            return None
        except CorruptEntry as exc:
            warnings.warn(f"{exc}; rebuilding it", stacklevel=3)
            path.unlink(missing_ok=True)
            return None
        _MEMORY.put(path, key, timeline.freeze())
        return timeline


class _TimelineLRU:
    """Least-recently-used timelines, bounded by their total bytes; thread-safe."""

    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        self._items: OrderedDict[Path, tuple[dict, Timeline]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, path: Path, key: dict) -> Timeline | None:
        with self._lock:
            item = self._items.get(path)
            if item is None or item[0] != key:
                return None
            self._items.move_to_end(path)
            return item[1]

    def put(self, path: Path, key: dict, timeline: Timeline) -> None:
        with self._lock:
            self._items[path] = (key, timeline)
            self._items.move_to_end(path)
            while len(self._items) > 1 and self._total() > self.max_bytes:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def _total(self) -> int:
        return sum(timeline.nbytes for _, timeline in self._items.values())


_MEMORY = _TimelineLRU(MEMORY_BYTES)


def clear_memory_cache() -> None:
    """Forget the timelines held in memory (the disk cache is untouched)."""
    _MEMORY.clear()


@contextmanager
def _build_lock(path: Path):
    """Hold an exclusive lock on `<entry>.lock`, so two processes do not build one entry."""
    try:
        import fcntl
    except ImportError:  # not POSIX: builds may repeat, writes stay atomic
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path(path), "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _remove_stale_temps(folder: Path) -> None:
    now = time.time()
    for temp in folder.glob("*"):
        try:
            if is_temp(temp.name) and now - temp.stat().st_mtime > STALE_TEMP_S:
                temp.unlink()
        except OSError:
            pass


def _warn_if_truncated(video: str | Path, timeline: Timeline) -> None:
    if timeline.truncated_at_s is not None:
        message = truncation_message(video, timeline.truncated_at_s, timeline.duration_s)
        warnings.warn(message, TruncatedVideo, stacklevel=3)
