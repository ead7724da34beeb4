"""`--video-input frames|video|grid`: every field of the request each mode sends, checked on
the scripted OpenAI-compatible server, plus the cache, the transformers conversation and the
monolithic method end to end."""

from __future__ import annotations

import numpy as np
import pytest

from longground.errors import UserError
from longground.llm import LLMConfig, Message, make_chat_client
from longground.llm.base import VideoClip
from longground.llm.timing import timed_frames_message
from longground.llm.transformers_client import hf_conversation
from longground.llm.video_input import VideoInput, convert_messages, video_processor_kwargs
from longground.video import mosaic
from tests.support.openai_stub import openai_stub

PTS_S = np.array([12.0, 14.0, 16.0, 18.0, 20.0])  # sampled at 0.5 fps


def grey_frames(n: int, h: int = 24, w: int = 32) -> np.ndarray:
    """Frame i filled with grey level 40 * (i + 1)."""
    return np.stack([np.full((h, w, 3), (40 * (i + 1)) % 256, np.uint8) for i in range(n)])


def send(stub, tmp_path, mode: str, message: Message, **cfg) -> dict:
    config = LLMConfig(model="stub-vlm", base_url=stub.url, max_retries=0, video_input=mode, **cfg)
    client = make_chat_client(config, tmp_path / f"{mode}.sqlite", tile=mosaic)
    try:
        client.complete([message], max_tokens=64, temperature=0.0)
    finally:
        client.close()
    return stub.requests[-1]


def test_frames_mode_sends_one_labelled_image_per_frame(tmp_path):
    frames = grey_frames(5)
    with openai_stub() as stub:
        seen = send(stub, tmp_path, "frames", timed_frames_message("Q", frames, PTS_S))
    assert set(seen.body) == {"model", "messages", "max_tokens", "temperature"}
    assert (seen.body["model"], seen.body["max_tokens"], seen.body["temperature"]) == (
        "stub-vlm", 64, 0.0,
    )  # fmt: skip
    (message,) = seen.body["messages"]
    assert message["role"] == "user"
    kinds = [part["type"] for part in message["content"]]
    assert kinds == ["text"] + ["text", "image_url"] * 5
    assert message["content"][0] == {"type": "text", "text": "Q"}
    assert seen.labels == [f"Frame at {t:.1f} s (00:00:{t:04.1f}):" for t in PTS_S]
    for sent, got in zip(frames, seen.images, strict=True):
        assert np.abs(sent.astype(int) - got.astype(int)).max() <= 3  # JPEG


def test_video_mode_sends_one_video_part_with_its_fps_and_times(tmp_path):
    frames = grey_frames(5)
    with openai_stub() as stub:
        seen = send(stub, tmp_path, "video", timed_frames_message("Q", frames, PTS_S))
    body = seen.body
    assert set(body) == {"model", "messages", "max_tokens", "temperature", "mm_processor_kwargs"}
    assert body["mm_processor_kwargs"] == {"do_sample_frames": False, "fps": 0.5}
    (message,) = body["messages"]
    assert message["role"] == "user"
    text, video = message["content"]
    assert set(text) == {"type", "text"} and text["type"] == "text"
    assert text["text"] == (
        "Q\n\nThe video holds 5 frames, about 0.5 frames per second of video. Their times, "
        "in order: 12.0 s, 14.0 s, 16.0 s, 18.0 s, 20.0 s."
    )
    assert set(video) == {"type", "video_url"} and video["type"] == "video_url"
    assert set(video["video_url"]) == {"url"}
    assert video["video_url"]["url"].startswith("data:video/jpeg;base64,")
    (got,) = seen.messages[0].videos
    assert got.shape == frames.shape
    assert np.abs(got.astype(int) - frames.astype(int)).max() <= 3  # JPEG, in order
    assert seen.images == []


def test_grid_mode_tiles_stamped_mosaics_after_their_times(tmp_path):
    frames = grey_frames(5, h=40, w=60)
    with openai_stub() as stub:
        seen = send(stub, tmp_path, "grid", timed_frames_message("Q", frames, PTS_S), grid_side=2)
    assert set(seen.body) == {"model", "messages", "max_tokens", "temperature"}
    kinds = [part["type"] for part in seen.body["messages"][0]["content"]]
    assert kinds == ["text", "text", "image_url", "text", "image_url"]
    assert seen.labels == [
        "Grid 1 of 2: frames 1-4, left to right and top to bottom, at 12.0 s, 14.0 s, "
        "16.0 s, 18.0 s:",
        "Grid 2 of 2: frames 5-5, left to right and top to bottom, at 20.0 s:",
    ]
    first, second = seen.images
    assert first.shape == second.shape == (80, 120, 3)
    # each tile's lower-right corner (away from the time stamp) keeps its frame's grey
    corners = [first[35:40, 55:60], first[35:40, 115:120], first[75:80, 55:60],
               first[75:80, 115:120], second[35:40, 55:60]]  # fmt: skip
    assert [round(c.mean() / 40) for c in corners] == [1, 2, 3, 4, 5]
    assert second[75:80, 115:120].max() <= 3  # the missing tiles stay black
    assert first[:6, :20].max() > 200  # the stamp's white text on the first tile


def test_grid_mosaics_are_shrunk_to_the_size_limit():
    message = timed_frames_message("Q", grey_frames(64, h=90, w=160), np.arange(64.0))
    (out,) = convert_messages([message], VideoInput("grid", grid_max_px=512), mosaic)
    (image,) = out.images
    assert max(image.shape[:2]) == 512 and image.shape[1] / image.shape[0] == pytest.approx(
        16 / 9, rel=0.01
    )


def test_labels_that_say_more_than_the_time_are_listed(tmp_path):
    frames = list(grey_frames(2))
    message = Message("user", "Q", frames, ["event 3, 40.0 s", "40.5 s candidate"], [40.0, 40.5])
    (out,) = convert_messages([message], VideoInput("video"))
    assert out.text.endswith("Their times, in order: event 3, 40.0 s, 40.5 s candidate.")
    assert out.video.sample_fps == 2.0


def test_video_mode_answers_are_cached_apart_from_frames_mode(tmp_path):
    message = timed_frames_message("Q", grey_frames(3), PTS_S[:3])
    with openai_stub() as stub:
        for mode in ("video", "video", "frames"):
            config = LLMConfig(model="m", base_url=stub.url, max_retries=0, video_input=mode)
            client = make_chat_client(config, tmp_path / "shared.sqlite", tile=mosaic)
            client.complete([message])
            client.close()
        assert stub.request_count == 2  # the second video request came from the cache


def test_text_only_messages_pass_unchanged(tmp_path):
    for mode in ("video", "grid"):
        (out,) = convert_messages([Message("user", "hi")], VideoInput(mode), mosaic)
        assert out == Message("user", "hi")


def test_bad_settings_are_user_errors(tmp_path):
    with pytest.raises(UserError, match="unknown video input 'movie'"):
        VideoInput("movie")
    with pytest.raises(UserError, match="grid side"):
        VideoInput("grid", grid_side=0)
    config = LLMConfig(model="m", base_url="http://127.0.0.1:9/v1", video_input="grid")
    with pytest.raises(UserError, match="mosaic"):
        make_chat_client(config, tmp_path / "c.sqlite")


def test_transformers_conversation_hands_frames_to_the_video_processor():
    frames = grey_frames(3)
    clip = VideoClip(frames, np.array([0.0, 4.0, 8.0]))
    messages = [Message("user", "When?", video=clip)]
    (turn,) = hf_conversation(messages)
    assert [p["type"] for p in turn["content"]] == ["text", "video"]
    assert turn["content"][1]["video"] is frames
    assert video_processor_kwargs(messages) == {"do_sample_frames": False, "fps": 0.25}


def test_transformers_client_passes_the_video_settings(monkeypatch):
    torch = pytest.importorskip("torch")
    from longground.llm.transformers_client import TransformersChatClient

    calls = {}

    class Inputs(dict):
        def to(self, device):
            return self

    class Processor:
        def apply_chat_template(self, conversation, **kwargs):
            calls.update(conversation=conversation, kwargs=kwargs)
            return Inputs(input_ids=torch.zeros((1, 4), dtype=torch.long))

        def batch_decode(self, tokens, skip_special_tokens=True):
            return ["[[1, 2]]"]

    class Network:
        device = "cpu"

        def generate(self, input_ids, **kwargs):
            return torch.zeros((1, 6), dtype=torch.long)

    client = TransformersChatClient("tiny", processor=Processor(), network=Network())
    message = timed_frames_message("Q", grey_frames(3), np.array([1.0, 2.0, 3.0]))
    (video_message,) = convert_messages([message], VideoInput("video"))
    assert client.complete([video_message]).text == "[[1, 2]]"
    assert calls["kwargs"]["fps"] == 1.0 and calls["kwargs"]["do_sample_frames"] is False
    assert [p["type"] for p in calls["conversation"][0]["content"]] == ["text", "video"]
