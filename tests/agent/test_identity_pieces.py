"""Touching pieces of one identity are joined by the same measure the identity groups use."""

import numpy as np

from longground.agent.aggregate import consolidate
from longground.agent.perception.identity import whole_looks
from longground.agent.perception.reid import Look
from longground.agent.verify.memory import MemoryEntry


def _entries() -> list[MemoryEntry]:
    # An object crossing the frame verified in two touching pieces whose whole-frame
    # embeddings differ (it moved), then another identity, then the first one back.
    z = [np.array([1.0, 0.0]), np.array([0.0, 1.0]), np.array([1.0, 0.0]), np.array([1.0, 0.0])]
    spans = [(0.0, 3.0), (3.0, 5.0), (20.0, 25.0), (40.0, 45.0)]
    return [MemoryEntry("cam", a, b, 0.9, z=v) for (a, b), v in zip(spans, z)]


def _looks(instances) -> np.ndarray:
    """Identity by span: the object of 0-5 s and 40-45 s is one, that of 20-25 s another."""
    ident = [0 if inst.start_s < 10 or inst.start_s >= 40 else 1 for inst in instances]
    return np.equal.outer(ident, ident)


def test_pieces_join_by_looks_not_by_embeddings():
    moments, groups = consolidate(_entries(), ordinal=1, same=_looks)
    assert moments.to_list() == [[0.0, 5.0], [40.0, 45.0]] and groups == [[0, 1], [3]]
    # With the embeddings the two pieces stay apart and the first identity counts twice
    # at the start.
    moments, _ = consolidate(_entries(), ordinal=1)
    assert len(moments) == 3


def test_a_look_cut_by_the_frame_edge_gives_way_to_a_whole_one():
    unit = np.ones(1)
    inside = Look((10, 20, 10, 20), unit, unit, unit)
    cut = Look((10, 90, 10, 20), unit, unit, unit)  # reaches the bottom edge
    assert whole_looks([cut, inside], (90, 160)) == [inside]
    assert whole_looks([cut], (90, 160)) == [cut]
