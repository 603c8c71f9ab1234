"""Table 1 of Saunders, Shawe-Taylor & Vinokourov in ``results.md``."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from kernbench.report.formatting import number_text


def summary_lines(tables: Path, *, levels=()) -> list[str]:
    """Lines of ``results.md`` for Table 1: mean test average precision per system; none without the table."""
    path = tables / "fisher.csv"
    if not path.exists():
        return []
    t = pd.read_csv(path)
    t = t[t["metric"] == "average_precision"]
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
    return lines + [""]
