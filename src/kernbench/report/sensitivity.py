"""The sensitivity table: how each choice a paper leaves open moves a table cell.

Every paper contributes rows through its own sensitivity job; each job writes
one CSV with the columns :data:`COLUMNS`. A row compares one alternative of one
choice with the default on the same test items of one table cell: ``value``
under the alternative, ``value_default`` under the default, and ``delta`` =
``value - value_default`` with its paired bootstrap interval and p-value
(:func:`kernbench.report.uncertainty.paired_comparison`). Values are in the units of
the tables (percent for accuracy, F1 and average precision; stars for MAE).
:func:`write_sensitivity` concatenates the jobs' files into
``tables/sensitivity.csv`` and ``.md``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from kernbench.errors import DataError
from kernbench.fileio import write_text_atomic
from kernbench.report.uncertainty import METRICS, PERCENT_METRICS, paired_comparison

COLUMNS = [
    "paper", "table", "choice", "dataset", "system", "split", "metric", "default", "alternative",
    "value_default", "value", "delta", "ci_low", "ci_high", "p_bootstrap", "n_items",
]


def sensitivity_row(
    *,
    paper: str,
    table: str,
    choice: str,
    dataset: str,
    system: str,
    metric: str,
    default: str,
    alternative: str,
    y_true,
    y_default,
    y_alternative,
    resamples: int,
    seed: int,
    split: str = "test",
    metric_fn: str | None = None,
) -> dict:
    """One row of the sensitivity table: an alternative against the default on the same items.

    Parameters
    ----------
    paper, table, choice : str
        Which paper and table, and the name of the open choice (for example ``"fisher.c"``).
    dataset, system, metric : str
        The table cell (``dataset`` is the category on Reuters).
    default, alternative : str
        Human-readable settings, for example ``"c chosen by CV (100)"`` and ``"c = 1"``.
    y_true : array-like of shape (n,)
    y_default, y_alternative : array-like of shape (n,) or (n_seeds, n)
        Predictions (scores for ranking metrics) under each setting on the same items, in the same order.
    resamples, seed : int
        Bootstrap resamples and seed of the paired interval.
    split : str
        Split of the items.
    metric_fn : str, optional
        Key of :data:`kernbench.report.uncertainty.METRICS` that computes ``metric`` (default: ``metric`` itself).

    Returns
    -------
    dict
        Keys :data:`COLUMNS`.
    """
    key = metric_fn or metric
    if key not in METRICS:
        raise DataError(f"sensitivity: unknown metric {key!r} (expected one of {', '.join(METRICS)})")
    result = paired_comparison(key, y_true, y_alternative, y_default, n_resamples=resamples, seed=seed)
    fn = METRICS[key][0]
    truth = np.asarray(y_true)
    value = float(np.mean([fn(truth, y) for y in np.atleast_2d(np.asarray(y_alternative))]))
    value_default = float(np.mean([fn(truth, y) for y in np.atleast_2d(np.asarray(y_default))]))
    scale = 100.0 if metric in PERCENT_METRICS else 1.0
    return {
        "paper": paper, "table": table, "choice": choice, "dataset": dataset, "system": system, "split": split,
        "metric": metric, "default": default, "alternative": alternative,
        "value_default": scale * value_default, "value": scale * value, "delta": scale * result["difference"],
        "ci_low": scale * result["ci_low"], "ci_high": scale * result["ci_high"],
        "p_bootstrap": result["p_bootstrap"], "n_items": result["n_items"],
    }


def write_rows(rows, path) -> pd.DataFrame:
    """Write one sensitivity job's rows (columns :data:`COLUMNS`) atomically as CSV."""
    frame = pd.DataFrame(list(rows), columns=COLUMNS)
    write_text_atomic(path, frame.to_csv(index=False, float_format="%.6g"))
    return frame


def read_parts(paths) -> pd.DataFrame:
    """Concatenate sensitivity job files, sorted; each must have exactly :data:`COLUMNS`."""
    frames = []
    for path in paths:
        frame = pd.read_csv(path, keep_default_na=False, na_values=[""])
        if list(frame.columns) != COLUMNS:
            raise DataError(f"{path}: sensitivity columns {list(frame.columns)} differ from {COLUMNS}")
        frames.append(frame)
    if not frames:
        return pd.DataFrame(columns=COLUMNS)
    out = pd.concat(frames, ignore_index=True)
    return out.sort_values(["paper", "table", "choice", "dataset", "system", "metric", "alternative"], kind="stable")


def to_markdown(frame: pd.DataFrame) -> str:
    """The sensitivity table as markdown: one block per choice, Δ with its interval."""
    lines = []
    for (paper, table, choice), part in frame.groupby(["paper", "table", "choice"], sort=True):
        default = part["default"].iloc[0]
        lines += [f"### {paper} / {table}: `{choice}` (default: {default})", ""]
        shown = pd.DataFrame({
            "dataset": part["dataset"],
            "system": part["system"],
            "metric": part["metric"],
            "alternative": part["alternative"],
            "default value": part["value_default"].map(lambda v: f"{v:.2f}"),
            "value": part["value"].map(lambda v: f"{v:.2f}"),
            "Δ [95 % CI]": [
                f"{d:+.2f} [{lo:+.2f}, {hi:+.2f}]" for d, lo, hi in zip(part["delta"], part["ci_low"], part["ci_high"])
            ],
            "p": part["p_bootstrap"].map(lambda p: f"{p:.3f}"),
        })
        lines += [shown.to_markdown(index=False), ""]
    return "\n".join(lines)


def write_sensitivity(paths, csv_path, md_path) -> pd.DataFrame:
    """Merge the sensitivity jobs' files into the table's CSV and markdown."""
    frame = read_parts(paths)
    write_text_atomic(csv_path, frame.to_csv(index=False, float_format="%.6g"))
    write_text_atomic(md_path, to_markdown(frame))
    return frame


def output_path(results_dir, paper: str, choice: str) -> Path:
    """Where a paper's sensitivity job for one choice writes its rows."""
    return Path(results_dir) / "sensitivity" / paper / f"{choice}.csv"
