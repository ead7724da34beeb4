"""The construction stages see videos only through `curate.source.FrameSource` and models only
through a chat client: both are fakes here, with no video file and no server."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from longground.curate.ewb_captions import CaptionStage
from longground.curate.ewb_stages import VerifyStage
from longground.curate.frames import UniformFrames
from longground.curate.source import FrameSource
from longground.curate.stage import run_stage
from longground.errors import UserError
from tests.support.chat import ScriptedChat


class PaintedFrames(FrameSource):
    """Grey frames whose brightness is the second they show; "missing.mp4" is unreadable."""

    def __init__(self, duration_s: float = 20.0):
        self.length_s, self.asked = duration_s, []

    def _check(self, video):
        if Path(video).name == "missing.mp4":
            raise UserError(f"{video}: no such file")

    def duration_s(self, video):
        self._check(video)
        return self.length_s

    def frames_at(self, video, times_s, short_side):
        self._check(video)
        times = np.asarray(list(times_s), np.float64)
        self.asked.append((Path(video).name, len(times), short_side))
        frames = np.repeat(np.clip(times, 0, 255).astype(np.uint8)[:, None, None, None], 3, -1)
        return np.broadcast_to(frames, (len(times), short_side, short_side, 3)).copy(), times

    def sampled(self, video, fps, short_side, batch_size=32):
        times = np.arange(0.0, self.duration_s(video), 1.0 / fps)
        for k in range(0, len(times), batch_size):
            yield times[k : k + batch_size], self.frames_at(video, times[k : k + batch_size], 8)[0]

    def uniform_frames(self, video, n_frames, short_side):
        times = (np.arange(n_frames) + 0.5) * self.duration_s(video) / n_frames
        frames, pts_s = self.frames_at(video, times, short_side)
        return frames, pts_s, self.length_s


def test_verify_stage_reads_frames_from_the_source(tmp_path):
    source = PaintedFrames()
    events = [{"id": f"e{i}", "video": "/v/a.mp4", "duration_s": 20.0, "event": "a dog runs",
               "start_s": 2.0 + i, "end_s": 6.0 + i} for i in range(2)]  # fmt: skip
    chat = ScriptedChat([{"verdict": "verified"}, {"verdict": "confirmed"}])
    result = run_stage(VerifyStage(events, source=source), chat, tmp_path)
    assert result.records[0].ok and result.records[0].fields["verdict"] == "verified"
    assert (
        result.records[1].parse_failed
        and "'confirmed' is not one of" in result.records[1].parse_error
    )
    assert result.records[1].raw == '{"verdict": "confirmed"}'
    assert source.asked == [("a.mp4", 64, 96), ("a.mp4", 64, 96)]  # one 8x8 sheet per event
    (image,) = chat.calls[0][0].images
    assert image.ndim == 3 and image.dtype == np.uint8


def test_caption_stage_records_an_unreadable_video_as_an_input_error(tmp_path):
    videos = {"a": Path("/v/a.mp4"), "b": Path("/v/missing.mp4")}
    chat = ScriptedChat(responder=lambda m: json.dumps(["a grey frame"] * 4))
    stage = CaptionStage(videos, fps=0.2, batch=4, source=PaintedFrames())
    result = run_stage(stage, chat, tmp_path)
    assert [r.key for r in result.records] == ["a@0.000", "b@error"]
    assert result.records[0].ok and result.records[1].input_failed
    assert "missing.mp4: no such file" in result.records[1].error
    assert chat.request_count == 1  # nothing was asked about the unreadable video


def test_uniform_frames_come_from_the_source():
    source = PaintedFrames(duration_s=40.0)
    frames = UniformFrames(4, 16, source=source)
    got = frames.get("/v/a.mp4")
    assert got.pts_s.tolist() == [5.0, 15.0, 25.0, 35.0] and got.duration_s == 40.0
    assert frames.duration_s("/v/a.mp4") == 40.0
    with pytest.raises(UserError, match="no such file"):
        frames.get("/v/missing.mp4")
