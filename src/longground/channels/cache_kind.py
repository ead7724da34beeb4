"""The `channels` kind of cache entry: one video's evidence channels (speech, on-screen text,
people) under one key (`channels/<fingerprint>-<digest>.json`), registered with `cache.admin`
by the package that writes them."""

from __future__ import annotations

from ..cache.admin import FingerprintFilesKind, register_cache_kind
from ..cache.kinds import CHANNELS_DIR


class ChannelsKind(FingerprintFilesKind):
    """One entry per file; a file belongs to the video its name's fingerprint names."""

    name = "channels"
    folders = (CHANNELS_DIR,)


CHANNELS_KIND = register_cache_kind(ChannelsKind())
