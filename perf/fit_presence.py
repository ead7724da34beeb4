"""Fit the label-bridge presence model (`encoders.label_bridge.PRESENCE`) and report its
calibration on data it was not fitted on.

    python perf/fit_presence.py --fit BENCH.jsonl [BENCH.jsonl ...] [--check BENCH.jsonl ...]
        [--rendering SEED:MINUTES ...] [--cache-dir DIR]

A sample is one (indexed frame, query) pair of a one-event visual query in a benchmark file
(canonical JSONL): its label is whether the frame lies inside the query's truth (a negative
query: never). `--rendering SEED:MINUTES` adds a rendering of the generator (photos pasted on
backdrops) with one "a/the OBJECT" query per catalogue object, from its exact masks.

Prints the fitted constants (paste them into `PRESENCE`), then, per data set, the expected
calibration error (ECE, 10 equal-width bins) and a reliability table. The model:
  named classes: log-odds = a * ln(mass) + b - c * [a confusable neighbour clearly seen]
  other texts:   log-odds = d * (bridged - e)
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

from longground.encoders import load_encoder
from longground.encoders.class_words import class_mass, named_classes, neighbour_classes
from longground.encoders.label_bridge import NEIGHBOUR_SEEN, PresenceModel, standardized_score
from longground.formats import load_samples
from longground.index import FeatureStore
from longground.query import analyse

FPS = 1.0


def samples_of(bench: Path) -> list[tuple[Path, str, np.ndarray]]:
    """`(video, query, truth spans (K, 2))` of the file's one-event visual queries."""
    out = []
    for s in load_samples(bench):
        analysis = analyse(s.query)
        if analysis.compound or analysis.target.route.channel != "visual":
            continue
        out.append((bench.parent / s.video, analysis.target.text, s.gt.spans))
    return out


def rendering_samples(seed: int, minutes: float, root: Path) -> list[tuple[Path, str, np.ndarray]]:
    """A rendering's videos with one query per catalogue object, truth from its masks."""
    from longground.synth import generate, plan
    from longground.synth.catalog import CATEGORIES, OBJECT_CATEGORIES
    from longground.synth.truth import Truth, mask_to_moments

    folder = root / f"presence-{seed}-{minutes:g}"
    planned = plan(1, minutes, seed=seed)
    if not (folder / "benchmark.jsonl").exists():
        generate(folder, 1, minutes, seed=seed)
    video = folder / "videos" / "synth_000.mp4"
    script = planned[0].script
    truth = Truth(script)
    out = []
    for name in OBJECT_CATEGORIES:
        mask = truth.mask(lambda t, n=name: t.category == n)
        spans = mask_to_moments(mask, script.fps).spans
        out.append((video, CATEGORIES[name].phrases[0], spans))
    return out


def readings(encoder, store, samples) -> dict[str, np.ndarray]:
    """Per sample frame: named?, ln mass, confused, bridged, label (arrays of one length)."""
    rows = defaultdict(list)
    for video, text, spans in samples:
        tl = store.get_or_build(video, encoder, FPS, progress=False)
        feats, times = tl.features, np.asarray(tl.times_s)
        label = np.zeros(len(times), bool)
        for a, b in spans:
            label |= (times >= a) & (times < b)
        named = named_classes(text)
        if named:
            mass = class_mass(feats["class_logp"], named)
            other = class_mass(feats["class_logp"], neighbour_classes(named))
            confused = (other >= NEIGHBOUR_SEEN) & (other > mass)
            bridged = np.zeros(len(times))
        else:
            query = encoder.encode_texts([text])[0]
            bridged = standardized_score(feats["label_mix"], query, encoder.class_embeddings)
            mass, confused = np.ones(len(times)), np.zeros(len(times), bool)
        rows["named"].append(np.full(len(times), bool(named)))
        rows["log_mass"].append(np.log(np.maximum(mass, 1e-6)))
        rows["confused"].append(confused.astype(float))
        rows["bridged"].append(np.asarray(bridged, float))
        rows["label"].append(label.astype(float))
    return {k: np.concatenate(v) for k, v in rows.items()}


def log_loss(logit: np.ndarray, label: np.ndarray) -> float:
    return float(np.mean(np.logaddexp(0, logit) - label * logit))


def fit(r: dict[str, np.ndarray]) -> PresenceModel:
    """Maximum likelihood on the named and the other samples separately (tiny L2)."""
    n = r["named"]

    def named_loss(w):
        logit = w[0] * r["log_mass"][n] + w[1] - w[2] * r["confused"][n]
        return log_loss(logit, r["label"][n]) + 1e-4 * float(w @ w)

    def other_loss(w):
        logit = w[0] * (r["bridged"][~n] - w[1])
        return log_loss(logit, r["label"][~n]) + 1e-4 * float(w @ w)

    a = minimize(named_loss, np.array([1.0, 2.0, 1.0]), method="Nelder-Mead").x
    b = (
        minimize(other_loss, np.array([1.0, 2.5]), method="Nelder-Mead").x
        if (~n).any()
        else (2.0, 2.6)
    )
    return PresenceModel(*(round(float(v), 3) for v in (*a, *b)))


def predict(model: PresenceModel, r: dict[str, np.ndarray]) -> np.ndarray:
    n = r["named"]
    logit = np.where(
        n,
        model.named_log_mass * r["log_mass"] + model.named_bias - model.confusion * r["confused"],
        model.bridged_slope * (r["bridged"] - model.bridged_centre),
    )
    return 1.0 / (1.0 + np.exp(-logit))


def reliability(p: np.ndarray, label: np.ndarray, bins: int = 10) -> tuple[float, list]:
    """ECE and `(bin low, count, mean p, fraction true)` rows."""
    edges = np.linspace(0, 1, bins + 1)
    which = np.clip(np.digitize(p, edges) - 1, 0, bins - 1)
    ece, rows = 0.0, []
    for b in range(bins):
        m = which == b
        if m.any():
            ece += m.mean() * abs(p[m].mean() - label[m].mean())
            rows.append((edges[b], int(m.sum()), float(p[m].mean()), float(label[m].mean())))
    return float(ece), rows


def report(name: str, model: PresenceModel, r: dict[str, np.ndarray]) -> None:
    p = predict(model, r)
    for part, mask in (
        ("named", r["named"]),
        ("other", ~r["named"]),
        ("all", np.ones_like(p, bool)),
    ):
        if not mask.any():
            continue
        ece, rows = reliability(p[mask], r["label"][mask])
        acc = float(((p[mask] >= 0.5) == (r["label"][mask] > 0.5)).mean())
        positive = r["label"][mask].mean()
        print(
            f"{name:10s} {part:6s} frames {int(mask.sum()):6d}  positive {positive:.3f}"
            f"  ECE {ece:.3f}  accuracy at 0.5 {acc:.3f}"
        )
    ece, rows = reliability(p, r["label"])
    for low, count, mean_p, frac in rows:
        band = f"[{low:.1f}, {low + 0.1:.1f})"
        print(f"    p in {band}: {count:6d} frames, mean p {mean_p:.2f}, true {frac:.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fit", nargs="*", type=Path, default=[])
    parser.add_argument("--check", nargs="*", type=Path, default=[])
    parser.add_argument("--rendering", nargs="*", default=[], help="SEED:MINUTES to fit on")
    parser.add_argument("--work", type=Path, default=Path("/tmp/fit_presence"))
    parser.add_argument("--cache-dir", type=Path, default=None)
    args = parser.parse_args()
    encoder = load_encoder("label-bridge")
    store = FeatureStore(args.cache_dir)
    fit_samples = [s for b in args.fit for s in samples_of(b)]
    for spec in args.rendering:
        seed, minutes = spec.split(":")
        fit_samples += rendering_samples(int(seed), float(minutes), args.work)
    if not fit_samples:
        print("fit_presence: nothing to fit on (give --fit or --rendering)", file=sys.stderr)
        return 2
    fitted = readings(encoder, store, fit_samples)
    model = fit(fitted)
    print(model)
    report("fit", model, fitted)
    for bench in args.check:
        report(bench.parent.name, model, readings(encoder, store, samples_of(bench)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
