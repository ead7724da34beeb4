"""How well each view of a frame's objects separates an object's shots from the rest.

For a video written by `longground synth` (its `.shots.tsv` names each shot's objects), two
frames per shot (at a third and two thirds of it, as the agent's `REGION_FRACTIONS`) are
decoded at the agent's 224 px and scored for one or two texts per object class on: the whole
frame, the halves' object boxes (`boxes.object_crops`), the largest object whole
(`object_views.whole_object`) and the three object views together (the best of them, as
`Visibility` pools them). Per text it prints the median of the shot scores inside the
object's shots (a shot's score: its best frame and view), the smallest of them, and the 95th
percentile and largest outside them.

    PYTHONPATH=src python perf/object_views.py /tmp/agentq/r2/videos/synth_000.mp4
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import numpy as np

from longground.agent.composited.boxes import object_crops
from longground.agent.composited.object_views import object_views, whole_object
from longground.agent.perception.visibility import REGION_FRACTIONS
from longground.encoders.label_bridge import LabelBridgeEncoder
from longground.timecode import parse_time
from longground.video import frames_at

TEXTS = {
    "horse": ("the horse silhouette",), "rocket": ("a rocket",),
    "car": ("a shot of cars on a busy street",), "cat": ("a cat",),
    "coffee": ("the coffee cup",), "camera": ("a tripod camera",),
    "motorcycle": ("the motorcycle",), "bicycle": ("the parked bicycle",),
    "(none)": ("a sailing boat", "an airplane"),
}  # fmt: skip
VIEWS = {
    "whole frame": lambda f: f[:, None],
    "halves' boxes": object_crops,
    "whole object": lambda f: np.stack([whole_object(x) for x in f])[:, None],
    "all three": lambda f: object_views(f)[0],
}


def shots(video: Path) -> list[tuple[float, float, str]]:
    """`(start_s, end_s, contents)` of each shot of the generator's shot list."""
    with open(video.with_suffix(".shots.tsv"), encoding="utf-8") as handle:
        rows = csv.DictReader(handle, delimiter="\t")
        return [(parse_time(r["start"]), parse_time(r["end"]), r["contents"]) for r in rows]


def features(encoder, crops: np.ndarray) -> dict[str, np.ndarray]:
    """Encoder features of `(N, V, H, W, 3)` crops, rows `N * V`."""
    flat = crops.reshape(-1, *crops.shape[2:])
    parts = [encoder.image_features(flat[a : a + 32]) for a in range(0, len(flat), 32)]
    return {k: np.concatenate([p[k] for p in parts]) for k in ("label_mix", "class_logp")}


def main(video: str) -> None:
    path = Path(video)
    listed = shots(path)
    frac = np.asarray(REGION_FRACTIONS)
    times = np.concatenate([a + (b - a) * frac for a, b, _ in listed])
    frames = frames_at(path, times, short_side=224).frames
    encoder = LabelBridgeEncoder()
    feats = {name: features(encoder, view(frames)) for name, view in VIEWS.items()}
    print(
        f"{path} ({len(listed)} shots), per view: median inside / smallest inside / "
        "p95 outside / max outside"
    )
    print("| object | text | shots | " + " | ".join(VIEWS) + " |")
    print("|---|---|---|" + "---|" * len(VIEWS))
    for name, texts in TEXTS.items():
        inside = np.array([name in contents for _, _, contents in listed])
        for text in texts:
            cells = []
            for view in VIEWS:
                s = encoder.score(feats[view], text).reshape(len(listed), -1).max(axis=1)
                inn, out = s[inside], s[~inside]
                head = f"{np.median(inn):.2f} / {inn.min():.2f}" if inn.size else "- / -"
                cells.append(f"{head} / {np.quantile(out, 0.95):.2f} / {out.max():.2f}")
            print(f"| {name} | {text} | {int(inside.sum())} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(*sys.argv[1:])
