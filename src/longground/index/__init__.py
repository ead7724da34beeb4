"""The feature index: per-video timelines of encoder features, cached on disk."""

from ..cache import CACHE_ENV, cache_root, video_fingerprint
from .build import build_timeline
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
