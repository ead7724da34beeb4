"""Running a torch image network through ONNX Runtime, which is about twice as fast on a CPU.

The network is exported once per weights file (TorchScript-based exporter, opset 17, dynamic
batch) into `$LONGGROUND_CACHE/encoders/`, written atomically, and loaded from there afterwards.
Outputs match the torch network to float32 rounding (checked in the tests), so the choice of
runtime never changes an encoder's features or its id.

ONNX Runtime is used when `onnxruntime` and `onnx` import; otherwise the torch network runs.

`quantized_onnx` makes an int8 copy of an export (an opt-in mode: its outputs differ, so an
encoder that uses it must say so in its id).
"""

from __future__ import annotations

import contextvars
import importlib.util
import os
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from ..atomic import atomic_open
from ..cache.kinds import encoder_file
from .disk_cache import files_fingerprint

INPUT_NAME = "images"
# A thread count for every ONNX Runtime session of the process (default: every usable core,
# one fewer beside a decoding thread); `perf/bench_adaptive.py` compares settings with it.
THREADS_ENV = "LONGGROUND_ONNX_THREADS"
OPSET = 17
_DECODING_BESIDE = contextvars.ContextVar("longground_decoding_beside", default=False)


@contextmanager
def decoding_beside() -> Iterator[None]:
    """Within this block a decoding thread keeps a core busy beside the networks (the index's
    `prefetch`): sessions without a set thread count run one intra-op thread fewer, so the
    decoder keeps its core. On 2 quiet cores the 20-minute index of
    `perf/bench_index_cost.py` took 7.0-8.6 s with one encoder thread against 9.4-9.7 s with
    two. Where the network is most of the work (the agent's passes; the tracks step, whose
    decoding thread is mostly idle) one thread was 15-25 % slower, so they keep every core.

    >>> with decoding_beside():
    ...     _DECODING_BESIDE.get()
    True
    >>> _DECODING_BESIDE.get()
    False
    """
    token = _DECODING_BESIDE.set(True)
    try:
        yield
    finally:
        _DECODING_BESIDE.reset(token)


def onnx_available() -> bool:
    """True when ONNX Runtime and the exporter's `onnx` package can both be imported."""
    return all(importlib.util.find_spec(name) for name in ("onnxruntime", "onnx"))


def export_onnx(make_net, path: Path, image_size: int | tuple[int, int],
                output_names: tuple[str, ...]) -> Path:  # fmt: skip
    """Export an eval-mode torch module taking `(N, 3, S, S)` float32 to `path`, atomically.

    Args:
        make_net: builds the module (only once the file could be opened); its forward returns
            one tensor per name in `output_names`.
        path: where the `.onnx` file goes.
        image_size: S, the square input side the graph is traced at (batch stays dynamic), or
            `(height, width)` for another shape.
        output_names: names given to the outputs, in forward order.

    Returns:
        `path`.
    """
    import torch

    height, width = (image_size, image_size) if isinstance(image_size, int) else image_size
    example = torch.zeros(2, 3, height, width)
    axes = {INPUT_NAME: {0: "batch"}, **{name: {0: "batch"} for name in output_names}}
    with warnings.catch_warnings(), torch.inference_mode(False), atomic_open(path, "wb") as out:
        warnings.simplefilter("ignore")  # tracer notes about shape arithmetic in SAME padding
        torch.onnx.export(
            make_net(),
            (example,),
            out,
            input_names=[INPUT_NAME],
            output_names=list(output_names),
            dynamic_axes=axes,
            opset_version=OPSET,
            dynamo=False,
        )
    return path


def _env_threads() -> int | None:
    """`$LONGGROUND_ONNX_THREADS` as a positive count, or None when unset or not one."""
    value = os.environ.get(THREADS_ENV, "").strip()
    return int(value) if value.isdigit() and int(value) > 0 else None


def _usable_cores() -> int:
    """Cores this process may run on (respects CPU affinity, e.g. in containers)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class OnnxNet:
    """An exported network in an ONNX Runtime session: `net(x)` -> tuple of numpy outputs.

    Args:
        path: the `.onnx` file.
        threads: intra-op threads; default `$LONGGROUND_ONNX_THREADS`, else every core this
            process may use, one fewer inside `decoding_beside` (a session of each width is
            made when first needed). Threads sleep instead of spinning when idle.
        providers: ONNX Runtime execution providers (`device.onnx_providers`); default the CPU.
    """

    def __init__(self, path: Path, threads: int | None = None, providers: list | None = None):
        self.path = Path(path)
        self.threads = threads
        self.providers = providers or ["CPUExecutionProvider"]
        self._sessions: dict[int, object] = {}
        self._session()  # a file ONNX Runtime cannot load fails here, not at the first call

    def _session(self):
        width = self.threads or _env_threads()
        if not width:
            width = max(1, _usable_cores() - 1) if _DECODING_BESIDE.get() else _usable_cores()
        if width not in self._sessions:
            import onnxruntime as ort

            options = ort.SessionOptions()
            options.intra_op_num_threads = width
            options.inter_op_num_threads = 1
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            # No pre-planned block for all intermediate tensors: the arena reuses freed
            # ones. EfficientNet-Lite0 at 8 frames: 85 MB less resident, the same CPU time.
            options.enable_mem_pattern = False
            options.log_severity_level = 3
            self._sessions[width] = ort.InferenceSession(
                str(self.path), options, providers=self.providers
            )
        return self._sessions[width]

    def __call__(self, images: np.ndarray) -> tuple[np.ndarray, ...]:
        """Run on `(N, 3, S, S)` float32 (C-contiguous); returns the outputs, float32."""
        inputs = {INPUT_NAME: np.ascontiguousarray(images, dtype=np.float32)}
        return tuple(self._session().run(None, inputs))


def cached_onnx_net(
    make_net,
    weights: Path,
    name: str,
    image_size: int | tuple[int, int],
    output_names: tuple[str, ...],
    root: Path | None = None,
    threads: int | None = None,
    providers: list | None = None,
) -> OnnxNet:
    """Load the ONNX export of a network from the cache, exporting it first if needed.

    Args:
        make_net: builds the eval-mode torch module (only called when exporting).
        weights: the weights file; the cache entry is keyed on its name, size and mtime, and on
            the torch version that exported it.
        name: file stem for the entry, e.g. "efficientnet-lite0".
        image_size: square input side, or `(height, width)`.
        output_names: output names, in forward order.
        root: cache root; default `cache_root()`.
        threads: intra-op threads for the session.
        providers: execution providers for the session (default the CPU).

    Returns:
        The loaded `OnnxNet`. An unreadable entry is exported again; when the cache folder cannot
        be written, the export goes to `<temp>/longground-onnx/` instead.
    """
    from importlib.metadata import version  # not `import torch`: 200 MB for a version

    size = image_size if isinstance(image_size, int) else "x".join(map(str, image_size))
    key = f"{files_fingerprint(Path(weights))}-torch{version('torch')}-s{size}"
    path = encoder_file(f"{name}-{key}.onnx", root)
    if path.is_file():
        try:
            return OnnxNet(path, threads, providers)
        except Exception:  # a damaged entry (onnxruntime raises its own types): export again
            path.unlink(missing_ok=True)
    try:
        export_onnx(make_net, path, image_size, output_names)
    except OSError:  # read-only cache: use (or make) the export in the system's temp folder
        import tempfile

        path = Path(tempfile.gettempdir()) / "longground-onnx" / path.name
        if not path.is_file():
            export_onnx(make_net, path, image_size, output_names)
    return OnnxNet(path, threads, providers)


def quantized_onnx(path: Path, calibration: np.ndarray) -> Path:
    """An int8 copy of the export at `path` (weights per channel, activations per tensor, QDQ
    format), calibrated on `calibration` `(N, 3, S, S)` float32, cached beside it, atomically.

    Returns:
        The path of the quantised `.onnx` (its name carries a digest of the calibration).
    """
    import hashlib
    import tempfile

    from onnxruntime.quantization import (
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_static,
    )

    digest = hashlib.blake2b(np.ascontiguousarray(calibration).tobytes(), digest_size=6)
    target = path.with_name(f"{path.stem}-int8-{digest.hexdigest()}.onnx")
    if target.is_file():
        return target

    class Batches(CalibrationDataReader):
        def __init__(self):
            batches = range(0, len(calibration), 8)
            self._it = iter({INPUT_NAME: calibration[i : i + 8]} for i in batches)

        def get_next(self):
            return next(self._it, None)

    from onnxruntime.quantization.shape_inference import quant_pre_process

    with tempfile.TemporaryDirectory(prefix="lgquant") as work:
        prepared, out = Path(work) / "prepared.onnx", Path(work) / "int8.onnx"
        # folds constants and fuses what can be fused first (ONNX Runtime's advice; 1.7x faster
        # than quantising the raw export on EfficientNet-Lite0)
        quant_pre_process(str(path), str(prepared), skip_symbolic_shape=True)
        quantize_static(str(prepared), str(out), Batches(), quant_format=QuantFormat.QDQ,
                        per_channel=True, weight_type=QuantType.QInt8,
                        activation_type=QuantType.QUInt8)  # fmt: skip
        with atomic_open(target, "wb") as handle:
            handle.write(out.read_bytes())
    return target
