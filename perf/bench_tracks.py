"""What tracks cost beside the index: localising + tracking per sampled frame against the
index's decoding + encoding per frame, measured in one run on the same video.

    python perf/bench_tracks.py VIDEO TARGET [--rate 2] [--index-fps 1]

1. The index as a cold first query builds it: `index.build.build_timeline` with the
   label-bridge encoder at `--index-fps`, the store's default change gate (frames whose
   thumbnail did not change are not encoded), every frame decoded at the encoder's 224 px.
2. Tracks: the frames at `--rate` decoded at the size the localiser needs (224 px for the
   class maps, the video's own size for people), `tracking.localise`, `tracking.follow`.

Prints seconds per sampled frame of each and the ratio; then, since phase B attaches
tracks only to found moments, the share of the video whose moments may carry tracks within
the issue's target (tracks add at most 25 % to the cold first query):
`share = 0.25 * index_s_per_frame * index_fps / (tracks_s_per_frame * rate)`.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from longground.encoders.label_bridge import LabelBridgeEncoder
from longground.index.build import build_timeline
from longground.index.store import default_gate
from longground.tracking.follow import follow
from longground.tracking.localise import localise, localiser_for
from longground.video import sample_frames

TARGET_SHARE = 0.25


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("video")
    parser.add_argument("target")
    parser.add_argument("--rate", type=float, default=2.0)
    parser.add_argument("--index-fps", type=float, default=1.0)
    args = parser.parse_args()

    encoder = LabelBridgeEncoder()
    encoder.image_features(np.zeros((1, 224, 224, 3), np.uint8))  # load the models first
    localiser_for(args.target)  # made once; the class-map network loads on its first call
    localise(np.zeros((1, 224, 224, 3), np.uint8), args.target)

    start = time.perf_counter()
    timeline = build_timeline(args.video, encoder, args.index_fps, progress=False,
                              gate=default_gate())  # fmt: skip
    index_s = time.perf_counter() - start
    n_index = len(timeline.times_s)

    side = 224 if localiser_for(args.target).name == "cam" else None
    start = time.perf_counter()
    decode_s = localise_s = follow_s = 0.0
    n_tracks = n_frames = 0
    for batch in sample_frames(args.video, args.rate, short_side=side):
        mid = time.perf_counter()
        decode_s += mid - start
        found = localise(batch.frames, args.target)
        localise_s += time.perf_counter() - mid
        start = time.perf_counter()
        n_tracks += len(follow(found, batch.times_s, args.target))
        follow_s += time.perf_counter() - start
        n_frames += len(batch)
        start = time.perf_counter()
    per_index = index_s / n_index
    per_track = (decode_s + localise_s + follow_s) / n_frames
    print(f"index: {n_index} frames at {args.index_fps:g} fps, {per_index * 1000:.1f} ms a frame "
          f"(decode + label-bridge, change gate on)")  # fmt: skip
    print(f"tracks of {args.target!r}: {n_frames} frames at {args.rate:g} fps, "
          f"{per_track * 1000:.1f} ms a frame (decode {decode_s / n_frames * 1000:.1f}, "
          f"localise {localise_s / n_frames * 1000:.1f}, follow {follow_s / n_frames * 1000:.1f}); "
          f"{n_tracks} tracks (batch by batch)")  # fmt: skip
    print(f"ratio tracks / index per sampled frame: {per_track / per_index:.2f}")
    share = TARGET_SHARE * per_index * args.index_fps / (per_track * args.rate)
    print(f"tracks on moments covering up to {share:.1%} of the video add at most "
          f"{TARGET_SHARE:.0%} to the index's cost")  # fmt: skip


if __name__ == "__main__":
    main()
