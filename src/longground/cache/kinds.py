"""The kinds of cache entry and each kind's file names, written and read back only here.

Everything lives under one root (`cache_root`):

| kind | where | one entry is |
|---|---|---|
| index | `timelines/<stem>.<digest>.npz` (+ `.lock`) | one feature timeline |
| agent | `agent/<fingerprint>-<encoder>-<fps>fps.json`, `.regions.npz` | one file of graph pieces |
| llm | `llm_cache.sqlite` (+ `-wal`, `-shm`) | one stored answer (a row) |
| channels | `channels/<fingerprint>-<digest>.json` | one channel, keyword scores or edit reading |
| encoders | `encoders/<name>.npy`, `<name>-<key>.onnx` | one array or network export |
| library | `library/<digest>.json`, `-main-<n>.faiss`, `-<entry>.npy` | a library's search index |
| temp | `.<name>.<random>.tmp` beside any of those; `.lock` files without an entry | one leftover |

A channels entry is one evidence channel (speech, text, people), one needle's keyword scores,
or a video's cuts and black frames (`methods.edits`). The folder of each kind takes the root
as given to `cache_root` (None: the default root).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from ..atomic import TEMP_PREFIX, TEMP_SUFFIX
from .root import cache_root

KINDS = ("index", "agent", "channels", "llm", "encoders", "library", "temp")
INDEX_DIR, AGENT_DIR, ENCODERS_DIR = "timelines", "agent", "encoders"
CHANNELS_DIR, LIBRARY_DIR = "channels", "library"
LLM_FILE = "llm_cache.sqlite"
LLM_FILES = (LLM_FILE, LLM_FILE + "-wal", LLM_FILE + "-shm")
LOCK_SUFFIX = ".lock"
# A temporary file younger than this may belong to a write in progress: it is never removed.
STALE_TEMP_S = 3600
_AGENT_NAME = re.compile(r"^([0-9a-f]{32})-")


def index_dir(root: str | Path | None = None) -> Path:
    """The folder of feature timelines.

    >>> index_dir("/c").as_posix()
    '/c/timelines'
    """
    return cache_root(root) / INDEX_DIR


def index_entry_name(video: str | Path, key: dict) -> str:
    """`<stem>.<digest>.npz`: the video's name, made safe and cut to 40 characters, and a
    digest of the entry's key (video fingerprint, encoder id, rate).

    >>> index_entry_name("/v/My clip!.mp4", {"video": "ab", "encoder": "e", "fps": "1"})
    'My_clip_.99bd8dbb4091abba4a9e38e2.npz'
    """
    digest = hashlib.blake2b(repr(sorted(key.items())).encode(), digest_size=12).hexdigest()
    stem = re.sub(r"[^A-Za-z0-9_-]+", "_", Path(video).stem)[:40]
    return f"{stem}.{digest}.npz"


def lock_path(entry: Path) -> Path:
    """The build lock beside an index entry.

    >>> lock_path(Path("t/a.0f.npz")).name
    'a.0f.lock'
    """
    return entry.with_suffix(LOCK_SUFFIX)


def agent_dir(root: str | Path | None = None) -> Path:
    """The folder of the agent's graph pieces.

    >>> agent_dir("/c").as_posix()
    '/c/agent'
    """
    return cache_root(root) / AGENT_DIR


def agent_video_key(video_fp: str, encoder_id: str) -> str:
    """What names one video under one encoder: `<fingerprint>-<8 hex digits of the encoder>`.

    >>> agent_video_key("0" * 32, "clip")[33:]
    'e3a93fa8'
    """
    return f"{video_fp}-{hashlib.sha1(encoder_id.encode()).hexdigest()[:8]}"


def agent_rate_key(video_key: str, fps: float) -> str:
    """A video key at one sampling rate: the stem of its graph and region files.

    >>> agent_rate_key("abc-12345678", 0.5)
    'abc-12345678-0.5fps'
    """
    return f"{video_key}-{fps:g}fps"


def agent_graph_name(rate_key: str) -> str:
    """The graph-pieces file of one rate key.

    >>> agent_graph_name("k-1fps")
    'k-1fps.json'
    """
    return f"{rate_key}.json"


def agent_regions_name(rate_key: str) -> str:
    """The region-features file of one rate key.

    >>> agent_regions_name("k-1fps")
    'k-1fps.regions.npz'
    """
    return f"{rate_key}.regions.npz"


def agent_objects_name(rate_key: str) -> str:
    """The file of the features of the frames' object views of one rate key (`views4`: the
    two halves' object boxes and the largest object whole, with which views found a box;
    files of other views are not read).

    >>> agent_objects_name("k-1fps")
    'k-1fps.views4.objects.npz'
    """
    return f"{rate_key}.views4.objects.npz"


def agent_video_fp(name: str) -> str | None:
    """The video fingerprint an agent file name starts with; None for another name.

    >>> name = agent_graph_name(agent_rate_key(agent_video_key("f" * 32, "e"), 1.0))
    >>> agent_video_fp(name) == "f" * 32, agent_video_fp("notes.json")
    (True, None)
    """
    match = _AGENT_NAME.match(name)
    return match[1] if match else None


def channels_path(video_fp: str, key: dict, root: str | Path | None = None) -> Path:
    """The evidence-channels entry of one video under one key (channel names, model
    versions, rate): `channels/<fingerprint>-<digest>.json`.

    >>> channels_path("f" * 32, {"channels": "speech"}, "/c").name[32:]
    '-33a04eb09f1ad81136f0b64a.json'
    """
    digest = hashlib.blake2b(repr(sorted(key.items())).encode(), digest_size=12).hexdigest()
    return cache_root(root) / CHANNELS_DIR / f"{video_fp}-{digest}.json"


def llm_path(root: str | Path | None = None) -> Path:
    """The SQLite file of stored Video-LLM answers.

    >>> llm_path("~/c").name, "~" in str(llm_path("~/c"))
    ('llm_cache.sqlite', False)
    """
    return cache_root(root) / LLM_FILE


def encoder_file(name: str, root: str | Path | None = None) -> Path:
    """An encoder's cached array or network export, `name` with its suffix.

    >>> encoder_file("labels-0123.npy", "/c").as_posix()
    '/c/encoders/labels-0123.npy'
    """
    return cache_root(root) / ENCODERS_DIR / name


def is_temp(name: str) -> bool:
    """True for the name of a temporary file that `atomic_open` writes before renaming.

    >>> is_temp(".a.npz.x1y2.tmp"), is_temp("a.npz")
    (True, False)
    """
    return name.startswith(TEMP_PREFIX) and name.endswith(TEMP_SUFFIX)
