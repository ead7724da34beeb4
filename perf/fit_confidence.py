"""Fit the moment-score models (`methods.confidence.CALIBRATIONS`, the agent's general-scene
`SCENE_CONFIDENCE`) and draw their reliability on data they were not fitted on.

    python perf/fit_confidence.py --fit BENCH=PRED [BENCH=PRED ...] \
        --check BENCH=PRED [BENCH=PRED ...] [--figure docs/img/reliability.png]

PRED files are `longground run` outputs: each line's `raw_scores` (the score before
calibration) and `channel` say what each moment was scored on. A moment is right when it
matches a true moment of its query with tIoU >= 0.5. Kinds: "speech", "text", "people" (any
method), "retrieval" and "agent" (visual answers of those methods). The model per kind:
    p = sigmoid(w * f(raw) + w_len * ln(seconds) + bias)
with f the logit for probability-like scores (channels) and the identity otherwise.

Prints the fitted weights, then per data set and kind the expected calibration error (ECE, 10
equal-width bins) of the calibrated scores as written and of the refitted model.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

from longground.formats import load_samples
from longground.moments import tiou_matrix

PROBABILITY_KINDS = ("speech", "text", "people")


def kind_of(record: dict) -> str | None:
    channel = record.get("channel")
    if channel in PROBABILITY_KINDS:
        return channel
    if channel == "visual" and record.get("method") in ("agent", "retrieval"):
        return record["method"]
    return None


def moments(pairs: list[str]) -> dict[str, dict[str, np.ndarray]]:
    """Per kind: raw scores, durations, calibrated scores and whether each moment is right."""
    out: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for pair in pairs:
        bench, pred = pair.split("=", 1)
        truth = {s.qid: s.gt.spans for s in load_samples(bench)}
        for line in Path(pred).read_text().splitlines():
            record = json.loads(line)
            kind = kind_of(record)
            spans = np.asarray(record.get("intervals") or [], float).reshape(-1, 2)
            raw = record.get("raw_scores")
            if kind is None or raw is None or len(raw) != len(spans) or record["qid"] not in truth:
                continue
            gt = truth[record["qid"]]
            best = tiou_matrix(spans, gt).max(axis=1) if len(gt) else np.zeros(len(spans))
            out[kind]["raw"] += [np.nan if r is None else r for r in raw]
            out[kind]["seconds"] += list(spans[:, 1] - spans[:, 0])
            out[kind]["score"] += list(record.get("scores") or [np.nan] * len(spans))
            out[kind]["right"] += list(best >= 0.5)
    return {k: {n: np.asarray(v, float) for n, v in d.items()} for k, d in out.items()}


def features(kind: str, d: dict[str, np.ndarray]) -> np.ndarray:
    raw = d["raw"]
    if kind in PROBABILITY_KINDS:
        raw = np.clip(raw, 0.01, 0.99)
        raw = np.log(raw / (1 - raw))
    return np.stack([raw, np.log(np.maximum(d["seconds"], 0.1)), np.ones(len(raw))], axis=1)


def fit(kind: str, d: dict[str, np.ndarray]) -> np.ndarray:
    x, y = features(kind, d), d["right"]
    ok = np.isfinite(x).all(axis=1)
    x, y = x[ok], y[ok]

    def loss(w):
        t = x @ w
        return float(np.mean(np.logaddexp(0, t) - y * t)) + 1e-3 * float(w[:2] @ w[:2])

    # A higher raw score may never mean a lower probability (bounds keep the weight >= 0).
    bounds = [(0.0, None), (-3.0, 3.0), (None, None)]
    return minimize(loss, np.array([1.0, 0.0, 0.0]), method="L-BFGS-B", bounds=bounds).x


def predict(kind: str, d: dict[str, np.ndarray], w: np.ndarray) -> np.ndarray:
    t = features(kind, d) @ w
    return 1.0 / (1.0 + np.exp(-np.clip(t, -50, 50)))


def ece(p: np.ndarray, y: np.ndarray, bins: int = 10) -> float:
    ok = np.isfinite(p)
    p, y = p[ok], y[ok]
    which = np.clip((p * bins).astype(int), 0, bins - 1)
    return float(sum((which == b).mean() * abs(p[which == b].mean() - y[which == b].mean())
                     for b in range(bins) if (which == b).any()))  # fmt: skip


def figure(path: Path, panels: list[tuple[str, np.ndarray, np.ndarray]]) -> None:
    """A reliability diagram per kind (mean predicted against fraction right, per bin)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(panels), figsize=(3.2 * len(panels), 3.4), squeeze=False)
    for ax, (title, p, y) in zip(axes[0], panels):
        ok = np.isfinite(p)
        p, y = p[ok], y[ok]
        which = np.clip((p * 10).astype(int), 0, 9)
        xs = [p[which == b].mean() for b in range(10) if (which == b).any()]
        ys = [y[which == b].mean() for b in range(10) if (which == b).any()]
        ns = [int((which == b).sum()) for b in range(10) if (which == b).any()]
        ax.plot([0, 1], [0, 1], color="0.7", lw=1)
        ax.scatter(xs, ys, s=[8 + 3 * n for n in ns], color="tab:blue")
        ax.set(
            xlim=(0, 1),
            ylim=(0, 1),
            xlabel="score",
            title=f"{title}\nECE {ece(p, y):.3f}, n={len(p)}",
        )
        ax.set_ylabel("fraction right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    fig.savefig(path.with_suffix(".pdf"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fit", nargs="+", required=True, help="BENCH=PRED pairs to fit on")
    parser.add_argument("--check", nargs="*", default=[], help="BENCH=PRED pairs held out")
    parser.add_argument(
        "--figure", type=Path, help="reliability of the refitted models on --check (PNG+PDF)"
    )
    args = parser.parse_args()
    fitted = moments(args.fit)
    if not fitted:
        print("fit_confidence: no moment with a raw score and a channel", file=sys.stderr)
        return 2
    weights = {}
    for kind, d in sorted(fitted.items()):
        weights[kind] = fit(kind, d)
        w = weights[kind]
        print(f"{kind:10s} n={len(d['right']):5d} right={d['right'].mean():.2f}  "
              f"raw_w={w[0]:.3f} log_s_w={w[1]:.3f} bias={w[2]:.3f}")  # fmt: skip
    panels = []
    for name, pairs in (("fit", args.fit), ("check", args.check)):
        if not pairs:
            continue
        for kind, d in sorted(moments(pairs).items()):
            refit = (
                predict(kind, d, weights[kind])
                if kind in weights
                else np.full(len(d["raw"]), np.nan)
            )
            print(
                f"{name:6s} {kind:10s} n={len(d['right']):5d}  ECE as written "
                f"{ece(d['score'], d['right']):.3f}  refitted {ece(refit, d['right']):.3f}"
            )
            if name == "check":
                panels.append((f"{kind} (held out)", refit, d["right"]))
    if args.figure and panels:
        figure(args.figure, panels)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
