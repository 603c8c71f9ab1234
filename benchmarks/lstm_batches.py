"""Seconds per LSTM training epoch with plain and length-bucketed batches, TensorFlow threads, XLA and LSTM kernels.

Trains one Table 4 model (a dataset, a system, one seed) for a few epochs under each
``bucket_batches`` value asked for, and prints per setting the wall seconds of the
fit (with the per-epoch dev evaluation) and per epoch, the padded steps of the
first epoch (batch size times its longest sentence, summed over the batches), and
the dev accuracy of each epoch. Every setting trains the same seed, so the
timings are paired; the accuracies differ because the batches do.

Usage::

    python benchmarks/lstm_batches.py --prepared results/prepared/sst.parquet \
        --embeddings results/prepared/embeddings_glove6b50d.npz --dataset sst --system BiLSTM \
        [--bucket-batches 1 50] [--epochs 3] [--threads 1] [--jit-compile | --nondeterministic] [--keras-lstm] \
        [--steps-per-execution 1]

Training uses TensorFlow's fused ``BlockLSTM`` kernel, as the workflow does; ``--keras-lstm`` trains with
``keras.layers.LSTM`` instead (the reference; ``--jit-compile`` implies it: XLA has no ``BlockLSTM``).
"""

from __future__ import annotations

import argparse
import json
import platform
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from kernbench.data.embeddings import load_embeddings
from kernbench.papers.anygram import lstm


def _padded_steps(lengths, batch_size: int, bucket_batches: int, seed: int) -> int:
    batches = lstm.epoch_batches(
        lengths, batch_size, bucket_batches=bucket_batches, rng=np.random.default_rng([seed, 0])
    )
    return int(sum(len(b) * lengths[b].max() for b in batches))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prepared", required=True, help="prepared <dataset>.parquet")
    parser.add_argument("--embeddings", required=True, help="embeddings_<source>.npz")
    parser.add_argument("--dataset", required=True, help="dataset name (its Table 4 entry in config.yaml)")
    parser.add_argument("--system", required=True, choices=sorted(lstm.SYSTEMS))
    parser.add_argument("--bucket-batches", type=int, nargs="+", default=[1, 50], help="settings to compare")
    parser.add_argument("--epochs", type=int, default=3, help="epochs per setting (no early stopping)")
    parser.add_argument("--threads", type=int, default=1, help="TensorFlow intra- and inter-op threads")
    parser.add_argument(
        "--jit-compile", action="store_true",
        help="XLA-compiled training and prediction steps (with TensorFlow's op determinism off: Keras does not compile under it)",
    )  # fmt: skip
    parser.add_argument(
        "--nondeterministic", action="store_true",
        help="op determinism off without XLA, the baseline of --jit-compile",
    )  # fmt: skip
    parser.add_argument("--keras-lstm", action="store_true", help="train with keras.layers.LSTM, not BlockLSTM")
    parser.add_argument("--steps-per-execution", type=int, default=1,
                        help="batches per call into TensorFlow (Keras' steps_per_execution)")
    parser.add_argument("--seed", type=int, default=20140823)
    parser.add_argument("--config", default="config.yaml", help="config whose lstm block gives Table 4")
    args = parser.parse_args(argv)

    deterministic = not (args.jit_compile or args.nondeterministic)
    lstm.configure_tensorflow(args.threads, deterministic=deterministic)
    config = yaml.safe_load(Path(args.config).read_text())["lstm"]
    frame = pd.read_parquet(args.prepared)
    emb = load_embeddings(args.embeddings)
    settings = {**lstm.resolve_settings(config, args.dataset, args.system), "max_epochs": args.epochs}
    settings["patience"] = args.epochs  # every epoch runs
    lengths = np.array([len(t) for t in frame.loc[frame["split"] == "train", "tokens"]])

    xla = "on" if args.jit_compile else "off"
    keras_lstm = args.keras_lstm or args.jit_compile
    print(
        f"machine: {platform.machine()} {platform.processor() or ''}; {args.threads} TensorFlow thread(s); XLA {xla}; "
        f"op determinism {'on' if deterministic else 'off'}; LSTM kernel {'Keras' if keras_lstm else 'BlockLSTM'}; "
        f"{args.steps_per_execution} batch(es) per call"
    )
    print(f"{args.dataset} {args.system}: {len(lengths)} training sentences, batch {settings['batch_size']}")
    for bucket_batches in args.bucket_batches:
        result = lstm.train_lstm(
            frame, emb.words, emb.vectors, cased=emb.cased, system=args.system,
            settings={**settings, "bucket_batches": bucket_batches}, seed=args.seed, dataset=args.dataset,
            jit_compile=args.jit_compile, block_lstm=not keras_lstm, steps_per_execution=args.steps_per_execution,
        )  # fmt: skip
        fit = result.timings["train"]
        print(json.dumps({
            "bucket_batches": bucket_batches,
            "fit_s": round(fit, 1),
            "s_per_epoch": round(fit / len(result.curves["loss"]), 1),
            "padded_steps_per_epoch": _padded_steps(lengths, settings["batch_size"], bucket_batches, args.seed),
            "dev_accuracy": [round(v, 4) for v in result.curves["val_accuracy"]],
        }))  # fmt: skip


if __name__ == "__main__":
    main()
