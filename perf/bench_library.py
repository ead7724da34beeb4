"""Searching a simulated library of up to 1,000 hours: recall, query time, memory, updates.

Generates feature rows the way the index stores them (no decoding): 1 sample per second,
of which `--unique` are computed rows (content-adaptive indexing keeps only those; measured
on the synthetic benchmark), 384-d unit vectors around 2,000 "concepts", float16, one video
per hour; 20 random unit queries, top 10.

Default: the library index `find --top` uses (`index.library_index.LibraryIndex`, faiss IVF
memory-mapped). Per size, one process builds it and computes the exact top 10 of every
query (the baseline); a fresh process then opens the index and queries it, and prints
recall@10 against exact search, the first and the cached query time, its peak RSS beside
the size of the mapped files, and the time to add and to remove one video.

`--compare` measures the candidate libraries in one process per size, each against the same
exact search: usearch (HNSW), faiss (IVF, float16 rows) and LanceDB (IVF-PQ with exact
re-ranking, and IVF-HNSW-SQ), over a sweep of their search settings.

    python perf/bench_library.py                          # 10, 100, 1000 hours
    python perf/bench_library.py --compare --hours 10 100 # the libraries side by side

`--compare` needs the candidates installed: `pip install usearch lancedb` (faiss-cpu is in
the `fast` extra).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from longground.index.row_search import RowMatrix, recall_at_k

DIM, CONCEPTS, K, QUERIES = 384, 2000, 10, 20


def library(hours: float, unique: float, seed: int = 0) -> RowMatrix:
    """Computed rows of `hours` of video (one video per hour), float16, made in chunks."""
    rng = np.random.default_rng(seed)
    centers = rng.standard_normal((CONCEPTS, DIM)).astype(np.float32)
    centers /= np.linalg.norm(centers, axis=1, keepdims=True)
    n = int(hours * 3600 * unique)
    rows = np.empty((n, DIM), np.float16)
    for start in range(0, n, 100_000):
        m = min(100_000, n - start)
        x = centers[rng.integers(0, CONCEPTS, m)] + 0.6 * rng.standard_normal((m, DIM)) / DIM**0.5
        rows[start : start + m] = x / np.linalg.norm(x, axis=1, keepdims=True)
    owner = (np.arange(n) / (3600 * unique)).astype(np.int32)
    return RowMatrix(rows, owner)


def queries(seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((QUERIES, DIM)).astype(np.float32)
    return q / np.linalg.norm(q, axis=1, keepdims=True)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def recall(found: list[np.ndarray], exact: list[np.ndarray]) -> float:
    return float(np.mean([recall_at_k(a, e) for a, e in zip(found, exact, strict=True)]))


# -- the library index (default) ---------------------------------------------------------


def build(folder: Path, hours: float, unique: float) -> None:
    """Child process: the index of `hours` of video, and the exact answers to compare with."""
    from longground.index.library_index import LibraryIndex

    matrix = library(hours, unique)
    videos = [(f"v{v}.npz", f"v{v}.mp4", matrix.rows[matrix.owner == v])
              for v in range(int(matrix.owner.max()) + 1)]  # fmt: skip
    started = time.perf_counter()
    LibraryIndex(folder, "lib").update(added=videos)
    build_s = time.perf_counter() - started
    exact = np.stack([matrix.exact_top(q, K)[0] for q in queries()])
    np.save(folder / "exact.npy", exact)
    (folder / "build.json").write_text(json.dumps({"rows": len(matrix.rows), "build_s": build_s}))


def query(folder: Path) -> None:
    """Child process: open the index (mapped) and query it; print one JSON line."""
    from longground.index.library_index import LibraryIndex

    baseline_mb = peak_rss_mb()
    lib = LibraryIndex(folder, "lib")
    exact = np.load(folder / "exact.npy")
    firsts, cached, found = [], [], []
    for q in queries():
        for times in (firsts, cached):
            started = time.perf_counter()
            hits = lib.search(q, K)
            times.append(time.perf_counter() - started)
        ids = [lib.entries()[h.entry]["first_id"] + h.row for h in hits]
        found.append(np.array(ids))
    mapped = sum(p.stat().st_size for p in folder.rglob("*") if p.suffix in (".faiss", ".npy")
                 and p.name != "exact.npy")  # fmt: skip
    one = np.asarray(library(1, 0.25, seed=7).rows)
    started = time.perf_counter()
    lib.add("new.npz", "new.mp4", one)
    add_s = time.perf_counter() - started
    started = time.perf_counter()
    lib.remove("v0.npz")
    remove_s = time.perf_counter() - started
    print(json.dumps({"recall": recall(found, list(exact)), "first_ms": 1e3 * np.mean(firsts),
                      "cached_ms": 1e3 * np.median(cached), "max_ms": 1e3 * np.max(cached),
                      "rss_mb": peak_rss_mb(), "baseline_mb": baseline_mb,
                      "mapped_mb": mapped / 1e6, "add_s": add_s,
                      "remove_s": remove_s}))  # fmt: skip


def run_library(hours_list: list[float], unique: float) -> None:
    print(f"{DIM}-d rows, {unique:.0%} of 1 fps samples computed, top-{K}, {QUERIES} random "
          "queries; LibraryIndex (faiss IVF, float16 rows, memory-mapped)")  # fmt: skip
    print(f"{'hours':>6} {'rows':>10} {'build s':>8} {'recall@10':>9} {'first ms':>9} "
          f"{'cached ms':>9} {'max ms':>7} {'RSS MB':>7} {'start MB':>8} {'mapped MB':>9} "
          f"{'add 1 h s':>9} {'remove s':>8}")  # fmt: skip
    for hours in hours_list:
        with tempfile.TemporaryDirectory(prefix="lglib") as tmp:
            folder = Path(tmp)
            _child("build", folder, hours, unique)
            built = json.loads((folder / "build.json").read_text())
            out = json.loads(_child("query", folder, hours, unique).strip().splitlines()[-1])
        print(f"{hours:6g} {built['rows']:10,d} {built['build_s']:8.1f} {out['recall']:9.3f} "
              f"{out['first_ms']:9.1f} {out['cached_ms']:9.2f} {out['max_ms']:7.1f} "
              f"{out['rss_mb']:7.0f} {out['baseline_mb']:8.0f} {out['mapped_mb']:9.0f} "
              f"{out['add_s']:9.2f} {out['remove_s']:8.2f}", flush=True)  # fmt: skip


def _child(step: str, folder: Path, hours: float, unique: float) -> str:
    command = [sys.executable, __file__, "--step", step, "--folder", str(folder),
               "--hours", str(hours), "--unique", str(unique)]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, env=os.environ)
    if done.returncode:
        raise SystemExit(f"{step} failed:\n{done.stderr[-3000:]}")
    return done.stdout


# -- the candidate libraries (--compare) --------------------------------------------------


def timed(search, qs) -> tuple[float, list]:
    started = time.perf_counter()
    results = [np.asarray(search(q)) for q in qs]
    return (time.perf_counter() - started) / len(qs), results


def compare_usearch(matrix: RowMatrix, qs, exact) -> None:
    from usearch.index import Index

    index = Index(ndim=DIM, metric="ip", dtype="f16", connectivity=16, expansion_add=128)
    started = time.perf_counter()
    index.add(np.arange(len(matrix.rows)), matrix.rows, threads=0)
    build_s = time.perf_counter() - started
    for expansion in (128, 256, 512, 1024):
        index.expansion_search = expansion
        s, found = timed(lambda q: index.search(q.astype(np.float16), K).keys, qs)
        _row("usearch HNSW M=16", f"ef={expansion}", build_s, s, recall(found, exact))


def compare_faiss(matrix: RowMatrix, qs, exact) -> None:
    import faiss

    rows = matrix.rows.astype(np.float32)
    nlist = int(4 * np.sqrt(len(rows)))
    index = faiss.IndexIVFScalarQuantizer(faiss.IndexFlatIP(DIM), DIM, nlist,
                                          faiss.ScalarQuantizer.QT_fp16,
                                          faiss.METRIC_INNER_PRODUCT)  # fmt: skip
    started = time.perf_counter()
    sample = np.random.default_rng(0).permutation(len(rows))[: 64 * nlist]
    index.train(rows[sample])
    index.add(rows)
    build_s = time.perf_counter() - started
    for share in (0.05, 0.1, 0.25, 0.5):
        index.nprobe = max(1, int(share * nlist))
        s, found = timed(lambda q: index.search(q[None], K)[1][0], qs)
        _row(f"faiss IVF{nlist},SQfp16", f"nprobe={index.nprobe}", build_s, s, recall(found, exact))


def compare_lancedb(matrix: RowMatrix, qs, exact, folder: Path) -> None:
    import warnings

    os.environ.setdefault("LANCE_LOG", "error")  # its deprecation notes, once per query
    warnings.simplefilter("ignore", DeprecationWarning)
    import lancedb
    import pyarrow as pa

    db = lancedb.connect(str(folder))
    vectors = pa.FixedSizeListArray.from_arrays(pa.array(matrix.rows.astype(np.float32).ravel()),
                                                DIM)  # fmt: skip
    table = db.create_table("rows", pa.table({"id": np.arange(len(matrix.rows)),
                                              "vector": vectors}))  # fmt: skip
    partitions = int(np.sqrt(len(matrix.rows)))
    for kind, settings in (("IVF_PQ", (1, 5, 20)), ("IVF_HNSW_SQ", (None,))):
        started = time.perf_counter()
        table.create_index(metric="dot", vector_column_name="vector", index_type=kind,
                           num_partitions=partitions, replace=True)  # fmt: skip
        build_s = time.perf_counter() - started
        for probe_share in (0.1, 0.25):
            nprobes = max(1, int(probe_share * partitions))
            for refine in settings:
                def search(q, nprobes=nprobes, refine=refine):
                    found = table.search(q).metric("dot").nprobes(nprobes)
                    if refine is not None:
                        found = found.refine_factor(refine)
                    return found.limit(K).select(["id"]).to_arrow()["id"].to_numpy()

                s, found = timed(search, qs)
                label = f"nprobes={nprobes}" + ("" if refine is None else f" refine={refine}")
                _row(f"LanceDB {kind}", label, build_s, s, recall(found, exact))


def _row(library_name: str, setting: str, build_s: float, query_s: float, rec: float) -> None:
    print(f"{library_name:<24} {setting:<22} {build_s:8.1f} {query_s * 1e3:8.2f} {rec:7.3f} "
          f"{peak_rss_mb():7.0f}", flush=True)  # fmt: skip


def run_compare(hours_list: list[float], unique: float, libs: list[str]) -> None:
    qs = queries()
    for hours in hours_list:
        matrix = library(hours, unique)
        started = time.perf_counter()
        exact = [matrix.exact_top(q, K)[0] for q in qs]
        exact_ms = (time.perf_counter() - started) / len(qs) * 1e3
        print(f"\n{hours:g} hours, {len(matrix.rows):,} rows; exact search {exact_ms:.1f} ms a "
              "query (numpy, float16 rows)")  # fmt: skip
        print(f"{'library':<24} {'setting':<22} {'build s':>8} {'ms':>8} {'recall':>7} "
              f"{'RSS MB':>7}")  # fmt: skip
        if "usearch" in libs:
            compare_usearch(matrix, qs, exact)
        if "faiss" in libs:
            compare_faiss(matrix, qs, exact)
        if "lancedb" in libs:
            with tempfile.TemporaryDirectory(prefix="lglance") as tmp:
                compare_lancedb(matrix, qs, exact, Path(tmp))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hours", type=float, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--unique", type=float, default=0.25, help="computed rows per sample")
    parser.add_argument("--compare", action="store_true", help="usearch vs faiss vs LanceDB")
    parser.add_argument("--libs", nargs="+", default=["usearch", "faiss", "lancedb"])
    parser.add_argument("--step", choices=["build", "query"], help=argparse.SUPPRESS)
    parser.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.step == "build":
        build(args.folder, args.hours[0], args.unique)
    elif args.step == "query":
        query(args.folder)
    elif args.compare:
        run_compare(args.hours, args.unique, args.libs)
    else:
        run_library(args.hours, args.unique)


if __name__ == "__main__":
    main()
