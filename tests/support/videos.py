"""Small generated videos shared by the tests (the `scenes_video` fixture in conftest.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from longground.video import VideoWriter

COLOURS = np.array([(230, 20, 20), (20, 220, 20), (20, 20, 230), (240, 240, 240)], np.float32)
SCENE_S = 2.5  # the scene changes every 2.5 s, through COLOURS in turn


def write_scenes(path: Path, seconds: float = 10, fps: int = 25) -> Path:
    """A 64x48 video of flat colour scenes, one per `SCENE_S`, through `COLOURS` in turn."""
    with VideoWriter(path, 64, 48, fps=fps) as writer:
        for i in range(int(seconds * fps)):
            scene = int(i / fps // SCENE_S) % len(COLOURS)
            writer.write(np.broadcast_to(COLOURS[scene].astype(np.uint8), (48, 64, 3)).copy())
    return path
