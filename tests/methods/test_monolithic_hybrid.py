"""The monolithic and hybrid Video-LLM methods against the scripted OpenAI-compatible stub."""

from __future__ import annotations

import importlib
import importlib.util
import json
import re

import numpy as np
import pytest

from longground.cli.main import main
from longground.encoders import ImageTextEncoder, register_encoder
from longground.errors import UserError
from longground.methods import METHODS, LLMConfig, MethodConfig
from longground.video import VideoWriter
from tests.support.openai_stub import Reply, closed_port_url, openai_stub

HOUR_S = 3600
HAS_FIND = importlib.util.find_spec("longground.cli.find_cmd") is not None
LABEL = re.compile(r"^Frame at (\d+\.\d) s \((\d\d:\d\d:\d\d\.\d)\):$")


BITS, STRIPE_PX = 12, 5


def index_frame(i: int, h: int = 36, w: int = 64) -> np.ndarray:
    """Frame `i` shows its own index in binary: 12 vertical stripes, white for a 1 bit."""
    frame = np.zeros((h, w, 3), np.uint8)
    for bit in range(BITS):
        if i >> bit & 1:
            frame[:, bit * STRIPE_PX : (bit + 1) * STRIPE_PX] = 255
    return frame


def shown_index(image: np.ndarray) -> int:
    """The index read back from the middle column of each stripe."""
    columns = image[:, [bit * STRIPE_PX + STRIPE_PX // 2 for bit in range(BITS)]].mean(axis=(0, 2))
    return sum(1 << bit for bit in range(BITS) if columns[bit] > 127)


def write_video(path, seconds: int) -> str:
    with VideoWriter(path, 64, 36, fps=1) as writer:
        for i in range(seconds):
            writer.write(index_frame(i))
    return str(path)


@pytest.fixture(scope="module")
def hour_video(tmp_path_factory) -> str:
    """A one-hour video at 1 fps, 64x36, each frame showing its own second."""
    return write_video(tmp_path_factory.mktemp("video") / "hour.mp4", HOUR_S)


@pytest.fixture(scope="module")
def short_video(tmp_path_factory) -> str:
    """Five minutes at 1 fps, for runs that index every frame."""
    return write_video(tmp_path_factory.mktemp("video") / "five_min.mp4", 300)


def build_method(name: str, config: MethodConfig):
    """The registered method `name` (imported directly: other methods may not exist yet)."""
    importlib.import_module(f"longground.methods.{name}")
    return METHODS[name](config)


def llm_config(stub, **kwargs) -> MethodConfig:
    llm = LLMConfig(model="stub-vlm", base_url=stub.url, max_retries=0)
    return MethodConfig(llm=llm, **kwargs)


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    """Each test gets its own response and feature cache."""
    monkeypatch.setenv("LONGGROUND_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("LONGGROUND_LLM_MODEL", raising=False)
    monkeypatch.delenv("LONGGROUND_LLM_BASE_URL", raising=False)


# --- monolithic ----------------------------------------------------------------------------


def test_monolithic_sends_one_request_with_128_timestamped_frames(hour_video):
    with openai_stub(Reply("[[100, 200], [1500, 1600]]")) as stub:
        grounding = build_method("monolithic", llm_config(stub)).ground(hour_video, "a red car")
    assert stub.request_count == 1
    (seen,) = stub.requests
    assert len(seen.images) == 128 and len(seen.labels) == 128
    times = []
    for label, image in zip(seen.labels, seen.images):
        seconds, clock = LABEL.match(label).groups()
        times.append(float(seconds))
        assert shown_index(image) == int(float(seconds))  # the label is the frame's own time
    assert np.all(np.diff(times) > 0) and times[0] < 30 and times[-1] > HOUR_S - 30
    spacing = np.diff(times)
    assert spacing.min() >= 27 and spacing.max() <= 29  # uniform: 3600 s / 128 = 28.1 s
    assert "3600.0 seconds (01:00:00.0)" in seen.text and '"a red car"' in seen.text
    assert "[]" in seen.text and "[[start_seconds, end_seconds], ...]" in seen.text
    assert grounding.moments.to_list() == [[100.0, 200.0], [1500.0, 1600.0]]
    assert grounding.raw == "[[100, 200], [1500, 1600]]"
    assert grounding.trace["n_frames"] == 128 and grounding.parse_error is None
    assert grounding.trace["usage"]["cached"] is False


def test_monolithic_frames_are_resized_and_counted_by_params(hour_video):
    with openai_stub(Reply("[]")) as stub:
        config = llm_config(stub, params={"n_frames": "16", "short_side": "18"})
        grounding = build_method("monolithic", config).ground(hour_video, "anything")
    (seen,) = stub.requests
    assert len(seen.images) == 16 and {img.shape for img in seen.images} == {(18, 32, 3)}
    assert grounding.moments.count == 0 and grounding.parse_error is None


def test_monolithic_decodes_a_video_once_for_many_queries(hour_video, short_video, monkeypatch):
    import longground.video as video

    calls = []
    original = video.frames_at
    monkeypatch.setattr(video, "frames_at", lambda *a, **k: calls.append(a[0]) or original(*a, **k))
    with openai_stub(default=Reply("[]")) as stub:
        method = build_method("monolithic", llm_config(stub, params={"n_frames": 8}))
        for query in ("a dog", "a cat", "a bird"):
            method.ground(hour_video, query)
        method.ground(short_video, "a dog")
        assert stub.request_count == 4
    assert calls == [hour_video, short_video]
    assert "3600.0 seconds" in stub.requests[2].text and "300.0 seconds" in stub.requests[3].text


def test_monolithic_single_variant_asks_for_one_interval(hour_video):
    with openai_stub(Reply("[[10, 20]]")) as stub:
        config = llm_config(stub, single=True, params={"n_frames": 8})
        build_method("monolithic", config).ground(hour_video, "a goal")
    text = stub.requests[0].text
    assert "exactly one interval" in text and "[[start_seconds, end_seconds]]" in text
    assert "empty list" not in text


def test_unparseable_answer_is_kept_not_fatal(hour_video):
    with openai_stub(Reply("I am unable to watch videos.")) as stub:
        config = llm_config(stub, params={"n_frames": 8})
        grounding = build_method("monolithic", config).ground(hour_video, "a dog")
    assert grounding.moments.count == 0
    assert grounding.raw == "I am unable to watch videos."
    assert grounding.parse_error and "parse_error" not in grounding.trace


def test_monolithic_answers_are_scored_by_eval(hour_video, tmp_path, capsys):
    from longground.formats import write_samples
    from longground.formats.lines import write_jsonl
    from longground.moments import Moments
    from longground.run.execute import grounding_record
    from longground.samples import Sample

    gt = Moments.from_list([[100, 200], [1500, 1600]])
    samples = [Sample(q, "hour.mp4", HOUR_S, f"a {q} car", gt) for q in ("good", "garbled")]
    write_samples(tmp_path / "gt.jsonl", samples)
    replies = [Reply("[[100, 200], [1500, 1600]]"), Reply("I cannot view videos.")]
    records = []
    with openai_stub(*replies) as stub:
        method = build_method("monolithic", llm_config(stub, params={"n_frames": 8}))
        for sample in samples:
            grounding = method.ground(hour_video, sample.query)
            records.append(grounding_record(sample.qid, grounding, "monolithic", 0.0))
    write_jsonl(tmp_path / "pred.jsonl", records)
    assert main(["eval", str(tmp_path / "gt.jsonl"), str(tmp_path / "pred.jsonl"), "--json"]) == 0
    metrics = json.loads(capsys.readouterr().out)
    assert metrics["parse_failures"] == 1 and metrics["n_queries"] == 2
    assert metrics["miou"] == pytest.approx(0.5)  # 1.0 for "good", 0 for the parse failure
    assert metrics["recall@0.5"] == pytest.approx(0.5)


def test_methods_need_a_model(hour_video):
    method = build_method("monolithic", MethodConfig(params={"n_frames": 4}))
    with pytest.raises(UserError, match="--model"):
        method.ground(hour_video, "a dog")


def test_unknown_parameter_is_a_user_error():
    with pytest.raises(UserError, match="unknown parameter.*n_frame"):
        build_method("monolithic", MethodConfig(params={"n_frame": "3"}))
    with pytest.raises(UserError, match="k=.*int"):
        build_method("hybrid", MethodConfig(params={"k": "three"}))


# --- hybrid --------------------------------------------------------------------------------


def peaks_scorer(peaks_s: list[float], duration_s: float = HOUR_S):
    """A stand-in for retrieval: Gaussian bumps at `peaks_s`, the first highest."""

    def score(video, query, config):
        times_s = np.arange(0.0, duration_s)
        scores = sum(
            (1.0 - 0.1 * i) * np.exp(-(((times_s - p) / 5.0) ** 2)) for i, p in enumerate(peaks_s)
        )
        return times_s, scores, duration_s

    return score


def test_hybrid_grounds_inside_the_top_windows(hour_video, monkeypatch):
    import longground.methods.hybrid as hybrid

    monkeypatch.setattr(hybrid, "frame_scores", peaks_scorer([1000.0, 2500.0, 300.0]))
    reply = Reply("[[1000, 1030], [50, 60], [2550, 2600]]")
    with openai_stub(reply) as stub:
        grounding = build_method("hybrid", llm_config(stub)).ground(hour_video, "a red car")
    windows = [[240.0, 360.0], [940.0, 1060.0], [2440.0, 2560.0]]
    assert grounding.trace["union"] == windows
    assert grounding.trace["windows"] == [windows[1], windows[2], windows[0]]  # best first
    (seen,) = stub.requests
    times = [float(LABEL.match(label).group(1)) for label in seen.labels]
    assert len(times) == 128
    assert all(any(s <= t <= e for s, e in windows) for t in times)
    for image, t in zip(seen.images, times):
        assert shown_index(image) == int(t)  # absolute time, not time within the window
    assert sum(s <= t <= e for t in times for s, e in windows[:1]) == pytest.approx(43, abs=1)
    assert "00:15:40.0 to 00:17:40.0" in seen.text and "3600.0 seconds" in seen.text
    assert grounding.moments.to_list() == [[1000.0, 1030.0], [2550.0, 2560.0]]
    assert grounding.trace["answered"] == 3


def test_hybrid_settings_change_the_windows(hour_video, monkeypatch):
    import longground.methods.hybrid as hybrid

    monkeypatch.setattr(hybrid, "frame_scores", peaks_scorer([1000.0, 1050.0, 2500.0]))
    with openai_stub(Reply("[]")) as stub:
        params = {"k": "2", "half_width_s": "30", "nms_s": "100", "n_frames": "8"}
        grounding = build_method("hybrid", llm_config(stub, params=params)).ground(hour_video, "q")
    # 1050 is within nms_s of 1000, so the second window goes to 2500.
    assert grounding.trace["windows"] == [[970.0, 1030.0], [2470.0, 2530.0]]
    assert len(stub.requests[0].images) == 8


def test_hybrid_without_retrieval_frames_asks_nothing(hour_video, monkeypatch):
    import longground.methods.hybrid as hybrid

    monkeypatch.setattr(hybrid, "frame_scores", lambda v, q, c: (np.zeros(0), np.zeros(0), 60.0))
    with openai_stub() as stub:
        grounding = build_method("hybrid", llm_config(stub)).ground(hour_video, "q")
    assert stub.request_count == 0 and grounding.moments.count == 0


# --- the command line ----------------------------------------------------------------------

needs_find = pytest.mark.skipif(not HAS_FIND, reason="longground.cli.find_cmd not written yet")


def find_args(video: str, url: str, method: str, *extra: str) -> list[str]:
    """Subtitles off: they are tested in tests/methods/test_subtitles.py."""
    return ["find", video, "a red car", "--method", method, "--llm", "openai",
            "--base-url", url, "--model", "stub-vlm", "--subtitles", "off", *extra]  # fmt: skip


@needs_find
def test_find_monolithic_on_an_hour(hour_video, capsys):
    with openai_stub(Reply("[[100, 200], [1500, 1600]]")) as stub:
        code = main(find_args(hour_video, stub.url, "monolithic", "--json"))
    assert code == 0 and stub.request_count == 1 and len(stub.requests[0].images) == 128
    out = json.loads(capsys.readouterr().out)
    assert out["count"] == 2 and out["moments"][1]["start_s"] == 1500.0


class BrightnessEncoder(ImageTextEncoder):
    """A cheap stand-in encoder: frames score by brightness, whatever the text."""

    encoder_id = "test-brightness-1"

    def encode_images(self, frames: np.ndarray) -> np.ndarray:
        bright = frames.reshape(len(frames), -1).mean(axis=1) / 255.0
        emb = np.stack([bright, 1.0 - bright], axis=1).astype(np.float32)
        return emb / np.linalg.norm(emb, axis=1, keepdims=True)

    def encode_texts(self, texts: list[str]) -> np.ndarray:
        return np.tile(np.array([[1.0, 0.0]], np.float32), (len(texts), 1))


register_encoder("test-brightness")(lambda arg: BrightnessEncoder())


@needs_find
def test_find_hybrid_second_run_hits_the_cache(short_video, capsys):
    with openai_stub(default=Reply("[[100, 110]]")) as stub:
        # Real retrieval (feature index, frame scores, top-k windows) with a cheap encoder.
        args = find_args(short_video, stub.url, "hybrid", "--api-key", "sk-x",
                         "--encoder", "test-brightness")  # fmt: skip
        first = main(args)
        out_first = capsys.readouterr().out
        assert stub.request_count == 1
        assert stub.requests[0].headers["Authorization"] == "Bearer sk-x"
        second = main(args)
        out_second = capsys.readouterr().out
        assert stub.request_count == 1  # the re-run cost no request
    assert first == second == 0 and out_first == out_second
    assert out_first.splitlines() == ["00:01:40.0-00:01:50.0", "1 moment"]


@needs_find
@pytest.mark.parametrize(("status", "words"), [(401, "API key"), (404, "not found")])
def test_find_reports_server_refusals_in_one_line(hour_video, capsys, status, words):
    with openai_stub(Reply.error(status)) as stub:
        code = main(find_args(hour_video, stub.url, "monolithic", "-p", "n_frames=4"))
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1
    assert stub.url in err and "stub-vlm" in err and words in err


@needs_find
def test_find_reports_an_unreachable_server(hour_video, capsys):
    url = closed_port_url()
    code = main(find_args(hour_video, url, "monolithic", "-p", "n_frames=4"))
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and url in err and "stub-vlm" in err
