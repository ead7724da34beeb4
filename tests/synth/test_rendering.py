"""Rendering options (`--size`, `--fps`, `--object-scale`, `--composition`): the same script at
other frame sizes, rates and object sizes, with truth that follows the geometry."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from longground.cli.main import main
from longground.synth import plan, rendering_preset
from longground.synth.render import render_frame
from longground.synth.rendering import COMPOSITIONS, feather_mask
from longground.synth.script import boxes_at


def _photo_boxes(script):
    """Heights of every photo object in the scalable shot kinds, in script order."""
    out = []
    for shot in script.shots:
        for app in shot.appearances:
            if app.instance.kind == "photo" and shot.kind in ("still", "cross", "pair"):
                out.append(app.path.heights[0])
    return np.array(out)


def test_size_and_rate_keep_the_script():
    base = plan(1, 2.0, seed=3)[0]
    other = plan(1, 2.0, seed=3, preset=rendering_preset(size=(320, 180), fps=Fraction(10)))[0]
    kinds = [
        (s.kind, s.appearances[0].instance if s.appearances else None) for s in base.script.shots
    ]
    assert kinds == [
        (s.kind, s.appearances[0].instance if s.appearances else None) for s in other.script.shots
    ]
    assert other.script.fps == 10 and other.script.n_frames == 2 * base.script.n_frames
    assert [s.query for s in base.samples] == [s.query for s in other.samples]


def test_object_scale_shrinks_photos_and_the_truth_follows():
    base = plan(1, 2.0, seed=3)[0]
    small = plan(1, 2.0, seed=3, preset=rendering_preset(object_scale=0.5))[0]
    assert np.allclose(_photo_boxes(small.script), 0.5 * _photo_boxes(base.script))
    shot = next(s for s in small.script.shots if s.kind == "still")
    box = boxes_at(shot.appearances[0], shot, np.zeros(1), small.script.aspect)[0][0]
    assert box[3] - box[1] == pytest.approx(shot.appearances[0].path.heights[0])
    assert box[3] <= 1.0  # still standing inside the frame


def test_feathered_composition_shows_the_backdrop_in_the_corners():
    preset = rendering_preset(tiny=True, composition="feathered")
    script = plan(1, 3.0, seed=0, preset=preset)[0].script
    opaque = plan(1, 3.0, seed=0, tiny=True)[0].script
    i = next(
        k
        for k, s in enumerate(script.shots)
        if s.kind == "still" and s.appearances[0].instance.category != "horse"  # a cut-out
    )
    shot, frame_i = script.shots[i], script.shots[i].start_frame
    x0, y0, x1, y1 = (
        boxes_at(shot.appearances[0], shot, np.zeros(1), script.aspect)[0][0] * preset.height
    ).astype(int)
    a = render_frame(script, frame_i, preset.width, preset.height)
    b = render_frame(opaque, frame_i, preset.width, preset.height)
    inner = (slice(y0 + (y1 - y0) // 3, y1 - (y1 - y0) // 3),
             slice(x0 + (x1 - x0) // 3, x1 - (x1 - x0) // 3))  # fmt: skip
    corner = (slice(max(y0, 0) + 1, max(y0, 0) + 3), slice(max(x0, 0) + 1, max(x0, 0) + 3))
    assert np.abs(a[inner].astype(int) - b[inner]).mean() < 3  # the photo itself
    assert np.abs(a[corner].astype(int) - b[corner]).mean() > 10  # backdrop, not photo
    assert set(COMPOSITIONS) == {"opaque", "feathered"}
    assert feather_mask(9, 9)[4, 4] == 1.0 and feather_mask(9, 9)[0, 0] == 0.0


def test_cli_renders_at_the_asked_size_and_rate(tmp_path, capsys):
    from longground.video import probe

    args = ["synth", "--out", str(tmp_path), "--videos", "1", "--minutes", "0.5", "--tiny"]
    assert main([*args, "--size", "128x72", "--fps", "8", "--object-scale", "0.7"]) == 0
    info = probe(tmp_path / "videos/synth_000.mp4")
    assert (info.width, info.height, info.fps) == (128, 72, Fraction(8))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--size", "320"], "--size"),
        (["--size", "321x180"], "--size"),
        (["--size", "8x8"], "--size"),
        (["--fps", "0"], "--fps"),
        (["--fps", "nan"], "--fps"),
        (["--object-scale", "3"], "--object-scale"),
        (["--composition", "glued"], "--composition"),
    ],
)
def test_bad_rendering_options_are_one_line(args, message, capsys):
    assert main(["synth", "--tiny", "--dry-run", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
