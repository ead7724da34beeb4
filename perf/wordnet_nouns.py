"""Write src/longground/data/wordnet_nouns.tsv from WordNet 3.0 (run once, by hand).

People name things with words the image encoder's vocabulary lacks: "lorry", "pooch",
"stallion", "kettle". WordNet knows them, and where they sit: a lorry is a kind of truck, a
pooch a kind of dog. For every WordNet noun (one or two words) outside the vocabulary, this
collects the vocabulary words WordNet relates it to through one of the senses people use
(those tagged in WordNet's sense-tagged corpus, or all of a word with none tagged), in sense
order, and none when the commonest sense is none of the first two below ("a window" is no
computer display, "a line" no connection):

- the sense itself, when that synset is an ImageNet class or an ancestor of one (the word is
  another name for it);
- else the sense's hypernym that is (the word names a kind of it), or the one two steps up
  when the step between names a kind of it ("stallion": a male horse, a horse);
- a word of the sense, or of its hypernym, that the vocabulary holds with another meaning
  (a cup, which ImageNet holds as the drink).

The first two are followed by synset, so a word shared by two senses does not leak ("gull",
a dupe, is a "mug" in WordNet, but that mug is no drinking mug); the third by spelling, so it
must be nearer. The sentence model then picks the sense people mean: the candidate whose
cosine to the word clears its bar by the most, `SENSE_SIMILARITY` for a synset ("lorry": the
truck, 0.54, not the horse-drawn wagon, 0.36; "flat" is no box, 0.30) and
`SPELLING_SIMILARITY` for a spelling ("cop" is no "pig", 0.31).

A single word with nothing kept is written with an empty mapping when the vocabulary's other
readers would map it (the sentence model's nearest word at `vocabulary.SYNONYM_SIMILARITY`,
or a slip of the keys) to a word WordNet does not relate to it (no lemma of its senses or of
their hypernyms): WordNet knows the word, and its verdict stands ("dinghy" is no "dingo",
"vole" no "volute"; "tv" may still be "television", a lemma of its own sense).

    apt-get install wordnet-base        # Debian's WordNet 3.0 database (WordNet licence)
    python perf/wordnet_nouns.py /usr/share/wordnet

Not used at run time; the output is package data (`query.vocabulary`).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from imagenet_hypernyms import read_nouns

from longground.encoders.class_words import vocabulary
from longground.encoders.imagenet_labels import imagenet_synsets
from longground.query.vocabulary import SYNONYM_SIMILARITY, spelling_slip, vocabulary_vectors

OUT = Path(__file__).resolve().parents[1] / "src/longground/data/wordnet_nouns.tsv"
HEADER = (
    "# WordNet 3.0 nouns outside the image encoder's vocabulary<TAB>the vocabulary word they\n"
    "# are read as (empty: a word WordNet knows, so no slip of the keys); perf/wordnet_nouns.py,\n"
    "# WordNet 3.0, Princeton licence.\n"
)
#: Cosine (all-MiniLM-L6-v2) at which a WordNet relation is the sense people mean.
SENSE_SIMILARITY = 0.4
#: The same for a word related by spelling alone (another sense of a vocabulary word).
SPELLING_SIMILARITY = 0.6


def wordnet_or_exit(folder: str, script: str) -> Path:
    """`folder` when it holds WordNet 3.0's noun files, else one line on stderr and exit 2."""
    path = Path(folder)
    missing = [f for f in ("data.noun", "index.noun", "noun.exc") if not (path / f).is_file()]
    if missing:
        print(f"{script}: {path}: no WordNet 3.0 database here ({', '.join(missing)} missing; "
              "apt-get install wordnet-base)", file=sys.stderr)  # fmt: skip
        raise SystemExit(2)
    return path


def read_index(path: Path) -> dict[str, tuple[list[str], bool]]:
    """Lemma -> (the synset offsets of the senses people use, most frequent first, whether
    they are ranked), from WordNet's `index.noun`: those tagged in its sense-tagged corpus,
    or every sense, in no known order, of a word with none tagged ("lorry")."""
    senses = {}
    for line in path.read_text("latin-1").splitlines():
        if line.startswith(" "):
            continue
        fields = line.split()
        n_pointers, tagged = int(fields[3]), int(fields[5 + int(fields[3])])
        offsets = fields[6 + n_pointers :]
        senses[fields[0].replace("_", " ").lower()] = (offsets[:tagged] or offsets, tagged > 0)
    return senses


def ancestors(offsets: list[str], synsets: dict) -> set[str]:
    """`offsets` and every hypernym above them."""
    seen, queue = set(), list(offsets)
    while queue:
        offset = queue.pop()
        if offset not in seen:
            seen.add(offset)
            queue.extend(synsets[offset][1])
    return seen


def related(senses: list[str], synsets: dict) -> set[str]:
    """Every lemma of a noun's senses and of their direct hypernyms."""
    lemmas = set()
    for offset in senses:
        lemmas.update(synsets[offset][0])
        for parent in synsets[offset][1]:
            lemmas.update(synsets[parent][0])
    return lemmas


def candidates(
    senses: tuple[list[str], bool], synsets: dict, named: dict[str, str], words: set[str]
) -> dict[str, float]:
    """The vocabulary words a noun's senses relate it to, each with the cosine it needs."""
    senses, ranked = senses
    found: dict[str, float] = {}
    for k, offset in enumerate(senses):
        word = next((named[s] for s in (offset, *synsets[offset][1]) if s in named), None)
        word = word or _kind_of_named(offset, synsets, named)
        if word:
            found.setdefault(word, SENSE_SIMILARITY)
        elif k == 0 and ranked:
            return found  # the commonest sense names nothing the encoder knows ("a window")
        for lemma in related([offset], synsets) & words:
            found.setdefault(lemma, SPELLING_SIMILARITY)
    return found


def _kind_of_named(offset: str, synsets: dict, named: dict[str, str]) -> str | None:
    """The named word two steps up when the step between is a kind of it by name: a stallion
    is a "male horse", a horse (a wall is a "partition", a structure: no)."""
    for parent in synsets[offset][1]:
        for grandparent in synsets[parent][1]:
            word = named.get(grandparent)
            if word and any(lemma.endswith(f" {word}") for lemma in synsets[parent][0]):
                return word
    return None


def _other_reading(noun: str, sims: np.ndarray, words: tuple[str, ...]) -> set[str]:
    """What the vocabulary's other readers make of a one-word `noun`: the sentence model's
    nearest word (when close enough) and the word it is a slip of the keys for."""
    nearest = words[int(np.argmax(sims))] if sims.max() >= SYNONYM_SIMILARITY else None
    return {nearest, spelling_slip(noun)} - {None}


def main(wordnet: Path) -> None:
    synsets = read_nouns(wordnet / "data.noun")
    index = read_index(wordnet / "index.noun")
    words = set(vocabulary())
    # a synset that names classes, read as its first lemma the vocabulary holds
    named = {}
    for offset in ancestors([s[1:] for s in imagenet_synsets()], synsets):
        lemma = next((w for w in synsets[offset][0] if w in words), None)
        if lemma:
            named[offset] = lemma
    vocabulary_words, vocabulary_unit, model = vocabulary_vectors()
    nouns = [n for n in sorted(index) if n not in words and len(n.split()) <= 2
             and n.replace(" ", "").isalpha()]  # fmt: skip
    near = model.encode(nouns, 256) @ vocabulary_unit.T  # rows of unit length: cosines
    rows = []
    for noun, sims in zip(nouns, near):
        found = candidates(index[noun], synsets, named, words)
        choice = ""
        if found:
            vectors = model.encode([noun, *found])
            margins = vectors[1:] @ vectors[0] - np.array(list(found.values()))
            best = int(np.argmax(margins))
            choice = list(found)[best] if margins[best] >= 0 else ""
        if choice or (" " not in noun and _other_reading(noun, sims, vocabulary_words)
                      - related(index[noun][0], synsets)):  # fmt: skip
            rows.append(f"{noun}\t{choice}")
    OUT.write_text(HEADER + "\n".join(rows) + "\n", "utf-8")
    print(f"wrote {OUT} ({len(rows)} nouns, {sum(not r.endswith(chr(9)) for r in rows)} mapped)")


if __name__ == "__main__":
    main(wordnet_or_exit(sys.argv[1] if len(sys.argv) > 1 else "/usr/share/wordnet",
                         "wordnet_nouns"))
