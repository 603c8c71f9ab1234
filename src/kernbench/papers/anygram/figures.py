"""Report figures of Kaljahi & Foster: Table 3's test accuracy with intervals, and the kernel throughput."""

from __future__ import annotations

import numpy as np
import pandas as pd

from kernbench.errors import DataError
from kernbench.report.plotting import interval_errors, pyplot, save_png


def anygram_accuracy(table_csv, out) -> None:
    """Write :func:`accuracy_figure` of ``tables/anygram.csv`` to the PNG ``out`` (atomically)."""
    save_png(accuracy_figure(pd.read_csv(table_csv), source=table_csv), out)


def accuracy_figure(table: pd.DataFrame, *, source="the table"):
    """Test accuracy per dataset and system of the ``anygram`` table, 95 % intervals as error bars.

    The panels (one per dataset) share their y axis, which starts at 0; black
    ticks mark the paper's Table 3 values.

    Parameters
    ----------
    table : pandas.DataFrame
        ``tables/anygram.csv``.
    source : str
        Named in the error.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    DataError
        If the table has no test accuracy rows.
    """
    plt = pyplot()
    test = table[(table["split"] == "test") & (table["metric"] == "accuracy")]
    if test.empty:
        raise DataError(f"{source}: no test accuracy rows")
    datasets = sorted(test["dataset"].unique())
    per_dataset = {d: sorted(test.loc[test["dataset"] == d, "system"].unique()) for d in datasets}
    widths = [len(per_dataset[d]) for d in datasets]
    fig, axes = plt.subplots(
        1, len(datasets), figsize=(0.6 * sum(widths) + 1.5 * len(datasets), 4.2), squeeze=False, sharey=True,
        gridspec_kw={"width_ratios": widths},
    )
    for ax, dataset in zip(axes[0], datasets):
        systems = per_dataset[dataset]
        rows = test[test["dataset"] == dataset].set_index("system").reindex(systems)
        x = np.arange(len(systems))
        ax.bar(x, rows["value"], color="tab:blue", alpha=0.8)
        ax.errorbar(x, rows["value"], yerr=interval_errors(rows), fmt="none", ecolor="black", capsize=3)
        ax.scatter(x, rows["paper_value"], marker="_", color="black", s=120, zorder=3)
        ax.set_xticks(x, systems, rotation=45, ha="right")
        ax.set_title(dataset)
        ax.grid(axis="y", alpha=0.3)
    axes[0, 0].set_ylabel("test accuracy (%)")
    axes[0, 0].set_ylim(0.0, 100.0)
    fig.suptitle("Kaljahi & Foster Table 3: test accuracy, 95% bootstrap interval (black ticks: the paper)")
    return fig


def repeat_seconds(row) -> np.ndarray:
    """Seconds of every timed run of a benchmark row (``repeat_seconds``, ``;``-separated; else its best)."""
    every = getattr(row, "repeat_seconds", None)
    if isinstance(every, str) and every:
        return np.array([float(t) for t in every.split(";")])
    return np.array([float(row.seconds)])


def throughput(benchmark_csv, out) -> None:
    """Pairs per second of every kernel and method of ``benchmarks/anygram.csv`` (log scale).

    A bar is the best run of its row; a dot marks each timed run (:func:`repeat_seconds`),
    so a single measurement shows as one dot and a noisy one as a spread.

    Parameters
    ----------
    benchmark_csv : path-like
        Output of ``benchmarks/anygram_throughput.py``.
    out : path-like
        PNG to write (atomically).
    """
    plt = pyplot()
    frame = pd.read_csv(benchmark_csv)
    if frame.empty:
        raise DataError(f"{benchmark_csv}: no measurements")
    labels = [f"{d}\n{k} {m}" for d, k, m in zip(frame["dataset"], frame["kernel"], frame["method"])]
    fig, ax = plt.subplots(figsize=(max(6.0, 0.9 * len(frame)), 4.5))
    colors = ["tab:gray" if m in ("dp", "tree-dp") else "tab:green" for m in frame["method"]]
    ax.bar(np.arange(len(frame)), frame["pairs_per_s"], color=colors, alpha=0.6)
    # every timed run as a dot: the bar is the best, the dots show how much the repeats spread
    for i, row in enumerate(frame.itertuples(index=False)):
        runs = repeat_seconds(row)
        ax.scatter(np.full(len(runs), i), row.pairs / runs, color="black", s=12, zorder=3,
                   label="each timed run" if i == 0 else None)
    ax.legend(fontsize="small", loc="upper left")
    ax.set_yscale("log")
    ax.set_xticks(np.arange(len(frame)), labels, rotation=60, ha="right", fontsize="small")
    ax.set_ylabel("sentence pairs per second")
    sizes = frame.groupby("dataset", sort=False)["sentences"].first()
    on = ", ".join(f"{dataset} ({int(n):,} sentences)" for dataset, n in sizes.items())
    ax.set_title(f"Kernel throughput on {on}\ngrey: dynamic programmes, green: fast paths", fontsize="medium")
    save_png(fig, out)
