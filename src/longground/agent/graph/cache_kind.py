"""The `agent` kind of cache entry: the agent's graph pieces and region features
(`agent/<fingerprint>-<encoder>-<fps>fps.json`, `.regions.npz`), registered with
`cache.admin` by the package that writes them."""

from __future__ import annotations

from ...cache.admin import FingerprintFilesKind, register_cache_kind
from ...cache.kinds import AGENT_DIR


class AgentKind(FingerprintFilesKind):
    """One entry per file; a file belongs to the video its name's fingerprint names."""

    name = "agent"
    folders = (AGENT_DIR,)


AGENT_KIND = register_cache_kind(AgentKind())
