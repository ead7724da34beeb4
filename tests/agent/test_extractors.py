"""The agent's feature-extractor slots (`--appearance`, `--segment-encoder`), offline on a tiny
randomly initialised DINOv2 written to a temporary folder."""

from __future__ import annotations

import json

import numpy as np
import pytest

from longground.agent.graph.cache import GraphCache
from longground.agent.graph.levels import event_nodes
from longground.agent.profiles import PROFILES
from longground.cli import options as opt
from longground.cli.main import main
from longground.encoders.base import ENCODERS, ImageTextEncoder
from longground.encoders.hf_dinov2 import Dinov2Encoder, load_feature_encoder
from longground.errors import UserError
from longground.methods import MethodConfig
from longground.methods.agent import AgentMethod
from tests.agent.test_method import ColourEncoder, clip  # noqa: F401  (clip is a fixture)

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def dinov2(tmp_path_factory):
    folder = tmp_path_factory.mktemp("dinov2")
    config = transformers.Dinov2Config(
        hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
        image_size=32, patch_size=8,
    )  # fmt: skip
    torch.manual_seed(0)
    transformers.Dinov2Model(config).save_pretrained(folder)
    transformers.BitImageProcessor(
        size={"shortest_edge": 36}, crop_size={"height": 32, "width": 32}
    ).save_pretrained(folder)
    return folder


def test_dinov2_gives_the_l2_normalised_cls_token(dinov2):
    encoder = load_feature_encoder(f"hf:{dinov2}", "appearance", "--appearance")
    assert isinstance(encoder, Dinov2Encoder) and encoder.input_size == 32
    frames = np.random.default_rng(0).integers(0, 255, (3, 40, 60, 3), dtype=np.uint8)
    features = encoder.image_features(frames)
    model = transformers.Dinov2Model.from_pretrained(dinov2, local_files_only=True).eval()
    pixels = transformers.AutoImageProcessor.from_pretrained(dinov2)(
        images=list(frames), return_tensors="pt"
    )["pixel_values"]
    with torch.inference_mode():
        cls = model(pixel_values=pixels).last_hidden_state[:, 0].numpy()
    expected = cls / np.linalg.norm(cls, axis=1, keepdims=True)
    np.testing.assert_allclose(features["appearance"], expected, atol=1e-5)
    assert features["appearance"].shape == (3, 32) and not np.allclose(expected[0], expected[1])
    with pytest.raises(UserError, match="without a text tower"):
        encoder.encode_texts(["a cat"])


def test_agent_reads_each_feature_from_its_own_encoder(clip, dinov2, tmp_path):  # noqa: F811
    params = {"roles": "offline", "appearance": f"hf:{dinov2}", "segment_encoder": f"hf:{dinov2}"}
    method = AgentMethod(MethodConfig(params=params, cache_dir=tmp_path), encoder=ColourEncoder())
    plain = AgentMethod(
        MethodConfig(params={"roles": "offline"}, cache_dir=tmp_path), encoder=ColourEncoder()
    )
    times_s, features = method.source(clip).timeline(1.0)
    dino = load_feature_encoder(f"hf:{dinov2}", "appearance", "--appearance")
    indexed = method.store.get_or_build(clip, dino, 1.0, progress=False)
    np.testing.assert_array_equal(features["appearance"], indexed.features["appearance"])
    np.testing.assert_array_equal(features["segment"], indexed.features["embedding"])
    assert features["embedding"].shape[1] == 3  # the colour encoder still scores the text
    assert method.source(clip).key != plain.source(clip).key  # graph caches kept apart
    assert "appearance" not in plain.config.params
    grounding = method.ground(clip, "every green scene")
    assert grounding.trace["graph"]["events"]


def test_edge_weights_average_the_segment_feature():
    times = np.arange(20.0)
    appearance = np.repeat(np.eye(2), 10, axis=0)
    segment = np.random.default_rng(1).normal(size=(20, 5))
    features = {"appearance": appearance, "embedding": appearance, "segment": segment}
    args = ((0.0, 20.0), PROFILES["short"], 1.0, 2)
    nodes, _ = event_nodes(GraphCache(None), "v", times, features, *args)
    assert nodes.z.shape == (2, 5)
    unit = lambda v: v / np.linalg.norm(v)  # noqa: E731  (z is the normalised mean)
    np.testing.assert_allclose(nodes.z[0], unit(segment[:10].mean(axis=0)), atol=1e-6)
    del features["segment"]
    nodes, _ = event_nodes(GraphCache(None), "v", times, features, *args)
    np.testing.assert_allclose(nodes.z[0], unit(appearance[:10].mean(axis=0)), atol=1e-6)


class EmbeddingOnly(ImageTextEncoder):
    encoder_id = "embedding-only"

    def encode_images(self, frames):
        return np.ones((len(frames), 2), np.float32) / np.sqrt(2)

    def encode_texts(self, texts):
        return np.ones((len(texts), 2), np.float32) / np.sqrt(2)

    def image_features(self, frames):
        return {"embedding": self.encode_images(frames)}


def test_an_encoder_without_appearance_is_a_one_line_error(clip, tmp_path, capsys, monkeypatch):  # noqa: F811
    bert = tmp_path / "bert"
    bert.mkdir()
    (bert / "config.json").write_text(json.dumps({"model_type": "bert"}))
    code = main(["find", str(clip), "a cat", "--method", "agent", "--appearance", f"hf:{bert}"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert f"--appearance hf:{bert}: a bert checkpoint cannot produce an appearance" in err
    monkeypatch.setitem(ENCODERS, "embedding-only", lambda arg: EmbeddingOnly())
    with pytest.raises(UserError, match="--appearance embedding-only: .* no appearance"):
        AgentMethod(MethodConfig(params={"appearance": "embedding-only"}))
    AgentMethod(MethodConfig(params={"segment_encoder": "embedding-only"}))  # has embeddings


def test_extractor_options_become_agent_params(clip, capsys):  # noqa: F811
    base = dict(encoder="label-bridge", fps=1.0, single=False, params=["hops=3"], llm=None,
                base_url=None, model=None, api_key=None, cache_dir=None)  # fmt: skip
    config = opt.method_config(**base, method="agent", appearance="a", segment_encoder="s")
    assert config.params == {"hops": "3", "appearance": "a", "segment_encoder": "s"}
    code = main(["find", str(clip), "a cat", "--method", "retrieval", "--segment-encoder", "x"])
    assert code == 2 and "only --method agent" in capsys.readouterr().err
