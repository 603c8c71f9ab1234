"""The cost of a run, per rule, from the Snakemake benchmark files of its jobs.

Every compute rule writes a benchmark file (``<results_dir>/benchmarks/jobs/<rule
folder>/...tsv``: wall seconds ``s``, ``cpu_time`` in seconds and ``max_rss`` in MB).
:func:`cost_table` sums them per rule folder, so the README's timing figures come
from measured jobs rather than from hand-run timers.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from kernbench.errors import DataError

COLUMNS = ["rule", "jobs", "wall_s", "cpu_s", "longest_job_s", "peak_rss_mb"]


def read_benchmarks(results_dir) -> pd.DataFrame:
    """One row per job: ``rule`` (the first folder under ``benchmarks/jobs``), ``job``, ``wall_s``, ``cpu_s``, ``rss_mb``."""
    root = Path(results_dir) / "benchmarks" / "jobs"
    rows = []
    for path in sorted(root.rglob("*.tsv")):
        relative = path.relative_to(root)
        frame = pd.read_csv(path, sep="\t")
        missing = {"s", "cpu_time", "max_rss"} - set(frame.columns)
        if missing:
            raise DataError(f"{path}: not a Snakemake benchmark file (lacks {', '.join(sorted(missing))})")
        last = frame.iloc[-1]
        rss = pd.to_numeric(last["max_rss"], errors="coerce")
        rows.append({
            "rule": relative.parts[0] if len(relative.parts) > 1 else relative.stem,
            "job": str(relative.with_suffix("")),
            "wall_s": float(last["s"]),
            "cpu_s": float(pd.to_numeric(last["cpu_time"], errors="coerce")),
            "rss_mb": float(rss),
        })
    return pd.DataFrame(rows, columns=["rule", "job", "wall_s", "cpu_s", "rss_mb"])


def cost_table(results_dir) -> pd.DataFrame:
    """Jobs, summed wall and CPU seconds, the longest job and the peak RSS per rule, and a ``total`` row.

    Raises
    ------
    DataError
        If the run has no benchmark files.
    """
    jobs = read_benchmarks(results_dir)
    if jobs.empty:
        raise DataError(f"{results_dir}: no benchmark files under benchmarks/jobs (run the workflow first)")
    per_rule = jobs.groupby("rule", sort=True).agg(
        jobs=("job", "size"), wall_s=("wall_s", "sum"), cpu_s=("cpu_s", "sum"), longest_job_s=("wall_s", "max"),
        peak_rss_mb=("rss_mb", "max"),
    ).reset_index()
    per_rule = per_rule.sort_values("wall_s", ascending=False, kind="stable")
    total = pd.DataFrame([{
        "rule": "total", "jobs": len(jobs), "wall_s": jobs["wall_s"].sum(), "cpu_s": jobs["cpu_s"].sum(),
        "longest_job_s": jobs["wall_s"].max(), "peak_rss_mb": jobs["rss_mb"].max(),
    }])
    return pd.concat([per_rule, total], ignore_index=True)[COLUMNS]


def costs_markdown(table: pd.DataFrame) -> str:
    """The cost table as markdown, seconds rounded to whole seconds."""
    shown = table.copy()
    for column in ("wall_s", "cpu_s", "longest_job_s", "peak_rss_mb"):
        shown[column] = shown[column].round(0).astype("Int64")
    return shown.to_markdown(index=False) + "\n"
