"""Time to build Σ_t and the Fisher features on the Reuters ModApte corpus, |Σ_t| and peak memory.

Steps timed separately (JIT compilation is done on a tiny corpus first and
not timed): normalising and coding the documents; building F_t on the
training corpus alone (suffix array, frequent-prefix sweep, keys: this gives
|Σ_t|); the FSA-ln and ngram-ln feature matrices of the training and test
documents. Peak memory is the process's maximum resident set size.

Usage::

    python benchmarks/fisher_throughput.py --prepared results/prepared/reuters.parquet [--t 10] [--k 5]
"""

from __future__ import annotations

import argparse
import platform
import resource
import time

import numpy as np
import pandas as pd

from kernbench.kernels.fisher import Alphabet, fsa_features, ngram_features, normalise_text
from kernbench.kernels.fsa import run_fsa


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prepared", required=True, help="prepared reuters.parquet")
    parser.add_argument("--t", type=int, default=10, help="FSA state threshold")
    parser.add_argument("--k", type=int, default=5, help="n-gram length")
    parser.add_argument("--min-count", type=int, default=10, help="n-gram pruning threshold")
    parser.add_argument("--c", type=float, default=1.0, help="initial count of Eq. 2")
    args = parser.parse_args(argv)

    # Compile the jitted kernels outside the timings.
    warm = [np.array([1, 2, 1, 2], dtype=np.uint8)]
    run_fsa(warm, warm, t=1)

    frame = pd.read_parquet(args.prepared, columns=["split", "text"])
    timings = {}
    started = time.perf_counter()
    train_texts = [normalise_text(x) for x in frame.loc[frame["split"] == "train", "text"]]
    test_texts = [normalise_text(x) for x in frame.loc[frame["split"] == "test", "text"]]
    alphabet = Alphabet.from_texts(train_texts)
    train, test = alphabet.encode_all(train_texts), alphabet.encode_all(test_texts)
    timings["normalise_and_code"] = time.perf_counter() - started

    started = time.perf_counter()
    run = run_fsa(train, [], t=args.t)
    timings["sigma_t_train"] = time.perf_counter() - started
    n_states = run.n_states
    del run

    started = time.perf_counter()
    fsa = fsa_features(train, test, t=args.t, weighting="ln", c=args.c, alphabet_size=len(alphabet))
    timings["fsa_ln_features_train_test"] = time.perf_counter() - started

    started = time.perf_counter()
    ngram = ngram_features(
        train, test, k=args.k, min_count=args.min_count, weighting="ln", c=args.c, alphabet_size=len(alphabet)
    )
    timings["ngram_ln_features_train_test"] = time.perf_counter() - started

    print(f"machine: {platform.machine()} {platform.processor() or ''} (timings on a possibly shared machine)")
    print(f"documents: {len(train)} train, {len(test)} test; characters: {sum(map(len, train))} train")
    print(f"|A| = {len(alphabet)}; t = {args.t}: |Sigma_t| = {n_states}")
    print(
        f"FSA features: {fsa.info['features']} columns, {fsa.train.nnz} train non-zeros, "
        f"longest state reached {fsa.info['max_state_length_reached']}"
    )
    print(f"{args.k}-gram features: {ngram.info['features']} columns kept of {ngram.info['ngrams_seen']}")
    for name, seconds in timings.items():
        print(f"{name:32s} {seconds:8.2f} s")
    print(f"{'peak memory (max RSS)':32s} {_peak_rss_mb():8.0f} MB")


if __name__ == "__main__":
    main()
