"""Coarse to fine: the localiser sees few frames where boxes move smoothly, finds the frame
where an object comes in, and every frame still gets its boxes."""

from __future__ import annotations

import numpy as np

from longground.index.change import ChangeGate
from longground.tracking.detections import Detections
from longground.tracking.sparse import SparseLocaliser, match

EVERY = ChangeGate(0, 0)  # every coarse frame counts as changed


class Scripted:
    """Boxes by frame number (stamped in the first pixel), recording which frames it saw."""

    def __init__(self, boxes_at):
        self.boxes_at, self.seen = boxes_at, []

    def __call__(self, frames, target):
        parts = []
        for frame in frames:
            k = int(frame[0, 0, 0]) + 256 * int(frame[0, 0, 1])
            self.seen.append(k)
            boxes = np.array(self.boxes_at(k), dtype=float).reshape(-1, 4)
            parts.append(Detections(boxes, np.full(len(boxes), 0.9), np.zeros(len(boxes), int)))
        return Detections.joined(parts)


def stamped(n: int, start: int = 0) -> np.ndarray:
    frames = np.random.default_rng(start).integers(0, 255, (n, 36, 64, 3), np.uint8)
    ids = np.arange(start, start + n)
    frames[:, 0, 0, 0], frames[:, 0, 0, 1] = ids % 256, ids // 256
    return frames


def sliding(k: int) -> list[list[float]]:
    x = 0.1 + 0.005 * k  # a twentieth of its width a frame
    return [[x, 0.2, x + 0.3, 0.6]]


def test_a_smoothly_moving_box_is_seen_every_ten_frames_and_placed_in_every_frame():
    localiser = Scripted(sliding)
    found = SparseLocaliser(localiser, "x", EVERY)(stamped(40))
    assert sorted(localiser.seen) == [0, 10, 20, 30, 39]
    assert found.frames.tolist() == list(range(40))
    assert np.allclose(found.boxes, [sliding(k)[0] for k in range(40)])


def test_an_object_that_comes_in_is_found_from_its_first_frame():
    def arrives(k):
        return sliding(k) if k >= 13 else []

    localiser = Scripted(arrives)
    found = SparseLocaliser(localiser, "x", EVERY)(stamped(40))
    assert {12, 13} <= set(localiser.seen) and len(localiser.seen) < 12
    assert sorted(set(found.frames.tolist())) == list(range(13, 40))


def test_a_still_picture_is_looked_at_once_across_batches():
    still = stamped(1).repeat(30, axis=0)
    localiser = Scripted(lambda k: [[0.1, 0.1, 0.4, 0.4]])
    sparse = SparseLocaliser(localiser, "x", ChangeGate())
    parts = [sparse(still[:15]), sparse(still[15:])]
    assert localiser.seen == [0] and sparse.localised == 1
    assert all(len(p) == 15 for p in parts)


def test_boxes_agree_only_one_to_one_and_overlapping():
    a = Detections([[0.1, 0.1, 0.3, 0.3]], [1.0], [0])
    far = Detections([[0.6, 0.6, 0.8, 0.8]], [1.0], [0])
    assert match(a, a) == [(0, 0)] and match(a, far) is None
    assert match(Detections.empty(), Detections.empty()) == []
