"""NGTK against SVM-Light-TK 1.5: CPU time of the same unnormalised Gram matrix, and how far the values differ.

The first ``--sentences`` SST training sentences (token ids as the any-gram jobs look them up) become their
Figure 1 trees (:func:`kernbench.kernels.ngtk.tree_string`), one ``0 |BT| <tree> |ET|`` line each. A driver
built against SVM-Light-TK (Moschitti, EACL 2006; public repository iKernels/RelTextRank, folder
``tools/SVM-Light-TK-1.5.Lib``, not redistributed here: see docs/anygram.md, "NGTK against SVM-Light-TK")
is called as ``DRIVER LAMBDA TREES OUT``: it reads the lines with ``parse_document`` (subset-tree kernel,
``-F 1``), computes ``tree_kernel_not_norm`` for every pair ``i <= j``, writes that upper triangle row by
row as float64 to ``OUT`` and prints ``<sentences> <CPU seconds of the pair loop>``. kernbench's
:func:`~kernbench.kernels.ngtk.ngtk_gram` (``variant="sm"``, one thread, the same λ) computes the same
matrix (``--method auto``, its fast path, or ``dp``, its tree DP) and its CPU time is taken with
``time.process_time`` around the call, after a warm-up that compiles it. Each side runs ``--repeats`` times and its best time is kept. Prints both CPU times, their ratio and the
largest relative difference over the nonzero entries (the zero entries must be zero on both sides); exits 1
when that difference exceeds ``--rtol``. With ``--out``, writes the same as a one-row CSV.

Usage::

    python benchmarks/ngtk_vs_svmlighttk.py --driver /tmp/svmlighttk/ngtk_gram_driver \\
        --sst results/prepared/sst.parquet --embeddings results/prepared/embeddings_glove6b50d.npz \\
        --sentences 1000
"""

from __future__ import annotations

import argparse
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from kernbench.fileio import write_text_atomic
from kernbench.kernels.anygram_encoding import TokenEncoder
from kernbench.kernels.ngtk import ngtk_gram, tree_string
from kernbench.runs import set_threads


def sst_ids(sst: str, embeddings: str, sentences: int) -> list[np.ndarray]:
    """Token ids of the first ``sentences`` SST training sentences (all for 0)."""
    frame = pd.read_parquet(sst)
    frame = frame[frame["split"] == "train"]
    if sentences:
        if sentences > len(frame):
            raise ValueError(f"{sst}: --sentences {sentences} but only {len(frame)} training sentences")
        frame = frame.iloc[:sentences]
    encoder = TokenEncoder.from_npz(embeddings)
    return [encoder.ids(t) for t in frame["tokens"]]


def run_driver(driver: str, lam: float, trees: Path, out: Path) -> float:
    """CPU seconds the driver reports for its pair loop."""
    done = subprocess.run([driver, repr(lam), str(trees), str(out)], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{driver} exited {done.returncode}: {done.stdout[-500:]}{done.stderr[-500:]}")
    fields = done.stdout.split()
    if len(fields) != 2:
        raise RuntimeError(f"{driver}: expected '<sentences> <cpu seconds>' on stdout, got {done.stdout!r}")
    return float(fields[1])


def max_rel_diff(gram: np.ndarray, upper: np.ndarray) -> float:
    """Largest ``|a - b| / |b|`` over the nonzero reference entries; inf where only one side is zero."""
    mine = gram[np.triu_indices(gram.shape[0])]
    if mine.shape != upper.shape:
        raise ValueError(f"driver wrote {upper.size} values for {mine.size} pairs")
    if np.any((mine == 0) != (upper == 0)):
        return float("inf")
    nonzero = upper != 0
    return float(np.max(np.abs(mine[nonzero] - upper[nonzero]) / np.abs(upper[nonzero]))) if nonzero.any() else 0.0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--driver", required=True, help="path of the SVM-Light-TK Gram driver")
    parser.add_argument("--sst", required=True, help="prepared sst.parquet")
    parser.add_argument("--embeddings", required=True, help="prepared embeddings .npz (token ids)")
    parser.add_argument("--sentences", type=int, default=1000, help="first N training sentences (0: all 8,544)")
    parser.add_argument("--lam", type=float, default=0.4)
    parser.add_argument("--method", choices=("auto", "dp"), default="auto", help="kernbench's NGTK method")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--rtol", type=float, default=1e-12)
    parser.add_argument("--out", help="CSV of the measurement")
    args = parser.parse_args(argv)
    if not Path(args.driver).is_file():
        parser.error(f"--driver {args.driver}: no such file")

    set_threads(1)
    ids = sst_ids(args.sst, args.embeddings, args.sentences)
    n = len(ids)
    ngtk_gram(ids[:8], variant="sm", lam=args.lam, method=args.method)  # compile before timing
    with tempfile.TemporaryDirectory() as tmp:
        trees, out = Path(tmp) / "trees.txt", Path(tmp) / "gram.f64"
        trees.write_text("".join(f"0 |BT| {tree_string(s)} |ET|\n" for s in ids))
        c_times = [run_driver(args.driver, args.lam, trees, out) for _ in range(args.repeats)]
        upper = np.fromfile(out, dtype=np.float64)
    ours = []
    for _ in range(args.repeats):
        started = time.process_time()
        gram = ngtk_gram(ids, variant="sm", lam=args.lam, method=args.method)
        ours.append(time.process_time() - started)
    diff = max_rel_diff(gram, upper)
    c_best, ours_best = min(c_times), min(ours)
    print(
        f"{n:,d} sentences, {n * (n + 1) // 2:,d} pairs, lambda {args.lam}: SVM-Light-TK {c_best:.2f} s CPU, "
        f"kernbench ({args.method}) {ours_best:.2f} s CPU (x{c_best / ours_best:.2f}), max rel. diff {diff:.1e}"
    )
    if args.out:
        row = {
            "sentences": n, "pairs": n * (n + 1) // 2, "lam": args.lam, "method": args.method,
            "svmlighttk_cpu_s": round(c_best, 3), "kernbench_cpu_s": round(ours_best, 3),
            "svmlighttk_repeats": ";".join(f"{t:.3f}" for t in c_times),
            "kernbench_repeats": ";".join(f"{t:.3f}" for t in ours),
            "speedup": round(c_best / ours_best, 2), "max_rel_diff": diff,
            "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
        }  # fmt: skip
        write_text_atomic(args.out, pd.DataFrame([row]).to_csv(index=False))
    return 0 if diff <= args.rtol else 1


if __name__ == "__main__":
    sys.exit(main())
