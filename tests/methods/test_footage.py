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


def test_the_general_scene_calls_visible_below_even_odds(tmp_path):
    """bikes.mp4's van beside the cyclist (3.0-5.5 s), which its presence model puts under
    even odds: found by default ("visible" at `VISIBLE_LOG_ODDS`), not at even odds; an
    absent horse is not."""
    method = build_method("agent", MethodConfig(cache_dir=tmp_path / "cache"))
    (van,) = method.ground(bikes_path(), "a van").moments.spans.tolist()
    assert van[0] <= 3.0 and van[1] >= 5.5 and van[1] - van[0] < 5.0
    assert len(method.ground(bikes_path(), "a horse").moments) == 0
    even = MethodConfig(params={"presence_threshold": 0.0}, cache_dir=tmp_path / "cache")
    assert len(build_method("agent", even).ground(bikes_path(), "a van").moments) == 0
