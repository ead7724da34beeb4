"""R{K}@τ for the `single` protocol (`--top-k`, `--iou`): the vectorised scorer against the
naive loop on the shipped Charades-STA and ActivityNet Captions files, with deterministic
synthetic top-5 predictions, and the default output left as it was."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from longground import Moments, Prediction, Sample
from longground.cli.main import main
from longground.errors import UserError
from longground.eval import evaluate, reference
from longground.formats import load_samples

FILES = ["charades_sta/charades_sta_test.txt", "activitynet_captions/val.json"]
# `longground eval --protocol single --json` before R@K existed: these keys, in this order.
DEFAULT_KEYS = [
    "protocol", "theta", "n_queries", "miou", "recall@0.3", "recall@0.5", "recall@0.7",
    "missing", "parse_failures", "invalid_intervals", "unknown_qids", "duplicate_predictions",
    "skipped_records", "skipped_negatives", "warnings",
]  # fmt: skip


def top5_predictions(samples: list[Sample], seed: int = 0) -> list[Prediction]:
    """Five intervals per query: GT intervals jittered by up to their own length, in a
    seeded random order, mixed with intervals anywhere in the video."""
    rng = np.random.default_rng(seed)
    out = []
    for sample in samples:
        gt = sample.gt.spans[rng.integers(0, len(sample.gt), 5)]
        length = (gt[:, 1] - gt[:, 0])[:, None]
        jittered = gt + rng.normal(0.0, 0.4, (5, 2)) * length
        anywhere = np.sort(rng.uniform(0.0, sample.duration_s, (5, 2)), axis=1)
        spans = np.where(rng.random((5, 1)) < 0.7, jittered, anywhere)
        spans = np.clip(np.sort(spans, axis=1), 0.0, sample.duration_s)
        out.append(Prediction(sample.qid, Moments(spans)))
    return out


@pytest.mark.parametrize("name", FILES)
def test_real_files_match_the_naive_loop(shared_data, name):
    samples = load_samples(shared_data / name)
    preds = top5_predictions(samples)
    result = evaluate(samples, preds, protocol="single", top_k=[1, 5], iou=[0.3, 0.5, 0.7])
    naive = reference.single(
        [[tuple(s) for s in x.gt.spans.tolist()] for x in samples],
        [[tuple(s) for s in p.moments.spans.tolist()] for p in preds],
        (0.3, 0.5, 0.7),
        top_k=(1, 5),
    )
    for k in ("", "_top5"):
        for tau in ("0.3", "0.5", "0.7"):
            key = f"recall{k}@{tau}"
            assert result.metrics[key] == pytest.approx(naive[key], abs=1e-12), key
    assert result.metrics["recall_top5@0.5"] > result.metrics["recall@0.5"] > 0.05


def test_default_output_unchanged(shared_data):
    samples = load_samples(shared_data / FILES[0])[:200]
    preds = top5_predictions(samples)
    result = evaluate(samples, preds, protocol="single")
    assert list(result.to_dict()) == DEFAULT_KEYS
    again = evaluate(samples, preds, protocol="single", top_k=[1])
    assert again.to_dict() == result.to_dict()


def test_cli_top_k_and_iou(shared_data, tmp_path, capsys):
    gt = shared_data / FILES[1]
    samples = load_samples(gt)[:300]
    pred = tmp_path / "pred.jsonl"
    pred.write_text(
        "".join(
            json.dumps({"qid": p.qid, "intervals": p.moments.to_list()}) + "\n"
            for p in top5_predictions(samples)
        )
    )
    args = ["eval", str(gt), str(pred), "--protocol", "single", "--json"]
    assert main([*args, "--top-k", "1,5", "--iou", "0.5,0.7"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["top_k"] == [1, 5] and out["iou"] == [0.5, 0.7]
    assert {"recall@0.5", "recall@0.7", "recall_top5@0.5", "recall_top5@0.7"} <= set(out)
    assert "recall@0.3" not in out
    assert main([*args[:-1], "--top-k", "5"]) == 0
    assert "R5@0.3" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--top-k", "0"], "--top-k values must be integers >= 1"),
        (["--top-k", "a,b"], "--top-k takes comma-separated numbers"),
        (["--iou", "1.5"], "--iou thresholds must be in [0, 1]"),
        (["--iou", "nan"], "--iou thresholds must be in [0, 1]"),
        (["--protocol", "comet", "--top-k", "5"], "apply to the single protocol"),
    ],
)
def test_bad_options(shared_data, tmp_path, capsys, options, message):
    gt = shared_data / "qvhighlights" / "highlight_val_release.jsonl"
    pred = shared_data / "qvhighlights" / "moment_detr_sample_val_preds.jsonl"
    protocol = [] if "--protocol" in options else ["--protocol", "single"]
    assert main(["eval", str(gt), str(pred), *protocol, *options]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and message in err


spans = st.lists(
    st.tuples(st.integers(0, 50), st.integers(0, 20)).map(lambda t: (float(t[0]), float(sum(t)))),
    min_size=0,
    max_size=7,
)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(spans.filter(bool), spans), min_size=1, max_size=8))
def test_random_queries_match_and_grow_with_k(queries):
    samples = [
        Sample(f"q{i}", "v", 100.0, "q", Moments.from_list(g)) for i, (g, _) in enumerate(queries)
    ]
    preds = [Prediction(f"q{i}", Moments.from_list(p)) for i, (_, p) in enumerate(queries)]
    metrics = evaluate(samples, preds, protocol="single", top_k=[1, 2, 5], iou=[0.5]).metrics
    naive = reference.single([g for g, _ in queries], [p for _, p in queries], [0.5], (2, 5))
    for key in ("recall@0.5", "recall_top2@0.5", "recall_top5@0.5"):
        assert metrics[key] == pytest.approx(naive[key], abs=1e-12)
    assert metrics["recall@0.5"] <= metrics["recall_top2@0.5"] <= metrics["recall_top5@0.5"]


def test_api_rejects_top_k_for_comet():
    s = [Sample("a", "v", 60.0, "q", Moments.from_list([[0, 10]]))]
    with pytest.raises(UserError, match="single protocol"):
        evaluate(s, [], protocol="comet", top_k=[5])
