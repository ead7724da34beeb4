"""The cut-MP4 rows of the bad-input table in docs/video-and-index.md, checked on a real file."""

from __future__ import annotations

import numpy as np
import pytest

from longground.cli.main import main

av = pytest.importorskip("av")


@pytest.fixture(scope="module")
def mp4_bytes(tmp_path_factory) -> bytes:
    """A 5-second MP4 written the usual way: media first, the `moov` index at the end."""
    path = tmp_path_factory.mktemp("mp4") / "whole.mp4"
    with av.open(str(path), "w") as container:
        stream = container.add_stream("libx264", rate=10)
        stream.width, stream.height, stream.pix_fmt = 64, 48, "yuv420p"
        for i in range(50):
            frame = av.VideoFrame.from_ndarray(np.full((48, 64, 3), i * 5, np.uint8), "rgb24")
            container.mux(stream.encode(frame))
        container.mux(stream.encode())
    data = path.read_bytes()
    assert data.find(b"moov") > data.find(b"mdat") > 0
    return data


@pytest.mark.parametrize(
    ("cut", "message"),
    [
        ("before moov", "not a video FFmpeg can read (invalid data found when processing input)"),
        ("inside moov", "no video stream (truncated, or not a video file)"),
    ],
)
def test_cut_mp4_gives_the_documented_line(mp4_bytes, tmp_path, capsys, cut, message):
    moov = mp4_bytes.find(b"moov")
    end = moov - 100 if cut == "before moov" else moov + 100
    path = tmp_path / "cut.mp4"
    path.write_bytes(mp4_bytes[:end])
    assert main(["info", str(path)]) == 2
    assert capsys.readouterr().err == f"longground: error: {path}: {message}\n"
