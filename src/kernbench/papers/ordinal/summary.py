"""Figure 1 of Baccianella, Esuli & Sebastiani and its claims in ``results.md``."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from kernbench.report.formatting import cell_text


def _curves(tables: Path, levels) -> list[str]:
    path = tables / "ordinal.csv"
    if not path.exists():
        return []
    t = pd.read_csv(path)
    t = t[(t["metric"] == "mae_macro") & t["xi"].notna()]
    t = t[t["xi"].apply(lambda x: any(abs(x - lv) < 1e-9 for lv in levels))]
    lines = [
        "**Baccianella, Esuli & Sebastiani, Figure 1** — test MAE^M (lower is better), 95 % interval, at "
        "reduction levels " + ", ".join(f"{lv:g}" for lv in levels) + ".",
        "",
        "| dataset | method | " + " | ".join(f"ξ = {lv:g}" for lv in levels) + " |",
        "| --- | --- | " + " | ".join("---" for _ in levels) + " |",
    ]
    for (dataset, system), g in t.groupby(["dataset", "system"], sort=True):
        cells = []
        for lv in levels:
            row = g[(g["xi"] - lv).abs() < 1e-9]
            cells.append(cell_text(*row.iloc[0][["value", "ci_low", "ci_high"]], digits=3) if len(row) else "–")
        lines.append(f"| {dataset} | {system} | " + " | ".join(cells) + " |")
    return lines + [""]


def _claims(tables: Path) -> list[str]:
    path = tables / "ordinal_claims.csv"
    if not path.exists():
        return []
    c = pd.read_csv(path)
    statements = c.drop_duplicates("claim").set_index("claim")["statement"]
    answers = c.pivot(index="claim", columns="dataset", values="answer")
    lines = ["**Baccianella, Esuli & Sebastiani, claims** — answered by paired tests per reduction level "
             "(rules and evidence in `ordinal_claims.md`).", "",
             "| claim | " + " | ".join(answers.columns) + " |", "| --- | " + " | ".join("---" for _ in answers.columns) + " |"]
    for claim, row in answers.iterrows():
        lines.append(f"| ({claim}) {statements[claim]} | " + " | ".join(str(v) for v in row) + " |")
    return lines + [""]


def summary_lines(tables: Path, *, levels=()) -> list[str]:
    """Lines of ``results.md`` for Figure 1 at ``levels`` and for the four claims; none without the tables."""
    return _curves(tables, levels) + _claims(tables)
