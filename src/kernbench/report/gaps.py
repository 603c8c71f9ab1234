"""Gaps to the papers, explained only by the sensitivity table (no sentence typed by hand).

A table cell has a *gap* when its test value differs from the paper's by more
than the table's tolerance. For each such cell, every alternative of the
sensitivity table that was measured on it is listed with the value it gives,
the change from the default (with its 95 % interval), and what is left of the
gap under it. An alternative *closes* the gap when the value under it lies
within the tolerance of the paper's value.

Choices that are sources of selection noise rather than readings of the paper
(a paper's ``noise_choices``, such as the seed of a dev split the paper never
published) are not alternatives: their values give the cell a *noise band*,
the range of its value over them, shown beside the gap and never as closing it.

Table 1 of the Fisher paper (a paper with ``mean_over_datasets``) is compared
per system as the mean over the categories, as its headline is (the sensitivity
rows averaged over the same categories, their interval then left out, since the
per-category intervals do not combine into one), and, below it, cell by cell:
every category beyond the tolerance, with its closest measured alternative.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from kernbench.papers import PAPERS

#: Tables whose headline cells are the mean over their datasets (Reuters categories), per system.
MEAN_OVER_DATASETS = {name for name, paper in PAPERS.items() if paper.mean_over_datasets}
#: Metric of each table compared with the paper.
HEADLINE_METRIC = {name: paper.headline_metric for name, paper in PAPERS.items() if paper.headline_metric}
#: Sensitivity choices of each table that are selection noise, not readings of the paper.
NOISE_CHOICES = {name: frozenset(paper.noise_choices) for name, paper in PAPERS.items()}

#: ``level`` of a gap row: a headline cell (a mean over datasets where the table is) or one dataset of such a table.
HEADLINE, PER_DATASET = "headline", "per_dataset"

COLUMNS = ["table", "level", "dataset", "system", "value", "paper_value", "gap", "tolerance", "noise_choice",
           "noise_n", "noise_low", "noise_high", "choice", "alternative", "value_alternative", "delta", "ci_low",
           "ci_high", "gap_alternative", "closes", "significant"]
_SENSITIVITY_COLUMNS = ["table", "metric", "split", "dataset", "system", "choice", "default", "alternative",
                        "value_default", "value", "delta", "ci_low", "ci_high"]


def _cells(tables: Path, table: str, *, mean: bool) -> pd.DataFrame:
    """Test cells of ``table`` that carry a paper value: ``dataset, system, value, paper_value``.

    With ``mean``, one cell per system: the mean over its datasets (``dataset`` = ``"mean"``).
    """
    t = pd.read_csv(tables / f"{table}.csv")
    t = t[(t["split"] == "test") & (t["metric"] == HEADLINE_METRIC[table]) & t["paper_value"].notna()]
    t = t[["dataset", "system", "value", "paper_value"]]
    if mean:
        t = t.groupby("system", as_index=False)[["value", "paper_value"]].mean()
        t.insert(0, "dataset", "mean")
    return t


def _alternatives(sensitivity: pd.DataFrame, table: str, *, mean: bool) -> pd.DataFrame:
    """Sensitivity rows of ``table`` on its headline metric; with ``mean``, averaged over the datasets."""
    s = sensitivity[(sensitivity["table"] == table) & (sensitivity["metric"] == HEADLINE_METRIC[table])]
    s = s[s["split"] == "test"]
    cols = ["choice", "default", "alternative", "value_default", "value", "delta", "ci_low", "ci_high"]
    if mean:
        s = s.groupby(["system", "choice", "default", "alternative"], as_index=False).agg(
            value_default=("value_default", "mean"), value=("value", "mean"), delta=("delta", "mean"),
        )
        s["ci_low"] = np.nan
        s["ci_high"] = np.nan
        s.insert(0, "dataset", "mean")
    return s[["dataset", "system", *cols]]


def _noise_band(value: float, noise: pd.DataFrame) -> dict:
    """The range of a cell's value over its noise rows (the default's value included)."""
    if noise.empty:
        return {}
    values = [value, *(value + noise["delta"]).tolist()]
    return {"noise_choice": ", ".join(sorted(set(noise["choice"]))), "noise_n": len(values),
            "noise_low": float(min(values)), "noise_high": float(max(values))}


def _significant(low, high):
    """Whether a change's 95 % interval excludes 0 (None without an interval)."""
    if pd.isna(low) or pd.isna(high):
        return None
    return bool(low > 0 or high < 0)


#: How an alternative stands to the gap when it reaches the tolerance: closing it is read as such only when its
#: change is not noise. Keyed by ``significant`` (None: no interval, as for a mean over datasets); long, short.
_VERDICTS = {
    True: ("closes", "closes"),
    None: ("closes (no interval: a mean over datasets)", "closes; no interval"),
    False: ("within the tolerance, but its change's interval includes 0 (not told apart from noise)",
            "within the tolerance; Δ's interval includes 0"),
}


def _verdict_words(closes: bool, significant, *, short: bool) -> str:
    if not closes:
        return ""
    key = None if significant is None or pd.isna(significant) else bool(significant)
    return _VERDICTS[key][short]


def _verdict(closes: bool, significant) -> str:
    """The verdict after an alternative's line of the gap section (empty when it does not reach the tolerance)."""
    words = _verdict_words(closes, significant, short=False)
    return f" — {words}" if words else ""


def _short_verdict(closes: bool, significant) -> str:
    """:func:`_verdict` for a table cell."""
    words = _verdict_words(closes, significant, short=True)
    return f" ({words})" if words else ""


def _cell_rows(table: str, level: str, cells: pd.DataFrame, alts: pd.DataFrame, tol: float) -> list[dict]:
    out = []
    noise_choices = NOISE_CHOICES.get(table, frozenset())
    for cell in cells.itertuples(index=False):
        base = {"table": table, "level": level, "dataset": cell.dataset, "system": cell.system, "value": cell.value,
                "paper_value": cell.paper_value, "gap": cell.value - cell.paper_value, "tolerance": tol}
        mine = alts[(alts["dataset"] == cell.dataset) & (alts["system"] == cell.system)]
        noisy = mine["choice"].isin(noise_choices)
        base.update(_noise_band(cell.value, mine[noisy]))
        readings = mine[~noisy]
        if readings.empty:
            out.append(base)
            continue
        for a in readings.itertuples(index=False):
            # The alternative's change applies to the table's value (the default), whatever the run.
            moved = cell.value + a.delta
            out.append({**base, "choice": a.choice, "alternative": a.alternative, "value_alternative": moved,
                        "delta": a.delta, "ci_low": a.ci_low, "ci_high": a.ci_high,
                        "gap_alternative": moved - cell.paper_value,
                        "closes": bool(abs(moved - cell.paper_value) <= tol),
                        "significant": _significant(a.ci_low, a.ci_high)})
    return out


def gap_rows(tables_dir, tolerance: dict, sensitivity=None) -> pd.DataFrame:
    """One row per (gap cell, measured alternative); cells without any alternative get one row without one.

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
        Columns :data:`COLUMNS`. ``level`` is :data:`HEADLINE` for a headline cell and
        :data:`PER_DATASET` for one dataset of a table whose headline is the mean over its
        datasets; ``noise_*`` give the cell's noise band (blank without noise rows);
        the alternatives exclude the noise choices. ``closes``: the value under the
        alternative lies within the tolerance; ``significant``: the change's 95 % interval
        excludes 0 (blank without an interval).
    """
    tables = Path(tables_dir)
    sensitivity = (pd.read_csv(sensitivity) if sensitivity is not None
                   else pd.DataFrame(columns=_SENSITIVITY_COLUMNS))
    out = []
    for table, tol in sorted(tolerance.items()):
        if not (tables / f"{table}.csv").exists():
            continue
        levels = [(HEADLINE, table in MEAN_OVER_DATASETS)]
        if table in MEAN_OVER_DATASETS:
            levels.append((PER_DATASET, False))
        for level, mean in levels:
            cells = _cells(tables, table, mean=mean)
            cells = cells[(cells["value"] - cells["paper_value"]).abs() > tol]
            out += _cell_rows(table, level, cells, _alternatives(sensitivity, table, mean=mean), tol)
    return pd.DataFrame(out, columns=COLUMNS)


#: The gap section's note when the run did not build the sensitivity table.
NOT_BUILT = ("The sensitivity table is not part of this run (config `sensitivity_table: false`): "
             "`snakemake --cores 2 --config sensitivity_table=true` builds it and lists under each gap "
             "what it measured there.")


def _noise_line(first) -> str | None:
    if pd.isna(first.noise_low):
        return None
    inside = "inside" if first.noise_low <= first.paper_value <= first.noise_high else "outside"
    return (f"  - selection noise, not a reading (`{first.noise_choice}`, {int(first.noise_n)} runs): "
            f"{first.noise_low:.2f}–{first.noise_high:.2f} (spread {first.noise_high - first.noise_low:.2f}); "
            f"the paper's value lies {inside} it")


def _headline_lines(g: pd.DataFrame, sensitivity_built: bool) -> list[str]:
    first = g.iloc[0]
    lines = [f"- **{first.table} / {first.dataset} / {first.system}**: {first.value:.2f} against the paper's "
             f"{first.paper_value:.2f} (gap {first.gap:+.2f})."]
    noise = _noise_line(first)
    if noise:
        lines.append(noise)
    measured = g[g["choice"].notna()]
    if measured.empty:
        if sensitivity_built:
            lines.append("  No choice in the sensitivity table was measured on this cell.")
        return lines
    measured = measured.assign(rest=measured["gap_alternative"].abs()).sort_values(["rest", "choice", "alternative"])
    for a in measured.itertuples(index=False):
        interval = "" if pd.isna(a.ci_low) else f" [{a.ci_low:+.2f}, {a.ci_high:+.2f}]"
        verdict = _verdict(a.closes, a.significant)
        lines.append(f"  - `{a.choice}` = {a.alternative}: {a.value_alternative:.2f} "
                     f"(Δ {a.delta:+.2f}{interval}; gap left {a.gap_alternative:+.2f}){verdict}")
    return lines


def _per_dataset_lines(table: str, rows: pd.DataFrame, tol: float, total: int) -> list[str]:
    """A compact table of the per-dataset gap cells of ``table``, each with its closest measured alternative."""
    cells = rows.groupby(["dataset", "system"], sort=True)
    lines = ["", f"{table}, cell by cell: {cells.ngroups} of {total} cells lie further than {tol:g} points from "
             "the paper (the alternative measured on each that leaves the smallest gap):", "",
             "| dataset | system | value | paper | gap | closest alternative | value under it | gap left |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for (dataset, system), g in cells:
        first = g.iloc[0]
        measured = g[g["choice"].notna()]
        if measured.empty:
            closest = "none measured | | "
        else:
            best = measured.loc[measured["gap_alternative"].abs().idxmin()]
            interval = "" if pd.isna(best.ci_low) else f" [{best.ci_low:+.2f}, {best.ci_high:+.2f}]"
            closes = _short_verdict(best.closes, best.significant)
            closest = (f"`{best.choice}` = {best.alternative} | {best.value_alternative:.2f} (Δ {best.delta:+.2f}"
                       f"{interval}) | {best.gap_alternative:+.2f}{closes}")
        lines.append(f"| {dataset} | {system} | {first.value:.2f} | {first.paper_value:.2f} | {first.gap:+.2f} | "
                     f"{closest} |")
    return lines


def _compared_cells(tables: Path, table: str) -> int:
    return len(_cells(tables, table, mean=False))


def gaps_markdown(tables_dir, tolerance: dict, sensitivity=None) -> list[str]:
    """Markdown lines of the gap section: each gap cell, its noise band, then the alternatives measured on it.

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
    noise = sorted({c for choices in NOISE_CHOICES.values() for c in choices})
    lines = [f"**Gaps to the papers** (test cells further from the paper than the tolerance: {limits} points), "
             "and what the sensitivity table measured on each. *closes* = the value under that alternative lies "
             "within the tolerance of the paper's and its change's 95 % paired interval excludes 0; a change whose "
             "interval includes 0 is not told apart from noise, whatever the value it reaches."
             + (f" Selection noise ({', '.join(f'`{c}`' for c in noise)}: a split the paper never published) is "
                "shown as the range of the cell's value over it, never as an alternative." if noise else ""), ""]
    if sensitivity is None:
        lines += [NOT_BUILT, ""]
    if rows.empty:
        return lines + ["Every compared cell lies within the tolerance of the paper.", ""]
    tables = Path(tables_dir)
    for table, t_rows in rows.groupby("table", sort=True):
        headline = t_rows[t_rows["level"] == HEADLINE]
        for _, g in headline.groupby(["dataset", "system"], sort=True):
            lines += _headline_lines(g, sensitivity is not None)
        if headline.empty and table in MEAN_OVER_DATASETS:
            lines.append(f"- **{table} / mean**: every system's mean lies within the tolerance of the paper's.")
        per_dataset = t_rows[t_rows["level"] == PER_DATASET]
        if not per_dataset.empty:
            lines += _per_dataset_lines(table, per_dataset, float(tolerance[table]),
                                        _compared_cells(tables, table)) + [""]
    return lines + [""]
