"""Figures of the report built from finished tables: Table 3 accuracies with intervals, kernel throughput."""

from __future__ import annotations

import numpy as np
import pandas as pd

from kernbench.errors import DataError
from kernbench.fileio import atomic_path


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig, out) -> None:
    with atomic_path(out) as tmp:
        fig.savefig(tmp, format="png", dpi=120, bbox_inches="tight", metadata={"Software": None})
    _pyplot().close(fig)


def anygram_accuracy(table_csv, out) -> None:
    """Test accuracy per dataset and system of the ``anygram`` table, 95 % intervals as error bars.

    Parameters
    ----------
    table_csv : path-like
        ``tables/anygram.csv``.
    out : path-like
        PNG to write (atomically). Black ticks mark the paper's Table 3 values.
    """
    plt = _pyplot()
    table = pd.read_csv(table_csv)
    test = table[(table["split"] == "test") & (table["metric"] == "accuracy")]
    if test.empty:
        raise DataError(f"{table_csv}: no test accuracy rows")
    datasets = sorted(test["dataset"].unique())
    per_dataset = {d: sorted(test.loc[test["dataset"] == d, "system"].unique()) for d in datasets}
    widths = [len(per_dataset[d]) for d in datasets]
    fig, axes = plt.subplots(
        1, len(datasets), figsize=(0.6 * sum(widths) + 1.5 * len(datasets), 4.2), squeeze=False,
        gridspec_kw={"width_ratios": widths},
    )
    for ax, dataset in zip(axes[0], datasets):
        systems = per_dataset[dataset]
        rows = test[test["dataset"] == dataset].set_index("system").reindex(systems)
        x = np.arange(len(systems))
        value = rows["value"].to_numpy(dtype=float)
        err = np.vstack([value - rows["ci_low"].to_numpy(dtype=float), rows["ci_high"].to_numpy(dtype=float) - value])
        ax.bar(x, value, color="tab:blue", alpha=0.8)
        ax.errorbar(x, value, yerr=np.nan_to_num(err), fmt="none", ecolor="black", capsize=3)
        ax.scatter(x, rows["paper_value"], marker="_", color="black", s=120, zorder=3)
        ax.set_xticks(x, systems, rotation=45, ha="right")
        ax.set_title(dataset)
        ax.set_ylabel("test accuracy (%)")
        finite = value[np.isfinite(value)]
        ax.set_ylim(max(0.0, (finite.min() if finite.size else 0.0) - 15.0), 100.0)
    fig.suptitle("Kaljahi & Foster Table 3: test accuracy, 95% bootstrap interval (black ticks: the paper)")
    _save(fig, out)


def throughput(benchmark_csv, out) -> None:
    """Pairs per second of every kernel and method of ``benchmarks/anygram.csv`` (log scale).

    Parameters
    ----------
    benchmark_csv : path-like
        Output of ``benchmarks/anygram_throughput.py``.
    out : path-like
        PNG to write (atomically).
    """
    plt = _pyplot()
    frame = pd.read_csv(benchmark_csv)
    if frame.empty:
        raise DataError(f"{benchmark_csv}: no measurements")
    labels = [f"{d}\n{k} {m}" for d, k, m in zip(frame["dataset"], frame["kernel"], frame["method"])]
    fig, ax = plt.subplots(figsize=(max(6.0, 0.9 * len(frame)), 4.5))
    colors = ["tab:gray" if m in ("dp", "tree-dp") else "tab:green" for m in frame["method"]]
    ax.bar(np.arange(len(frame)), frame["pairs_per_s"], color=colors)
    ax.set_yscale("log")
    ax.set_xticks(np.arange(len(frame)), labels, rotation=60, ha="right", fontsize="small")
    ax.set_ylabel("sentence pairs per second")
    n = int(frame["sentences"].iloc[0])
    ax.set_title(f"Any-gram kernel throughput, {n:,} SST sentences (grey: dynamic programmes, green: fast paths)")
    _save(fig, out)
