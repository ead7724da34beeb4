"""Other wordings of the generated queries (`synth.wordings`, `synth --wordings K`): every kind
of query has them, they are drawn from the seed, they keep the truth, and each still states
the query's condition: its objects and only those, its window's times, its word or title."""

from __future__ import annotations

import itertools
import json
import re

import numpy as np
import pytest

from longground.cli.main import main
from longground.formats import load_samples
from longground.synth import JSONL_NAME, generate, plan
from longground.synth.audiovisual import CAPTIONS, KEYWORDS, TITLES, av_queries, plan_av
from longground.synth.catalog import (
    CATEGORIES,
    COLORS,
    NEVER_SHOWN,
    OBJECT_CATEGORIES,
    ORDINALS,
    PHOTO_CATEGORIES,
)
from longground.synth.generate import worded
from longground.synth.meaning import (
    MOTIONS,
    Caption,
    Cut,
    Knocked,
    Named,
    Ordinal,
    Person,
    Said,
    Score,
    Shown,
    Slide,
    Together,
    Window,
)
from longground.synth.queries.near_miss import CONFUSABLE
from longground.synth.wordings import MAX_WORDINGS, WORDERS, records, reworded, wordings
from longground.synth.wordings.phrasing import plain
from longground.synth.wordings.scenes import NOUNS, THINGS
from longground.timecode.grammar import CLOCK_LIKE, amount_s, read_clock

WINDOWS = (
    Window(160.0, 320.0, 10, to_end=False),
    Window(0.0, 300.0, 60, to_end=False),
    Window(600.0, 1200.0, 60, to_end=True),
    Window(3600.0, 4200.0, 60, to_end=True),
    Window(40.0, 62.0, 10, to_end=True),  # a video that is not whole units long
    Window(0.0, 4200.0, 60, to_end=True),
)


def every_meaning():
    """Every meaning the generators can ask, from the same catalogues they draw from."""
    looks = [
        (c, v) for c in PHOTO_CATEGORIES for v in CATEGORIES[c].variants if v in ("gray", "blue")
    ]
    yield from (Shown(c) for c in OBJECT_CATEGORIES)
    yield from (Shown(c, backdrop=b) for c in PHOTO_CATEGORIES for b in [*COLORS, "brick"])
    yield from (Shown(c, look=v) for c, v in looks)
    yield from (Shown(c, motion=m) for c in PHOTO_CATEGORIES for m in MOTIONS)
    for c, w in itertools.product(OBJECT_CATEGORIES, WINDOWS):
        yield Shown(c, window=w)
        yield Shown(c, backdrop="purple", window=w)
        yield Shown(c, motion="cross", window=w)
    yield from (Named(thing.split(" ", 1)[1]) for thing in NEVER_SHOWN)
    yield from (Named(thing) for thing in CONFUSABLE)
    yield from (Knocked(hit, t) for hit in (True, False) for t in ("", *PHOTO_CATEGORIES))
    for a, b in itertools.permutations(OBJECT_CATEGORIES, 2):
        yield Cut(a, b, after=True)
        yield Cut(a, b, after=False)
    yield from (Together(a, b) for a, b in itertools.permutations(PHOTO_CATEGORIES, 2))
    for c, o, r in itertools.product(PHOTO_CATEGORIES, ORDINALS, (False, True)):
        yield Ordinal(c, o, returns=r)
    yield from (Said(w) for w in KEYWORDS)
    yield from (Slide(t) for t in TITLES)
    yield from (Caption(t) for t in CAPTIONS)
    yield from (Score(h, a) for h, a in [(0, 0), (2, 1), (1, 2), (7, 5)])
    yield from (Person(face) for face in (False, True))


MEANINGS = list(every_meaning())


def test_every_kind_of_meaning_is_covered():
    assert {type(m) for m in MEANINGS} == set(WORDERS)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_meaning_has_the_most_wordings_all_different(seed):
    """MAX_WORDINGS - 1 (4) other wordings of everything, none the same as another or as the
    original, for several draws."""
    for meaning in MEANINGS:
        texts = wordings(meaning, MAX_WORDINGS - 1, np.random.default_rng(seed), "a cat")
        assert len({plain(t) for t in texts} | {plain("a cat")}) == MAX_WORDINGS, meaning


def test_asking_for_too_many_wordings_is_refused():
    with pytest.raises(ValueError, match="other wordings"):
        wordings(Person(), 9, np.random.default_rng(0))


# --- each wording still states the query's condition ------------------------------------------


def _said(phrase: str, text: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(phrase)}(?![\w-])", text.lower()) is not None


def categories_named(text: str) -> set[str]:
    """The catalogue categories a wording names by one of their nouns (longest noun first,
    so "tripod camera" is not also read as a bare "camera")."""
    found, rest = set(), text.lower()
    nouns = sorted(((n, c) for c, ns in NOUNS.items() for n in ns), key=lambda p: -len(p[0]))
    for noun, category in nouns:
        if _said(noun, rest):
            found.add(category)
            rest = re.sub(rf"(?<![\w-]){re.escape(noun)}(?![\w-])", " ", rest)
    return found


def window_is_stated(w: Window, text: str) -> bool:
    """Every time in the wording, read with the time grammar, is a bound of the window (or
    its length from the start or to the end), and at least one is there."""
    low = text.lower()
    clocks = [read_clock(t) for t in re.findall(CLOCK_LIKE, low)]
    minutes = [60 * float(n) for n in re.findall(r"minute (\d+)", low)]
    first = [amount_s(s) for s in re.findall(r"the first ([^,?]+)", low)]
    last = [amount_s(s) for s in re.findall(r"the last ([^,?]+)", low)]
    marks = [amount_s(s) for s in re.findall(r"the (\d+ \w+) mark", low)]
    ok = all(t in (w.start_s, w.end_s) for t in clocks + minutes)
    ok &= all(t == w.end_s and w.start_s == 0 for t in first)
    ok &= all(t == w.end_s - w.start_s and w.to_end for t in last)
    ok &= all(t == w.start_s and w.to_end for t in marks)
    if re.search(r"after \d|from [\d:]+ on|until the end", low):
        ok &= w.to_end
    if re.search(r"before \d", low):
        ok &= w.start_s == 0
    return ok and bool(clocks or minutes or first or last or marks)


#: Words a wording of each motion must hold.
MOTION_WORDS = {
    "cross": ("across", "cross", "one side"),
    "enter": ("into", "enter"),
    "exit": ("leav", "out of"),
    "cross-ltr": ("left to right",),
    "cross-rtl": ("right to left",),
    "zoom_in": ("zoom",),
    "zoom_out": ("zoom",),
    "pan": ("pan",),
    "still": ("still", "nothing mov"),
}


def states(meaning, text: str) -> bool:
    """Whether a wording names what `meaning` asks (a check written apart from the tables)."""
    low = text.lower()
    match meaning:
        case Shown(category=c, backdrop=b, look=look, motion=m, window=w):
            ok = categories_named(text) == {c}
            ok &= not b or b in low
            ok &= look != "blue" or "blue" in low
            ok &= look != "gray" or ("grey" in low or "black and white" in low.replace("-", " "))
            ok &= any(word in low for word in MOTION_WORDS.get(m, ("",)))
            return ok and (w is None or window_is_stated(w, text))
        case Named(noun=n):
            return any(_said(t, low) for t in THINGS[n]) and not categories_named(text) - {n}
        case Knocked(target=t):
            return "ball" in low and categories_named(text) == ({t} if t else set())
        case Cut(shown=a, other=b) | Together(first=a, second=b):
            return categories_named(text) == {a, b}
        case Ordinal(category=c, ordinal=o, returns=r):
            back = any(w in low for w in ("back", "return", "reappear", "again"))
            return categories_named(text) == {c} and o in low and back == r
        case Said(word=w):
            return _said(w, low)
        case Slide(title=t) | Caption(text=t):
            return t.lower() in low
        case Score(home=h, away=a):
            return re.search(rf"(?<!\d){h} ?- ?{a}(?!\d)", low) is not None
        case Person(face=True):
            return "face" in low
        case Person(face=False):
            return "face" not in low and bool(re.search(r"person|someone|anybody|presenter", low))
    return False


def test_every_wording_states_the_condition():
    for meaning in MEANINGS:
        for seed in range(3):
            for text in wordings(meaning, MAX_WORDINGS - 1, np.random.default_rng(seed)):
                assert states(meaning, text), (meaning, text)


def test_the_condition_check_catches_a_wrong_wording():
    """The check above fails on wordings that drift: another object, another window, another
    direction, a lost "comes back"."""
    assert not states(Shown("cat"), "show me the motorbike")
    assert not states(Shown("cat", window=WINDOWS[0]), "the cat from 2:40 to 5:30")
    assert not states(Shown("cat", window=WINDOWS[1]), "the cat in the last 5 minutes")
    assert not states(Shown("cat", motion="cross-ltr"), "the cat crossing right to left")
    assert not states(Ordinal("cat", "second", True), "the second cat to appear")
    assert not states(Score(2, 1), "when is the score 1 - 2?")


# --- the generated benchmarks --------------------------------------------------------------


@pytest.fixture(scope="module")
def planned():
    return plan(3, [1.0, 2.0, 12.0], seed=4, tiny=True)


def test_every_query_of_synth_has_two_more_wordings_with_its_truth(planned):
    kinds = set()
    for index, video in enumerate(planned):
        for group, query in zip(worded(video, 4, index, 3), video.queries, strict=True):
            original = group[0]
            assert [s.qid for s in group] == [
                original.qid,
                f"{original.qid}_w1",
                f"{original.qid}_w2",
            ]
            assert len({plain(s.query) for s in group}) == 3, [s.query for s in group]
            for other in group[1:]:
                same = ("gt", "attributes", "video", "duration_s", "domain")
                assert [getattr(other, f) for f in same] == [getattr(original, f) for f in same]
                assert states(query.meaning, other.query), (query.key, other.query)
            kinds.add(query.key.split("/")[0])
    assert kinds >= {"static", "dynamic", "sequential", "synchronous", "bounded", "causal",
                     "identity", "negative", "near-miss"}  # fmt: skip


def test_every_query_of_synth_av_has_two_more_wordings_with_its_truth():
    for index in range(2):
        av = plan_av(3, index, 6.0)
        spoken = {i: (u.start_s, u.start_s + 2.0) for i, u in enumerate(av.utterances)}
        pairs = av_queries(av, "v.mp4", spoken, f"av{index}")
        assert {type(m) for _, m in pairs} == {Said, Slide, Caption, Score, Person}
        for j, (sample, meaning) in enumerate(pairs):
            group = reworded(sample, meaning, 3, np.random.default_rng([3, index, 22, j]))
            assert len({plain(s.query) for s in group}) == 3
            assert all(s.gt == sample.gt and s.attributes == sample.attributes for s in group)
            assert all(states(meaning, s.query) for s in group[1:]), [s.query for s in group]


def test_wordings_are_drawn_from_the_seed_and_more_keep_the_first(planned):
    video = planned[0]
    three = [[s.query for s in g] for g in worded(video, 4, 0, 3)]
    assert three == [[s.query for s in g] for g in worded(video, 4, 0, 3)]
    five = [[s.query for s in g] for g in worded(video, 4, 0, 5)]
    assert [g[:3] for g in five] == three
    other_seed = [[s.query for s in g][1:] for g in worded(video, 5, 0, 3)]
    assert other_seed != [g[1:] for g in three]


def test_one_wording_writes_the_lines_of_old_and_more_add_lines_only(planned):
    video = planned[1]
    once = records(worded(video, 4, 1, 1), ["negative"])
    assert all("wording" not in line for line in once)
    thrice = records(worded(video, 4, 1, 3), ["negative"])
    originals = [dict(line) for line in thrice if line["wording"] == 0]
    for line in originals:
        del line["wording"]
    assert originals == once
    assert [line["wording"] for line in thrice] == [0, 1, 2] * len(once)


# --- the command -----------------------------------------------------------------------------


def test_synth_writes_k_wordings_that_load_and_k1_is_unchanged(tmp_path):
    one, three = tmp_path / "one", tmp_path / "three"
    base = ["synth", "--videos", "1", "--minutes", "0.5", "--tiny", "--seed", "2"]
    assert main([*base, "--out", str(one)]) == 0
    assert main([*base, "--out", str(three), "--wordings", "3"]) == 0
    lines = (three / JSONL_NAME).read_text().splitlines()
    kept = [json.loads(line) for line in lines if json.loads(line)["wording"] == 0]
    for line in kept:
        del line["wording"]
    assert [json.dumps(line) for line in kept] == (one / JSONL_NAME).read_text().splitlines()
    samples = load_samples(three / JSONL_NAME)
    assert len(samples) == len(lines) == 3 * len(kept)
    assert len({s.qid for s in samples}) == len(samples)


def test_generate_returns_every_wording(tmp_path):
    samples = generate(tmp_path, 1, 0.5, seed=2, tiny=True, wordings=2)
    assert [s.qid for s in samples[:2]] == ["synth_000_q000", "synth_000_q000_w1"]


@pytest.mark.parametrize("k", ["0", "6", "-1"])
@pytest.mark.parametrize("av", [[], ["--av"]])
def test_wordings_out_of_range_is_one_line_and_exit_2(tmp_path, capsys, k, av):
    assert main(["synth", *av, "--out", str(tmp_path / "x"), "--wordings", k]) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [f"longground: error: --wordings must be in [1, 5], got {k}"]
    assert not (tmp_path / "x").exists()


def test_dry_run_counts_every_wording(capsys):
    assert main(["synth", "--dry-run", "--videos", "1", "--tiny"]) == 0
    n_once = int(re.search(r"(\d+) queries", capsys.readouterr().out).group(1))
    assert main(["synth", "--dry-run", "--videos", "1", "--tiny", "--wordings", "3"]) == 0
    assert f"{3 * n_once} queries" in capsys.readouterr().out


def test_av_dry_run_writes_nothing_and_says_why(tmp_path, capsys):
    """The audio-visual truth is where the spoken sentences fall, so --av cannot plan without
    rendering: --dry-run is refused in one line instead of rendering anyway."""
    assert main(["synth", "--av", "--dry-run", "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["longground: error: --av does not take --dry-run: its truth comes from the "
                   "rendered speech"]  # fmt: skip
    assert not (tmp_path / "x").exists()
