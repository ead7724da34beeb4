"""`synth` writes the box of every placed object in every frame, and the boxes are where the
renderer drew the pixels."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest

from longground.formats.tracks import read_tracks
from longground.synth import generate, plan
from longground.synth.boxes import BOX_DIR, script_tracks
from longground.synth.render import ShotRenderer

pytest.importorskip("PIL.Image")
W, H = 160, 90


def drawn_box(script, shot, k: int) -> np.ndarray | None:
    """The normalised box around the pixels that the shot's objects change in frame `k`."""
    with_objects = ShotRenderer(script, shot, W, H).frame(k).astype(int)
    backdrop = ShotRenderer(script, replace(shot, appearances=()), W, H).frame(k).astype(int)
    ys, xs = np.nonzero(np.abs(with_objects - backdrop).max(axis=2) > 0)
    if not len(xs):
        return None
    return np.array([xs.min(), ys.min(), xs.max() + 1, ys.max() + 1]) / [W, H, W, H]


@pytest.mark.parametrize("kind", ["cross", "enter", "exit", "causal_hit", "zoom_in", "still"])
def test_boxes_enclose_exactly_the_drawn_pixels(kind):
    """For one-object shots (and the hit, whose union is checked), the box of the written
    tracks is the box of the pixels that differ from the bare backdrop, to a pixel."""
    script = next(
        p.script
        for seed in range(40)
        for p in plan(1, 2.0, seed=seed, tiny=True)
        if any(s.kind == kind for s in p.script.shots)
    )
    fps = Fraction(script.fps)
    tracks = [t for t, _ in script_tracks(script, W, H)]
    shot = next(s for s in script.shots if s.kind == kind)
    checked = 0
    for k in range(0, shot.n_frames, 3):
        t_s = (shot.start_frame + k) / float(fps)
        boxes = [t.boxes[np.isclose(t.times_s, t_s)] for t in tracks]
        boxes = np.concatenate([b for b in boxes if len(b)] or [np.zeros((0, 4))])
        drawn = drawn_box(script, shot, k)
        if drawn is None:
            assert not len(boxes), f"{kind} frame {k}: a box where nothing is drawn"
            continue
        union = np.r_[boxes[:, :2].min(axis=0), boxes[:, 2:].max(axis=0)]
        # The box holds the drawing, and where the frame does not cut it, it is the drawing's
        # box, both to 2 px: a sprite's edge pixels may match the backdrop or be transparent
        # (the ball's soft edge, rotation corners), and a zoomed shot's resampling bleeds a
        # pixel. Cut by the frame, a silhouette (the horse) may show only its narrow tail.
        px = 2.5 / H
        assert (union[:2] <= drawn[:2] + px).all() and (union[2:] >= drawn[2:] - px).all()
        if union[0] > 0 and union[1] > 0 and union[2] < 1 and union[3] < 1:
            assert np.abs(union - drawn).max() <= px, f"{kind} {k}: {union} vs {drawn}"
        checked += 1
    assert checked >= 3


def test_generate_writes_a_box_file_per_video_that_reads_back(tmp_path):
    generate(tmp_path, 1, 0.5, seed=3, tiny=True)
    tracks = read_tracks(tmp_path / BOX_DIR / "synth_000.jsonl")
    planned = plan(1, 0.5, seed=3, tiny=True)[0].script
    assert len(tracks) == len(script_tracks(planned, W, H)) > 0
    assert [t.track_id for t in tracks] == list(range(len(tracks)))
    frame_s = 1 / float(planned.fps)
    for track in tracks:  # on the frame grid, inside the video
        steps = track.times_s / frame_s
        assert np.allclose(steps, np.round(steps)) and track.end_s < planned.duration_s
