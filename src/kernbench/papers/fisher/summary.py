"""Table 1 of Saunders, Shawe-Taylor & Vinokourov in ``results.md``.

Besides the mean per system, the lines show two things every reader of the
table needs: the c of Eq. 2 and the range of the weighting factor each system
used (from the run records), and how the reproduced cells compare with the
paper under each plausible reading of Table 1's scrambled header
(:func:`column_readings`).
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pandas as pd

from kernbench.data.reuters import TOP10
from kernbench.report.formatting import number_text

#: Table 1's six value columns, in the order the extracted text prints them, read as these systems
#: (the default reading; ``workflow/paper_results.yaml`` holds the values under it).
COLUMNS = ("BoW-TFIDF", "ngram-uniform", "ngram-ln", "FSA-uniform", "FSA-ln", "ngram-nonuniform")
#: Columns fixed by the text: the first is the TFIDF baseline; the two with 100.0 on crude are FSA
#: ("the variable-length subsequence method ... achieves a perfect ranking for documents in one of the categories").
FIXED_BOW, FSA_COLUMNS = 0, (3, 4)
#: Points within which a reproduced cell counts as close in :func:`column_readings`.
CLOSE = 2.0


def plausible_readings() -> list[tuple[str, ...]]:
    """Every assignment of the six systems to Table 1's columns that the text allows, the default first.

    BoW-TFIDF stays in the first column and the FSA systems in the two columns
    with 100.0 on crude (either order); the three n-gram weightings take the
    other three columns in any order: 2 x 6 = 12 readings.
    """
    ngram_columns = [i for i in range(len(COLUMNS)) if i != FIXED_BOW and i not in FSA_COLUMNS]
    ngrams = [COLUMNS[i] for i in ngram_columns]
    fsa = [COLUMNS[i] for i in FSA_COLUMNS]
    readings = []
    for fsa_order in (fsa, fsa[::-1]):
        for ngram_order in itertools.permutations(ngrams):
            reading = list(COLUMNS)
            for i, system in zip(FSA_COLUMNS, fsa_order):
                reading[i] = system
            for i, system in zip(ngram_columns, ngram_order):
                reading[i] = system
            readings.append(tuple(reading))
    return readings


def column_readings(table: pd.DataFrame, *, close: float = CLOSE) -> pd.DataFrame:
    """Mean |reproduced − paper| and the cells within ``close`` points under each reading of the header.

    Parameters
    ----------
    table : pandas.DataFrame
        ``fisher.csv`` rows of the paper's average precision (``dataset``,
        ``system``, ``value``, ``paper_value`` under the default reading).
    close : float, optional
        Points within which a cell counts as close.

    Returns
    -------
    pandas.DataFrame
        One row per reading of :func:`plausible_readings` (the default first):
        ``reading`` (systems of columns 1-6), ``default``, ``mean_abs_delta``,
        ``within`` and ``cells``.
    """
    value = table.pivot(index="dataset", columns="system", values="value")
    paper = table.pivot(index="dataset", columns="system", values="paper_value")
    present = [s for s in COLUMNS if s in value.columns]
    rows = []
    for reading in plausible_readings():
        deltas = []
        for column, system in zip(COLUMNS, reading):
            # The column the default reading gives to `column` holds these paper values; this reading gives them to `system`.
            if column in present and system in present:
                deltas.append((value[system] - paper[column]).to_numpy(dtype=float))
        delta = np.abs(np.concatenate(deltas)) if deltas else np.zeros(0)
        delta = delta[~np.isnan(delta)]
        rows.append({
            "reading": ", ".join(reading[1:]),
            "default": reading == COLUMNS,
            "mean_abs_delta": float(delta.mean()) if delta.size else float("nan"),
            "within": int((delta <= close).sum()),
            "cells": int(delta.size),
        })
    return pd.DataFrame(rows)


def weight_ranges(runs: Path, systems) -> pd.DataFrame:
    """c of Eq. 2 and the range of the weighting factor of each system, from its run records.

    Parameters
    ----------
    runs : pathlib.Path
        ``<results_dir>/runs/fisher/reuters``.
    systems : iterable of str
        Systems of the table.

    Returns
    -------
    pandas.DataFrame
        ``system``, ``c``, ``weight``, ``min``, ``max``: one row per system
        whose records hold a weight range (empty when none does).
    """
    rows = []
    for system in systems:
        for path in sorted((runs / system).glob("*.json")):
            params = json.loads(path.read_text(encoding="utf-8")).get("params", {})
            if "weights" in params:
                w = params["weights"]
                rows.append({"system": system, "c": params.get("c"), "weight": w["weight"], "min": w["min"],
                             "max": w["max"]})
                break
    return pd.DataFrame(rows, columns=["system", "c", "weight", "min", "max"])


def _weight_lines(runs: Path, systems) -> list[str]:
    ranges = weight_ranges(runs, systems)
    if ranges.empty:
        return []
    lines = [
        "c of Eq. 2 and the range of each system's weighting factor over the features its training documents use:",
        "",
        "| system | c | weight | min | max |",
        "| --- | --- | --- | --- | --- |",
    ]
    for r in ranges.itertuples():
        c = "–" if r.c is None or pd.isna(r.c) else f"{r.c:g}"
        weight = r.weight.replace("|", "\\|")
        lines.append(f"| {r.system} | {c} | {weight} | {r.min:.3g} | {r.max:.4g} |")
    return lines + [""]


def _reading_lines(t: pd.DataFrame) -> list[str]:
    readings = column_readings(t)
    lines = [
        "Table 1's extracted header is scrambled. Under each reading the text allows (BoW-TFIDF first, FSA in the "
        "two columns with 100.0 on crude), the mean |reproduced − paper| and the cells within "
        f"{CLOSE:g} points (the default reading is fixed by the text, not by this comparison):",
        "",
        "| columns 2-6 read as | mean \\|Δ\\| | within |",
        "| --- | --- | --- |",
    ]
    for r in readings.itertuples():
        mark = " (default)" if r.default else ""
        lines.append(f"| {r.reading}{mark} | {number_text(r.mean_abs_delta)} | {r.within} of {r.cells} |")
    return lines + [""]


def summary_lines(tables: Path, *, levels=()) -> list[str]:
    """Lines of ``results.md`` for Table 1; none without the table.

    The mean test average precision per system; the c and weight range of each
    system (where the run records are beside the tables); the comparison with
    the paper under each reading of the header.
    """
    path = tables / "fisher.csv"
    if not path.exists():
        return []
    t = pd.read_csv(path)
    # Table 1 is Reuters: the rows of a catalog dataset (``<name>/<category>``) stay in fisher.csv.
    t = t[(t["metric"] == "average_precision") & t["dataset"].isin(TOP10)]
    per = t.groupby("system").agg(value=("value", "mean"), paper=("paper_value", "mean"), n=("value", "size"))
    lines = [
        "**Saunders, Shawe-Taylor & Vinokourov, Table 1** — test average precision (%), mean over the "
        f"{int(per['n'].max())} categories (per-category values and intervals in `fisher.csv`).",
        "",
        "| system | reproduced | paper | Δ |",
        "| --- | --- | --- | --- |",
    ]
    for system, r in per.sort_index().iterrows():
        lines.append(f"| {system} | {number_text(r.value)} | {number_text(r.paper)} | {number_text(r.value - r.paper, signed=True)} |")
    lines.append("")
    lines += _weight_lines(Path(tables).parent / "runs" / "fisher" / "reuters", per.index)
    return lines + _reading_lines(t)
