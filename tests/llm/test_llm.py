"""Chat clients end to end through the real HTTP client against the scripted stub server."""

from __future__ import annotations

import json
import threading
import time

import numpy as np
import pytest

from longground.errors import UserError
from longground.llm import (
    CachedChatClient,
    LLMConfig,
    Message,
    OpenAIChatClient,
    Pricing,
    ResponseCache,
    RetryPolicy,
    make_chat_client,
)
from longground.llm.cache import cache_key
from longground.llm.timing import timed_frames_message
from tests.support.openai_stub import OpenAIStub, Reply, closed_port_url, openai_stub

QUICK = RetryPolicy(max_retries=3, backoff_s=0.01, max_backoff_s=0.05)


@pytest.fixture
def openai_server():
    """A running stub answering `[]` unless replies are pushed; always stopped."""
    with openai_stub() as stub:
        yield stub


def client_for(stub: OpenAIStub, **kwargs) -> OpenAIChatClient:
    kwargs.setdefault("retry", QUICK)
    return OpenAIChatClient("stub-model", stub.url, **kwargs)


def colour_frames(n: int, h: int = 24, w: int = 32) -> np.ndarray:
    """`(n, h, w, 3)` frames, frame i filled with grey level 20 * i."""
    return np.stack([np.full((h, w, 3), 20 * i, np.uint8) for i in range(n)])


def ask(client, text: str = "When?") -> str:
    return client.complete([Message("user", text)]).text


# --- the request on the wire ---------------------------------------------------------------


def test_request_carries_timestamped_images_text_and_key(openai_server):
    frames = colour_frames(5)
    pts_s = np.array([0.5, 10.0, 20.0, 30.0, 3599.5])
    message = timed_frames_message("The video lasts 3600.0 seconds.", frames, pts_s)
    openai_server.push(Reply("[[1, 2]]"))
    with client_for(openai_server, api_key="sk-test", image_format="png") as client:
        completion = client.complete([message], max_tokens=77, temperature=0.0)
    assert completion.text == "[[1, 2]]"
    (seen,) = openai_server.requests
    assert seen.path == "/v1/chat/completions"
    assert seen.headers["Authorization"] == "Bearer sk-test"
    assert seen.body["model"] == "stub-model" and seen.body["max_tokens"] == 77
    assert "3600.0 seconds" in seen.text
    assert len(seen.images) == 5
    for sent, got in zip(frames, seen.images):
        np.testing.assert_array_equal(sent, got)  # PNG is lossless
    assert seen.labels == [f"Frame at {t:.1f} s ({_hms(t)}):" for t in pts_s]


def _hms(t: float) -> str:
    from longground.timecode import format_time

    return format_time(t)


def test_jpeg_images_arrive_close_to_the_originals(openai_server):
    frames = colour_frames(3)
    with client_for(openai_server) as client:
        client.complete([timed_frames_message("Q", frames, np.arange(3.0))])
    got = openai_server.requests[0].images
    assert [g.shape for g in got] == [f.shape for f in frames]
    assert [int(round(g.mean())) for g in got] == pytest.approx([0, 20, 40], abs=2)


def test_text_only_message_is_a_plain_string(openai_server):
    with client_for(openai_server) as client:
        ask(client, "hello")
    assert openai_server.requests[0].body["messages"] == [{"role": "user", "content": "hello"}]


# --- transient failures --------------------------------------------------------------------


def test_429_is_retried_after_the_servers_retry_after():
    sleeps: list[float] = []
    policy = RetryPolicy(max_retries=3, backoff_s=0.01, max_backoff_s=30.0)
    with openai_stub(Reply.error(429, headers={"Retry-After": "7"}), Reply("[[5, 6]]")) as stub:
        with client_for(stub, retry=policy, sleep=sleeps.append) as client:
            assert ask(client) == "[[5, 6]]"
            assert client.usage.totals()["retries"] == 1
        assert stub.request_count == 2
    assert sleeps == [7.0]


def test_backoff_grows_between_5xx_retries():
    sleeps: list[float] = []
    policy = RetryPolicy(max_retries=4, backoff_s=1.0, max_backoff_s=100.0)
    script = [Reply.error(500), Reply.error(502), Reply.error(503), Reply("[]")]
    with openai_stub(*script) as stub, client_for(stub, retry=policy, sleep=sleeps.append) as c:
        assert ask(c) == "[]"
        assert stub.request_count == 4
    assert len(sleeps) == 3
    for i, delay in enumerate(sleeps):
        assert 0.5 * 2**i <= delay <= 2**i


def test_timeout_then_success():
    with openai_stub(Reply("[[9, 9]]", delay_s=3.0), Reply("[[1, 2]]")) as stub:
        with client_for(stub, timeout_s=0.3) as client:
            start = time.monotonic()
            assert ask(client) == "[[1, 2]]"
            assert time.monotonic() - start < 2.5
        assert stub.request_count == 2


def test_malformed_json_body_is_retried_then_succeeds():
    with openai_stub(Reply(body="{not json"), Reply(body='{"choices": []}'), Reply("[]")) as stub:
        with client_for(stub) as client:
            assert ask(client) == "[]"
        assert stub.request_count == 3


def test_malformed_json_every_time_gives_up_with_one_line():
    with openai_stub(default=Reply(body="<html>oops</html>")) as stub:
        with client_for(stub) as client, pytest.raises(UserError) as err:
            ask(client)
    message = str(err.value)
    assert "unreadable response" in message and "\n" not in message
    assert stub.url in message and "stub-model" in message


def test_500s_exhausted_raise_user_error_naming_url_and_model():
    with openai_stub(default=Reply.error(500, "engine overloaded")) as stub:
        with client_for(stub) as client, pytest.raises(UserError) as err:
            ask(client)
        assert stub.request_count == QUICK.max_retries + 1
    message = str(err.value)
    assert f"{stub.url}/chat/completions" in message and "'stub-model'" in message
    assert "HTTP 500" in message and "engine overloaded" in message
    assert "gave up after 4 attempts" in message and "\n" not in message


# --- errors the user must fix --------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "words"),
    [(401, "API key was rejected"), (403, "forbidden"), (404, "does not serve this model")],
)
def test_client_errors_fail_at_once_with_one_line(status, words):
    with openai_stub(Reply.error(status, "nope")) as stub:
        with client_for(stub) as client, pytest.raises(UserError) as err:
            ask(client)
        assert stub.request_count == 1  # never retried
    message = str(err.value)
    assert stub.url in message and "'stub-model'" in message
    assert f"HTTP {status}" in message and words in message and "\n" not in message


def test_other_4xx_reports_the_servers_message():
    with openai_stub(Reply.error(400, "prompt is\ntoo long: 200000 tokens")) as stub:
        with client_for(stub) as client, pytest.raises(UserError) as err:
            ask(client)
    assert "HTTP 400: prompt is too long: 200000 tokens" in str(err.value)


def test_unreachable_server_is_a_user_error():
    url = closed_port_url()
    with OpenAIChatClient("m1", url, retry=QUICK) as client, pytest.raises(UserError) as err:
        ask(client)
    message = str(err.value)
    assert url in message and "'m1'" in message and "cannot connect" in message
    assert "\n" not in message


# --- payload size, concurrency, accounting -------------------------------------------------


def test_long_output_arrives_intact():
    intervals = [[i * 2.0, i * 2.0 + 1.0] for i in range(20_000)]
    content = json.dumps(intervals)
    assert len(content) > 200_000
    with openai_stub(Reply(content)) as stub, client_for(stub) as client:
        assert ask(client) == content


def test_concurrency_bound_is_respected():
    def run(limit: int) -> int:
        with openai_stub(default=Reply("[]", delay_s=0.15)) as stub:
            with client_for(stub, concurrency=limit) as client:
                threads = [threading.Thread(target=ask, args=(client,)) for _ in range(8)]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
            assert stub.request_count == 8
            return stub.max_in_flight

    assert run(2) == 2
    assert run(1) == 1


def test_tokens_and_cost_are_totalled():
    pricing = Pricing(prompt_usd_per_1k=2.0, completion_usd_per_1k=10.0)
    script = [Reply("[]", prompt_tokens=1000, completion_tokens=100)] * 2
    with openai_stub(*script) as stub, client_for(stub, pricing=pricing) as client:
        first = client.complete([Message("user", "a")])
        client.complete([Message("user", "b")])
        totals = client.usage.totals()
    assert first.prompt_tokens == 1000 and first.completion_tokens == 100
    assert first.cost_usd == pytest.approx(2.0 + 1.0)
    assert totals["requests"] == 2 and totals["prompt_tokens"] == 2000
    assert totals["cost_usd"] == pytest.approx(6.0)


def test_prices_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("LONGGROUND_LLM_PRICE_PROMPT_PER_1K", "0.25")
    monkeypatch.delenv("LONGGROUND_LLM_PRICE_COMPLETION_PER_1K", raising=False)
    assert Pricing.from_env() == Pricing(0.25, 0.0)
    monkeypatch.setenv("LONGGROUND_LLM_PRICE_COMPLETION_PER_1K", "cheap")
    with pytest.raises(UserError, match="LONGGROUND_LLM_PRICE_COMPLETION_PER_1K"):
        Pricing.from_env()


# --- the response cache --------------------------------------------------------------------


def test_second_run_is_served_from_the_cache_without_a_request(tmp_path):
    frames = colour_frames(4)
    message = timed_frames_message("Where is it?", frames, np.arange(4.0))
    cfg_path = tmp_path / "cache.sqlite"
    with openai_stub(default=Reply("[[3, 4]]", prompt_tokens=50, completion_tokens=5)) as stub:
        cfg = LLMConfig(model="stub-model", base_url=stub.url, max_retries=0)
        for run in range(2):  # two "runs", each with a fresh client on the same cache file
            client = make_chat_client(cfg, cache_path=cfg_path)
            completion = client.complete([message], max_tokens=64)
            assert completion.text == "[[3, 4]]"
            assert completion.cached == (run == 1)
            totals = client.usage.totals()
            client.close()
            assert stub.request_count == 1
        assert totals["cache_hits"] == 1 and totals["requests"] == 0
        assert totals["cost_usd"] == 0.0

        changed = timed_frames_message("Where is it?", frames[::-1].copy(), np.arange(4.0))
        client = make_chat_client(cfg, cache_path=cfg_path)
        assert not client.complete([changed], max_tokens=64).cached
        client.close()
        assert stub.request_count == 2


def test_errors_are_not_cached(tmp_path):
    with openai_stub(Reply.error(500), Reply("[[1, 2]]")) as stub:
        inner = OpenAIChatClient("m", stub.url, retry=RetryPolicy(max_retries=0))
        client = CachedChatClient(inner, ResponseCache(tmp_path / "c.sqlite"))
        with pytest.raises(UserError):
            ask(client)
        assert ask(client) == "[[1, 2]]"
        assert len(client.cache) == 1
        client.close()


def test_cache_key_covers_model_text_labels_pixels_and_settings():
    frames = colour_frames(2)
    base = [Message("user", "q", list(frames), ["t=0", "t=1"])]
    key = cache_key("m", base, 100, 0.0)
    brighter = [Message("user", "q", [frames[0], frames[1] + 1], ["t=0", "t=1"])]
    variants = [
        cache_key("other", base, 100, 0.0),
        cache_key("m", [Message("user", "q2", list(frames), ["t=0", "t=1"])], 100, 0.0),
        cache_key("m", [Message("user", "q", list(frames), ["t=0", "t=2"])], 100, 0.0),
        cache_key("m", brighter, 100, 0.0),
        cache_key("m", base, 101, 0.0),
        cache_key("m", base, 100, 0.7),
    ]
    assert key == cache_key("m", [Message("user", "q", list(frames.copy()), ["t=0", "t=1"])],
                            100, 0.0)  # fmt: skip
    assert len({key, *variants}) == 1 + len(variants)


# --- building clients from config and environment ------------------------------------------


def test_make_chat_client_reads_model_url_and_key_from_the_environment(monkeypatch, tmp_path):
    with openai_stub(Reply("[]")) as stub:
        monkeypatch.setenv("LONGGROUND_LLM_MODEL", "env-model")
        monkeypatch.setenv("LONGGROUND_LLM_BASE_URL", stub.url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
        monkeypatch.setenv("LONGGROUND_CACHE", str(tmp_path))
        client = make_chat_client(LLMConfig())
        ask(client)
        client.close()
        seen = stub.requests[0]
    assert seen.body["model"] == "env-model"
    assert seen.headers["Authorization"] == "Bearer sk-openai"
    assert (tmp_path / "llm_cache.sqlite").exists()


def test_longground_key_wins_over_openai_key(monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
    monkeypatch.setenv("LONGGROUND_LLM_API_KEY", "sk-longground")
    with openai_stub(Reply("[]")) as stub:
        client = make_chat_client(LLMConfig(model="m", base_url=stub.url), use_cache=False)
        ask(client)
        client.close()
        assert stub.requests[0].headers["Authorization"] == "Bearer sk-longground"


def test_make_chat_client_rejects_unknown_backend_and_missing_model(monkeypatch):
    monkeypatch.delenv("LONGGROUND_LLM_MODEL", raising=False)
    with pytest.raises(UserError, match="unknown Video-LLM backend 'gpt'.*openai, transformers"):
        make_chat_client(LLMConfig(backend="gpt", model="m"))
    with pytest.raises(UserError, match="--model"):
        make_chat_client(LLMConfig(model=""), use_cache=False)


def test_a_methods_cache_dir_expands_home(monkeypatch, tmp_path):
    from longground.methods import MethodConfig
    from longground.methods.ask import method_chat_client

    monkeypatch.setenv("HOME", str(tmp_path))
    llm = LLMConfig(model="m", base_url="http://127.0.0.1:9/v1")
    client = method_chat_client(MethodConfig(llm=llm, cache_dir="~/lg"))
    client.close()
    assert client.cache.path == tmp_path / "lg" / "llm_cache.sqlite"
    assert client.cache.path.exists()


# --- the local transformers backend, on a tiny random Qwen2-VL built here ------------------

_SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|vision_start|>", "<|vision_end|>",
            "<|image_pad|>", "<|video_pad|>"]  # fmt: skip
_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n"
    "{% if m['content'] is string %}{{ m['content'] }}{% else %}{% for p in m['content'] %}"
    "{% if p['type'] == 'image' %}<|vision_start|><|image_pad|><|vision_end|>"
    "{% elif p['type'] == 'text' %}{{ p['text'] }}\n{% endif %}{% endfor %}{% endif %}"
    "<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def _byte_vocab() -> dict[str, int]:
    """GPT-2's byte-to-character table as a vocabulary: any text tokenizes, merge-free."""
    printable = [*range(33, 127), *range(161, 173), *range(174, 256)]
    chars, extra = dict(zip(printable, printable)), 0
    for b in range(256):
        if b not in chars:
            chars[b] = 256 + extra
            extra += 1
    return {chr(c): i for i, c in enumerate(chars[b] for b in range(256))}


@pytest.fixture(scope="module")
def tiny_qwen(tmp_path_factory):
    """A randomly initialised Qwen2-VL with a byte-level tokenizer, saved to a directory."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from transformers.models.qwen2_vl import image_processing_pil_qwen2_vl as pil_processing

    path = tmp_path_factory.mktemp("tiny-qwen2-vl")
    tokenizer = transformers.Qwen2Tokenizer(
        vocab=_byte_vocab(), merges=[], unk_token=None, eos_token="<|im_end|>",
        pad_token="<|endoftext|>", extra_special_tokens=_SPECIAL[1:],
    )  # fmt: skip
    tokenizer.chat_template = _TEMPLATE
    tokenizer.save_pretrained(path)
    (path / "chat_template.jinja").write_text(_TEMPLATE)
    pixels = 56 * 56  # every image becomes 4x4 patches -> 4 tokens
    pil_processing.Qwen2VLImageProcessorPil(min_pixels=pixels, max_pixels=pixels).save_pretrained(
        path
    )
    ids = {t: tokenizer.convert_tokens_to_ids(t) for t in _SPECIAL}
    config = transformers.Qwen2VLConfig(
        text_config=dict(
            vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=1,
            num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=2048,
            rope_parameters={"rope_type": "default", "rope_theta": 10000.0,
                             "mrope_section": [4, 2, 2]},
            eos_token_id=ids["<|im_end|>"], bos_token_id=ids["<|endoftext|>"],
        ),
        vision_config=dict(depth=1, embed_dim=16, hidden_size=32, num_heads=2, mlp_ratio=2),
        image_token_id=ids["<|image_pad|>"], video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"], vision_end_token_id=ids["<|vision_end|>"],
    )  # fmt: skip
    torch.manual_seed(0)
    transformers.Qwen2VLForConditionalGeneration(config).save_pretrained(path)
    return path


def _image_only_processor(path):
    """A Qwen2-VL processor without its video half.

    transformers 5 cannot build `Qwen2VLVideoProcessor` without torchvision, which this
    environment lacks, so the processor is assembled from its tokenizer and image processor;
    images take exactly the same path as in the full processor.
    """
    transformers = pytest.importorskip("transformers")
    tokenizer = transformers.AutoTokenizer.from_pretrained(path)
    processor = transformers.Qwen2VLProcessor.__new__(transformers.Qwen2VLProcessor)
    processor.tokenizer = tokenizer
    processor.image_processor = transformers.AutoImageProcessor.from_pretrained(path)
    processor.video_processor = None
    processor.chat_template = tokenizer.chat_template
    processor.image_token, processor.video_token = "<|image_pad|>", "<|video_pad|>"
    processor.image_token_id = tokenizer.convert_tokens_to_ids("<|image_pad|>")
    processor.video_token_id = tokenizer.convert_tokens_to_ids("<|video_pad|>")
    return processor


def test_transformers_client_loads_from_a_directory(tiny_qwen):
    import importlib.util

    from longground.llm import TransformersChatClient

    if importlib.util.find_spec("torchvision") is None:
        with pytest.raises(UserError, match="torchvision") as err:
            TransformersChatClient(str(tiny_qwen), device="cpu")
        assert str(tiny_qwen) in str(err.value) and "\n" not in str(err.value)
    else:
        client = TransformersChatClient(str(tiny_qwen), device="cpu")
        assert isinstance(ask(client), str)


def test_transformers_client_answers_timestamped_frames(tiny_qwen):
    from longground.llm import TransformersChatClient
    from longground.llm.transformers_client import hf_conversation, load_network

    processor = _image_only_processor(tiny_qwen)
    client = TransformersChatClient(
        str(tiny_qwen), processor=processor, network=load_network(str(tiny_qwen), "cpu")
    )
    message = timed_frames_message("When?", colour_frames(3, 40, 60), np.array([0.5, 1.5, 2.5]))
    first = client.complete([message], max_tokens=5)
    again = client.complete([message], max_tokens=5)
    assert isinstance(first.text, str) and first.text == again.text  # greedy: repeatable
    assert 1 <= first.completion_tokens <= 5
    assert first.prompt_tokens > 3 * 4  # three images of four tokens each, plus the text
    assert client.usage.totals()["requests"] == 2

    shown = processor.apply_chat_template(hf_conversation([message]), tokenize=False)
    labels = [shown.index(f"Frame at {t} s") for t in ("0.5", "1.5", "2.5")]
    images = [i for i in range(len(shown)) if shown.startswith("<|vision_start|>", i)]
    assert len(images) == 3
    assert labels[0] < images[0] < labels[1] < images[1] < labels[2] < images[2]


def test_transformers_loading_errors_are_one_line(tmp_path):
    pytest.importorskip("transformers")
    from longground.llm.transformers_client import load_network, load_processor

    missing = str(tmp_path / "no-such-model")
    for load in (load_processor, load_network):
        with pytest.raises(UserError) as err:
            load(missing)
        assert missing in str(err.value) and "\n" not in str(err.value)


def test_a_transport_function_stands_in_for_the_server():
    import httpx

    answers = iter([httpx.Response(503), httpx.Response(200, json=_completion("[[7, 8]]"))])
    seen = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(json.loads(request.content)["model"])
        return next(answers)

    client = OpenAIChatClient(
        "fn-model", "http://llm.invalid/v1", retry=QUICK, transport=httpx.MockTransport(handler)
    )
    assert ask(client) == "[[7, 8]]" and seen == ["fn-model", "fn-model"]


def _completion(text: str) -> dict:
    return {"choices": [{"message": {"role": "assistant", "content": text}}]}
