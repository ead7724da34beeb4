"""Where longground keeps what it computes once: one root, five kinds of entry, and each
kind's file names (`kinds`). `longground cache` sees and reclaims them through `admin`, where
the package owning each kind's files registers it (`index.cache_kind`, `llm.cache_kind`, ...)."""

from .fingerprint import video_fingerprint
from .kinds import KINDS, STALE_TEMP_S, agent_dir, encoder_file, index_dir, llm_path
from .root import CACHE_ENV, cache_root

__all__ = [
    "CACHE_ENV",
    "KINDS",
    "STALE_TEMP_S",
    "agent_dir",
    "cache_root",
    "encoder_file",
    "index_dir",
    "llm_path",
    "video_fingerprint",
]
