"""The README's "Results" section, written from the finished tables (no number typed by hand)."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from kernbench.errors import DataError
from kernbench.fileio import write_text_atomic

START, END = "<!-- results:start -->", "<!-- results:end -->"


def _cell(value, low, high, digits=2, spread: str = "") -> str:
    if pd.isna(value):
        return "–"
    text = f"{value:.{digits}f}{spread}"
    return text if pd.isna(low) else f"{text} [{low:.{digits}f}, {high:.{digits}f}]"


def _num(value, *, signed: bool = False) -> str:
    if pd.isna(value):
        return "–"
    return f"{value:+.2f}" if signed else f"{value:.2f}"


def _anygram(tables: Path) -> list[str]:
    path = tables / "anygram.csv"
    if not path.exists():
        return []
    t = pd.read_csv(path)
    t = t[t["metric"] == "accuracy"].set_index(["dataset", "system", "split"])
    lines = [
        "**Kaljahi & Foster, Table 3** — accuracy (%), 95 % interval; LSTMs: mean ± std over seeds "
        "(interval over test items and seeds).",
        "",
        "| dataset | system | dev [95 % CI] | paper dev | test [95 % CI] | paper test | Δ test |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for dataset, system in sorted({k[:2] for k in t.index}):
        cells, delta = [], "–"
        for split in ("dev", "test"):
            if (dataset, system, split) not in t.index:
                cells += ["–", "–"]
                continue
            r = t.loc[(dataset, system, split)]
            spread = f" ± {r['std']:.2f}" if r["n_seeds"] > 1 and pd.notna(r["std"]) else ""
            cells += [_cell(r["value"], r["ci_low"], r["ci_high"], spread=spread), _num(r["paper_value"])]
            if split == "test":
                delta = _num(r["delta"], signed=True)
        lines.append(f"| {dataset} | {system} | " + " | ".join(cells) + f" | {delta} |")
    return lines + [""]


def _fisher(tables: Path) -> list[str]:
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
        lines.append(f"| {system} | {_num(r.value)} | {_num(r.paper)} | {_num(r.value - r.paper, signed=True)} |")
    return lines + [""]


def _ordinal(tables: Path, levels) -> list[str]:
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
            cells.append(_cell(*row.iloc[0][["value", "ci_low", "ci_high"]], digits=3) if len(row) else "–")
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


def _significance(tables: Path) -> list[str]:
    path = tables / "significance.csv"
    if not path.exists():
        return []
    s = pd.read_csv(path)
    if s.empty:
        return []
    lines = ["**Paired comparisons** (`significance.csv`): share of system pairs whose difference is "
             "significant at p < 0.05 (paired bootstrap).", "", "| paper | comparisons | p < 0.05 |",
             "| --- | --- | --- |"]
    for paper, g in s.groupby("paper", sort=True):
        lines.append(f"| {paper} | {len(g)} | {int((g['p_bootstrap'] < 0.05).sum())} |")
    return lines + [""]


def results_markdown(tables_dir, *, ordinal_levels, profile: str, gap_tolerance: dict | None = None) -> str:
    """Markdown of the headline numbers of every table in ``tables_dir``.

    Parameters
    ----------
    tables_dir : path-like
        ``<results_dir>/tables``.
    ordinal_levels : sequence of float
        Reduction levels shown for the ordinal methods.
    profile : str
        Profile the tables come from (named in the text).
    gap_tolerance : dict, optional
        ``{table: points}``; with it, the gap section of :func:`kernbench.report.gaps.gaps_markdown` follows the tables.

    Returns
    -------
    str
    """
    tables = Path(tables_dir)
    body = (_anygram(tables) + _fisher(tables) + _ordinal(tables, ordinal_levels) + _claims(tables)
            + _significance(tables))
    if not body:
        raise DataError(f"{tables}: no tables to summarise")
    if gap_tolerance:
        from kernbench.report.gaps import gaps_markdown

        body += gaps_markdown(tables, gap_tolerance)
    head = [f"Generated by `kernbench results-summary` (the `results_summary` rule) from `{tables}` "
            f"({profile} profile); `kernbench readme-results` copies it here.", ""]
    return "\n".join(head + body).rstrip() + "\n"


def update_readme(readme, section: str) -> None:
    """Replace the text between :data:`START` and :data:`END` in ``readme`` by ``section``.

    Raises
    ------
    DataError
        If the README lacks the markers.
    """
    readme = Path(readme)
    text = readme.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(START) + r".*?" + re.escape(END), re.S)
    if not pattern.search(text):
        raise DataError(f"{readme}: no {START} ... {END} markers to put the results between")
    write_text_atomic(readme, pattern.sub(lambda _: f"{START}\n{section}{END}", text))
