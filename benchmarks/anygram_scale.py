"""Training AGKsm / AGKwess at 10^4 to 3 * 10^5 sentences: primal linear SVM against SVC on the Gram matrix.

The training items are SST phrases: every node of every training tree
(318,582 phrases, each with its own 0-4 label), a seeded sample of ``n`` of
them (``n = 0``: all). The test items are the 2,210 SST test sentences. For
each size and variant it trains

* ``primal``: the linear SVM on the L2-normalised explicit feature map
  (:func:`kernbench.learners.svm.fit_primal_svm`), and
* ``gram``: ``SVC(kernel="precomputed")`` on the cosine-normalised Gram
  matrix, only up to ``--gram-limit`` items (the matrix has ``n**2`` entries),

each in its own process so that its peak memory is its own, with C fixed.
Prints wall time, peak resident memory and test accuracy per run (and the
share of test predictions on which the two routes agree) and writes a CSV.

Usage::

    python benchmarks/anygram_scale.py --sst-dir ../shared/data/sst \\
        --embeddings results/prepared/embeddings_glove6b50d.npz --sizes 10000 100000 0 \\
        --gram-limit 10000 --threads 2 --out results/benchmarks/anygram_scale.csv
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

LAM = 0.4


def _load(sst_dir: Path, embeddings: str, n: int, seed: int):
    from kernbench.data import sst
    from kernbench.kernels.anygram_encoding import TokenEncoder

    phrases = sst.read_phrases(sst_dir / "train.txt")
    if n:
        pick = np.sort(np.random.default_rng(seed).choice(len(phrases), size=n, replace=False))
        phrases = phrases.iloc[pick]
    test = sst.read_trees(sst_dir / "test.txt")
    encoder = TokenEncoder.from_npz(embeddings)
    return (
        [encoder.ids(t) for t in phrases["tokens"]],
        phrases["label"].to_numpy(),
        [encoder.ids(t) for t in test["tokens"]],
        test["label"].to_numpy(),
        encoder.vectors,
    )


def run_one(args) -> dict:
    """One (variant, route, size) measurement in this process; returns its figures."""
    from sklearn.preprocessing import normalize

    from kernbench.kernels.anygram import anygram_diag, anygram_gram, normalize_gram
    from kernbench.kernels.anygram_features import anygram_features
    from kernbench.learners.svm import fit_primal_svm, fit_svc
    from kernbench.runs import set_threads

    set_threads(args.threads)
    train, y_train, test, y_test, vectors = _load(Path(args.sst_dir), args.embeddings, args.n, args.seed)
    kw = {"variant": args.variant, "lam": LAM, "vectors": vectors}
    anygram_gram(train[:20], **kw)  # compile outside the timed part
    anygram_features(train[:20], **kw)
    started = time.perf_counter()
    if args.route == "primal":
        phi = normalize(anygram_features(train + test, **kw))
        built = time.perf_counter()
        model = fit_primal_svm(phi[: len(train)], y_train, args.C, seed=args.seed, n_jobs=args.threads)
        y_pred = model.predict(phi[len(train) :])
    else:
        d_train, d_test = anygram_diag(train, **kw), anygram_diag(test, **kw)
        k_train = normalize_gram(anygram_gram(train, **kw), d_train, d_train)
        k_test = normalize_gram(anygram_gram(test, train, **kw), d_test, d_train)
        built = time.perf_counter()
        y_pred = fit_svc(k_train, y_train, args.C).predict(k_test)
    done = time.perf_counter()
    return {
        "variant": args.variant,
        "route": args.route,
        "n_train": len(train),
        "seconds_map_or_gram": round(built - started, 2),
        "seconds_fit_predict": round(done - built, 2),
        "seconds_total": round(done - started, 2),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1),
        "test_accuracy": round(float(np.mean(y_pred == y_test)), 4),
        "predictions": y_pred.tolist(),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sst-dir", required=True, help="directory with the SST train.txt and test.txt")
    parser.add_argument("--embeddings", required=True, help="embeddings .npz covering the SST vocabulary")
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 0], help="phrases (0 = all)")
    parser.add_argument("--variants", nargs="+", default=["sm", "wess"], choices=["sm", "wess"])
    parser.add_argument("--gram-limit", type=int, default=10_000, help="largest size also run through the Gram matrix")
    parser.add_argument("--C", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=20140823)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--variant", help=argparse.SUPPRESS)
    parser.add_argument("--route", help=argparse.SUPPRESS)
    parser.add_argument("--n", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(run_one(args)))
        return 0
    if not args.out:
        parser.error("--out is required")

    rows = []
    for n in args.sizes:
        for variant in args.variants:
            preds = {}
            routes = ["primal"] + (["gram"] if 0 < n <= args.gram_limit else [])
            for route in routes:
                cmd = [sys.executable, __file__, "--one", "--sst-dir", args.sst_dir, "--embeddings", args.embeddings,
                       "--variant", variant, "--route", route, "--n", str(n), "--C", str(args.C),
                       "--seed", str(args.seed), "--threads", str(args.threads)]
                out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
                result = json.loads(out.strip().splitlines()[-1])
                preds[route] = np.array(result.pop("predictions"))
                result["agreement_with_gram"] = (
                    round(float(np.mean(preds["gram"] == preds["primal"])), 4) if route == "gram" else float("nan")
                )
                rows.append(result)
                print(
                    f"{variant:5s} {route:7s} n={result['n_train']:>7,d}  {result['seconds_total']:8.1f} s "
                    f"(map/Gram {result['seconds_map_or_gram']:.1f} s, fit+predict {result['seconds_fit_predict']:.1f} s)"
                    f"  peak {result['peak_rss_mb']:8.0f} MB  test acc {result['test_accuracy']:.3f}",
                    flush=True,
                )
            if "gram" in preds:
                print(f"      primal and Gram routes agree on {np.mean(preds['gram'] == preds['primal']):.1%} "
                      "of the test predictions", flush=True)
    frame = pd.DataFrame(rows)
    frame["threads"] = args.threads
    frame["machine"] = f"{platform.machine()} {platform.processor() or ''}".strip()
    from kernbench.fileio import write_text_atomic

    write_text_atomic(args.out, frame.to_csv(index=False))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
