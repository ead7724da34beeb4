"""One agent grounds several queries at once: the query's state travels with it (its trace,
its evidence), so queries in interleaved threads get the answers they get one at a time."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from longground.agent.graph.cache import GraphCache
from longground.agent.pipeline import CometAgent
from longground.agent.settings import AgentSettings
from tests.agent.test_pipeline import FakeSource

QUERIES = (
    "every time a cat appears",
    "a cat right after a rocket",
    "a cat and a cup together",
    "a cat moving across the screen",
    "a giraffe",
    "the rocket",
)


def answers(runs) -> list[tuple]:
    """Per run `(moments, trace)`: its moments, the verifier's decisions as its trace records
    them, and its plan's target."""
    out = []
    for moments, trace in runs:
        record = trace.to_dict()
        verdicts = [(v["candidate"], v["reason"]) for v in record["verifications"]]
        out.append((np.round(moments.spans, 6).tolist(), verdicts, record["plan"]["target"]))
    return out


@pytest.mark.parametrize("scene", ["general", "composited"])
def test_queries_in_threads_get_the_answers_they_get_alone(scene, tmp_path):
    settings = AgentSettings(roles="offline", scene=scene)
    alone = CometAgent(settings, 1.0, GraphCache(None))
    source = FakeSource()
    one_by_one = answers([alone.run(source, q) for q in QUERIES])
    shared = CometAgent(settings, 1.0, GraphCache(tmp_path))
    both = FakeSource()
    with ThreadPoolExecutor(max_workers=len(QUERIES)) as pool:
        runs = list(pool.map(lambda q: shared.run(both, q), QUERIES * 2))
    together = answers(runs)
    assert together[: len(QUERIES)] == one_by_one
    assert together[len(QUERIES) :] == one_by_one  # and again, from the shared caches
