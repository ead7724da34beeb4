"""ByteTrack (the `trackers` library, `tracking.follow`) against norfair on the same boxes.

    python perf/tracker_compare.py BENCH_DIR [--vtest vtest.avi] [--face franck.mp4]

1. Generated video with exact boxes (`synth`'s `boxes/`): the exact boxes of every object
   at 2 fps, made into a noisy detector's output (seeded): each box moved by 2 % of the
   frame, 20 % of boxes dropped, 0.3 false boxes a frame; then the localiser's own boxes
   (`localise`) for each category. MOTA and IDF1 against the exact tracks (IoU 0.5), by
   the `trackers` library's TrackEval port.
2. vtest.avi (no ground truth; its first `--limit-s` seconds): the people localiser's
   boxes at 2 fps; tracks counted and
   their mean length (fewer, longer tracks for the same walkers = fewer identity breaks).
3. A talking-head clip: faces at 2 fps; one person, so one track is right.

norfair is not a dependency (its wheel pins numpy < 2): install it beside the project with
`pip install --no-deps --target DIR norfair filterpy` and put DIR on PYTHONPATH.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from longground.formats.tracks import read_tracks
from longground.track import box_iou
from longground.tracking.detections import Detections
from longground.tracking.follow import LOST_S, follow, tracks_of

RATE = 2.0  # sampled frames a second


def follow_norfair(detections: Detections, times_s: np.ndarray, label: str = ""):
    """norfair's IoU tracker on the same boxes, with the same memory (`LOST_S`)."""
    from norfair import Detection, Tracker

    memory = max(1, round(LOST_S * RATE))
    tracker = Tracker(
        distance_function="iou", distance_threshold=0.7, hit_counter_max=memory,
        initialization_delay=1,
    )  # fmt: skip
    rows: dict[int, list] = {}
    for k, t_s in enumerate(times_s):
        here = detections.in_frame(k)
        found = [Detection(points=b.reshape(2, 2) * 1000.0, scores=np.array([s, s]))
                 for b, s in zip(here.boxes, here.scores)]  # fmt: skip
        for obj in tracker.update(found):
            if obj.id is not None and any(obj.last_detection is d for d in found):
                box = np.clip(obj.last_detection.points.reshape(4) / 1000.0, 0, 1)
                rows.setdefault(obj.id, []).append((t_s, box, obj.last_detection.scores[0]))
    return tracks_of(rows, label)


def read_frames(path: str, rate: float, limit_s: float | None = None):
    """Every `1/rate` s of a video's first `limit_s` seconds at its own size: `(N, H, W, 3)`
    RGB frames and their times."""
    from longground.video import sample_frames

    batches = list(sample_frames(path, rate, end_s=limit_s, short_side=None))
    return np.concatenate([b.frames for b in batches]), np.concatenate([b.times_s for b in batches])


def truth_at(tracks, times_s: np.ndarray) -> tuple[list, list]:
    """Per sampled frame, the ids and boxes of the exact tracks there."""
    ids, boxes = [], []
    for t_s in times_s:
        here = [(t.track_id, t.boxes[np.isclose(t.times_s, t_s)]) for t in tracks]
        here = [(i, b[0]) for i, b in here if len(b)]
        ids.append(np.array([i for i, _ in here], int))
        boxes.append(np.array([b for _, b in here]).reshape(-1, 4))
    return ids, boxes


def mot(truth, times_s: np.ndarray, tracks) -> dict:
    """MOTA and IDF1 of `tracks` against `truth` (ids, boxes per frame)."""
    from trackers.eval import compute_clear_metrics, compute_identity_metrics

    gt_ids, gt_boxes = truth
    pred_ids, pred_boxes = truth_at(tracks, times_s)
    sims = [pairwise(g, p) for g, p in zip(gt_boxes, pred_boxes)]
    clear = compute_clear_metrics(gt_ids, pred_ids, sims)
    ident = compute_identity_metrics(gt_ids, pred_ids, sims)
    return {"MOTA": clear["MOTA"], "IDF1": ident["IDF1"], "IDSW": clear["IDSW"],
            "tracks": len(tracks)}  # fmt: skip


def pairwise(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if not len(a) or not len(b):
        return np.zeros((len(a), len(b)))
    return box_iou(np.repeat(a, len(b), 0), np.tile(b, (len(a), 1))).reshape(len(a), len(b))


def noisy_detector(truth, rng) -> Detections:
    """The exact boxes, moved, some dropped, some false ones added."""
    parts = []
    for boxes in truth[1]:
        kept = boxes[rng.random(len(boxes)) > 0.2]
        kept = np.clip(kept + rng.normal(0, 0.02, kept.shape), 0, 1)
        kept = np.c_[np.minimum(kept[:, :2], kept[:, 2:]), np.maximum(kept[:, :2], kept[:, 2:])]
        n_false = rng.poisson(0.3)
        corner = rng.random((n_false, 2)) * 0.7
        false = np.c_[corner, corner + 0.1 + rng.random((n_false, 2)) * 0.2]
        scores = np.r_[rng.uniform(0.5, 1.0, len(kept)), rng.uniform(0.3, 0.9, n_false)]
        parts.append(Detections(np.r_[kept, false], scores, np.zeros(len(scores), int)))
    return Detections.joined(parts)


def compare(name: str, run) -> None:
    for tracker, fn in (("bytetrack", follow), ("norfair", follow_norfair)):
        start = time.perf_counter()
        try:
            out = run(fn)
        except ImportError:
            print(f"{name:34s} {tracker:9s} (not installed)")
            continue
        ms = (time.perf_counter() - start) * 1000
        cells = "  ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}"
                          for k, v in out.items())  # fmt: skip
        print(f"{name:34s} {tracker:9s} {cells}  ({ms:.0f} ms)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("bench", help="a synth output folder (videos/, boxes/)")
    parser.add_argument("--vtest")
    parser.add_argument("--face")
    parser.add_argument("--limit-s", type=float, default=60.0, help="of the real clips")
    args = parser.parse_args()
    bench = Path(args.bench)
    video = sorted((bench / "videos").glob("*.mp4"))[0]
    exact = read_tracks(bench / "boxes" / f"{video.stem}.jsonl")
    frames, times = read_frames(str(video), RATE)
    truth = truth_at(exact, times)
    for seed in range(3):
        detections = noisy_detector(truth, np.random.default_rng(seed))
        compare(f"{video.name} noisy exact boxes s{seed}", lambda f, d=detections: mot(
            truth, times, f(d, times)))  # fmt: skip
    from longground.tracking.localise import localise

    for label in sorted({t.label for t in exact if t.label not in ("ball", "traffic")}):
        mine = [t for t in exact if t.label == label]
        found = localise(frames, label)
        compare(f"{video.name} localised {label}", lambda f, d=found, m=mine: mot(
            truth_at(m, times), times, f(d, times)))  # fmt: skip
    for path, target in ((args.vtest, "people"), (args.face, "face")):
        if path:
            frames, times = read_frames(path, RATE, args.limit_s)
            found = localise(frames, target)
            print(f"{Path(path).name}: {len(found)} {target} boxes in {len(frames)} frames")
            compare(f"{Path(path).name} {target}", lambda f, d=found, t=times: {
                "tracks": len(tr := f(d, t)),
                "mean_len": float(np.mean([len(x) for x in tr])) if tr else 0.0})  # fmt: skip


if __name__ == "__main__":
    main()
