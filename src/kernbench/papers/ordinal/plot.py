"""Figure 1 of the paper: MAE^M against reduction level, one line per method."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from kernbench.errors import DataError
from kernbench.fileio import atomic_path
from kernbench.papers.ordinal import BASELINE_METHODS, NEW_METHODS

_STYLE = {
    "Var": {"color": "tab:gray", "marker": "x"},
    "RR(Var)": {"color": "tab:brown", "marker": "+"},
    "PRP": {"color": "tab:pink", "marker": "^"},
    "RR(IGOR)": {"color": "tab:blue", "marker": "o"},
    "Var*IDF": {"color": "tab:orange", "marker": "s"},
    "RR(Var*IDF)": {"color": "tab:green", "marker": "D"},
    "RR(NC*IDF)": {"color": "tab:red", "marker": "v"},
}


def plot_curves(curves: pd.DataFrame, dataset: str, out: str | Path) -> None:
    """Write :func:`curves_figure` of one dataset to ``out`` (atomically); the format follows its suffix."""
    fig = curves_figure(curves, dataset)
    import matplotlib.pyplot as plt

    suffix = Path(out).suffix.lstrip(".") or "png"
    with atomic_path(out) as tmp:
        # Fixed metadata so a rerun writes the same bytes.
        fig.savefig(tmp, format=suffix, metadata={"Software": None} if suffix == "png" else None)
    plt.close(fig)


#: The panels of the figure: the paper's baselines, then its new methods (small multiples, a few bands each).
PANELS = (("baselines", BASELINE_METHODS), ("new methods", NEW_METHODS))


def curves_figure(curves: pd.DataFrame, dataset: str):
    """The Figure-1-style plot of one dataset: MAE^M against the reduction level ξ, one line per method.

    Two panels sharing their axes (:data:`PANELS`): the baselines, and the new
    methods, each with FFS and Triv as horizontal references, so that no panel
    holds more than four interval bands. ξ = |S|/|T| is on a log axis, as in
    the tables, so the low levels, where the methods differ most, are not
    squashed; where ``curves`` has ``ci_low``/``ci_high``, the 95 % interval is
    a band around each line. The legend sits below the panels, off the data.

    Parameters
    ----------
    curves : pandas.DataFrame
        ``dataset, system, xi, value`` and optionally ``ci_low, ci_high`` (the
        test MAE^M rows of ``tables/ordinal.csv``, or
        :func:`kernbench.papers.ordinal.claims.curves_from_records`).
    dataset : str
        Which dataset to draw.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If ``curves`` has no row of ``dataset``.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    part = curves[curves["dataset"] == dataset]
    if part.empty:
        raise ValueError(f"no curves for dataset {dataset!r}")
    with_ci = {"ci_low", "ci_high"} <= set(part.columns)
    fig, axes = plt.subplots(1, len(PANELS), figsize=(11.0, 5.0), dpi=120, sharex=True, sharey=True)
    for ax, (title, methods) in zip(axes, PANELS):
        for name, style, label in (
            ("FFS", {"color": "black", "linestyle": "--"}, "FFS (ξ = 1)"),
            ("Triv", {"color": "black", "linestyle": ":"}, "Triv (3 stars)"),
        ):
            reference = part[part["system"] == name]
            if not reference.empty:
                ax.axhline(float(reference["value"].iloc[0]), label=label, linewidth=1.2, **style)
                if with_ci and reference["ci_low"].notna().iloc[0]:
                    ax.axhspan(float(reference["ci_low"].iloc[0]), float(reference["ci_high"].iloc[0]),
                               color="black", alpha=0.06, linewidth=0)
        for method in methods:
            line = part[part["system"] == method].sort_values("xi")
            if line.empty:
                continue
            ax.plot(line["xi"], line["value"], label=method, linewidth=1.0, markersize=3,
                    markevery=0.08,  # evenly spaced on the log axis, not by level index
                    **_STYLE[method])
            if with_ci:
                ax.fill_between(line["xi"], line["ci_low"], line["ci_high"], color=_STYLE[method]["color"],
                                alpha=0.15, linewidth=0)
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.set_xlabel("reduction level ξ = |S|/|T| (log scale)")
        ax.set_title(title, fontsize="medium")
        ax.grid(alpha=0.3, which="both")
        ax.legend(ncol=3, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.14), frameon=False)
    axes[0].set_ylabel("mean absolute error (macro), MAE$^M$")
    bands = "; bands: 95% bootstrap intervals" if with_ci else ""
    fig.suptitle(f"Baccianella, Esuli & Sebastiani Figure 1 on {dataset}: test MAE$^M$, lower is better{bands}",
                 fontsize="medium")
    fig.tight_layout()
    return fig


def ordinal_curves(table_csv, out, dataset: str | None = None) -> None:
    """Figure 1 of Baccianella, Esuli & Sebastiani for one dataset from the ``ordinal`` table.

    Parameters
    ----------
    table_csv : path-like
        ``tables/ordinal.csv``.
    out : path-like
        PNG to write (atomically).
    dataset : str
        Which review corpus to draw (required).

    Raises
    ------
    DataError
        If no dataset is given, or the table has no test MAE^M rows of ``dataset``.
    """
    if not dataset:
        raise DataError("figure ordinal: --dataset is needed (reviews_clothing, reviews_hotel, ...)")
    table = pd.read_csv(table_csv)
    curves = table[(table["split"] == "test") & (table["metric"] == "mae_macro") & (table["dataset"] == dataset)]
    if curves.empty:
        raise DataError(f"{table_csv}: no test mae_macro rows of dataset {dataset!r}")
    plot_curves(curves, dataset, out)
