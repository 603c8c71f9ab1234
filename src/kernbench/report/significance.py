"""Paired comparisons between systems on the same test items, from their run records.

Each paper of :data:`kernbench.papers.PAPERS` names the metrics it compares
(``compared_metrics``). On each dataset (each category, where the predictions
carry one), every pair of its systems is compared; a paper whose table has
reduction levels (``level_baselines``) compares each method with each of those
baselines at a few levels instead, using that paper's own baseline runs, not
the baselines table's runs on the same sets.

Each comparison is :func:`kernbench.report.uncertainty.paired_comparison`: the
difference with its paired bootstrap interval and p-value (and McNemar's for
accuracy). Systems with several seeds enter with the seed mean of the metric on
each resample (McNemar is then left blank).

The papers are independent: :func:`comparison_rows` computes one paper's rows
(a workflow job each), and :func:`comparisons_frame` puts the rows of all of
them, in paper order, into the table :func:`compare_systems` gives in one go.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

from kernbench.papers import PAPERS
from kernbench.progress import progress
from kernbench.records import load_record
from kernbench.report.uncertainty import METRICS, paired_comparison, resampled_metric

#: paper -> metrics compared (each a key of kernbench.report.uncertainty.METRICS), one row per metric and pair
COMPARISONS = {name: paper.compared_metrics for name, paper in PAPERS.items()}
COLUMNS = [
    "paper", "dataset", "xi", "metric", "system_a", "system_b", "value_a", "value_b", "difference", "ci_low",
    "ci_high", "p_bootstrap", "p_mcnemar", "n_items",
]


def _items(record: dict) -> pd.DataFrame:
    frame = pd.read_parquet(record["predictions"])
    if "split" in frame:
        frame = frame[frame["split"] == "test"]
    return frame


def _collect(record_paths, papers=None) -> dict:
    """``{(paper, dataset, xi, system): [test items of each seed]}`` (dataset = the category where there is one).

    Only runs of a paper's own table count (``record["table"]``): runs of the
    same name in the baselines table (a majority-class ``Triv``) or behind a
    sensitivity row are left out. A run of a paper with reduction levels whose
    predictions carry no level (a ``Triv`` that predicts one value) is keyed
    ``xi = None``.
    """
    found: dict = {}
    for path in record_paths:
        record = load_record(path)
        if record["paper"] not in (papers or COMPARISONS) or not record.get("predictions"):
            continue
        if record["table"] != record["paper"]:
            continue
        items = _items(record)
        groups = [((record["dataset"], None), items)]
        if "category" in items:
            groups = [((c, None), g) for c, g in items.groupby("category", sort=True)]
        elif "xi" in items:
            groups = [
                ((record["dataset"], None if pd.isna(x) else float(x)), g)
                for x, g in items.groupby("xi", sort=True, dropna=False)
            ]
        for (dataset, xi), g in groups:
            found.setdefault((record["paper"], dataset, xi, record["system"]), []).append(g)
    return found


def _level_baseline(found: dict, paper: str, dataset: str, system: str, xi: float):
    """Items of a level baseline for the comparisons at level ``xi``.

    The run at that level if there is one, else the run without a level (a
    constant predictor), else the run at its only level (the full feature set,
    at 1.0); None otherwise.
    """
    levels = {x: parts for (pp, d, x, s), parts in found.items() if (pp, d, s) == (paper, dataset, system)}
    if xi in levels:
        return levels[xi]
    if None in levels:
        return levels[None]
    if len(levels) == 1:
        return next(iter(levels.values()))
    return None


class _Resampled:
    """Each system's :func:`~kernbench.report.uncertainty.resampled_metric` in one cell, computed once.

    A system is compared with every other of its cell; its metric on the resamples depends only on its
    own predictions on the compared items, so it is kept while those items are the same.
    """

    def __init__(self, resamples: int, seed: int):
        self.resampling = {"n_resamples": resamples, "seed": seed}
        self.kept: dict = {}

    def __call__(self, system: str, metric: str, ids, truth, ys) -> np.ndarray:
        hit = self.kept.get((system, metric))
        if hit is None or not (np.array_equal(hit[0], ids) and np.array_equal(hit[1], truth)):
            ys = np.atleast_2d(np.asarray(ys))
            hit = (ids, truth, resampled_metric(metric, np.asarray(truth), ys, **self.resampling))
            self.kept[(system, metric)] = hit
        return hit[2]


def _stack(parts: list, ids: np.ndarray, column: str) -> np.ndarray:
    return np.stack([p.set_index("id").loc[ids, column].to_numpy() for p in parts])


def compare_systems(record_paths, *, levels, resamples: int, seed: int) -> pd.DataFrame:
    """Every paired comparison of :data:`COMPARISONS` that the records allow.

    Parameters
    ----------
    record_paths : iterable of path-like
        Run records (with their predictions files).
    levels : sequence of float
        Reduction levels at which the methods of a paper with levels are compared.
    resamples, seed : int
        Bootstrap resamples and seed.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`COLUMNS`, one row per comparison, values as fractions
        (MAE^M in stars), sorted.
    """
    return comparisons_frame(comparison_rows(record_paths, levels=levels, resamples=resamples, seed=seed))


def comparisons_frame(rows: list) -> pd.DataFrame:
    """The table of :func:`compare_systems` from rows of :func:`comparison_rows` (papers in sorted order)."""
    return pd.DataFrame(rows, columns=COLUMNS)


def comparison_rows(record_paths, *, levels, resamples: int, seed: int, papers=None) -> list:
    """The rows of :func:`compare_systems`, of every paper or of the ``papers`` given.

    Parameters
    ----------
    record_paths : iterable of path-like
        Run records; those of other papers are skipped without reading their predictions.
    levels : sequence of float
    resamples, seed : int
    papers : sequence of str, optional
        Keys of :data:`COMPARISONS`; default all.

    Returns
    -------
    list of dict
        One dict per comparison with the keys :data:`COLUMNS`, sorted by
        paper, dataset and level.

    Raises
    ------
    ValueError
        If a paper is not a key of :data:`COMPARISONS`.
    """
    unknown = sorted(set(papers or ()) - set(COMPARISONS))
    if unknown:
        raise ValueError(f"no comparisons for paper(s) {unknown}; known: {sorted(COMPARISONS)}")
    found = _collect(record_paths, papers)
    cells: dict = {}
    for (paper, dataset, xi, system), parts in found.items():
        cells.setdefault((paper, dataset, xi), {})[system] = parts
    rows = []
    ordered = sorted(cells.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2] or -1))
    for (paper, dataset, xi), systems in progress(ordered, desc="paired bootstrap", unit="cell"):
        level_baselines = PAPERS[paper].level_baselines
        if level_baselines:
            if xi is None or not np.isclose(xi, levels).any():
                continue
            # A run without a level, or at 1.0 only, serves every level.
            baselines = {b: _level_baseline(found, paper, dataset, b, xi) for b in level_baselines}
            baselines = {b: p for b, p in baselines.items() if p is not None}
            methods = sorted(set(systems) - set(level_baselines))
            pairs = [(m, b) for m in methods for b in sorted(baselines)]
            systems = {**systems, **baselines}
        else:
            pairs = list(combinations(sorted(systems), 2))
        drawn = _Resampled(resamples, seed)
        for a, b in pairs:
            ids = np.intersect1d(systems[a][0]["id"].to_numpy(), systems[b][0]["id"].to_numpy())
            if ids.size < 2:
                continue
            truth = systems[a][0].set_index("id").loc[ids, "y_true"].to_numpy()
            for metric in COMPARISONS[paper]:
                column = "score" if METRICS[metric][1] else "y_pred"
                ya, yb = _stack(systems[a], ids, column), _stack(systems[b], ids, column)
                result = paired_comparison(
                    metric, truth, ya, yb, n_resamples=resamples, seed=seed,
                    resampled=(drawn(a, metric, ids, truth, ya), drawn(b, metric, ids, truth, yb)),
                )  # fmt: skip
                rows.append({
                    "paper": paper, "dataset": dataset, "xi": xi, "metric": metric, "system_a": a, "system_b": b,
                    "value_a": float(np.mean([METRICS[metric][0](truth, y) for y in ya])),
                    "value_b": float(np.mean([METRICS[metric][0](truth, y) for y in yb])),
                    **result,
                })
    return rows
