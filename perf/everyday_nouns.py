"""How many everyday nouns reach an image-encoder word that means them.

`data/queries/everyday_nouns.tsv` lists 40 nouns people use for things ImageNet names by other
words ("moggy", "lorry", "saloon", "teacup"), each with the vocabulary words it may be read as,
written by hand before `data/wordnet_nouns.tsv` existed; `everyday_nouns_heldout.tsv` 40 more,
written before the table's last change and not run before it. This prints what
`query.vocabulary.canonical_noun` makes of each, and how many are read right, wrong (another
word) or not at all, per file:

    python perf/everyday_nouns.py
"""

from __future__ import annotations

from pathlib import Path

from longground.query.vocabulary import canonical_noun

QUERIES = Path(__file__).resolve().parents[1] / "data/queries"
TABLES = (QUERIES / "everyday_nouns.tsv", QUERIES / "everyday_nouns_heldout.tsv")


def read(path: Path) -> list[tuple[str, set[str]]]:
    """`(noun, the words it may be read as)` per row."""
    rows = []
    for line in path.read_text("utf-8").splitlines():
        if line and not line.startswith("#"):
            noun, words = line.split("\t")
            rows.append((noun, set(words.split(","))))
    return rows


def score(rows: list[tuple[str, set[str]]]) -> dict[str, list[str]]:
    """The nouns read right, wrong and not at all."""
    out: dict[str, list[str]] = {"right": [], "wrong": [], "none": []}
    for noun, words in rows:
        read_as = canonical_noun(noun)
        kind = "none" if read_as is None else "right" if read_as in words | {noun} else "wrong"
        out[kind].append(noun if kind != "wrong" else f"{noun} -> {read_as}")
    return out


def main() -> None:
    for table in TABLES:
        result = score(read(table))
        total = sum(map(len, result.values()))
        print(table.name)
        for kind, nouns in result.items():
            print(f"  {kind:6} {len(nouns):3d} / {total}: {', '.join(nouns)}")


if __name__ == "__main__":
    main()
