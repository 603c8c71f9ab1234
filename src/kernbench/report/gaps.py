"""Gaps to the papers, explained only by the sensitivity table (no sentence typed by hand).

A table cell has a *gap* when its test value differs from the paper's by more
than the table's tolerance. For each such cell, every alternative of the
sensitivity table that was measured on it is listed with the value it gives,
the change from the default (with its 95 % interval), and what is left of the
gap under it. An alternative *closes* the gap when the value under it lies
within the tolerance of the paper's value. Table 1 of the Fisher paper is
compared per system as the mean over the categories, as its headline is; the
sensitivity rows are averaged over the same categories (their interval is then
left out, since the per-category intervals do not combine into one).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from kernbench.papers import PAPERS

#: Tables whose cells are compared as the mean over their datasets (Reuters categories), per system.
MEAN_OVER_DATASETS = {name for name, paper in PAPERS.items() if paper.mean_over_datasets}
#: Metric of each table compared with the paper.
HEADLINE_METRIC = {name: paper.headline_metric for name, paper in PAPERS.items() if paper.headline_metric}


def _cells(tables: Path, table: str) -> pd.DataFrame:
    """Test cells of ``table`` that carry a paper value: ``dataset, system, value, paper_value``."""
    t = pd.read_csv(tables / f"{table}.csv")
    t = t[(t["split"] == "test") & (t["metric"] == HEADLINE_METRIC[table]) & t["paper_value"].notna()]
    t = t[["dataset", "system", "value", "paper_value"]]
    if table in MEAN_OVER_DATASETS:
        t = t.groupby("system", as_index=False)[["value", "paper_value"]].mean()
        t.insert(0, "dataset", "mean")
    return t


def _alternatives(sensitivity: pd.DataFrame, table: str) -> pd.DataFrame:
    """Sensitivity rows of ``table`` on its headline metric, averaged over datasets where the table is."""
    s = sensitivity[(sensitivity["table"] == table) & (sensitivity["metric"] == HEADLINE_METRIC[table])]
    s = s[s["split"] == "test"]
    cols = ["choice", "default", "alternative", "value_default", "value", "delta", "ci_low", "ci_high"]
    if table in MEAN_OVER_DATASETS:
        s = s.groupby(["system", "choice", "default", "alternative"], as_index=False).agg(
            value_default=("value_default", "mean"), value=("value", "mean"), delta=("delta", "mean"),
        )
        s["ci_low"] = np.nan
        s["ci_high"] = np.nan
        s.insert(0, "dataset", "mean")
    return s[["dataset", "system", *cols]]


def gap_rows(tables_dir, tolerance: dict, sensitivity=None) -> pd.DataFrame:
    """One row per (gap cell, measured alternative); cells without any alternative get one empty row.

    Parameters
    ----------
    tables_dir : path-like
        ``<results_dir>/tables`` with the tables' CSV files.
    tolerance : dict
        ``{table: points}``: a cell is a gap when ``|value - paper_value|`` exceeds it.
    sensitivity : path-like, optional
        The run's ``sensitivity.csv``; None when the run did not build it (no alternative is then listed).

    Returns
    -------
    pandas.DataFrame
        ``table, dataset, system, value, paper_value, gap, choice, alternative, value_alternative,
        delta, ci_low, ci_high, gap_alternative, closes``.
    """
    tables = Path(tables_dir)
    sensitivity = pd.read_csv(sensitivity) if sensitivity is not None else pd.DataFrame(
        columns=["table", "metric", "split", "dataset", "system", "choice", "default", "alternative", "value_default",
                 "value", "delta", "ci_low", "ci_high"]
    )
    out = []
    for table, tol in sorted(tolerance.items()):
        if not (tables / f"{table}.csv").exists():
            continue
        cells = _cells(tables, table)
        cells = cells[(cells["value"] - cells["paper_value"]).abs() > tol]
        alts = _alternatives(sensitivity, table)
        for cell in cells.itertuples(index=False):
            base = {"table": table, "dataset": cell.dataset, "system": cell.system, "value": cell.value,
                    "paper_value": cell.paper_value, "gap": cell.value - cell.paper_value, "tolerance": tol}
            mine = alts[(alts["dataset"] == cell.dataset) & (alts["system"] == cell.system)]
            if mine.empty:
                out.append(base)
                continue
            for a in mine.itertuples(index=False):
                # The alternative's change applies to the table's value (the default), whatever the run.
                moved = cell.value + a.delta
                out.append({**base, "choice": a.choice, "alternative": a.alternative, "value_alternative": moved,
                            "delta": a.delta, "ci_low": a.ci_low, "ci_high": a.ci_high,
                            "gap_alternative": moved - cell.paper_value,
                            "closes": bool(abs(moved - cell.paper_value) <= tol)})
    columns = ["table", "dataset", "system", "value", "paper_value", "gap", "tolerance", "choice", "alternative",
               "value_alternative", "delta", "ci_low", "ci_high", "gap_alternative", "closes"]
    return pd.DataFrame(out, columns=columns)


#: The gap section's note when the run did not build the sensitivity table.
NOT_BUILT = ("The sensitivity table is not part of this run (config `sensitivity_table: false`): "
             "`snakemake --cores 2 --config sensitivity_table=true` builds it and lists under each gap "
             "what it measured there.")


def gaps_markdown(tables_dir, tolerance: dict, sensitivity=None) -> list[str]:
    """Markdown lines of the gap section: each gap cell, then the alternatives measured on it.

    Parameters
    ----------
    tables_dir, tolerance, sensitivity
        As for :func:`gap_rows`.

    Returns
    -------
    list of str
    """
    rows = gap_rows(tables_dir, tolerance, sensitivity)
    limits = ", ".join(f"{t} {v:g}" for t, v in sorted(tolerance.items()))
    lines = [f"**Gaps to the papers** (test cells further from the paper than the tolerance: {limits} points), "
             "and what the sensitivity table measured on each. *closes* = the value under that alternative lies "
             "within the tolerance of the paper's.", ""]
    if sensitivity is None:
        lines += [NOT_BUILT, ""]
    if rows.empty:
        return lines + ["Every compared cell lies within the tolerance of the paper.", ""]
    for (table, dataset, system), g in rows.groupby(["table", "dataset", "system"], sort=True):
        first = g.iloc[0]
        lines.append(f"- **{table} / {dataset} / {system}**: {first.value:.2f} against the paper's "
                     f"{first.paper_value:.2f} (gap {first.gap:+.2f}).")
        measured = g[g["choice"].notna()]
        if measured.empty:
            if sensitivity is not None:
                lines.append("  No choice in the sensitivity table was measured on this cell.")
            continue
        measured = measured.assign(rest=measured["gap_alternative"].abs()).sort_values(["rest", "choice", "alternative"])
        for a in measured.itertuples(index=False):
            interval = "" if pd.isna(a.ci_low) else f" [{a.ci_low:+.2f}, {a.ci_high:+.2f}]"
            verdict = " — closes" if a.closes else ""
            lines.append(f"  - `{a.choice}` = {a.alternative}: {a.value_alternative:.2f} "
                         f"(Δ {a.delta:+.2f}{interval}; gap left {a.gap_alternative:+.2f}){verdict}")
    return lines + [""]
