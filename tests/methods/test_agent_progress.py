"""The default `find` shows a bar for each long step of a new video (index, optical flow; the
composited scene's region features too) on a terminal, and nothing when stderr is piped."""

from __future__ import annotations

from longground.cli.main import main
from tests.support.media import cat_video


def test_each_long_step_has_a_bar_only_on_a_terminal(tmp_path, monkeypatch, capsys):
    video = cat_video(tmp_path / "cat.mp4")
    monkeypatch.setenv("LONGGROUND_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr("longground.progress._is_terminal", lambda stream: True)
    assert main(["find", str(video), "a cat", "-p", "scene=general"]) == 0
    err = capsys.readouterr().err
    assert all(bar in err for bar in ["cat.mp4:", "motion:"]), err
    assert main(["find", str(video), "a cat", "-p", "scene=composited"]) == 0
    assert "cat.mp4 regions:" in capsys.readouterr().err
    monkeypatch.setattr("longground.progress._is_terminal", lambda stream: False)
    main(["find", str(video), "a dog running"])
    assert capsys.readouterr().err == ""
