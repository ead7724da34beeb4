"""The ONNX Runtime path: export once into the cache, same outputs as torch, damage repaired."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

from longground.encoders.onnx_net import cached_onnx_net  # noqa: E402


class TinyNet(torch.nn.Module):
    """Two outputs, like the classifier: a pooled feature and logits from it."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.conv = torch.nn.Conv2d(3, 4, 3, stride=2, padding=1)
        self.fc = torch.nn.Linear(4, 5)

    def forward(self, x):
        pooled = torch.relu(self.conv(x)).mean(dim=(2, 3))
        return self.fc(pooled), pooled


@pytest.fixture
def weights(tmp_path):
    path = tmp_path / "tiny.pth"
    torch.save(TinyNet().state_dict(), path)
    return path


def _load(weights, root, calls):
    def make():
        calls.append(1)
        return TinyNet().eval()

    return cached_onnx_net(make, weights, "tiny", 16, ("logits", "pooled"), root=root, threads=1)


def test_outputs_match_torch_for_any_batch_size(weights, tmp_path):
    net = _load(weights, tmp_path / "cache", [])
    images = np.random.default_rng(0).normal(size=(5, 3, 16, 16)).astype(np.float32)
    logits, pooled = net(images)
    with torch.inference_mode():
        want_logits, want_pooled = TinyNet().eval()(torch.from_numpy(images))
    np.testing.assert_allclose(logits, want_logits.numpy(), atol=1e-5)
    np.testing.assert_allclose(pooled, want_pooled.numpy(), atol=1e-5)


def test_export_happens_once_and_is_keyed_on_the_weights(weights, tmp_path):
    root, calls = tmp_path / "cache", []
    _load(weights, root, calls)
    _load(weights, root, calls)
    assert len(calls) == 1
    assert [p.suffix for p in (root / "encoders").iterdir()] == [".onnx"]  # no temp files left
    torch.save(TinyNet().state_dict(), weights)  # replaced weights: a new entry
    _load(weights, root, calls)
    assert len(calls) == 2 and len(list((root / "encoders").glob("*.onnx"))) == 2


def test_a_damaged_entry_is_exported_again(weights, tmp_path):
    root, calls = tmp_path / "cache", []
    _load(weights, root, calls)
    (entry,) = (root / "encoders").glob("*.onnx")
    entry.write_bytes(entry.read_bytes()[:100])
    net = _load(weights, root, calls)
    assert len(calls) == 2
    assert net(np.zeros((1, 3, 16, 16), np.float32))[0].shape == (1, 5)


def test_an_unwritable_cache_exports_to_a_temporary_folder(weights, tmp_path, monkeypatch):
    from longground.encoders import onnx_net

    root, real_export = tmp_path / "cache", onnx_net.export_onnx

    def export(net, path, *args):
        if root in path.parents:
            raise PermissionError(13, "Permission denied", str(path))
        return real_export(net, path, *args)

    monkeypatch.setattr(onnx_net, "export_onnx", export)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    calls = []
    net = _load(weights, root, calls)
    assert net(np.zeros((1, 3, 16, 16), np.float32))[1].shape == (1, 4)
    assert [p.suffix for p in (tmp_path / "tmp" / "longground-onnx").iterdir()] == [".onnx"]
    _load(weights, root, calls)  # the temporary export is reused
    assert len(calls) == 1


def test_a_decoding_thread_beside_takes_one_core_from_the_default_session(
    weights, tmp_path, monkeypatch
):
    from longground.encoders import onnx_net

    monkeypatch.delenv(onnx_net.THREADS_ENV, raising=False)
    monkeypatch.setattr(onnx_net, "_usable_cores", lambda: 4)
    path = _load(weights, tmp_path / "cache", []).path
    net = onnx_net.OnnxNet(path)
    images = np.zeros((2, 3, 16, 16), np.float32)
    with onnx_net.decoding_beside():
        beside = net(images)
    assert sorted(net._sessions) == [3, 4]  # the full width made first, then one fewer
    np.testing.assert_array_equal(beside[0], net(images)[0])
    assert onnx_net.OnnxNet(path, threads=2)._sessions.keys() == {2}  # a set count is kept
    monkeypatch.setattr(onnx_net, "_usable_cores", lambda: 1)
    with onnx_net.decoding_beside():
        assert onnx_net.OnnxNet(path)._sessions.keys() == {1}  # never below one thread
