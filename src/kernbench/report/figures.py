"""Figures of the report, drawn from the finished tables with their 95 % intervals, and the kernel throughput."""

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


def _interval(rows: pd.DataFrame) -> np.ndarray:
    """Error bar lengths (below, above) of ``value`` from ``ci_low``/``ci_high``; zero where a cell has no interval."""
    value = rows["value"].to_numpy(dtype=float)
    err = np.vstack([value - rows["ci_low"].to_numpy(dtype=float), rows["ci_high"].to_numpy(dtype=float) - value])
    return np.nan_to_num(err)


def anygram_accuracy(table_csv, out) -> None:
    """Write :func:`accuracy_figure` of ``tables/anygram.csv`` to the PNG ``out`` (atomically)."""
    _save(accuracy_figure(pd.read_csv(table_csv), source=table_csv), out)


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
    plt = _pyplot()
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
        ax.errorbar(x, rows["value"], yerr=_interval(rows), fmt="none", ecolor="black", capsize=3)
        ax.scatter(x, rows["paper_value"], marker="_", color="black", s=120, zorder=3)
        ax.set_xticks(x, systems, rotation=45, ha="right")
        ax.set_title(dataset)
        ax.grid(axis="y", alpha=0.3)
    axes[0, 0].set_ylabel("test accuracy (%)")
    axes[0, 0].set_ylim(0.0, 100.0)
    fig.suptitle("Kaljahi & Foster Table 3: test accuracy, 95% bootstrap interval (black ticks: the paper)")
    return fig


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
    sizes = frame.groupby("dataset", sort=False)["sentences"].first()
    on = ", ".join(f"{dataset} ({int(n):,} sentences)" for dataset, n in sizes.items())
    ax.set_title(f"Kernel throughput on {on}\ngrey: dynamic programmes, green: fast paths", fontsize="medium")
    _save(fig, out)


#: The two average precisions of the Fisher figure, with their panel titles.
FISHER_MEASURES = {
    "average_precision": "the paper's average precision: precision at each relevant document classified positive",
    "average_precision_ranking": "average precision over the whole ranking (scikit-learn)",
}


def fisher_average_precision(table_csv, out) -> None:
    """Write :func:`fisher_figure` of ``tables/fisher.csv`` to the PNG ``out`` (atomically)."""
    _save(fisher_figure(pd.read_csv(table_csv), source=table_csv), out)


def fisher_figure(table: pd.DataFrame, *, source="the table"):
    """Test average precision per Reuters category and system of the ``fisher`` table, intervals as error bars.

    One panel per measure of :data:`FISHER_MEASURES`, sharing a y axis that
    starts at 0; black ticks mark the paper's Table 1 values.

    Parameters
    ----------
    table : pandas.DataFrame
        ``tables/fisher.csv`` (the category is in its ``dataset`` column).
    source : str
        Named in the error.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    DataError
        If the table has no test average precision rows.
    """
    from kernbench.data.reuters import TOP10
    from kernbench.papers.fisher.experiment import SYSTEMS

    plt = _pyplot()
    test = table[(table["split"] == "test") & table["metric"].isin(list(FISHER_MEASURES))]
    measures = [m for m in FISHER_MEASURES if m in set(test["metric"])]
    if not measures:
        raise DataError(f"{source}: no test average_precision rows")
    present = set(test["dataset"])
    categories = [c for c in TOP10 if c in present] + sorted(present - set(TOP10))
    systems = [s for s in SYSTEMS if s in set(test["system"])]
    width = 0.8 / len(systems)
    fig, axes = plt.subplots(
        len(measures), 1, figsize=(max(8.0, 1.3 * len(categories)), 4.0 * len(measures)), squeeze=False, sharey=True
    )
    x = np.arange(len(categories))
    for ax, measure in zip(axes[:, 0], measures):
        cells = test[test["metric"] == measure]
        for i, system in enumerate(systems):
            rows = cells[cells["system"] == system].set_index("dataset").reindex(categories)
            pos = x - 0.4 + width * (i + 0.5)
            ax.bar(pos, rows["value"], width, label=system)
            ax.errorbar(pos, rows["value"], yerr=_interval(rows), fmt="none", ecolor="black", elinewidth=0.8, capsize=1.5)
            ax.scatter(pos, rows["paper_value"], marker="_", color="black", s=50, zorder=3,
                       label="paper" if i == 0 else None)
        ax.set_xticks(x, categories)
        ax.set_title(FISHER_MEASURES[measure], fontsize="medium")
        ax.set_ylabel("test average precision (%)")
        ax.set_ylim(0.0, 100.0)
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle("Saunders, Shawe-Taylor & Vinokourov Table 1 on Reuters-21578 ModApte: "
                 "95% bootstrap interval (black ticks: the paper)")
    axes[-1, 0].legend(ncol=4, fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.1))
    return fig


def ordinal_curves(table_csv, dataset: str, out) -> None:
    """Figure 1 of Baccianella, Esuli & Sebastiani for one dataset from the ``ordinal`` table.

    Parameters
    ----------
    table_csv : path-like
        ``tables/ordinal.csv``.
    dataset : str
        Which review corpus to draw.
    out : path-like
        PNG to write (atomically).

    Raises
    ------
    DataError
        If the table has no test MAE^M rows of ``dataset``.
    """
    from kernbench.papers.ordinal.plot import plot_curves

    table = pd.read_csv(table_csv)
    curves = table[(table["split"] == "test") & (table["metric"] == "mae_macro") & (table["dataset"] == dataset)]
    if curves.empty:
        raise DataError(f"{table_csv}: no test mae_macro rows of dataset {dataset!r}")
    plot_curves(curves, dataset, out)
