"""Encoder throughput per device: frames/s on the CPU and on every CUDA GPU, per batch size.

For each encoder spec and device it loads the encoder (`load_encoder(spec, device,
batch_size)`), warms it up on one batch, then times `image_features` on `--frames` random
224x398 frames. Prints frames/s and the speed-up against the CPU measured in the same run.
Run it on a GPU machine; on a CPU-only one it prints the CPU row and says no GPU was found.

    python perf/bench_devices.py                                  # label-bridge
    python perf/bench_devices.py --encoder hf:/models/clip-vit-large-patch14-336 \
        --batch-sizes 32 128 --frames 1024
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from longground.device import resolve_device
from longground.encoders import load_encoder
from longground.errors import UserError


def devices() -> list[str]:
    try:
        import torch

        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    except ImportError:
        count = 0
    return ["cpu", *(f"cuda:{i}" for i in range(count))]


def frames_per_s(spec: str, device: str, batch_size: int, n: int) -> float:
    encoder = load_encoder(spec, device, batch_size)
    frames = np.random.default_rng(0).integers(0, 255, (n, 224, 398, 3), dtype=np.uint8)
    encoder.image_features(frames[:batch_size])  # warm-up: export, kernels, allocator
    started = time.perf_counter()
    for start in range(0, n, batch_size):
        encoder.image_features(frames[start : start + batch_size])
    return n / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--encoder", nargs="+", default=["label-bridge"])
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[8, 64])
    parser.add_argument("--frames", type=int, default=256)
    args = parser.parse_args()
    found = devices()
    if len(found) == 1:
        print("no CUDA GPU found: only the CPU row is measured")
    for spec in args.encoder:
        for batch_size in args.batch_sizes:
            cpu = None
            for device in found:
                try:
                    rate = frames_per_s(spec, device, batch_size, args.frames)
                except UserError as exc:
                    print(f"{spec} {device}: {exc}")
                    continue
                cpu = cpu or rate
                dtype = resolve_device(device).dtype
                print(f"{spec:30} {device:7} {dtype:9} batch {batch_size:4d}: "
                      f"{rate:8.1f} frames/s  {rate / cpu:6.1f}x the CPU")  # fmt: skip


if __name__ == "__main__":
    main()
