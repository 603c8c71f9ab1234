"""The plotting setup every report figure shares: a headless pyplot, atomic PNG writes, error bars."""

from __future__ import annotations

import numpy as np
import pandas as pd

from kernbench.fileio import atomic_path


def pyplot():
    """Return ``matplotlib.pyplot`` on the Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_png(fig, out) -> None:
    """Write ``fig`` to the PNG ``out`` atomically (no software stamp, so reruns give the same bytes) and close it."""
    with atomic_path(out) as tmp:
        fig.savefig(tmp, format="png", dpi=120, bbox_inches="tight", metadata={"Software": None})
    pyplot().close(fig)


def interval_errors(rows: pd.DataFrame) -> np.ndarray:
    """Error bar lengths (below, above) of ``value`` from ``ci_low``/``ci_high``; zero where a cell has no interval."""
    value = rows["value"].to_numpy(dtype=float)
    err = np.vstack([value - rows["ci_low"].to_numpy(dtype=float), rows["ci_high"].to_numpy(dtype=float) - value])
    return np.nan_to_num(err)
