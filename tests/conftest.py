"""Shared fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

# The real annotation files ship with the project (data/README.md says where they come from).
DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.fixture
def shared_data() -> Path:
    """The real annotation files (QVHighlights, Charades-STA, ActivityNet Captions)."""
    return DATA


@pytest.fixture(scope="session")
def scenes_video(tmp_path_factory):
    """`make(seconds=10, fps=25)`: a flat-colour scenes video (`tests.support.videos`), made
    once per session and length; tests must not change it."""
    from tests.support.videos import write_scenes

    made: dict[tuple[float, int], Path] = {}

    def make(seconds: float = 10, fps: int = 25) -> Path:
        if (seconds, fps) not in made:
            folder = tmp_path_factory.mktemp("scenes")
            made[seconds, fps] = write_scenes(folder / "scenes.mp4", seconds, fps)
        return made[seconds, fps]

    return make
