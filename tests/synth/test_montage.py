"""The montage builder's pure parts: the manifest's checks, the plan, and the truth against a
naive reference that checks every stretch between two changes of the montage."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from longground.errors import UserError
from longground.synth.montage_manifest import (
    Clip,
    Label,
    Manifest,
    Recording,
    Utterance,
    parse_manifest,
)
from longground.synth.montage_plan import MIN_TAIL_S, plan_montage, silent_runs
from longground.synth.montage_queries import NEGATIVE_SHARE, montage_queries
from longground.synth.montage_truth import (
    MIN_OVERLAP_S,
    label_truth,
    sequential_truth,
    shots_of,
    speech_of,
    speech_truth,
    synchronous_truth,
)
from tests.support.montage_clips import manifest_data

LABELS = ("a", "b", "c")


def naive(manifest: Manifest, plan, label=None, phrase=None, after=None, min_s=0.0) -> list:
    """Where `label` (in a shot right after a shot showing `after`, when given) is on screen
    and `phrase` is being said: every time where anything changes is a breakpoint, and the
    condition is checked in the middle of each piece between two breakpoints."""
    clips = {c.id: c for c in manifest.clips}
    fps = float(plan.fps)
    shots = []  # (montage start, montage end, clip, clip-local start, clip-local end)
    for p in plan.placements:
        w0, w1 = p.start_s, p.start_s + p.n_frames / fps
        edges = [w0] + [c for c in clips[p.clip].cuts if w0 < c < w1] + [w1]
        for a, b in zip(edges[:-1], edges[1:]):
            shots.append((p.at_s + a - w0, p.at_s + b - w0, p.clip, a, b))
    said = []
    for o in plan.overlays:
        rec = next(r for r in manifest.recordings if r.id == o.recording)
        for u in rec.says:
            text = " " + " ".join(re.findall(r"[a-z0-9']+", u.text.lower())) + " "
            if phrase is not None and f" {phrase.lower()} " in text:
                said.append((u.start_s + o.at_s - rec.trim[0], u.end_s + o.at_s - rec.trim[0]))
    points = {0.0, plan.duration_s, *(t for a, b in said for t in (a, b))}
    for s0, _, clip, a, b in shots:
        points |= {s0} | {
            s0 + t - a
            for spans in clips[clip].shows.values()
            for span in spans
            for t in span
            if a < t < b
        }

    def shows(shot, name, clip_t=None):
        spans = clips[shot[2]].shows.get(name, ())
        if clip_t is None:
            return any(min(e, shot[4]) - max(s, shot[3]) > 0 for s, e in spans)
        return any(s <= clip_t < e for s, e in spans)

    cuts = sorted(p for p in points if 0 <= p <= plan.duration_s)
    out = []
    for t0, t1 in zip(cuts[:-1], cuts[1:]):
        t = (t0 + t1) / 2
        i = next(i for i, s in enumerate(shots) if s[0] <= t < s[1])
        flag = label is None or shows(shots[i], label, shots[i][3] + t - shots[i][0])
        if after is not None:
            flag = flag and i > 0 and shows(shots[i - 1], after)
        if phrase is not None:
            flag = flag and any(a <= t < b for a, b in said)
        if flag and out and abs(out[-1][1] - t0) < 1e-9:
            out[-1] = (out[-1][0], t1)
        elif flag:
            out.append((t0, t1))
    return [s for s in out if s[1] - s[0] >= min_s - 1e-9]


def assert_close(truth, reference):
    assert len(truth) == len(reference), (truth.to_list(), reference)
    if reference:
        assert np.abs(truth.spans - np.array(reference)).max() <= 2e-3


def _spans(draw, length):
    cuts = sorted(draw(st.sets(st.integers(1, int(length * 10) - 1), max_size=4)))
    points = [0, *cuts, int(length * 10)]
    picked = [(a / 10, b / 10) for a, b in zip(points[:-1], points[1:]) if draw(st.booleans())]
    return tuple(s for i, s in enumerate(picked) if i == 0 or s[0] > picked[i - 1][1])


@st.composite
def manifests(draw):
    clips = []
    for i in range(draw(st.integers(1, 4))):
        length = draw(st.sampled_from([0.8, 2.5, 7.0, 30.0]))
        shows = {n: s for n in LABELS if (s := _spans(draw, length))}
        cuts = tuple(sorted(draw(st.sets(st.sampled_from([0.3, 0.75, 2.0, 5.5]), max_size=2))))
        clips.append(
            Clip(
                f"c{i}",
                Path(f"c{i}.mp4"),
                (0.0, length),
                tuple(c for c in cuts if c < length),
                False,
                shows,
            )
        )
    says = (Utterance(0.2, 1.0, "Hello there"), Utterance(1.2, 2.0, "there you are"))
    recordings = (Recording("r", Path("r.wav"), (0.0, 2.5), says),)
    labels = {n: Label(n, "object", (n,)) for n in LABELS}
    return Manifest(Path("m.json"), tuple(clips), recordings, labels, {"there": (), "you": ()})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(manifests(), st.integers(0, 50), st.sampled_from([0.1, 0.3]), st.sampled_from([5, 10]))
def test_truth_matches_the_naive_reference(manifest, seed, minutes, fps):
    plan = plan_montage(manifest, seed, 0, minutes, fps)
    shots = shots_of(manifest, plan)
    speech = speech_of(manifest, plan)
    for x in LABELS:
        assert_close(label_truth(shots, x), naive(manifest, plan, label=x))
        for y in LABELS:
            if x != y:
                assert_close(sequential_truth(shots, x, y), naive(manifest, plan, label=x, after=y))
    for phrase in ("there", "you"):
        assert_close(speech_truth(speech, phrase), naive(manifest, plan, phrase=phrase))
        assert_close(
            synchronous_truth(shots, speech, phrase, "a"),
            naive(manifest, plan, label="a", phrase=phrase, min_s=MIN_OVERLAP_S),
        )


@settings(max_examples=40, deadline=None)
@given(manifests(), st.integers(0, 1000), st.floats(0.05, 3.0), st.sampled_from([1, 7.5, 10, 25]))
def test_plan_fills_the_length_in_frames_and_never_repeats_a_clip(manifest, seed, minutes, fps):
    if all(c.length_s * fps < 1 for c in manifest.clips):
        with pytest.raises(UserError, match="every clip is shorter than a frame"):
            plan_montage(manifest, seed, 1, minutes, fps)
        return
    plan = plan_montage(manifest, seed, 1, minutes, fps)
    assert plan == plan_montage(manifest, seed, 1, minutes, fps)
    assert sum(p.n_frames for p in plan.placements) == round(minutes * 60 * plan.fps)
    clips = {c.id: c for c in manifest.clips}
    playable = sum(int(c.length_s * plan.fps) >= 1 for c in manifest.clips)
    for before, p in zip((None, *plan.placements), plan.placements):
        assert before is None or playable == 1 or before.clip != p.clip
        assert before is None or math.isclose(plan.end_s(before), p.at_s)
        w0, w1 = plan.window(p)
        assert clips[p.clip].trim[0] <= w0 and w1 <= clips[p.clip].trim[1] + 1e-3
    runs = silent_runs(manifest, plan)
    ends = [o.at_s + 2.5 for o in plan.overlays]
    for o, previous_end in zip(plan.overlays, [-1.0, *ends]):
        assert o.at_s >= previous_end
        assert any(a - 1e-3 <= o.at_s and o.at_s + 2.5 <= b + 1e-3 for a, b in runs)


def test_the_last_piece_is_rarely_a_sliver():
    def slivers(clips) -> int:
        manifest = Manifest(Path("m.json"), clips, (), {}, {})
        plans = [plan_montage(manifest, seed, 0, 0.5, 10) for seed in range(40)]
        return sum(p.placements[-1].n_frames / 10 < MIN_TAIL_S for p in plans)

    long = (Clip("a", Path("a"), (0.0, 100.0)), Clip("b", Path("b"), (0.0, 40.0)))
    assert slivers(long) == 0
    assert slivers((long[0], Clip("short", Path("s"), (0.0, 1.5)))) <= 4


def test_a_quarter_of_the_clips_sit_out_each_montage_and_each_plays_in_one_of_two():
    clips = tuple(Clip(f"c{i}", Path(f"c{i}"), (0.0, 3.0)) for i in range(8))
    manifest = Manifest(Path("m.json"), clips, (), {}, {})
    for seed in range(5):
        used = [{p.clip for p in plan_montage(manifest, seed, i, 2.0, 5).placements}
                for i in range(4)]  # fmt: skip
        assert all(len(u) == 6 for u in used)
        assert all(a | b == {c.id for c in clips} for a, b in zip(used[:-1], used[1:]))


def _manifest() -> Manifest:
    return parse_manifest(manifest_data(), Path("m.json"))


def _resolved(manifest: Manifest) -> Manifest:
    """The manifest with the lengths `load_manifest` would find (4 s, 3 s and 2 s)."""
    clips = tuple(
        Clip(
            c.id, c.path, (0.0, 4.0 if c.id == "rg" else 3.0), c.cuts, c.keep_audio, c.shows, c.says
        )
        for c in manifest.clips
    )
    recs = tuple(Recording(r.id, r.path, (0.0, 2.0), r.says) for r in manifest.recordings)
    return Manifest(manifest.path, clips, recs, manifest.labels, manifest.phrases, manifest.name)


def test_queries_name_their_kind_and_negatives_have_no_truth():
    manifest = _resolved(_manifest())
    plan = plan_montage(manifest, 0, 0, 1.0, 10)
    queries = montage_queries(manifest, plan, 0, 0)
    by = {q.condition: q for q in queries}
    assert set(by["label:red"].attributes) == {"object"} and len(by["label:red"].gt)
    assert set(by["label:green"].attributes) == {"scene"}
    assert by["label:blue"].query in ("the blue card", "when is it blue")
    assert set(by["near-miss:orange~red"].attributes) == {"object", "negative", "near-miss"}
    assert set(by["speech:hello there"].attributes) == {"speech"}
    assert by["speech:hello there"].query in (
        "someone says 'hello there'",
        "when does someone say 'hello there'",
        "the moment 'hello there' is spoken",
    )
    for q in queries:
        assert ("negative" in q.attributes) == (len(q.gt) == 0)
        assert (q.gt.spans >= 0).all() and (q.gt.spans <= plan.duration_s).all()
    negatives = sum("negative" in q.attributes for q in queries)
    assert negatives <= round((len(queries) - negatives) * NEGATIVE_SHARE / (1 - NEGATIVE_SHARE))
    assert any(c.startswith("sequential:") for c in by)
    assert any(c.startswith("synchronous:") for c in by)


def test_a_kept_clip_cut_mid_sentence_leaves_that_sentence_out():
    says = (Utterance(1.0, 3.0, "the first words"), Utterance(20.0, 28.0, "words cut in two"))
    talk = Clip("talk", Path("t"), (0.0, 60.0), (), True, {}, says)
    manifest = Manifest(Path("m.json"), (talk,), (), {}, {})
    from longground.synth.montage_plan import MontagePlan, Placement
    from longground.synth.montage_truth import cut_utterances

    plan = MontagePlan(
        15.0,
        plan_montage(manifest, 0, 0, 0.25, 10).fps,
        (Placement("talk", 0.0, 0.0, 100), Placement("talk", 10.0, 17.0, 50)),
        (),
    )
    assert [u.text for u in speech_of(manifest, plan)] == ["the first words"]
    assert [(u.start_s, u.end_s) for u in cut_utterances(manifest, plan)] == [(13.0, 21.0)]


# ------------------------------------------------------------------ the manifest's checks


def _with(change) -> dict:
    data = manifest_data()
    change(data)
    return data


HOSTILE = [
    (lambda d: d.update(clips=[]), "clips: must be a non-empty list"),
    (lambda d: d.update(lables={}), "top level: unknown field 'lables'"),
    (lambda d: d["labels"]["red"].update(kind="colour"), "labels.red.kind: unknown kind 'colour'"),
    (
        lambda d: d["clips"][0]["shows"]["red"][0].__setitem__(1, float("nan")),
        "clips[0].shows.red[0]: must be a finite number",
    ),
    (
        lambda d: d["clips"][0]["shows"]["red"][0].__setitem__(0, -1),
        "clips[0].shows.red[0]: must be a finite number of seconds >= 0, got -1",
    ),
    (
        lambda d: d["clips"][0]["shows"]["red"][0].__setitem__(1, 0),
        "clips[0].shows.red[0]: ends at 0 s, not after its start 0 s",
    ),
    (
        lambda d: d["clips"][1]["shows"].update(pink=[[0, 1]]),
        "clips[1].shows: label 'pink' is not defined under 'labels'",
    ),
    (
        lambda d: d["labels"]["red"].update(near_misses=["pink"]),
        "labels.red.near_misses: 'pink' is not another label",
    ),
    (
        lambda d: d["clips"][1].update(says=[{"start_s": 0, "end_s": 1, "text": "hi"}]),
        'clips[1].says: a clip\'s own words need "audio": "keep"',
    ),
    (lambda d: d["clips"][1].update(audio="loud"), "clips[1].audio: must be one of mute, keep"),
    (lambda d: d["recordings"][0].update(id="rg"), "the id 'rg' is used twice"),
    (lambda d: d["recordings"][0].update(says=[]), "recordings[0].says: a recording needs"),
    (lambda d: d["clips"][0].update(trim="all"), "clips[0].trim: must be [start, end]"),
    (lambda d: d["labels"]["red"].update(names=[]), "labels.red.names: must be a non-empty list"),
    (lambda d: d["phrases"].update(hi=[3]), "phrases.hi[0]: must be a non-empty string"),
    (lambda d: d["phrases"].update({"?!": []}), "phrases: '?!' has no word to listen for"),
    (lambda d: d["clips"][0].update(shows={"red": [[True, 2]]}), "must be a number of seconds"),
]


@pytest.mark.parametrize("change, message", HOSTILE)
def test_a_bad_manifest_is_one_line_naming_the_field(change, message):
    with pytest.raises(UserError) as caught:
        parse_manifest(_with(change), Path("m.json"))
    assert str(caught.value).startswith("m.json: ")
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


JSON = st.recursive(
    st.none() | st.booleans() | st.floats() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(JSON, st.sampled_from(["clips", "labels", "phrases", "recordings", None]))
def test_any_json_gives_a_manifest_or_one_line(value, key):
    data = manifest_data()
    if key is None:
        data = value
    else:
        data[key] = value
    try:
        parse_manifest(data, Path("m.json"))
    except UserError as exc:
        assert str(exc).startswith("m.json: ") and "\n" not in str(exc)


def test_the_documented_manifest_parses():
    doc = (Path(__file__).resolve().parents[2] / "docs" / "synthetic-benchmark.md").read_text()
    example = doc.split("### The manifest", 1)[1].split("```json\n", 1)[1].split("```", 1)[0]
    manifest = parse_manifest(json.loads(example), Path("m.json"))
    assert manifest.labels["dog"].near_misses == ("cat", "wolf")
    assert manifest.clips[2].keep_audio and manifest.clips[2].says[0].text.startswith("Welcome")
