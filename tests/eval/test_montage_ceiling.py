"""The helpers of perf/montage_ceiling.py: pieces cut at every boundary, the best answer a
reading allows one query, and thresholds chosen for all visual queries at once."""

from __future__ import annotations

import numpy as np
import pytest

from longground.moments import Moments
from longground.samples import Sample
from tests.support.perf_scripts import perf_script


@pytest.fixture(scope="module")
def ceiling():
    return perf_script("montage_ceiling")


def sample(qid: str, gt: list, attributes=("object",)) -> Sample:
    gt = Moments.from_list(gt) if gt else Moments.empty()
    return Sample(qid, "v.mp4", 10.0, "a dog", gt, frozenset(attributes))


def test_pieces_cover_every_cut_and_a_short_piece_reads_its_nearest_frame(ceiling):
    times = np.arange(0.5, 10, 1.0)
    pieces = ceiling.Pieces.of({2.0, 5.0, 5.2, 12.0}, 10.0, times)
    assert pieces.bounds.tolist() == [0.0, 2.0, 5.0, 5.2, 10.0]
    assert [r.tolist() for r in pieces.rows] == [[0, 1], [2, 3, 4], [5], [5, 6, 7, 8, 9]]
    chosen = np.array([True, True, False, True])
    assert pieces.moments(chosen).to_list() == [[0.0, 5.0], [5.2, 10.0]]
    assert len(pieces.moments(np.zeros(4, bool))) == 0


def test_the_best_reading_and_threshold_find_the_truth(ceiling):
    pieces = ceiling.Pieces.of({4.0, 5.0}, 10.0, np.arange(0.5, 10, 1.0))
    noise = np.array([0.9, 0.1, 0.5])
    clean = np.array([-1.0, 2.0, -3.0])
    f1, moments = ceiling.per_query_best(sample("q", [[4.0, 5.0]]), pieces, [noise, clean])
    assert f1 == 1.0 and moments.to_list() == [[4.0, 5.0]]
    f1, _ = ceiling.per_query_best(sample("q", [[4.0, 5.0]]), pieces, [noise])
    assert f1 == 0.0


def test_a_threshold_under_the_best_piece_keeps_only_the_pieces_near_it(ceiling):
    pieces = ceiling.Pieces.of({2.0, 4.0, 6.0}, 8.0, np.arange(0.5, 8, 1.0))
    table = {"q": (pieces, [np.array([3.0, 2.5, 0.0, 1.0])])}
    s = [sample("q", [])]
    assert ceiling.thresholded(table, s, 0, -np.inf, 1.0)["q"].to_list() == [[0.0, 4.0]]
    assert ceiling.thresholded(table, s, 0, 0.5, np.inf)["q"].to_list() == [[0.0, 4.0], [6.0, 8.0]]


def test_one_threshold_serves_positives_and_rejects_negatives_together(ceiling):
    """A positive whose piece scores 2 and a negative whose best scores 1: a threshold
    between them answers both; the text query keeps its truth."""
    pieces = ceiling.Pieces.of({2.0, 5.0}, 10.0, np.arange(0.5, 10, 1.0))
    table = {
        "pos": (pieces, [np.array([-2.0, 2.0, -2.0])] * ceiling.N_READINGS),
        "neg": (pieces, [np.array([1.0, -2.0, -2.0])] * ceiling.N_READINGS),
    }
    samples = [sample("pos", [[2.0, 5.0]]), sample("neg", []),
               sample("text", [[7.0, 8.0]], ("text",))]  # fmt: skip
    truth = {"text": samples[2].gt}
    preds, (reading, floor, _) = ceiling.best_rule(
        table, samples, truth, [np.inf], lambda m: m["f1@0.5"] + m["rej_f1"]
    )
    assert 1.0 < floor <= 2.0
    assert preds["pos"].to_list() == [[2.0, 5.0]] and len(preds["neg"]) == 0
    assert preds["text"].to_list() == [[7.0, 8.0]]


def test_readings_are_named_in_the_order_piece_scores_makes_them(ceiling):
    names = [ceiling.reading_name(r) for r in range(ceiling.N_READINGS)]
    assert len(set(names)) == ceiling.N_READINGS
    assert names[0] == "the target text, whole frames, the maximum over a piece"
    assert names[7] == "the whole query, whole frames and tiles, the mean over a piece"
