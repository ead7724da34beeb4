"""The default scene is read per video: real camera footage in the general scene, a clip
that is mostly plain grey frames around a photo in the composited one (`methods.footage`)."""

from __future__ import annotations

from longground.methods import MethodConfig, build_method
from longground.methods.footage import read_footage
from longground.video import probe
from tests.support.media import bikes_path, cat_video


def _footage(path):
    return read_footage(path, float(probe(path).duration_s))


def test_real_footage_is_general_and_plain_frames_composited(tmp_path):
    real = _footage(bikes_path())
    assert real.scene == "general" and real.uniform_frames == 0.0
    pasted = _footage(cat_video(tmp_path / "cat.mp4"))
    assert pasted.scene == "composited" and pasted.uniform_frames >= 0.5


def test_the_agent_answers_each_video_in_its_scene_and_says_which(tmp_path):
    method = build_method("agent", MethodConfig(cache_dir=tmp_path / "cache"))
    clip = cat_video(tmp_path / "cat.mp4")
    assert method.scene(bikes_path()) == "general" and method.scene(clip) == "composited"
    grounding = method.ground(clip, "a cat")
    assert grounding.trace["scene"]["scene"] == "composited"
    asked = build_method("agent", MethodConfig(params={"scene": "general"}, cache_dir=tmp_path))
    assert asked.scene(clip) == "general"
    assert asked.ground(clip, "a cat").trace["scene"] == {"scene": "general", "rule": "asked for"}
