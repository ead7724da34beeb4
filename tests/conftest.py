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
