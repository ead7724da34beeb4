"""Several model servers: spreading by fewest outstanding requests, failing over, one cache."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from longground.cli.options import join_urls
from longground.errors import UserError
from longground.llm import LLMConfig
from longground.llm.base import ChatClient, Completion, Message
from longground.llm.cache import CachedChatClient
from longground.llm.factory import make_chat_client
from longground.llm.spread import SpreadChatClient, split_base_urls
from tests.support.openai_stub import OpenAIStub, Reply, closed_port_url


def echo(seen):
    return Reply(f"answer to {seen.text}", delay_s=0.02)


def ask(client, i):
    return client.complete([Message("user", f"q{i}")]).text


def test_three_servers_one_failing_mid_run_answer_every_query_once(tmp_path):
    stubs = [OpenAIStub(responder=echo).start() for _ in range(3)]
    try:
        cfg = LLMConfig(model="m", base_url=join_urls([s.url for s in stubs]), max_retries=0)
        client = make_chat_client(cfg, cache_path=tmp_path / "cache.sqlite")
        assert isinstance(client, CachedChatClient)
        assert isinstance(client.inner, SpreadChatClient)
        answered, lock = [], threading.Lock()

        def one(i):
            text = ask(client, i)
            with lock:
                answered.append((i, text))
                if len(answered) == 12:
                    stubs[1].stop()  # the second server dies mid-run

        with ThreadPoolExecutor(6) as pool:
            list(pool.map(one, range(60)))
        assert sorted(answered) == [(i, f"answer to q{i}") for i in range(60)]
        counts = [s.request_count for s in stubs]
        assert min(counts) >= 3 and sum(counts) >= 60  # spread over all three
        assert stubs[1].request_count < 30  # it stopped getting requests
        before = sum(counts)
        assert ask(client, 7) == "answer to q7"  # the shared cache answers
        assert sum(s.request_count for s in stubs) == before
        client.close()
    finally:
        for stub in stubs:
            stub.stop()


def test_every_server_failing_is_one_line_naming_them(tmp_path):
    urls = [closed_port_url(), closed_port_url()]
    client = make_chat_client(LLMConfig(model="m", base_url=" ".join(urls)), use_cache=False)
    with pytest.raises(UserError) as caught:
        ask(client, 0)
    message = str(caught.value)
    assert message.startswith("all 2 servers failed") and "\n" not in message
    assert all(url in message for url in urls)


class Gate(ChatClient):
    """Holds each request until released; records what it served."""

    model = "m"

    def __init__(self):
        self.served, self.release = 0, threading.Event()

    def complete(self, messages, *, max_tokens=1024, temperature=0.0):
        self.served += 1
        self.release.wait(5)
        return Completion("ok")


def test_requests_go_to_the_server_with_fewest_outstanding():
    a, b, c = Gate(), Gate(), Gate()
    client = SpreadChatClient([a, b, c])
    with ThreadPoolExecutor(5) as pool:
        futures = [pool.submit(ask, client, i) for i in range(5)]
        while sum(client.load()) < 5:
            pass
        assert sorted(client.load()) == [1, 2, 2]
        for gate in (a, b, c):
            gate.release.set()
        assert [f.result() for f in futures] == ["ok"] * 5
    assert client.load() == [0, 0, 0]


def test_a_file_of_urls(tmp_path):
    listing = tmp_path / "servers.txt"
    listing.write_text("# vLLM\nhttp://a:8000/v1\n\nhttp://b:8000/v1  # spare\n")
    assert split_base_urls(str(listing)) == ["http://a:8000/v1", "http://b:8000/v1"]
    (tmp_path / "empty.txt").write_text("# none\n")
    with pytest.raises(UserError, match="holds no URL"):
        split_base_urls(str(tmp_path / "empty.txt"))
