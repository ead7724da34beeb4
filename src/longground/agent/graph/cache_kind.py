"""The `agent` kind of cache entry: the agent's graph pieces and region features
(`agent/<fingerprint>-<encoder>-<fps>fps.json`, `.regions.npz`), registered with
`cache.admin` by the package that writes them."""

from __future__ import annotations

from pathlib import Path

from ...cache.admin import CacheKind, Entry, register_cache_kind, regular_files
from ...cache.kinds import AGENT_DIR, agent_video_fp


class AgentKind(CacheKind):
    """One entry per file; a file belongs to the video its name's fingerprint names."""

    name = "agent"
    folders = (AGENT_DIR,)
    follows_video = True

    def scan(self, base: Path) -> list[Entry]:
        out = []
        for path in regular_files(base / AGENT_DIR, base):
            if path.name.startswith("."):
                continue
            stat = path.lstat()
            video_fp = agent_video_fp(path.name)
            out.append(Entry(self.name, path, stat.st_size, stat.st_mtime, video_fp=video_fp))
        return out


AGENT_KIND = register_cache_kind(AgentKind())
