"""The channels cache: one JSON file per (video, channel, rate, models), so a channel is
extracted once per video and `--channels` can add channels later without redoing others;
and one per (video, needle) for the keyword-spotting scores of a speech query."""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from dataclasses import replace
from importlib import metadata
from pathlib import Path

from ..atomic import atomic_open
from ..cache import video_fingerprint
from ..cache.kinds import channels_path
from .evidence import CHANNEL_TYPES, Evidence
from .extract import extract_audio_channel, extract_visual_channels

#: Bump when what a channel extracts changes; old entries are then not read.
VERSION = 4  # 2: text and people look only at frames whose picture changed; 3: `speech.SEARCH`;
#  4: the phones of each speech segment (since removed)
SPEECH_VERSION = 5  # the speech channel's own, after 4: long talk in cues (`speech.cues`)
#: The same, for the keyword-spotting scores of one needle (2: per cue; 3: with the best
#: null word's score per cue; 4: `keyword.SPOT_BEAM`).
KEYWORD_VERSION = 4
_PACKAGES = {"speech": ("pocketsphinx", "silero-vad"), "text": ("rapidocr-onnxruntime",),
             "people": ("opencv-python",)}  # fmt: skip


class ChannelNote(UserWarning):
    """A channel does not exist in a video (no audio stream); shown as one note line."""

    label = "note"


class ChannelWarning(UserWarning):
    """A channel's stream exists but could not be read; shown as one warning line."""


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "?"


class ChannelStore:
    """Reads and builds channel entries under the cache root (None: the default root)."""

    def __init__(self, root: str | Path | None = None):
        self.root = root

    def path_for(self, video: Path, name: str, fps: float) -> Path:
        version = SPEECH_VERSION if name == "speech" else VERSION
        key = {"channel": name, "version": version, "fps": f"{fps:g}" if name != "speech" else "-",
               "models": ",".join(f"{p}={_version(p)}" for p in _PACKAGES[name])}  # fmt: skip
        return channels_path(video_fingerprint(video), key, self.root)

    def get_or_build(self, video: str | Path, names: tuple[str, ...], fps: float = 1.0) -> Evidence:
        """Every channel in `names` for `video`, read from the cache or extracted and stored.

        A channel that cannot be extracted is in `notes` (and a `ChannelNote` warning is
        issued when it was just tried).
        """
        from ..video import probe

        video = Path(video)
        info = probe(video)
        duration_s = float(info.duration_s)
        fps = min(fps, float(info.fps))  # no more samples than the video has frames
        channels, notes = {}, {}
        missing = []
        for name in names:
            entry = self._read(self.path_for(video, name, fps))
            if entry is None:
                missing.append(name)
            elif entry.get("note"):
                notes[name] = entry["note"]
            else:
                channels[name] = CHANNEL_TYPES[name].from_dict(entry["data"])
        built = self._build(video, tuple(missing), fps)
        for name, (value, note, warn) in built.items():
            self._write(self.path_for(video, name, fps), value, note)
            if note is not None:
                notes[name] = note
                kind = ChannelWarning if warn else ChannelNote
                warnings.warn(kind(f"{video}: {note}"), stacklevel=2)
            else:
                channels[name] = value
        return Evidence(duration_s, channels, notes)

    def with_spotted(self, video: str | Path, evidence: Evidence, needle: str) -> Evidence:
        """`evidence` with the keyword-spotting scores of `needle` in each speech segment
        (`keyword.spot`), read from the cache or computed once per (video, needle)."""
        from .keyword import spot

        transcript = evidence.get("speech")
        if transcript is None or not len(transcript.segments):
            return evidence
        video = Path(video)
        key = {"channel": "speech-keyword", "version": KEYWORD_VERSION, "needle": needle,
               "models": ",".join(f"{p}={_version(p)}" for p in _PACKAGES["speech"])}  # fmt: skip
        data = self.kept(
            video, key, lambda: spot(video, transcript.segments, needle),
            usable=lambda data: len(data.get("scores", ())) == len(transcript.segments),
        )  # fmt: skip
        return replace(evidence, spotted={**evidence.spotted, needle: data})

    def kept(
        self, video: Path, key: dict, build: Callable[[], dict], usable: Callable[[dict], bool]
    ) -> dict:
        """The data kept for `video` under `key` (a dict of what it depends on), where there
        is an entry `usable` takes; else `build()`'s, kept there first."""
        path = channels_path(video_fingerprint(video), key, self.root)
        entry = self._read(path)
        data = entry.get("data") if isinstance(entry, dict) else None
        if not isinstance(data, dict) or not usable(data):
            data = build()
            self._write_data(path, data)
        return data

    def _build(self, video: Path, names: tuple[str, ...], fps: float) -> dict:
        """Speech in a thread beside the pass over frames (decoding, ONNX Runtime and OpenCV
        release the GIL), so the wall time is about the longer of the two, not their sum."""
        from concurrent.futures import ThreadPoolExecutor

        out = {}
        visual = tuple(n for n in names if n != "speech")
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="speech") as pool:
            speech = pool.submit(extract_audio_channel, video) if "speech" in names else None
            if visual:
                for name, value in extract_visual_channels(video, visual, fps).items():
                    out[name] = (value, None, False)
            if speech is not None:
                out["speech"] = speech.result()
        return out

    @staticmethod
    def _read(path: Path) -> dict | None:
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError):
            return None

    @staticmethod
    def _write(path: Path, value, note: str | None) -> None:
        ChannelStore._write_data(path, None if value is None else value.to_dict(), note)

    @staticmethod
    def _write_data(path: Path, data: dict | None, note: str | None = None) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_open(path) as handle:
            json.dump({"note": note, "data": data}, handle)
