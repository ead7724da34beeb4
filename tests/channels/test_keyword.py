"""Keyword spotting in the audio: a word the transcript wrote down as something else is
found, words that were not said are not, and the scores are cached per (video, needle)."""

from __future__ import annotations

import numpy as np
import pytest

from longground.channels import ChannelStore
from longground.channels import keyword as keyword_module
from longground.channels.keyword import segment_audio
from longground.channels.match import speech_moments
from longground.channels.phonetic import words
from longground.moments import Moments

from .clips import slide, speech, write_clip

pytest.importorskip("pocketsphinx")
pytest.importorskip("silero_vad")

SAID_AT_S = 0.5


def _talk(folder, sentence: str):
    """4 s of a blank slide; at 0.5 s espeak-ng says `sentence`."""
    said = speech(sentence)
    track = np.zeros((1, 22050 * 4), np.int16)
    start = int(SAID_AT_S * 22050)
    track[:, start : start + said.shape[1]] = said
    path = write_clip(folder / "talk.mp4", [slide("")], 4.0, audio=track)
    store = ChannelStore(folder / "cache")
    evidence = store.get_or_build(path, ("speech",))
    return path, store, evidence, (SAID_AT_S, SAID_AT_S + said.shape[1] / 22050)


@pytest.fixture(scope="module")
def talk(tmp_path_factory):
    """A sentence whose keyword pocketsphinx's transcript does not write down."""
    return _talk(tmp_path_factory.mktemp("keyword"), "The window is very important.")


def test_spotting_finds_a_word_the_transcript_missed(talk):
    path, store, evidence, (start_s, end_s) = talk
    transcript = evidence.get("speech")
    assert "window" not in words(" ".join(transcript.text))  # the recogniser misheard it
    without, _ = speech_moments(transcript, "window")
    assert without.count == 0
    spotted = store.with_spotted(path, evidence, "window").spotted["window"]
    found, details = speech_moments(transcript, "the window", spotted)
    assert found.count == 1
    (heard,) = details["matched"]
    assert not heard["exact"] and heard["spotted"] is not None
    ((a, b),) = found.spans
    assert a <= start_s + 0.3 and b >= end_s - 0.3


def test_a_long_word_said_unclearly_is_still_scored(tmp_path):
    """With pocketsphinx's default beam (1e-48) "computer" in this sentence is dropped before
    its last phone and never detected; the spotter's wider beam lets it finish, and it scores
    above the threshold and its null words."""
    path, store, evidence, (start_s, end_s) = _talk(tmp_path, "Now let us talk about the computer.")
    transcript = evidence.get("speech")
    assert "computer" not in words(" ".join(transcript.text))
    spotted = store.with_spotted(path, evidence, "computer").spotted["computer"]
    found, details = speech_moments(transcript, "computer", spotted)
    assert found.count == 1, details
    ((a, b),) = found.spans
    assert a <= start_s + 0.3 and b >= end_s - 0.3


@pytest.mark.parametrize("needle", ["piano", "passport"])
def test_a_word_not_said_is_not_spotted(talk, needle):
    path, store, evidence, _ = talk
    spotted = store.with_spotted(path, evidence, needle).spotted[needle]
    found, _ = speech_moments(evidence.get("speech"), needle, spotted)
    assert found.count == 0


def test_scores_are_cached_per_needle(talk, monkeypatch):
    path, store, evidence, _ = talk
    first = store.with_spotted(path, evidence, "window").spotted["window"]

    def fail(*args, **kwargs):
        raise AssertionError("spotted again instead of read from the cache")

    monkeypatch.setattr(keyword_module, "spot", fail)
    assert store.with_spotted(path, evidence, "window").spotted["window"] == first
    with pytest.raises(AssertionError, match="spotted again"):
        store.with_spotted(path, evidence, "tomato")


def test_a_word_outside_the_dictionary_is_named_not_searched(talk):
    path, store, evidence, _ = talk
    spotted = store.with_spotted(path, evidence, "zqxvbw").spotted["zqxvbw"]
    none = [None] * len(evidence.get("speech").segments)
    assert spotted == {"scores": none, "null_best": none, "unknown": ["zqxvbw"]}
    _, details = speech_moments(evidence.get("speech"), "zqxvbw", spotted)
    assert "zqxvbw" in details["not_spotted"]


def test_a_phrase_scores_the_same_alone_and_beside_null_words(talk):
    """One pass listens for the needle and its null words; each phrase's score is within 1%
    of the one a pass for it alone gives (the phrases do not compete; the search's beam
    prunes their paths together, which moves the scores by about 0.3% here)."""
    path, _, evidence, _ = talk
    (samples,) = segment_audio(path, evidence.get("speech").segments)
    spotter = keyword_module.Spotter()
    together = ["window", "garden", "river", "tomato"]
    spotter.listen_for(together)
    beside = spotter.scores(samples)
    alone = []
    for phrase in together:
        spotter.listen_for([phrase])
        alone += spotter.scores(samples)
    assert beside == pytest.approx(alone, rel=0.01) and np.isfinite(beside[0])


@pytest.mark.parametrize("seed", range(5))
def test_segment_audio_cuts_the_spans_across_chunks(monkeypatch, seed):
    rng = np.random.default_rng(seed)
    audio = rng.integers(-3000, 3000, 16000 * 10, dtype=np.int16)
    cuts = np.sort(rng.choice(np.arange(1, len(audio)), 6, replace=False))
    chunks = np.split(audio, cuts)
    monkeypatch.setattr(keyword_module, "pcm_chunks", lambda video: iter(chunks))
    edges = np.sort(rng.uniform(0.0, 11.0, 8)).reshape(-1, 2)  # the last may pass the end
    pieces = list(segment_audio("clip.mp4", Moments(edges)))
    assert len(pieces) == len(edges)
    for (a, b), piece in zip(edges, pieces):
        np.testing.assert_array_equal(piece, audio[int(a * 16000) : int(b * 16000)])
