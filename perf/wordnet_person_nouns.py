"""Write src/longground/data/person_nouns.tsv from WordNet 3.0 (run once, by hand).

People name people by what they do: "the newsreader", "a witness", "the guest", "a
skateboarder". WordNet knows each as a kind of person (a hyponym of person.n.01). A one-word
noun (hyphens allowed) is written when its commonest sense (the first of those tagged in
WordNet's sense-tagged corpus), or every sense of a word with none tagged, is such a kind:
not one named person (an instance: "Ford", "Bach"), not an imaginary being ("a dragon", "a
gnome"), and not a sense WordNet marks by usage (slurs, slang). Left out too, for the image
encoder: a word its vocabulary reads as a thing ("a boxer" stays the dog, "a bunny" the
rabbit), and a person known by a thing or place it sees, where the sentence model puts the
word at a cosine of `OBJECT_SIMILARITY` or more to a vocabulary word ("a violinist": a
violin, 0.89; "a photographer": a camera, 0.74; not "a newsreader": a feed, 0.55; see
below). Irregular plurals come from WordNet's `noun.exc` ("children"); regular ones are read
at run time (`query.words.person_noun`).

`OBJECT_SIMILARITY` was chosen on `data/queries/role_nouns.tsv`, 45 role nouns labelled by
hand (known by a thing or place, or not) before their cosines were computed: 0.62 labels 36
of them right, the most of any bar, as does 0.58; the higher keeps more of WordNet's people
for the people channel (`python perf/wordnet_person_nouns.py --check`).

    apt-get install wordnet-base        # Debian's WordNet 3.0 database (WordNet licence)
    python perf/wordnet_person_nouns.py /usr/share/wordnet
    python perf/wordnet_person_nouns.py --check     # the bar on the hand-labelled role nouns

Not used at run time; the output is package data.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from wordnet_nouns import read_index, wordnet_or_exit

from longground.query.vocabulary import canonical_noun, vocabulary_vectors

OUT = Path(__file__).resolve().parents[1] / "src/longground/data/person_nouns.tsv"
HEADER = (
    "# One-word WordNet 3.0 nouns whose commonest sense is a kind of person, and their\n"
    "# irregular plurals; perf/wordnet_person_nouns.py, WordNet 3.0, Princeton licence.\n"
)
PERSON = "00007846"  # person, individual, someone, somebody, mortal, soul
#: Cosine (all-MiniLM-L6-v2) to the nearest vocabulary word from which a person is known by
#: a thing or place the image encoder sees (see above).
OBJECT_SIMILARITY = 0.62
ROLE_NOUNS = Path(__file__).resolve().parents[1] / "data/queries/role_nouns.tsv"


def person_synsets(path: Path) -> set[str]:
    """The offsets of WordNet's `data.noun` synsets that are kinds of person: below "person"
    (`PERSON`) through class links (`@`; an instance, one named person, has only `@i`), with
    no usage domain (`;u`). WordNet files imaginary beings with people, but not below it."""
    parents, marked = {}, set()
    for line in path.read_text("latin-1").splitlines():
        if line.startswith(" "):
            continue
        fields = line.split(" ")
        at = 4 + 2 * int(fields[3], 16)
        pointers = [fields[i : i + 2] for i in range(at + 1, at + 1 + 4 * int(fields[at]), 4)]
        parents[fields[0]] = [offset for symbol, offset in pointers if symbol == "@"]
        if any(symbol == ";u" for symbol, _ in pointers):
            marked.add(fields[0])

    def is_person(offset: str, seen: frozenset = frozenset()) -> bool:
        return offset == PERSON or any(
            is_person(p, seen | {offset}) for p in parents[offset] if p not in seen
        )

    return {offset for offset in parents if offset not in marked and is_person(offset)}


def nearest_object(nouns: list[str]) -> np.ndarray:
    """`(N,)` each noun's cosine to its nearest vocabulary word in the sentence model."""
    _, vectors, model = vocabulary_vectors()
    return (model.encode(nouns) @ vectors.T).max(axis=1)


def check() -> None:
    """How well each bar tells the hand-labelled role nouns known by a thing from the rest."""
    rows = [line.split("\t") for line in ROLE_NOUNS.read_text().splitlines()
            if line and not line.startswith("#")]  # fmt: skip
    cosines = nearest_object([noun for noun, _ in rows])
    known = np.array([label.strip() == "y" for _, label in rows])
    for bar in np.arange(0.50, 0.91, 0.02):
        right = int(((cosines >= bar) == known).sum())
        used = "  <- used" if abs(bar - OBJECT_SIMILARITY) < 1e-9 else ""
        print(f"{bar:.2f}: {right} of {len(rows)} right{used}")


def main(folder: Path) -> None:
    kinds = person_synsets(folder / "data.noun")
    index = read_index(folder / "index.noun")
    people = sorted(
        lemma
        for lemma, (senses, ranked) in index.items()
        if " " not in lemma and lemma.replace("-", "").isalpha()
        and (senses[0] in kinds if ranked else set(senses) <= kinds)
        and canonical_noun(lemma) is None
    )  # fmt: skip
    people = [w for w, c in zip(people, nearest_object(people)) if c < OBJECT_SIMILARITY]
    chosen = set(people)
    exceptions = (folder / "noun.exc").read_text("latin-1").splitlines()
    plurals = sorted(  # not a noun of its own: "dive" is also the plural of "diva"
        plural
        for plural, lemma in (line.split()[:2] for line in exceptions)
        if lemma in chosen and plural.isalpha() and plural not in index
    )  # fmt: skip
    OUT.write_text(HEADER + "".join(f"{w}\n" for w in sorted({*people, *plurals})))
    print(f"{len(people)} nouns and {len(plurals)} irregular plurals -> {OUT}")


if __name__ == "__main__":
    if sys.argv[1:] == ["--check"]:
        check()
    else:
        main(wordnet_or_exit(sys.argv[1] if len(sys.argv) > 1 else "/usr/share/wordnet",
                             "wordnet_person_nouns"))
