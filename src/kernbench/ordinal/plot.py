"""Figure 1 of the paper: MAE^M against reduction level, one line per method."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from kernbench.fileio import atomic_path
from kernbench.ordinal import SELECTION_METHODS

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
    """Draw the Figure-1-style plot of one dataset and write it (PNG) atomically.

    Parameters
    ----------
    curves : pandas.DataFrame
        ``dataset, system, xi, value`` (from
        :func:`kernbench.ordinal.claims.curves_from_records`).
    dataset : str
        Which dataset to draw.
    out : path-like
        Output image; the format follows its suffix.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    part = curves[curves["dataset"] == dataset]
    if part.empty:
        raise ValueError(f"no curves for dataset {dataset!r}")
    fig, ax = plt.subplots(figsize=(7.5, 5.0), dpi=120)
    for name, style, label in (
        ("FFS", {"color": "black", "linestyle": "--"}, "FFS"),
        ("Triv", {"color": "black", "linestyle": ":"}, "Triv (3 stars)"),
    ):
        reference = part[part["system"] == name]
        if not reference.empty:
            ax.axhline(float(reference["value"].iloc[0]), label=label, linewidth=1.2, **style)
    for method in SELECTION_METHODS:
        line = part[part["system"] == method].sort_values("xi")
        if not line.empty:
            ax.plot(
                100 * line["xi"],
                line["value"],
                label=method,
                linewidth=1.0,
                markersize=3,
                markevery=max(1, len(line) // 12),
                **_STYLE[method],
            )
    ax.set_xlabel("Reduction level (% of features kept)")
    ax.set_ylabel("Mean absolute error (macro), MAE$^M$")
    ax.set_xlim(0, 100)
    ax.set_title(f"{dataset}: lower is better")
    ax.grid(alpha=0.3)
    ax.legend(ncol=3, fontsize=8)
    fig.tight_layout()
    suffix = Path(out).suffix.lstrip(".") or "png"
    with atomic_path(out) as tmp:
        # Fixed metadata so a rerun writes the same bytes.
        fig.savefig(tmp, format=suffix, metadata={"Software": None} if suffix == "png" else None)
    plt.close(fig)
