"""Every method on a crop (monolithic, hybrid, agent) and the frame-count sweep, against the
scripted OpenAI-compatible server."""

from __future__ import annotations

import json

import numpy as np
import pytest

from longground.agent.graph.cache import GraphCache
from longground.agent.pipeline import CometAgent
from longground.agent.settings import AgentSettings
from longground.cli.main import main
from longground.methods import LLMConfig, MethodConfig
from longground.sweep.cropped import CroppedHybrid, CroppedMonolithic, CropSource
from tests.agent.test_pipeline import FakeSource
from tests.methods.test_monolithic_hybrid import LABEL, shown_index, write_video
from tests.support.openai_stub import Reply, openai_stub


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LONGGROUND_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("LONGGROUND_LLM_MODEL", raising=False)


@pytest.fixture(scope="module")
def video(tmp_path_factory) -> str:
    """Five minutes at 1 fps, each frame showing its own second."""
    return write_video(tmp_path_factory.mktemp("video") / "five_min.mp4", 300)


def config(stub, **params) -> MethodConfig:
    llm = LLMConfig(model="stub-vlm", base_url=stub.url, max_retries=0)
    return MethodConfig(llm=llm, single=True, params={k: str(v) for k, v in params.items()})


def seen_times(request) -> list[float]:
    return [float(LABEL.match(label).group(1)) for label in request.labels]


def test_monolithic_sees_only_the_crop_in_crop_time(video):
    with openai_stub(default=Reply("[[10, 20]]")) as stub:
        method = CroppedMonolithic(config(stub, n_frames=6))
        grounding = method.ground_crop(video, "q", 100.0, 160.0)
        whole = method.ground(video, "q")  # the crop is reset afterwards
    first, second = stub.requests
    times = seen_times(first)
    assert times == [5.0, 15.0, 25.0, 35.0, 45.0, 55.0]  # uniform over the 60 s crop
    assert [shown_index(im) for im in first.images] == [int(t) + 100 for t in times]
    assert "60.0 seconds" in first.text and "300.0 seconds" in second.text
    assert grounding.moments.to_list() == [[110.0, 120.0]]  # back in video time
    assert grounding.trace["crop_s"] == [100.0, 160.0]
    assert whole.moments.to_list() == [[10.0, 20.0]] and max(seen_times(second)) > 200


def test_hybrid_picks_windows_inside_the_crop(video, monkeypatch):
    import longground.sweep.cropped as cropped

    def peaks(video, query, config):  # the strongest peak (250 s) lies outside the crop
        times_s = np.arange(300.0)
        curve = sum(h * np.exp(-(((times_s - p) / 3.0) ** 2)) for p, h in [(250, 1), (130, 0.5)])
        return times_s, curve, 300.0

    monkeypatch.setattr(cropped, "frame_scores", peaks)
    with openai_stub(Reply("[[25, 35]]")) as stub:
        params = {"k": 1, "half_width_s": 10, "n_frames": 4}
        grounding = CroppedHybrid(config(stub, **params)).ground_crop(video, "q", 100.0, 200.0)
    (seen,) = stub.requests
    assert grounding.trace["union"] == [[20.0, 40.0]]  # the 130-s peak, in crop time
    times = seen_times(seen)
    assert all(20 <= t <= 40 for t in times)
    assert [shown_index(im) for im in seen.images] == [int(t) + 100 for t in times]
    assert grounding.moments.to_list() == [[125.0, 135.0]]


def test_crop_source_shifts_every_member():
    whole = FakeSource()
    crop = CropSource(whole, 20.0, 50.0)
    times_s, features = crop.timeline(1.0)
    full_times, full_features = whole.timeline(1.0)
    inside = (full_times >= 20) & (full_times < 50)
    assert times_s.tolist() == (full_times[inside] - 20).tolist()
    assert np.array_equal(features["embedding"], full_features["embedding"][inside])
    assert crop.duration_s == 30.0 and crop.key != whole.key
    assert np.array_equal(crop.frames_at(np.array([1.0])), whole.frames_at(np.array([21.0])))
    (_, frames, pts_s), *_ = crop.frames([(0.0, 2.0, 1.0)], 32)
    (_, frames_w, pts_w), *_ = whole.frames([(20.0, 22.0, 1.0)], 32)
    assert np.array_equal(frames, frames_w) and np.allclose(pts_s, pts_w - 20)
    agent = CometAgent(AgentSettings(roles="offline"), 1.0, GraphCache(None))
    moments, _ = agent.run(crop, "every time a cat appears")
    assert len(moments) and moments.ends_s.max() <= 30.0


def sweep_args(bench, out, url, *extra) -> list[str]:
    return ["sweep", str(bench), "--out", str(out), "--method", "monolithic", "--llm", "openai",
            "--base-url", url, "--model", "stub-vlm", *extra]  # fmt: skip


@pytest.fixture(scope="module")
def short_video(tmp_path_factory) -> str:
    return write_video(tmp_path_factory.mktemp("video") / "half_min.mp4", 30)


def test_frame_count_sweep_resumes_and_reuses_cached_answers(short_video, tmp_path, capsys):
    bench = tmp_path / "bench.jsonl"
    rows = [{"qid": q, "video": short_video, "duration": 30, "query": q,
             "intervals": [[10, 20]]} for q in ("a", "b")]  # fmt: skip
    bench.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with openai_stub(default=Reply("[[10, 20]]")) as stub:
        args = sweep_args(bench, tmp_path / "s", stub.url, "--frames", "4,8")
        assert main(args) == 0, capsys.readouterr().err
        table = capsys.readouterr().out
        assert stub.request_count == 4  # 2 queries x 2 frame counts
        assert sorted(len(r.images) for r in stub.requests) == [4, 4, 8, 8]
        # answers removed, asked again: every reply comes from the response cache
        assert main([*args, "--overwrite"]) == 0 and stub.request_count == 4
    assert "| Model | N=4 | N=8 | best |" in table
    assert "| monolithic | **1.000** | **1.000** | N=4 |" not in table  # bold is per window row
    assert "| monolithic | 1.000 | 1.000 | N=4 |" in table
    results = json.loads((tmp_path / "s" / "results.json").read_text())["rows"]
    assert [(r["method"], r["n_frames"], r["miou"]) for r in results] == [
        ("monolithic@4", 4, 1.0), ("monolithic@8", 8, 1.0)]  # fmt: skip
    for name in ("miou_vs_frames.png", "miou_vs_frames.pdf", "monolithic@4/full.jsonl"):
        assert (tmp_path / "s" / name).stat().st_size > 0


def test_window_sweep_of_a_video_llm_in_the_paper_layout(video, tmp_path, capsys):
    bench = tmp_path / "bench.jsonl"
    row = {"qid": "a", "video": video, "duration": 300, "query": "q", "intervals": [[100, 120]]}
    bench.write_text(json.dumps(row) + "\n")
    with openai_stub(default=Reply("[[10, 30]]")) as stub:
        args = sweep_args(bench, tmp_path / "s", stub.url, "--windows", "20s,full", "-p",
                          "n_frames=4")  # fmt: skip
        assert main(args) == 0, capsys.readouterr().err
    table = capsys.readouterr().out
    assert table.splitlines()[0] == "| Window | Clip | monolithic |"
    # ±20 s around 110: the crop [90, 130], so [10, 30] in crop time is the GT [100, 120]
    assert "| ±20s | 40 s | **1.000** |" in table and "| Full | 5 min | **0.000** |" in table
