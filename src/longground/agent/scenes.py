"""The scene switch: the one door from the agent's general path into `agent.composited`.

`scene_for` builds the perception the settings ask for: the general scene (`scene.Scene`,
which adds only its closer looks at tiles) or, when the scene is "composited" or one of its
switches (`object_presence`, `object_looks`) is on, `composited.scene.CompositedScene`.
"""

from __future__ import annotations

from pathlib import Path

from .composited.scene import CompositedScene
from .scene import Scene
from .settings import AgentSettings


def scene_for(settings: AgentSettings, cache_root: Path | None) -> Scene:
    """The scene's perception for one agent (`cache_root`: where views' features are kept).

    >>> [scene_for(AgentSettings(scene=s), None).name for s in ("general", "composited")]
    ['general', 'composited']
    """
    switches = (settings.object_presence, settings.object_looks)
    if settings.scene == "composited" or any(switches):
        return CompositedScene(settings, cache_root)
    return Scene(settings, cache_root)
