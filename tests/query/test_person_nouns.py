"""WordNet's kinds of person as people (`query.words.person_noun`, `data/person_nouns.tsv`)
and the bar that keeps people known by a thing with the image encoder, as
`perf/wordnet_person_nouns.py` chose it on the hand-labelled role nouns."""

from __future__ import annotations

import pytest

from longground.query.words import _wordnet_people, person_noun
from tests.support.perf_scripts import perf_script


@pytest.mark.parametrize(
    ("word", "person"),
    [("newsreader", True), ("newsreaders", True), ("witnesses", True), ("deputies", True),
     ("children", True), ("guest", True),
     ("photographer", False), ("violinist", False),  # known by a camera, a violin
     ("dragon", False), ("gnome", False),  # imaginary beings
     ("boxer", False), ("bunny", False),  # the encoder's dog and rabbit
     ("dress", False), ("dive", False)],  # not a plural of a person noun
)  # fmt: skip
def test_person_nouns(word, person):
    assert person_noun(word) is person


def test_the_table_holds_no_word_the_encoder_reads_as_a_thing():
    from longground.encoders.class_words import vocabulary

    people = _wordnet_people()
    assert len(people) > 4000 and not people & set(vocabulary())


def test_the_bar_is_the_best_on_the_labelled_role_nouns(capsys):
    pytest.importorskip("sentence_transformers")
    script = perf_script("wordnet_person_nouns")
    script.check()
    lines = capsys.readouterr().out.splitlines()
    right = {line.split(":")[0]: int(line.split()[1]) for line in lines}
    used = next(line for line in lines if "<- used" in line)
    assert used.startswith(f"{script.OBJECT_SIMILARITY:.2f}: 36 of 45 right")
    assert max(right.values()) == right[f"{script.OBJECT_SIMILARITY:.2f}"]
