"""Report figure of Saunders, Shawe-Taylor & Vinokourov: Table 1's average precision per category."""

from __future__ import annotations

import numpy as np
import pandas as pd

from kernbench.errors import DataError
from kernbench.report.plotting import interval_errors, pyplot, save_png

#: The two average precisions of the Fisher figure, with their panel titles.
FISHER_MEASURES = {
    "average_precision": "the paper's average precision: precision at each relevant document classified positive",
    "average_precision_ranking": "average precision over the whole ranking (scikit-learn)",
}


def fisher_average_precision(table_csv, out) -> None:
    """Write :func:`fisher_figure` of ``tables/fisher.csv`` to the PNG ``out`` (atomically)."""
    save_png(fisher_figure(pd.read_csv(table_csv), source=table_csv), out)


def fitted_range(cells: pd.DataFrame, *, pad: float = 1.0, top: float = 100.0) -> tuple[float, float]:
    """A y range holding every value, interval end and paper value of ``cells``, padded, capped at ``top`` + pad."""
    values = pd.concat([cells[c] for c in ("value", "ci_low", "ci_high", "paper_value") if c in cells])
    values = values.dropna().astype(float)
    low, high = float(values.min()), float(values.max())
    return max(0.0, np.floor(low - pad)), min(top + pad, np.ceil(high + pad))


def fisher_figure(table: pd.DataFrame, *, source="the table"):
    """Test average precision per Reuters category and system of the ``fisher`` table, intervals as error bars.

    One panel per measure of :data:`FISHER_MEASURES`, sharing a y axis fitted
    to the values, intervals and paper values (:func:`fitted_range`): the values
    lie between about 80 and 100, so an axis from 0 would hide their differences.
    Each cell is a dot with its interval (not a bar, as the axis does not start
    at 0); black ticks mark the paper's Table 1 values.

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
    from kernbench.papers.fisher.systems import SYSTEMS

    plt = pyplot()
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
            ax.errorbar(pos, rows["value"], yerr=interval_errors(rows), fmt="o", markersize=4, elinewidth=0.9,
                        capsize=1.5, color=f"C{i}", label=system)
            ax.scatter(pos, rows["paper_value"], marker="_", color="black", s=60, zorder=3,
                       label="paper" if i == 0 else None)
        ax.set_xticks(x, categories)
        ax.set_title(FISHER_MEASURES[measure], fontsize="medium")
        ax.set_ylabel("test average precision (%)")
        ax.grid(axis="y", alpha=0.3)
        for edge in x[1:] - 0.5:
            ax.axvline(edge, color="0.85", linewidth=0.6)
    axes[0, 0].set_ylim(*fitted_range(test))
    fig.suptitle("Saunders, Shawe-Taylor & Vinokourov Table 1 on Reuters-21578 ModApte: dots with their 95% "
                 "bootstrap interval (black ticks: the paper; the axis does not start at 0)")
    axes[-1, 0].legend(ncol=4, fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.1))
    return fig
