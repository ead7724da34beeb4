"""Write src/longground/data/imagenet_hypernyms.tsv from WordNet 3.0 (run once, by hand).

ImageNet-1k's synset ids are WordNet 3.0 noun offsets ("n02389026" is offset 02389026 in
`data.noun`). For each class this follows the hypernym pointers (`@` and `@i`) up to the root
and writes every lemma met on the way, so the label bridge can tell that a "sorrel" is a horse
and a "kelpie" a dog (docs/encoders.md, "Query words to classes").

    apt-get install wordnet-base        # Debian's WordNet 3.0 database (WordNet licence)
    python perf/imagenet_hypernyms.py /usr/share/wordnet/data.noun

Not used at run time; the output is package data.
"""

from __future__ import annotations

import sys
from pathlib import Path

from longground.encoders.imagenet_labels import imagenet_synsets

OUT = Path(__file__).resolve().parents[1] / "src/longground/data/imagenet_hypernyms.tsv"
HEADER = (
    "# ImageNet-1k classes in model output order: synset<TAB>lemmas of every WordNet 3.0\n"
    "# hypernym, nearest first (perf/imagenet_hypernyms.py; WordNet 3.0, Princeton licence).\n"
)


def read_nouns(path: Path) -> dict[str, tuple[list[str], list[str]]]:
    """Offset -> (lemmas, hypernym offsets) from a WordNet `data.noun` file."""
    synsets = {}
    for line in path.read_text("latin-1").splitlines():
        if line.startswith(" "):
            continue
        fields = line.split(" ")
        n_words = int(fields[3], 16)
        lemmas = [fields[4 + 2 * i].replace("_", " ").lower() for i in range(n_words)]
        at = 4 + 2 * n_words
        n_ptrs = int(fields[at])
        parents = [
            fields[at + 1 + 4 * i + 1]
            for i in range(n_ptrs)
            if fields[at + 1 + 4 * i] in ("@", "@i") and fields[at + 1 + 4 * i + 2] == "n"
        ]
        synsets[fields[0]] = (lemmas, parents)
    return synsets


def hypernym_lemmas(offset: str, synsets: dict) -> list[str]:
    """Lemmas of every ancestor of `offset`, breadth first, without repeats."""
    seen, order, queue = {offset}, [], list(synsets[offset][1])
    while queue:
        parent = queue.pop(0)
        if parent in seen:
            continue
        seen.add(parent)
        lemmas, parents = synsets[parent]
        order.extend(lemma for lemma in lemmas if lemma not in order)
        queue.extend(parents)
    return order


def main(data_noun: str) -> None:
    synsets = read_nouns(Path(data_noun))
    rows = [f"{s}\t{', '.join(hypernym_lemmas(s[1:], synsets))}" for s in imagenet_synsets()]
    OUT.write_text(HEADER + "\n".join(rows) + "\n", "utf-8")
    print(f"wrote {OUT} ({len(rows)} classes)")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/usr/share/wordnet/data.noun")
