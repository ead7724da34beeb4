"""Object-centred identity: mirror- and colour-sensitive looks, grouping ordinal queries by
them, and the colourless check ("the black-and-white cat")."""

import numpy as np
import pytest

from longground.agent.aggregate import consolidate
from longground.agent.composited import reid
from longground.agent.composited.closer import HalvesAndBoxes
from longground.agent.composited.identity import instance_looks, same_identity_matrix
from longground.agent.composited.object_colors import colourless_share
from longground.agent.composited.scene import CompositedScene
from longground.agent.evidence import Evidence
from longground.agent.frames import FrameSampler
from longground.agent.graph.nodes import make_nodes
from longground.agent.plan.planner import plan_query
from longground.agent.roles.offline import OfflineAggregator, ScorerSettings
from longground.agent.settings import AgentSettings
from longground.agent.verify.memory import MemoryEntry

cv2 = pytest.importorskip("cv2")


def first_feature(feats, text):
    """A score that reads the features' first column, whatever the text."""
    return feats["embedding"][:, 0]


pytest.importorskip("skimage")  # the cat photo comes from its data files (synth extra)


@pytest.fixture(scope="module")
def cat() -> np.ndarray:
    """The tabby cat photo, `(54, 80, 3)` uint8 RGB."""
    from longground.synth.assets import photo

    return cv2.resize(photo("chelsea")[..., :3], (80, 54), interpolation=cv2.INTER_AREA)


def _mirror(image):
    return image[:, ::-1].copy()


def _gray(image):
    luma = image @ np.array([0.299, 0.587, 0.114])
    return np.repeat(luma[..., None], 3, axis=2).astype(np.uint8)


def _backdrop(kind: str, seed: int = 0) -> np.ndarray:
    """A `(90, 160, 3)` backdrop: green noise texture or a purple gradient."""
    rng = np.random.default_rng(seed)
    if kind == "texture":
        shade = rng.uniform(0.6, 1.0, (90, 160, 1))
        return (shade * np.array([60, 170, 60])).astype(np.uint8)
    ramp = np.linspace(0.5, 1.0, 160)[None, :, None] * np.ones((90, 1, 1))
    return (ramp * np.array([135, 60, 175])).astype(np.uint8)


def _scene(obj, kind="texture", x0=40, y0=18, seed=0, second=None):
    frame = _backdrop(kind, seed)
    h, w = obj.shape[:2]
    frame[y0 : y0 + h, x0 : x0 + w] = obj
    if second is not None:
        frame[20 : 20 + second.shape[0], 120 : 120 + second.shape[1]] = second
    return frame


def test_look_matches_itself_on_another_backdrop_not_its_mirror_or_gray_copy(cat):
    here = [reid.describe(_scene(cat, "texture", x0=20))]
    there = [reid.describe(_scene(cat, "gradient", x0=70, y0=30, seed=1))]
    assert reid.same_object(here, there)
    assert not reid.same_object(here, [reid.describe(_scene(_mirror(cat), "gradient"))])
    assert not reid.same_object(here, [reid.describe(_scene(_gray(cat), "gradient"))])
    grays = [
        reid.describe(_scene(_gray(cat), k, x0=x)) for k, x in (("texture", 10), ("gradient", 60))
    ]
    assert reid.same_object(grays[:1], grays[1:])


def test_the_box_is_the_object_and_a_side_picks_between_two(cat):
    look = reid.describe(_scene(cat, x0=40, y0=18))
    y0, y1, x0, x1 = look.box
    assert abs(y0 - 18) <= 2 and abs(y1 - 72) <= 2 and abs(x0 - 40) <= 2 and abs(x1 - 120) <= 2
    small = cv2.resize(cat, (36, 24))
    frame = _scene(small, x0=10, y0=30, second=_gray(small))
    left, right = reid.describe(frame, side=0), reid.describe(frame, side=1)
    assert left.box[2] < 80 <= right.box[2]
    assert left.colour[-1] < 0.5 < right.colour[-1]


def test_ordinal_query_groups_instances_by_object_looks_not_frame_embeddings(cat):
    """Four instances alternate cat / mirrored cat; whole-frame embeddings are all equal, so
    without looks the second identity does not exist."""
    looks = {0: cat, 1: _mirror(cat)}
    spans = [(0.0, 2.0), (10.0, 12.0), (20.0, 22.0), (30.0, 32.0)]

    def frames_at(times):
        which = [int(t // 10) % 2 for t in np.asarray(times)]
        return np.stack([_scene(looks[k], ("texture", "gradient")[i % 2], x0=10 + 8 * i, seed=i)
                         for i, k in enumerate(which)])  # fmt: skip

    entries = [MemoryEntry("the cat", a, b, 0.9, z=np.ones(4)) for a, b in spans]
    plain, _ = consolidate(entries, ordinal=2)
    assert len(plain) == 0
    times = np.arange(0.0, 40.0, 1.0)
    emb = np.ones((len(times), 4))
    plan = plan_query("Track the second cat to appear", 40.0)
    events = make_nodes(np.array([[0.0, 40.0]]), times, emb, 2.0, 1)
    scores = {plan.target: np.zeros(len(times))}
    ev = Evidence(plan, times, emb, emb, scores, events, frames=FrameSampler(frames_at))
    composited = AgentSettings(scene="composited")
    aggregator = OfflineAggregator(ScorerSettings.from_agent(composited, threshold=0.2),
                                   scene=CompositedScene(composited, None))  # fmt: skip
    answer = aggregator.aggregate(ev, entries)
    assert answer.moments.to_list() == [[10.0, 12.0], [30.0, 32.0]]
    blind = AgentSettings(scene="composited", object_looks=False)
    blind_aggregator = OfflineAggregator(ScorerSettings.from_agent(blind, threshold=0.2),
                                         scene=CompositedScene(blind, None))  # fmt: skip
    assert len(blind_aggregator.aggregate(ev, entries).moments) == 0
    looks = instance_looks(None, FrameSampler(frames_at), np.array(spans), plan.target)
    matrix = same_identity_matrix(looks)
    assert matrix.tolist() == [[a % 2 == b % 2 for b in range(4)] for a in range(4)]


def test_colourless_plans_and_share(cat):
    assert plan_query("How many times do we see the black-and-white cat?", 60).colourless
    assert plan_query("a grey horse", 60).colourless
    assert not plan_query("the cat in front of a gray background", 60).colourless
    assert not plan_query("the black horse", 60).colourless
    gray_scene, colour_scene = _scene(_gray(cat)), _scene(cat, "gradient")
    assert colourless_share(gray_scene[None]) > 0.9
    assert colourless_share(colour_scene[None]) < 0.5
    # A coloured object beside the gray one does not hide it.
    small = cv2.resize(cat, (36, 24))
    assert colourless_share(_scene(_gray(small), x0=10, second=small)[None]) > 0.9


def test_the_half_that_scores_the_target_picks_the_object_in_a_two_object_frame(cat):
    small = cv2.resize(cat, (36, 24))
    frame = _scene(small, x0=10, y0=30, second=_mirror(small))
    plan = plan_query("the second cat to appear", 10.0)
    asked = []

    def regions(t):
        asked.append(len(t))
        return {"embedding": np.tile(np.array([[0.0], [1.0]]), (len(t), 1, 1))}

    def frames_at(t):
        return np.stack([frame] * len(t))

    closer = HalvesAndBoxes(first_feature, regions, None)
    (looks,) = instance_looks(closer, FrameSampler(frames_at), np.array([[0.0, 3.0]]), plan.target)
    assert asked == [2] and all(look.box[2] >= 80 for look in looks)
    single = _scene(small, x0=10, y0=30)
    (looks,) = instance_looks(closer, FrameSampler(lambda t: np.stack([single] * len(t))),
                              np.array([[0.0, 3.0]]), plan.target)  # fmt: skip
    assert asked == [2] and all(look.box[2] < 80 for look in looks)


def test_two_objects_that_touch_across_the_middle_are_told_apart(cat):
    """A white shape and the cat photo touching at the frame's middle are one region of the
    foreground; its halves are coloured unlike each other, so the half that scores the target
    names the object, and the look is the white shape's alone. One object across the middle
    stays whole."""
    frame = _backdrop("texture")
    frame[20:70, 30:80] = 230  # the target: white, on the left
    frame[20:70, 80:140] = cv2.resize(cat, (60, 50))  # touching it on the right
    plan = plan_query("the second horse to appear", 10.0)
    closer = HalvesAndBoxes(
        first_feature, lambda t: {"embedding": np.tile([[[1.0], [0.0]]], (len(t), 1, 1))}, None
    )

    def frames_at(t):
        return np.stack([frame] * len(t))

    (looks,) = instance_looks(closer, FrameSampler(frames_at), np.array([[0.0, 3.0]]), plan.target)
    assert looks and all(look.box[3] <= 80 for look in looks)
    assert all(look.colour[-1] == 1.0 for look in looks)  # white: the cat's hues are not in it
    frame[20:70, 80:140] = 230  # one white object across the middle
    (whole,) = instance_looks(closer, FrameSampler(frames_at), np.array([[0.0, 3.0]]), plan.target)
    assert whole and all(look.box[2] < 40 and look.box[3] > 130 for look in whole)


def test_frames_with_one_object_say_which_object_an_instance_shows(cat):
    """Small frames: the halves' scores name the other object of a two-object frame (here the
    mirrored cat entering on the right); the instance's frame with the cat alone decides."""
    small = cv2.resize(cat, (36, 24))
    alone, pair = _scene(small, x0=10, y0=30), _scene(small, x0=10, y0=30, second=_mirror(small))
    plan = plan_query("the first cat to appear", 10.0)
    closer = HalvesAndBoxes(
        first_feature, lambda t: {"embedding": np.tile([[[0.0], [1.0]]], (len(t), 1, 1))}, None
    )

    def frames_at(t):
        return np.stack([alone if x < 2 else pair for x in t])

    # frames at 1.5, 3.0
    (looks,) = instance_looks(closer, FrameSampler(frames_at), np.array([[0.0, 4.5]]), plan.target)
    assert len(looks) == 1 and looks[0].box[2] < 80
    # two-object frames only
    (both,) = instance_looks(closer, FrameSampler(frames_at), np.array([[3.0, 6.0]]), plan.target)
    assert len(both) == 2 and all(look.box[2] >= 80 for look in both)


def test_the_backdrop_seen_through_an_object_is_not_its_colour():
    """A gray object with narrow slits (legs, spokes) showing the green backdrop: the blur
    puts the slits in the object's region, their own pixels are the backdrop's."""
    frame = _backdrop("texture")
    frame[20:70, 40:120] = 90
    frame[25:65, 50:110:6] = _backdrop("texture", seed=1)[25:65, 50:110:6]
    look = reid.describe(frame)
    slits = reid.hue_histogram(reid.core_pixels(frame, reid.object_mask(frame)))
    assert slits[:-1].sum() > 1 / 13  # what the whole core reads
    assert look.colour[:-1].sum() < 1 / 13 and look.colour[-1] > 0.9


def test_a_backdrop_hue_blended_into_an_object_does_not_make_it_another():
    """Feathered edges on small frames put about a tenth of the backdrop's hue into an
    object's core: the gray cat on red is the gray cat on green, but not the orange cat."""
    shape = np.ones(4) / 2.0
    hue = np.eye(reid.HUE_BINS + 1)

    def look(colour, backdrop_bin):
        return reid.Look((0, 10, 0, 10), shape, -shape, colour, hue[backdrop_bin, :-1] > 0)

    gray_on_red = look(0.1 * hue[0] + 0.9 * hue[-1], 0)
    gray_on_green = look(hue[-1], 4)
    orange_on_green = look(0.8 * hue[1] + 0.2 * hue[-1], 4)
    assert reid.same_object([gray_on_red], [gray_on_green])
    assert not reid.same_object([gray_on_red], [orange_on_green])
    # the backdrop unknown: the tint counts, as a colour of the object
    unknown = reid.Look((0, 10, 0, 10), shape, -shape, gray_on_red.colour)
    assert not reid.same_object([unknown], [reid.Look((0, 10, 0, 10), shape, -shape, hue[-1])])
