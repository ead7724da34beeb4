"""`make demo` finds the project's own data/ folder, or says how to get it."""

from __future__ import annotations

from pathlib import Path

import pytest

from longground import demo


def test_demo_scores_from_the_checkouts_data_folder(monkeypatch):
    monkeypatch.delenv("LONGGROUND_DATA", raising=False)
    folder = demo.data_dir()
    assert folder == Path(__file__).resolve().parents[2] / "data"
    assert all((folder / "qvhighlights" / name).is_file() for name in demo.QVH_FILES)


def test_demo_without_data_says_how_to_get_it(tmp_path, monkeypatch):
    monkeypatch.setenv("LONGGROUND_DATA", str(tmp_path))
    with pytest.raises(SystemExit) as stop:
        demo.data_dir()
    message = str(stop.value)
    assert str(tmp_path / "qvhighlights" / "highlight_val_release.jsonl") in message
    assert "git clone" in message and "LONGGROUND_DATA" in message
