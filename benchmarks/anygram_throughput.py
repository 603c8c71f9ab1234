"""Throughput of the any-gram kernels: the paper's DP against the exact fast paths, and NGTK against AGK.

For every variant (sm, west, wess) on the SST training sentences (all pairs
among them) it times the fast path, and the jitted dynamic programme on all
of them or, with ``dp_sentences``, on a seeded sample of that many (the DP's
cost per pair does not depend on how many sentences there are, so its pairs/s
on a random sample estimates that on all of them); it checks that the two
agree on the pairs both computed, and reports pairs/s and their ratio
(``speedup``). Then it times NGTK against AGK on the SemEval-2014 laptop
training sentences (all pairs): NGTK's tree DP (``tree-dp``) and its fast path over
matching word pairs (``match-runs``, ``speedup`` against the tree DP, checked
against it), then AGK's DP and fast path, whose ``speedup`` is NGTK's fast-path
time over theirs (above 1: AGK is faster). JIT compilation is
done on a few sentences first and not timed. A fast path runs ``repeats`` times
and reports its best time (its first run, which also pays the operating
system for fresh memory pages, is in ``first_seconds``); a DP runs once. Writes a CSV with one row per
measurement and prints the same table.

Usage::

    python benchmarks/anygram_throughput.py --sst sst.parquet --laptop semeval14_laptop.parquet \\
        --embeddings embeddings_glove6b50d.npz --settings '{"sentences": 0, "dp_sentences": 2000,
        "ngtk_sentences": 0, "theta": 0.8, "lam": 0.4, "repeats": 3, "seed": 1}' --threads 2 --out anygram.csv
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import sys
import time

import numpy as np
import pandas as pd

from kernbench.fileio import write_text_atomic
from kernbench.kernels.anygram import anygram_gram
from kernbench.kernels.anygram_encoding import TokenEncoder
from kernbench.kernels.ngtk import ngtk_gram
from kernbench.runs import set_threads


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _train(path: str, limit: int) -> pd.DataFrame:
    frame = pd.read_parquet(path)
    frame = frame[frame["split"] == "train"]
    return frame.iloc[:limit] if limit else frame


def _timed(fn):
    started = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - started


def _best_of(fn, repeats: int):
    """The last value of ``fn()`` run ``repeats`` times (at least once), and the seconds of every run."""
    times = []
    for _ in range(max(repeats, 1)):
        value, seconds = _timed(fn)
        times.append(seconds)
    return value, times


def dp_sample(n: int, size: int, seed: int) -> np.ndarray:
    """Sorted indices of the ``size`` sentences (of ``n``) the DP is timed on: all for 0 or ``size >= n``."""
    if size <= 0 or size >= n:
        return np.arange(n)
    return np.sort(np.random.default_rng(seed).choice(n, size=size, replace=False))


def _rel_diff(a: np.ndarray, b: np.ndarray) -> float:
    """Largest |a - b| relative to the kernel scale sqrt(K(x,x) K(y,y)) of the entry."""
    scale = np.sqrt(np.outer(np.abs(np.diag(b)), np.abs(np.diag(b))))
    return float(np.max(np.abs(a - b) / np.maximum(scale, 1e-300))) if a.size else 0.0


def run(args) -> pd.DataFrame:
    settings = json.loads(args.settings)
    lam, theta = float(settings["lam"]), float(settings["theta"])
    repeats = int(settings.get("repeats", 3))
    set_threads(args.threads)
    encoder = TokenEncoder.from_npz(args.embeddings)
    sst = _train(args.sst, settings["sentences"])
    ids = [encoder.ids(t) for t in sst["tokens"]]
    n = len(ids)
    pairs = n * (n + 1) // 2
    sample = dp_sample(n, int(settings.get("dp_sentences", 0)), int(settings.get("seed", 0)))
    dp_ids = [ids[i] for i in sample]
    dp_pairs = len(dp_ids) * (len(dp_ids) + 1) // 2
    rows = []

    def record(dataset, kernel, method, n_sent, n_pairs, seconds, diff, speedup, first=None, every=None):
        rows.append(
            {
                "dataset": dataset,
                "kernel": kernel,
                "method": method,
                "sentences": n_sent,
                "pairs": n_pairs,
                "seconds": round(seconds, 3),
                "first_seconds": round(seconds if first is None else first, 3),
                "repeat_seconds": ";".join(f"{t:.3f}" for t in (every or [seconds])),
                "pairs_per_s": round(n_pairs / seconds, 1) if seconds > 0 else float("inf"),
                "speedup": round(speedup, 2),
                "max_rel_diff_vs_dp": diff,
                "peak_rss_mb": round(_peak_rss_mb(), 1),
                "threads": args.threads,
            }
        )
        print(
            f"{dataset:18s} {kernel:9s} {method:10s} {n_pairs:>11,d} pairs {seconds:9.2f} s "
            f"{n_pairs / seconds:>13,.0f} pairs/s  x{speedup:7.2f}  diff {diff:.1e}",
            flush=True,
        )

    vectors = encoder.vectors
    for variant in ("sm", "west", "wess"):
        kw = {"variant": variant, "lam": lam, "vectors": vectors, "theta": theta}
        for method in ("dp", "auto"):  # compile before timing
            anygram_gram(ids[:8], method=method, **kw)
            anygram_gram(ids[:8], ids[:3], method=method, **kw)
        k_dp, t_dp = _timed(lambda: anygram_gram(dp_ids, method="dp", **kw))
        record("sst", f"AGK{variant}", "dp", len(dp_ids), dp_pairs, t_dp, 0.0, 1.0)
        times = []
        for _ in range(repeats):
            k_fast, t_fast = _timed(lambda: anygram_gram(ids, method="auto", **kw))
            times.append(t_fast)
        name = {"sm": "ngram-map", "west": "match-bits", "wess": "suffix-gemm"}[variant]
        best = min(times)
        diff = _rel_diff(k_fast[np.ix_(sample, sample)], k_dp)
        speedup = (pairs / best) / (dp_pairs / t_dp)
        record("sst", f"AGK{variant}", name, n, pairs, best, diff, speedup, first=times[0], every=times)
        del k_dp, k_fast

    laptop = _train(args.laptop, settings["ngtk_sentences"])
    ids = [encoder.ids(t) for t in laptop["tokens"]]
    masks = list(laptop["aspect_mask"])
    vectors = np.vstack([encoder.vectors, np.zeros((len(encoder.index) - encoder.vectors.shape[0], vectors.shape[1]))])
    n = len(ids)
    pairs = n * (n + 1) // 2
    for variant in ("sm", "west"):
        kw = {"variant": variant, "lam": lam, "theta": theta}
        # AGK marks aspects as in Section 5.2 (_AT ids / an extra vector dimension), NGTK with AT leaves.
        marked = encoder.encode(list(laptop["tokens"]), variant=variant, aspect_masks=masks)
        for method in ("dp", "auto"):
            ngtk_gram(ids[:8], aspect_x=masks[:8], vectors=vectors, method=method, **kw)
            anygram_gram(marked[:8], method=method, **kw)
        k_tree, t_tree = _timed(lambda: ngtk_gram(ids, aspect_x=masks, vectors=vectors, method="dp", **kw))
        record("semeval14_laptop", f"NGTK{variant}", "tree-dp", n, pairs, t_tree, 0.0, 1.0)
        k_ngtk, times = _best_of(lambda: ngtk_gram(ids, aspect_x=masks, vectors=vectors, method="auto", **kw), repeats)
        t_ngtk = min(times)
        record(
            "semeval14_laptop", f"NGTK{variant}", "match-runs", n, pairs, t_ngtk, _rel_diff(k_ngtk, k_tree),
            t_tree / t_ngtk, first=times[0], every=times,
        )
        del k_tree, k_ngtk
        _, t_agk = _timed(lambda: anygram_gram(marked, method="dp", **kw))
        record("semeval14_laptop", f"AGK{variant}", "dp", n, pairs, t_agk, float("nan"), t_ngtk / t_agk)
        _, times = _best_of(lambda: anygram_gram(marked, method="auto", **kw), repeats)
        name = {"sm": "ngram-map", "west": "match-bits"}[variant]
        record(
            "semeval14_laptop", f"AGK{variant}", name, n, pairs, min(times), float("nan"), t_ngtk / min(times),
            first=times[0], every=times,
        )
    frame = pd.DataFrame(rows)
    frame["machine"] = f"{platform.machine()} {platform.processor() or ''}".strip()
    return frame


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sst", required=True, help="prepared sst.parquet")
    parser.add_argument("--laptop", required=True, help="prepared semeval14_laptop.parquet")
    parser.add_argument("--embeddings", required=True)
    parser.add_argument(
        "--settings", required=True,
        help='JSON {"sentences", "ngtk_sentences", "theta", "lam"[, "repeats", "dp_sentences", "seed"]}',
    )
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    frame = run(args)
    write_text_atomic(args.out, frame.to_csv(index=False))
    print(f"peak RSS {_peak_rss_mb():.0f} MB; wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
