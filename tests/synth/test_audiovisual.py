"""The audio-visual benchmark's plan: deterministic, and its ground truth follows the plan."""

from __future__ import annotations

import pytest

from longground.errors import UserError
from longground.synth.audiovisual import av_samples, plan_av


def spoken(plan):
    return {i: (u.start_s, u.start_s + 2.0) for i, u in enumerate(plan.utterances)}


def test_same_seed_same_plan_and_faces_only_in_even_videos():
    assert plan_av(3, 0, 5.0) == plan_av(3, 0, 5.0)
    assert plan_av(3, 0, 5.0) != plan_av(4, 0, 5.0)
    assert any(s.kind == "face" for s in plan_av(3, 0, 5.0).scenes)
    assert not any(s.kind == "face" for s in plan_av(3, 1, 5.0).scenes)


def test_ground_truth_matches_the_timeline():
    plan = plan_av(5, 0, 10.0)
    samples = {s.qid: s for s in av_samples(plan, "v.mp4", spoken(plan), "v")}
    for sample in samples.values():
        assert ("negative" in sample.attributes) == (len(sample.gt) == 0)
        assert sample.attributes & {"speech", "text", "person"}
        assert (sample.gt.spans >= 0).all() and (sample.gt.spans <= plan.duration_s).all()
    faces = sum(s.end_s - s.start_s for s in plan.scenes if s.kind == "face")
    assert samples["v_person"].gt.lengths_s.sum() == pytest.approx(faces)
    for word in plan.unspoken:
        assert len(samples[f"v_say_{word}"].gt) == 0
    said = {u.keyword for u in plan.utterances}
    assert all(len(samples[f"v_say_{w}"].gt) > 0 for w in said)


def test_length_is_checked():
    with pytest.raises(UserError):
        plan_av(0, 0, 0.0)
