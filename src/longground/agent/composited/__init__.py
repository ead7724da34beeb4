"""The composited scene (`-p scene=composited`): perception that holds on photos pasted on plain
or textured backdrops, where the frame's outer ring shows the backdrop. Reached only through
the scene switch, `agent.scenes`; `composited.scene.CompositedScene` is its entry."""
