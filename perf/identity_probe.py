"""How well the objects' looks (`agent.composited.reid`) tell identities apart on a synthetic
video, with the true identities from its shot list (docs/agent.md, "Identity by the objects'
looks").

    python perf/identity_probe.py VIDEO.mp4 VIDEO.shots.tsv cat,horse,camera [--single] \
        [--figure looks.png]

Each shot showing a category is one instance, looked at in three frames (a quarter, half and
three quarters in); its identity is the variant the shot list names ("original" when none).
For every pair of instances of a category the script prints, split by same / different
identity: quartiles of the best shape cosine of their frames, quartiles of the overlap of
their colour histograms, and how many pairs `reid.same_object` judged the same. `--single`
keeps only shots that show one object. The largest object of each frame is taken (the agent
also chooses the half of the frame that scores the query better). `--figure` draws one frame
of the first instance of each identity with the object's box and its colour histogram
(docs/img/identity-looks.png).
"""

from __future__ import annotations

import argparse
import itertools
from collections import Counter

import numpy as np

from longground.agent.composited import reid


def _seconds(text: str) -> float:
    h, m, s = text.split(":")
    return int(h) * 3600 + int(m) * 60 + float(s)


def instances(tsv: str, categories: list[str], single: bool) -> list[tuple[float, float, str, str]]:
    """`(start_s, end_s, category, variant)` per shot showing one of `categories`."""
    out = []
    for line in open(tsv, encoding="utf-8").read().splitlines()[1:]:
        start, end, _kind, _backdrop, contents = line.split("\t")
        parts = [p.strip() for p in contents.split(";")]
        for cat in categories:
            hits = [p.split(" ") for p in parts if p.split(" ")[0] == cat]
            if hits and (len(parts) == 1 or not single):
                look = hits[0][1] if len(hits[0]) > 1 and hits[0][1].startswith("(") else ""
                out.append((_seconds(start), _seconds(end), cat, look.strip("()") or "original"))
    return out


def main() -> None:
    import cv2

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("video")
    ap.add_argument("shots")
    ap.add_argument("categories")
    ap.add_argument("--single", action="store_true", help="only shots with one object")
    ap.add_argument("--figure", help="PNG of one frame per identity of the first category")
    args = ap.parse_args()
    cap = cv2.VideoCapture(args.video)

    def frame_at(t_s: float) -> np.ndarray:
        cap.set(cv2.CAP_PROP_POS_MSEC, t_s * 1000.0)
        ok, bgr = cap.read()
        if not ok:
            raise SystemExit(f"{args.video}: no frame at {t_s:.1f} s")
        return cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)

    cats = args.categories.split(",")
    rows = []
    for a, b, cat, variant in instances(args.shots, cats, args.single):
        looks = [reid.describe(frame_at(a + (b - a) * f)) for f in (0.25, 0.5, 0.75)]
        rows.append((cat, variant, [x for x in looks if x is not None]))
    if args.figure:
        firsts = {}
        for a, b, cat, variant in instances(args.shots, cats, args.single):
            firsts.setdefault((cat, variant), frame_at(a + (b - a) * 0.5))
        draw(list(firsts.items()), args.figure)
    print("| category | pairs | identities | shape cosine q25/50/75 | colour overlap q25/50/75 "
          "| judged same |")  # fmt: skip
    print("|---|---|---|---|---|---|")
    for cat in cats:
        mine = [r for r in rows if r[0] == cat and r[2]]
        shape, colour, judged = {}, {}, {}
        for x, y in itertools.combinations(mine, 2):
            key = "same" if x[1] == y[1] else "different"
            s = max(float(p.shape @ q.shape) for p in x[2] for q in y[2])
            c = float(np.minimum(reid.instance_colour(x[2]), reid.instance_colour(y[2])).sum())
            shape.setdefault(key, []).append(s)
            colour.setdefault(key, []).append(c)
            judged[key] = judged.get(key, 0) + reid.same_object(x[2], y[2])
        counts = dict(Counter(r[1] for r in mine))
        for key in ("same", "different"):
            if key not in shape:
                continue
            q_s = "/".join(f"{v:.2f}" for v in np.percentile(shape[key], [25, 50, 75]))
            q_c = "/".join(f"{v:.2f}" for v in np.percentile(colour[key], [25, 50, 75]))
            print(f"| {cat} | {len(shape[key])} {key} | {counts} | {q_s} | {q_c} "
                  f"| {judged[key]} |")  # fmt: skip


def draw(frames: list[tuple[tuple[str, str], np.ndarray]], path: str) -> None:
    """Frames of `((category, variant), frame)` with their object's box (top) and colour
    histogram (bottom), and whether each is judged the same identity as its category's first."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    looks = [reid.describe(f) for _, f in frames]
    fig, axes = plt.subplots(2, len(frames), figsize=(3.2 * len(frames), 4.4), squeeze=False)
    first: dict[str, tuple[str, reid.Look | None]] = {}
    for k, (((cat, variant), frame), look) in enumerate(zip(frames, looks)):
        top, bottom = axes[0, k], axes[1, k]
        top.imshow(frame)
        top.axis("off")
        if look is None:
            top.set_title(f"{cat} {variant}: no object found", fontsize=9)
            continue
        y0, y1, x0, x1 = look.box
        top.add_patch(plt.Rectangle((x0, y0), x1 - x0, y1 - y0, fill=False, color="white", lw=2))
        title = f"{cat} {variant}"
        if cat in first:
            ref_variant, ref = first[cat]
            title += f"\nsame as {ref_variant}: {reid.same_object([ref], [look])}"
        else:
            first[cat] = (variant, look)
        top.set_title(title, fontsize=9)
        hues = [f"{30 * i}" for i in range(reid.HUE_BINS)] + ["gray"]
        bottom.bar(range(len(hues)), look.colour, color="0.4")
        bottom.set_xticks(range(len(hues)), hues, rotation=90, fontsize=7)
        bottom.set_ylim(0, 1)
        bottom.set_xlabel("hue bin (degrees)", fontsize=8)
        bottom.set_ylabel("share of object pixels", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


if __name__ == "__main__":
    main()
