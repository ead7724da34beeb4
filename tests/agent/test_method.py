"""`--method agent` end to end on a small generated video: real decoding, feature store, optical
flow and region crops, with a colour "encoder" in place of the neural one."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from longground.cli.main import main
from longground.encoders.base import ImageTextEncoder
from longground.errors import UserError
from longground.methods import MethodConfig, available_methods, build_method
from longground.methods.agent import AgentMethod
from longground.video.writer import VideoWriter

COLOURS = {"red": (220, 30, 30), "green": (30, 200, 30), "blue": (30, 30, 220)}
# (seconds, left colour, right colour)
SCENES = [(6, "red", "red"), (5, "blue", "blue"), (6, "green", "green"), (5, "red", "blue"),
          (6, "green", "green"), (5, "red", "red")]  # fmt: skip


class ColourEncoder(ImageTextEncoder):
    """Embeds a frame as its mean colour; a text scores by the share of its colour word."""

    encoder_id = "test-colour-v1"
    default_threshold = 0.45

    def encode_images(self, frames):
        mean = np.asarray(frames, np.float32).mean(axis=(1, 2)) + 1.0
        return mean / np.linalg.norm(mean, axis=1, keepdims=True)

    def encode_texts(self, texts):
        rows = [[float(name in t) for name in COLOURS] for t in texts]
        return np.asarray(rows, np.float32) + 1e-3

    def score(self, features, text):
        share = features["embedding"] / features["embedding"].sum(axis=1, keepdims=True)
        weights = self.encode_texts([text])[0]
        return share @ (weights / weights.sum())


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    path = tmp_path_factory.mktemp("agent") / "scenes.mp4"
    fps = Fraction(5)
    with VideoWriter(path, 96, 64, fps=fps) as writer:
        for seconds, left, right in SCENES:
            for _ in range(seconds * 5):
                frame = np.zeros((64, 96, 3), np.uint8)
                frame[:, :48] = COLOURS[left]
                frame[:, 48:] = COLOURS[right]
                writer.write(frame)
    return path


def scene_spans(match):
    ends = np.cumsum([s[0] for s in SCENES])
    starts = ends - [s[0] for s in SCENES]
    return [(float(a), float(b)) for a, b, s in zip(starts, ends, SCENES, strict=True) if match(s)]


def agent(tmp_path, **params):
    params = {"roles": "offline", **params}
    config = MethodConfig(params=params, cache_dir=tmp_path / "cache")
    return AgentMethod(config, encoder=ColourEncoder())


def close(found, expected, tol=1.0):
    return len(found) == len(expected) and all(
        abs(a - c) <= tol and abs(b - d) <= tol for (a, b), (c, d) in zip(found, expected,
                                                                       strict=True)
    )  # fmt: skip


def test_finds_scenes_and_reuses_the_graph(clip, tmp_path):
    method = agent(tmp_path)
    first = method.ground(clip, "every green scene")
    assert close(first.moments.to_list(), scene_spans(lambda s: s[1] == "green"))
    second = method.ground(clip, "a blue scene right after a red scene")
    assert second.trace["graph"]["events_cached"]
    again = agent(tmp_path).ground(clip, "every green scene")  # a new process-like instance
    assert again.trace["counters"]["graph.splits_built"] == 0
    assert again.moments == first.moments


def test_halves_find_two_colours_together(clip, tmp_path):
    grounding = agent(tmp_path, scene="composited").ground(clip, "red and blue at the same time")
    both = scene_spans(lambda s: {s[1], s[2]} == {"red", "blue"})
    assert close(grounding.moments.to_list(), both)
    assert grounding.trace["counters"]["graph.object_frames"] > 0  # the halves' object boxes
    assert list((tmp_path / "cache").rglob("*.objects.npz"))
    assert agent(tmp_path, scene="composited").ground(clip, "a purple scene").moments.count == 0


def test_registered_and_single_mode(clip, tmp_path):
    assert "agent" in available_methods()
    assert isinstance(build_method("agent", MethodConfig(params={"roles": "offline"})), AgentMethod)
    config = MethodConfig(params={"roles": "offline"}, single=True, cache_dir=tmp_path / "c")
    grounding = AgentMethod(config, encoder=ColourEncoder()).ground(clip, "every green scene")
    assert grounding.moments.count == 1  # one moment for the single-moment protocol


def test_bad_parameters_and_queries(clip, tmp_path):
    with pytest.raises(UserError, match="unknown parameter"):
        build_method("agent", MethodConfig(params={"tau_x": "1"}))
    with pytest.raises(UserError, match="not an integer"):
        build_method("agent", MethodConfig(params={"hops": "many"}))
    with pytest.raises(UserError, match="hops='inf' is not an integer"):  # inf crashed int()
        build_method("agent", MethodConfig(params={"hops": "inf"}))
    for value in ("1.5", "-2"):
        with pytest.raises(UserError, match="track_same is a cosine, in"):
            build_method("agent", MethodConfig(params={"track_same": value}))
    for key in ("gamma", "tau_e"):  # nan and inf are no settings
        with pytest.raises(UserError, match="not a finite"):
            build_method("agent", MethodConfig(params={key: "inf"}))
    with pytest.raises(UserError, match="empty"):
        agent(tmp_path).ground(clip, "   ")


def test_cli_reports_a_bad_parameter(clip, capsys):
    code = main(["find", str(clip), "a cat", "--method", "agent", "-p", "hops=x"])
    assert code == 2
    assert "hops" in capsys.readouterr().err
