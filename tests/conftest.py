"""Shared fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

# CI runs in a fresh clone with the shared folder beside it: <clone>/../shared/data.
SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


@pytest.fixture
def shared_data() -> Path:
    """The real annotation files (QVHighlights, Charades-STA, ActivityNet Captions)."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared annotation data not found at {SHARED_DATA} (expected ../shared/data)")
    return SHARED_DATA
