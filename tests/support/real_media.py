"""Real footage and speech from the media cache (`longground.synth.media`), for tests.

`real_media(name)` returns the fetched file, or skips the test with the one line that says
which package is missing and how to fetch it (`make real-media`); it never fails silently
and never fetches (fetching is `make real-media`'s job, run by `make test` before pytest).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from longground.synth.media import MissingMedia, media_path


def real_media(*names: str) -> list[Path]:
    """The fetched files `names`, or skip with the first missing one's line."""
    try:
        return [media_path(name) for name in names]
    except MissingMedia as exc:
        pytest.skip(str(exc))
