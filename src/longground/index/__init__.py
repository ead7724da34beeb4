"""The feature index: per-video timelines of encoder features, cached on disk."""

from ..cachedir import CACHE_ENV, cache_root
from .build import build_timeline
from .fingerprint import video_fingerprint
from .storage import CorruptEntry
from .store import FeatureStore, clear_memory_cache
from .timeline import Timeline

__all__ = [
    "CACHE_ENV",
    "CorruptEntry",
    "FeatureStore",
    "Timeline",
    "build_timeline",
    "cache_root",
    "clear_memory_cache",
    "video_fingerprint",
]
