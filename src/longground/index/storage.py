"""Timelines on disk: one `.npz` per entry, written atomically, checked when read.

An entry holds the arrays plus a JSON manifest (format version, what was indexed, and each
array's shape and dtype). Since format 2, features are stored compactly: half precision, and
only the rows the encoder computed (the `encoded` mask says which; content-adaptive indexing
reuses a row while the picture does not change). Format 1 entries (every row, float32) are
still read. The zip container's CRC-32 catches damaged bytes, a missing
central directory catches truncation, and the manifest catches a file that is whole but not
what it claims to be. Any of these makes `read_timeline` raise `CorruptEntry`.
"""

from __future__ import annotations

import json
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import numpy as np

from ..atomic import atomic_open
from ..video.sampling import as_fraction
from .timeline import Timeline

FORMAT_VERSION = 2
READABLE_FORMATS = (1, 2)
# Stored feature precision: halves the bytes; `half_precision` rounds a fresh build the same
# way, so a timeline reads back exactly as it was first used.
STORED_DTYPE = np.float16
_FEATURE = "feature."


class CorruptEntry(Exception):
    """A cache entry that cannot be trusted; it should be rebuilt."""


def write_timeline(
    path: Path, timeline: Timeline, key: dict, video_path: str | Path | None = None
) -> None:
    """Write an entry atomically: a temporary file in the same folder, fsynced, then renamed.

    A crash at any point leaves either the old entry or the new one, never a partial file.

    Args:
        path: the entry's final location.
        timeline: what to store.
        key: what identifies the entry (video fingerprint, encoder id, fps); checked on read.
        video_path: the source video, recorded (absolute) for `longground cache`; not part of
            the key, so a moved video still hits its entry.
    """
    encoded = timeline.encoded
    arrays = {"times_s": timeline.times_s, "pts_s": timeline.pts_s, "encoded": encoded}
    arrays.update(
        {_FEATURE + k: v[encoded].astype(STORED_DTYPE) for k, v in timeline.features.items()}
    )
    manifest = {
        "format": FORMAT_VERSION,
        "key": key,
        "video_path": str(Path(video_path).resolve()) if video_path is not None else None,
        "encoder_id": timeline.encoder_id,
        "fps": str(timeline.fps),  # exact: "30000/1001"
        "duration_s": timeline.duration_s,
        "truncated_at_s": timeline.truncated_at_s,
        "arrays": {k: {"shape": list(v.shape), "dtype": str(v.dtype)} for k, v in arrays.items()},
    }
    with atomic_open(path, "wb") as handle:
        np.savez(handle, manifest=np.array(json.dumps(manifest)), **arrays)


def read_timeline(path: Path, key: dict) -> Timeline:
    """Load and check an entry.

    Raises:
        FileNotFoundError: there is no entry.
        CorruptEntry: the entry is damaged, truncated, from another format, or for another key.
    """
    try:
        with np.load(path, allow_pickle=False) as npz:
            manifest = json.loads(str(npz["manifest"]))
            arrays = {name: npz[name] for name in manifest["arrays"]}
    except FileNotFoundError:
        raise
    except Exception as exc:  # whatever is wrong with the bytes, the entry is not usable
        raise CorruptEntry(f"{path}: unreadable ({type(exc).__name__}: {exc})") from None
    _check(path, manifest, arrays, key)
    encoded = arrays.get("encoded")
    features = {k[len(_FEATURE) :]: v for k, v in arrays.items() if k.startswith(_FEATURE)}
    if encoded is not None:
        features = _expanded(path, features, encoded)
    return Timeline(
        times_s=arrays["times_s"],
        features=features,
        encoder_id=manifest["encoder_id"],
        fps=manifest_rate(manifest["fps"]),
        duration_s=manifest["duration_s"],
        pts_s=arrays["pts_s"],
        truncated_at_s=manifest["truncated_at_s"],
        encoded=encoded,
    )


def read_computed(path: Path, key: dict, feature: str = "embedding") -> np.ndarray:
    """The rows of one feature the encoder computed, as stored (format 2: float16, one row
    per encoded sample; format 1: every row), reading no other array.

    Raises:
        FileNotFoundError: there is no entry.
        CorruptEntry: the entry is damaged, or for another key.
    """
    try:
        with np.load(path, allow_pickle=False) as npz:
            manifest = json.loads(str(npz["manifest"]))
            rows = npz[_FEATURE + feature]
    except FileNotFoundError:
        raise
    except Exception as exc:
        raise CorruptEntry(f"{path}: unreadable ({type(exc).__name__}: {exc})") from None
    if manifest.get("key") != key:
        raise CorruptEntry(f"{path}: made for {manifest.get('key')}, not {key}")
    return rows


def half_precision(timeline: Timeline) -> Timeline:
    """`timeline` with its features rounded to the stored precision (float16), still float32
    in memory, so a fresh build scores exactly like its entry read back."""
    rounded = {k: v.astype(STORED_DTYPE) for k, v in timeline.features.items()}
    return replace(timeline, features=rounded)


def _expanded(path: Path, stored: dict, encoded: np.ndarray) -> dict[str, np.ndarray]:
    """Every row from the stored computed rows: row i is the last computed row at or
    before i."""
    if encoded.dtype != bool or not len(encoded) or not encoded[0]:
        raise CorruptEntry(f"{path}: the encoded mask is not usable")
    source = np.cumsum(encoded) - 1
    out = {}
    for name, values in stored.items():
        if len(values) != source[-1] + 1:
            raise CorruptEntry(f"{path}: feature {name} has {len(values)} computed rows")
        out[name] = values[source]
    return out


def _check(path: Path, manifest: dict, arrays: dict, key: dict) -> None:
    if manifest.get("format") not in READABLE_FORMATS:
        raise CorruptEntry(f"{path}: format {manifest.get('format')} is not {FORMAT_VERSION}")
    if not {"times_s", "pts_s"} <= set(arrays):
        raise CorruptEntry(f"{path}: times are missing")
    if manifest.get("key") != key:
        raise CorruptEntry(f"{path}: made for {manifest.get('key')}, not {key}")
    for name, spec in manifest["arrays"].items():
        values = arrays[name]
        if list(values.shape) != spec["shape"] or str(values.dtype) != spec["dtype"]:
            raise CorruptEntry(f"{path}: array {name} is {values.shape} {values.dtype}")


def manifest_rate(value: str | float) -> Fraction:
    """The rate a manifest records: exact text ("30000/1001") or, in older entries, a float.

    >>> manifest_rate("30000/1001"), manifest_rate(0.5)
    (Fraction(30000, 1001), Fraction(1, 2))
    """
    return Fraction(value) if isinstance(value, str) else as_fraction(value)
