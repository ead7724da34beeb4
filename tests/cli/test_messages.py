"""Messages that used to send a person the wrong way (issue 38), one test each: GT and PRED
given the other way round, and `transcript -o` saying what it wrote."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.hostile import call, make_world


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    return make_world(tmp_path_factory.mktemp("messages"))


@pytest.mark.parametrize(
    "argv",
    [
        ["eval", "{preds}", "{bench}"],
        ["eval", "{preds}", "{bench}", "--protocol", "single"],
        ["eval", "{preds}", "{bench}", "--gt-format", "canonical"],
        ["report", "{preds}", "{bench}", "--out", "{root}/report"],
    ],
)
def test_gt_and_pred_swapped_says_so(world, argv):
    code, _, err = call(world.fill(argv))
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert err.startswith(
        f"longground: error: GT and PRED look swapped: {world.preds} reads as predictions and "
        f"{world.bench} as a benchmark; give the benchmark first ({world.preds}"
    ), err
    assert not (world.root / "report").exists()


def test_predictions_given_twice_get_no_swap_hint(world):
    code, _, err = call(["eval", str(world.preds), str(world.preds)])
    assert code == 2 and "swapped" not in err and "cannot tell which benchmark" in err, err


def test_transcript_out_says_what_it_wrote(tmp_path):
    pytest.importorskip("pocketsphinx")
    from tests.channels.clips import slide, speech, write_clip

    said = speech("everybody is waiting for the dinosaur")
    track = np.zeros((1, 22050 * 4), np.int16)
    track[:, 11025 : 11025 + said.shape[1]] = said
    video = write_clip(tmp_path / "talk.mp4", [slide("Talk")], 4.0, audio=track)
    srt, vtt = tmp_path / "talk.srt", tmp_path / "talk.vtt"
    argv = ["transcript", str(video), "-o", str(srt), "-o", str(vtt)]
    code, out, err = call([*argv, "--cache-dir", str(tmp_path / "cache")])
    assert code == 0 and "dinosaur" in out, err
    n = srt.read_text().count("-->")
    assert n >= 1
    plural = "s" if n != 1 else ""
    assert err.splitlines() == [
        f"longground: wrote {srt} ({n} subtitle{plural})",
        f"longground: wrote {vtt} ({n} subtitle{plural})",
    ]
