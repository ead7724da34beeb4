"""`$LONGGROUND_ONNX_THREADS` sizes ONNX Runtime sessions; anything but a positive count is
ignored (every usable core)."""

from __future__ import annotations

import pytest

from longground.encoders import onnx_net


@pytest.mark.parametrize(("value", "threads"), [("1", 1), ("3", 3), ("0", None), ("x", None),
                                                ("", None), ("-2", None)])  # fmt: skip
def test_env_threads(monkeypatch, value, threads):
    monkeypatch.setenv(onnx_net.THREADS_ENV, value)
    assert onnx_net._env_threads() == threads
