"""Touching pieces of one identity are joined by the same measure the identity groups use, or
because no cut lies between them (one shot)."""

import numpy as np

from longground.agent.aggregate import consolidate
from longground.agent.composited.identity import whole_looks
from longground.agent.composited.reid import Look
from longground.agent.frames import FrameSampler
from longground.agent.perception.cuts import one_shot
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


def _apart(instances) -> np.ndarray:
    """Looks that tell every instance apart (the exit piece cut by the frame's edge)."""
    return np.eye(len(instances), dtype=bool)


def test_touching_pieces_of_one_shot_join_whatever_their_looks():
    entries = _entries()
    asked = []

    def shot(from_s, to_s):
        asked.append((from_s, to_s))
        return True

    moments, groups = consolidate(entries, ordinal=1, same=_apart, one_shot=shot)
    # only the touching pair is asked about; the second identity is the 20-25 s one
    assert asked == [(3.0, 3.0)] and groups == [[0, 1]] and moments.to_list() == [[0.0, 5.0]]
    moments, _ = consolidate(entries, ordinal=2, same=_apart, one_shot=shot)
    assert moments.to_list() == [[20.0, 25.0]]
    # a cut between them: two appearances, the second of which is the exit piece
    moments, _ = consolidate(entries, ordinal=2, same=_apart, one_shot=lambda a, b: False)
    assert moments.to_list() == [[3.0, 5.0]]


def _frames(cut_at_s: float | None, fps: float = 8.0):
    """An object leaving a textured backdrop through its right edge at 40 px/s; from
    `cut_at_s` another backdrop (a cut)."""
    rng = np.random.default_rng(0)
    first = (rng.uniform(0.6, 1.0, (90, 160, 1)) * np.array([60, 170, 60])).astype(np.uint8)
    second = (rng.uniform(0.6, 1.0, (90, 160, 1)) * np.array([170, 60, 140])).astype(np.uint8)

    def frames_at(times):
        out = []
        for t in np.asarray(times):
            f = (second if cut_at_s is not None and t >= cut_at_s else first).copy()
            x0 = int(100 + 40 * t)
            f[30:60, min(x0, 160) : min(x0 + 40, 160)] = (230, 200, 40)
            out.append(f)
        return np.stack(out)

    return frames_at


def test_one_shot_reads_the_cut_between_two_pieces():
    # the object leaving is no cut; a cut within a step of the meeting is one
    assert one_shot(FrameSampler(_frames(None)), 1.5, 1.5, 1.0)
    assert not one_shot(FrameSampler(_frames(1.2)), 1.5, 1.5, 1.0)
    nothing = FrameSampler(lambda t: np.zeros((0, 90, 160, 3), np.uint8))
    assert not one_shot(nothing, 1.5, 1.5, 1.0)
