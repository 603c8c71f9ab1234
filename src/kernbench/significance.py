"""Paired comparisons between systems on the same test items, from their run records.

* ``anygram`` (Table 3): every pair of systems on each dataset, test accuracy;
* ``fisher`` (Table 1): every pair of systems on each category, test average precision (the
  paper's, thresholded at the SVM's decision, and over the whole ranking);
* ``ordinal`` (Figure 1): each new feature-selection method against each
  baseline (FFS, the full feature set, and Triv) on each dataset at a few
  reduction levels, test MAE^M.

Each comparison is :func:`kernbench.uncertainty.paired_comparison`: the
difference with its paired bootstrap interval and p-value (and McNemar's for
accuracy). Systems with several seeds enter with the seed mean of the metric on
each resample (McNemar is then left blank).
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

from kernbench.records import load_record
from kernbench.uncertainty import METRICS, paired_comparison

#: paper -> metrics compared (each a key of kernbench.uncertainty.METRICS), one row per metric and pair
COMPARISONS = {
    "anygram": ("accuracy",),
    "fisher": ("average_precision", "average_precision_ranking"),
    "ordinal": ("mae_macro",),
}
#: Figure 1's baselines: the full feature set and the trivial classifier.
ORDINAL_BASELINES = ("FFS", "Triv")
COLUMNS = [
    "paper", "dataset", "xi", "metric", "system_a", "system_b", "value_a", "value_b", "difference", "ci_low",
    "ci_high", "p_bootstrap", "p_mcnemar", "n_items",
]


def _items(record: dict) -> pd.DataFrame:
    frame = pd.read_parquet(record["predictions"])
    if "split" in frame:
        frame = frame[frame["split"] == "test"]
    return frame


def _collect(record_paths) -> dict:
    """``{(paper, dataset, xi, system): [test items of each seed]}`` (dataset = category for Reuters)."""
    found: dict = {}
    for path in record_paths:
        record = load_record(path)
        if record["paper"] not in COMPARISONS or not record.get("predictions"):
            continue
        items = _items(record)
        groups = [((record["dataset"], None), items)]
        if "category" in items:
            groups = [((c, None), g) for c, g in items.groupby("category", sort=True)]
        elif "xi" in items:
            groups = [((record["dataset"], float(x)), g) for x, g in items.groupby("xi", sort=True)]
        for (dataset, xi), g in groups:
            found.setdefault((record["paper"], dataset, xi, record["system"]), []).append(g)
    return found


def _stack(parts: list, ids: np.ndarray, column: str) -> np.ndarray:
    return np.stack([p.set_index("id").loc[ids, column].to_numpy() for p in parts])


def compare_systems(record_paths, *, ordinal_xi, resamples: int, seed: int) -> pd.DataFrame:
    """Every paired comparison of :data:`COMPARISONS` that the records allow.

    Parameters
    ----------
    record_paths : iterable of path-like
        Run records (with their predictions files).
    ordinal_xi : sequence of float
        Reduction levels at which ordinal methods are compared.
    resamples, seed : int
        Bootstrap resamples and seed.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`COLUMNS`, one row per comparison, values as fractions
        (MAE^M in stars), sorted.
    """
    found = _collect(record_paths)
    sorted_found = sorted(found.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2] or -1.0, kv[0][3]))
    cells: dict = {}
    for (paper, dataset, xi, system), parts in found.items():
        cells.setdefault((paper, dataset, xi), {})[system] = parts
    rows = []
    for (paper, dataset, xi), systems in sorted(cells.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2] or -1)):
        if paper == "ordinal":
            if xi is None or not np.isclose(xi, ordinal_xi).any():
                continue
            # A baseline run at one level only (the full feature set) serves every level.
            baselines = {
                b: systems.get(b) or next((p for (pp, d, _, s), p in sorted_found if (pp, d, s) == (paper, dataset, b)), None)
                for b in ORDINAL_BASELINES
            }
            baselines = {b: p for b, p in baselines.items() if p is not None}
            methods = sorted(set(systems) - set(ORDINAL_BASELINES))
            pairs = [(m, b) for m in methods for b in sorted(baselines)]
            systems = {**systems, **baselines}
        else:
            pairs = list(combinations(sorted(systems), 2))
        for a, b in pairs:
            ids = np.intersect1d(systems[a][0]["id"].to_numpy(), systems[b][0]["id"].to_numpy())
            if ids.size < 2:
                continue
            truth = systems[a][0].set_index("id").loc[ids, "y_true"].to_numpy()
            for metric in COMPARISONS[paper]:
                column = "score" if METRICS[metric][1] else "y_pred"
                ya, yb = _stack(systems[a], ids, column), _stack(systems[b], ids, column)
                result = paired_comparison(metric, truth, ya, yb, n_resamples=resamples, seed=seed)
                rows.append({
                    "paper": paper, "dataset": dataset, "xi": xi, "metric": metric, "system_a": a, "system_b": b,
                    "value_a": float(np.mean([METRICS[metric][0](truth, y) for y in ya])),
                    "value_b": float(np.mean([METRICS[metric][0](truth, y) for y in yb])),
                    **result,
                })
    return pd.DataFrame(rows, columns=COLUMNS)
