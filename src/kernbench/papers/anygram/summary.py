"""Table 3 of Kaljahi & Foster in ``results.md``."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from kernbench.report.formatting import cell_text, number_text
from kernbench.report.tables import MARKS


def summary_lines(tables: Path, *, levels=()) -> list[str]:
    """Lines of ``results.md`` for Table 3: accuracy per dataset and system, dev and test; none without the table."""
    path = tables / "anygram.csv"
    if not path.exists():
        return []
    t = pd.read_csv(path)
    t = t[t["metric"] == "accuracy"].set_index(["dataset", "system", "split"])
    lines = [
        "**Kaljahi & Foster, Table 3** — accuracy (%), 95 % interval; LSTMs: mean ± std over seeds "
        "(interval over test items and seeds).",
        "",
        "| dataset | system | dev [95 % CI] | paper dev | test [95 % CI] | paper test | Δ test | test reproduces |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for dataset, system in sorted({k[:2] for k in t.index}):
        cells, delta, mark = [], "–", "–"
        for split in ("dev", "test"):
            if (dataset, system, split) not in t.index:
                cells += ["–", "–"]
                continue
            r = t.loc[(dataset, system, split)]
            spread = f" ± {r['std']:.2f}" if r["n_seeds"] > 1 and pd.notna(r["std"]) else ""
            cells += [cell_text(r["value"], r["ci_low"], r["ci_high"], spread=spread), number_text(r["paper_value"])]
            if split == "test":
                delta = number_text(r["delta"], signed=True)
                mark = MARKS.get(r.get("reproduces"), "–")
        lines.append(f"| {dataset} | {system} | " + " | ".join(cells) + f" | {delta} | {mark} |")
    return lines + [""]
