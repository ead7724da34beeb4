"""Everyday nouns mapped to the words the image encoder knows.

The offline encoder names what it sees with ImageNet's WordNet words (`encoders.class_words`):
"motorcycle", "cat", "coffee mug". People say "motorbike", "kitty", "mug", "puppy", "tv".
A noun the vocabulary lacks is replaced by the word WordNet relates it to ("lorry" ->
"truck", "pooch" -> "dog", "telly" -> none: `data/wordnet_nouns.tsv`, written by
`perf/wordnet_nouns.py`); for a noun that table lacks, by its nearest vocabulary word in the
sentence model's space when that word is close enough (`SYNONYM_SIMILARITY`), or, when no
dictionary knows it, by the one vocabulary word it is a slip of the keys for ("elephnat" ->
"elephant", `MISSPELT_SIMILARITY`); otherwise it is kept as it is (the encoder then compares
the whole phrase by meaning).
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from importlib import resources

import numpy as np

from .grammar import indefinite

#: Cosine at which a noun counts as another name for a vocabulary word: "kitty" -> "cat" 0.84,
#: "puppy" -> "dog" 0.80, "tv" -> "television" 0.96; "pony" -> "horse" 0.67 and "lorry" ->
#: "articulated lorry" 0.69 stay as they are (measured with all-MiniLM-L6-v2).
SYNONYM_SIMILARITY = 0.78


def canonical_noun(noun: str) -> str | None:
    """The vocabulary word for `noun` (itself, its singular, or its nearest synonym), or None
    when it has none.

    >>> canonical_noun("cars"), canonical_noun("kitty"), canonical_noun("campus")
    ('car', 'domestic cat', None)
    >>> canonical_noun("motor-bike")  # a hyphen may join a closed compound
    'motorbike'
    >>> canonical_noun("animal")  # too general to name classes: no synonym either
    >>> canonical_noun("woman"), canonical_noun("skier")  # people: the people channel's
    (None, None)
    """
    from ..encoders.class_words import (
        IGNORED,
        named_classes,
        person_classes,
        too_general,
        vocabulary,
    )

    word = noun.lower().strip()
    if not word:
        return None
    joined = canonical_noun(word.replace("-", "")) if "-" in word.strip("-") else None
    if joined:
        return joined
    words = set(vocabulary())
    if word in words:
        return word
    if word.endswith("s") and word[:-1] in words:
        return word[:-1]
    if word.endswith("es") and word[:-2] in words:
        return word[:-2]
    if too_general(word) or (word.endswith("s") and too_general(word[:-1])):
        return None  # "animal" is no other name for "canine"
    if word in IGNORED or word.removesuffix("s") in IGNORED:
        return None  # "shots" and "frames" are the footage, not what it shows
    known = wordnet_noun(word)
    found = known if known is not None else _nearest(word) or spelling_slip(word)
    if not found or set(named_classes(found)) <= person_classes():
        return None  # a woman, a skier: people, not ImageNet's few (a groom, a ballplayer)
    return found


def neighbour_texts(text: str) -> tuple[str, ...]:
    """Texts naming the ImageNet classes that those `text` names are most easily confused
    with (`class_words.neighbour_classes`), one per class: what a near miss of `text` shows.

    >>> neighbour_texts("a car")[:3], neighbour_texts("the moon at night")
    (('an amphibian', 'a barrow', 'a bicycle-built-for-two'), ())
    """
    from ..encoders.class_words import named_classes, neighbour_classes
    from ..encoders.imagenet_labels import imagenet_lemmas

    names = imagenet_lemmas()
    return tuple(indefinite(names[i][0]) for i in neighbour_classes(named_classes(text)))


def name_alike(text: str, other: str) -> bool:
    """Whether the two texts name one ImageNet class in common.

    >>> name_alike("a truck", "the trucks"), name_alike("a truck", "a chair")
    (True, False)
    """
    from ..encoders.class_words import named_classes

    return bool(set(named_classes(text)) & set(named_classes(other)))


def wordnet_noun(word: str) -> str | None:
    """The vocabulary word WordNet relates `word` (or its singular) to; "" for a noun WordNet
    knows without one; None for a word it does not know.

    >>> [wordnet_noun(w) for w in ("lorries", "pooch", "dinghy", "doggo")]
    ['truck', 'dog', '', None]
    """
    table = _wordnet_table()
    forms = [word]
    if word.endswith("s"):  # "lorries", "boxes", "dogs"
        forms += [f"{word[:-3]}y", word[:-2], word[:-1]]
    return next((table[form] for form in forms if form in table), None)


@lru_cache(maxsize=1)
def _wordnet_table() -> dict[str, str]:
    text = resources.files("longground.data").joinpath("wordnet_nouns.tsv").read_text("utf-8")
    rows = (line.split("\t") for line in text.splitlines() if line and not line.startswith("#"))
    return {noun: word for noun, word in rows}


#: How alike a word no dictionary knows must be to a vocabulary word to be read as it
#: (difflib's ratio): "elephnat" -> "elephant" 0.88, "umbrela" -> "umbrella" 0.93.
MISSPELT_SIMILARITY = 0.8


@lru_cache(maxsize=2048)
def spelling_slip(word: str) -> str | None:
    """The vocabulary word `word` is a slip of the keys for: a word neither TextBlob's
    spelling list nor its tagger's lexicon knows ("elephnat", "umbrela", "dogg") that is
    alike one vocabulary word only (not "hourse": house or horse). WordNet's nouns are
    known words too, but `canonical_noun` asks WordNet first.

    >>> spelling_slip("elephnat"), spelling_slip("hourse"), spelling_slip("giraffe")
    ('elephant', None, None)
    """
    import difflib

    try:
        from textblob.en import lexicon, spelling
    except ImportError:  # the `nlp` extra is missing: no dictionary to tell a slip by
        return None
    from ..encoders.class_words import vocabulary

    if word in spelling or word in lexicon:
        return None
    close = difflib.get_close_matches(word, sorted(set(vocabulary())), n=2,
                                      cutoff=MISSPELT_SIMILARITY)  # fmt: skip
    return close[0] if len(close) == 1 else None


@lru_cache(maxsize=2048)
def _nearest(word: str) -> str | None:
    table = vocabulary_vectors()
    if table is None:
        return None
    words, vectors, model = table
    v = model.encode([word])[0]
    sims = vectors @ v
    best = int(np.argmax(sims))
    return words[best] if float(sims[best]) >= SYNONYM_SIMILARITY else None


@lru_cache(maxsize=1)
def vocabulary_vectors():
    """`(words, (V, 384) unit vectors, model)` of the vocabulary, or None without the model."""
    try:
        from ..encoders.class_words import vocabulary
        from ..encoders.disk_cache import cached_array
        from ..encoders.minilm import MiniLM

        model = MiniLM()
    except Exception:  # noqa: BLE001 - any missing piece of the model means "no synonyms"
        return None
    words = vocabulary()
    key = "\n".join([model.fingerprint, *words])
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    vectors = cached_array(
        f"vocabulary-{digest}", (len(words), 384), lambda: model.encode(list(words), 256)
    )
    return words, vectors, model
