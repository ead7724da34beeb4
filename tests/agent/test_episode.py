"""Episodes of motion inside a shot (`agent.perception.episode`) and the offline verifier
bounding cause-and-effect moments by them, on the scripted fake video of `test_pipeline`."""

from __future__ import annotations

import numpy as np
import pytest

from longground.agent.composited.standing import stays_standing
from longground.agent.frames import SAMPLER_FPS, FrameSampler
from longground.agent.graph.cache import GraphCache
from longground.agent.perception.cuts import EventCuts, cut_pairs, shrink
from longground.agent.perception.episode import Episode, ShotEpisodes, shot_episodes
from longground.agent.pipeline import CometAgent
from longground.agent.settings import AgentSettings
from longground.moments import tiou_matrix
from tests.agent.test_pipeline import FakeSource, run, shot_spans

#: Episodes are read on the scripted video as composited footage (the ball and the object
#: are each seen on their half).
COMPOSITED = CometAgent(AgentSettings(roles="offline", scene="composited"), 1.0, GraphCache(None))


def shot_episode(frames_at, shot_s: tuple[float, float], step_s: float) -> Episode | None:
    """The episode of the shot around the middle of `shot_s`, as the verifier reads it in the
    composited scene (`shot_episodes(...).at`)."""
    frames = FrameSampler(frames_at)
    shots = shot_episodes(frames, shot_s, step_s, standing=stays_standing)
    return None if shots is None else shots.at(sum(shot_s) / 2)


CUTS_S = (2.0, 9.0)  # a shot between two cuts
BALL_S = (3.0, 5.0)  # a small square moves across it
FALL_S = (5.0, 5.8)  # then a large block tips over
#: the shots' backdrops: one brightness, three hues (a cut a gray-level change would miss)
TINTS = ((120, 60, 60), (60, 120, 60), (60, 60, 120))


def render(t: float, falls: bool = True) -> np.ndarray:
    """A 48x64 frame: the shot's background, a 6x6 square rolling during `BALL_S`, and a
    20x20 block standing on the right that falls (moves down and left) during `FALL_S`."""
    shot = int(np.searchsorted(CUTS_S, t, side="right"))
    frame = np.full((48, 64, 3), TINTS[shot], np.uint8)
    if shot != 1:
        # the next shot moves all the time: it must not reach into this one's episode
        x = int(t * 20) % 50
        frame[5:15, x : x + 10] = 255
        return frame
    u = np.clip((t - BALL_S[0]) / (BALL_S[1] - BALL_S[0]), 0, 1)
    x = int(2 + 30 * u)
    frame[36:42, x : x + 6] = 250
    v = np.clip((t - FALL_S[0]) / (FALL_S[1] - FALL_S[0]), 0, 1) if falls else 0.0
    top, left = int(20 + 20 * v), int(40 - 16 * v)
    frame[top : top + 20 - int(12 * v), left : left + 20] = 200
    return frame


def frames_at(times_s, falls=True):
    return np.stack([render(t, falls) for t in times_s])


def test_the_episode_is_the_motion_between_the_cuts():
    episode = shot_episode(frames_at, (1.5, 9.5), step_s=1.0)  # boundaries half a step off
    assert episode is not None and episode.falls
    assert abs(episode.start_s - BALL_S[0]) <= 1 / SAMPLER_FPS
    assert abs(episode.end_s - FALL_S[1]) <= 2 / SAMPLER_FPS


def test_a_passing_by_does_not_fall():
    episode = shot_episode(lambda t: frames_at(t, falls=False), (2.0, 9.0), step_s=0.5)
    assert episode is not None and not episode.falls
    assert abs(episode.end_s - BALL_S[1]) <= 2 / SAMPLER_FPS


def test_no_motion_no_episode():
    still = shrink(np.repeat(render(2.5, falls=False)[None], 20, axis=0))
    times = 2.0 + np.arange(20) / SAMPLER_FPS
    assert ShotEpisodes.read(times, still).at(3.0) is None


def test_a_cut_changes_every_cell_a_fall_does_not():
    times = np.arange(0.0, 10.0, 1 / SAMPLER_FPS)
    frames = shrink(frames_at(times))
    changes = np.abs(np.diff(frames, axis=0)).max(axis=3) > 25
    mid = (times[:-1] + times[1:]) / 2
    cut_times = mid[cut_pairs(changes)]
    assert len(cut_times) == 2 and np.allclose(cut_times, CUTS_S, atol=1 / SAMPLER_FPS)


def test_a_cut_between_two_shots_on_one_backdrop():
    """Only the objects change at the cut, but all at once: a spike among still pairs."""
    frames = np.full((16, 48, 64, 3), TINTS[1], np.uint8)
    frames[:8, 10:40, 5:25] = 220  # shot 1: an object on the left
    frames[8:, 12:44, 36:60] = 30  # shot 2: another on the right, same backdrop
    frames[10:, 40:44, 2:6] = 250  # and something small moving in it
    frames[12:, 40:44, 6:10] = 250
    changes = np.abs(np.diff(shrink(frames), axis=0)).max(axis=3) > 25
    assert np.flatnonzero(cut_pairs(changes)).tolist() == [7]


def test_a_graph_boundary_at_the_fall_is_no_cut():
    """The graph split the shot where the block falls: that boundary is no cut, so the shot
    the episode is read on runs from cut to cut, and the episode is the whole cause and
    effect."""
    frames = FrameSampler(frames_at)
    events = np.array([[0.0, 2.0], [2.0, FALL_S[0]], [FALL_S[0], 9.0], [9.0, 10.0]])
    assert EventCuts(frames, events, 0.5).shots().tolist() == [0, 1, 1, 2]
    episode = shot_episode(frames_at, (2.0, 9.0), step_s=0.5)
    assert episode.falls and abs(episode.start_s - BALL_S[0]) <= 1 / SAMPLER_FPS


def crossing(t: float, stays: bool) -> np.ndarray:
    """One shot: a block crosses the frame (or enters and stays, `stays`), alone."""
    frame = np.full((48, 64, 3), TINTS[1], np.uint8)
    u = np.clip((t - 1.0) / 3.0, 0, 1) * (0.6 if stays else 1.0)
    x = int(-20 + 90 * u)
    frame[20:40, max(x, 0) : max(x + 20, 0)] = 220
    return frame


@pytest.mark.parametrize("stays", [False, True])
def test_one_object_moving_alone_passes_nothing(stays):
    """Moving alone leaves nothing standing; entering and staying does not go through."""
    episode = shot_episode(lambda ts: np.stack([crossing(t, stays) for t in ts]), (0.0, 5.0),
                           step_s=0.5)  # fmt: skip
    assert episode is not None and not episode.falls
    assert not episode.standing and episode.through != stays
    assert not episode.fits("passing")


def test_what_fits_an_effect_and_a_passing():
    rolling = Episode(0.0, 2.0, peak=0.006, typical=0.004)
    falling = Episode(0.0, 2.0, peak=0.1, typical=0.004, standing=False, through=False)
    assert rolling.fits("passing") and not rolling.fits("effect")
    assert falling.fits("effect") and not falling.fits("passing")
    crossing = Episode(0.0, 2.0, peak=0.1, typical=0.004, standing=False, through=True)
    assert not crossing.fits("effect")  # what fell must lie there at the end


class FallingSource(FakeSource):
    """The fake video with one cause and effect: in the shot of the cat and the cup (7), a
    small square rolls right during `ROLL_S` and a large block falls at its end; or (not
    `falls`) the square rolls on past the block, out of the frame."""

    SHOT = 7
    ROLL_S = (2.0, 4.0)  # seconds into the shot
    FALL_S = (4.0, 4.8)

    def __init__(self, falls: bool = True) -> None:
        super().__init__()
        self.falls = falls

    def render(self, t: float) -> np.ndarray:
        start = self.spans[self.SHOT, 0]
        if self.shot_at(t) != self.SHOT:
            return super().render(t)
        frame = np.full((48, 64, 3), (60, 150, 60), np.uint8)  # a green backdrop: a cut
        frame[::4] = (40, 90, 40)
        u = np.clip((t - start - self.ROLL_S[0]) / 2.0, 0, 1)
        x = int(2 + 20 * u) if self.falls else int(-8 + 76 * u)  # a miss goes on, out
        frame[36:44, max(x, 0) : max(x + 8, 0)] = 250
        v = np.clip((t - start - self.FALL_S[0]) / 0.8, 0, 1) if self.falls else 0.0
        top = int(4 + 32 * v)
        frame[top : top + 12, 36:60] = 180
        return frame

    def truth(self) -> np.ndarray:
        start = self.spans[self.SHOT, 0]
        end = self.FALL_S[1] if self.falls else self.ROLL_S[1]
        return np.array([[start + self.ROLL_S[0], start + end]])


def test_a_cause_and_its_effect_is_bounded_by_its_motion_in_one_shot():
    """The cat also moves in shot 6, just before the cup's shot: the cup in the next shot is
    another scene, and the answer is the motion inside shot 7, not the whole shot."""
    source = FallingSource()
    moments, trace = run("When does the cat knock over the cup?", COMPOSITED, source)
    assert trace["plan"]["episode"] == "effect"
    assert moments.count == 1
    assert tiou_matrix(moments.spans, source.truth())[0, 0] >= 0.7
    assert shot_spans()[6, 1] <= moments.spans[0, 0]


@pytest.mark.parametrize("falls", [True, False])
def test_a_passing_by_is_the_shot_where_nothing_falls(falls):
    source = FallingSource(falls=falls)
    moments, trace = run("When does the cat roll past the cup?", COMPOSITED, source)
    assert trace["plan"]["episode"] == "passing"
    if falls:
        assert moments.count == 0
    else:
        assert moments.count == 1
        assert tiou_matrix(moments.spans, source.truth())[0, 0] >= 0.7


def test_a_long_shot_is_read_in_chunks():
    """The episode does not depend on how many frames are decoded at once."""
    from longground.agent import frames as module

    whole = shot_episode(frames_at, (2.0, 9.0), step_s=0.5)
    calls = []

    def counted(times):
        calls.append(len(times))
        return frames_at(times)

    chunk, module.CHUNK = module.CHUNK, 7
    try:
        chunked = shot_episode(counted, (2.0, 9.0), step_s=0.5)
    finally:
        module.CHUNK = chunk
    assert max(calls) == 7 and len(calls) > 1
    assert chunked == whole


def test_the_video_edges_and_a_truncated_file():
    """A shot at the very start reads nothing before it; a file that ends early gives fewer
    frames, and nothing is read after them."""
    start = shot_episode(frames_at, (0.55, 1.5), step_s=0.5)  # read from 0.05 s
    assert start is not None and start.start_s < 0.2 and start.end_s <= CUTS_S[0]
    asked = []

    def truncated(times):
        asked.append(float(np.max(times)))
        kept = np.asarray(times)[np.asarray(times) < 4.5]
        return frames_at(kept) if len(kept) else np.zeros((0, 48, 64, 3), np.uint8)

    episode = shot_episode(truncated, (2.0, 9.0), step_s=0.5)
    assert episode is not None and abs(episode.start_s - BALL_S[0]) <= 1 / SAMPLER_FPS
    assert max(asked) <= 9.5
