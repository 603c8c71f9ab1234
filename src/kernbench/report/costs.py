"""The cost of a run, per rule, from the Snakemake benchmark files of its jobs.

Every compute rule writes a benchmark file (``<results_dir>/benchmarks/jobs/<rule
folder>/...tsv``: wall seconds ``s``, ``cpu_time`` in seconds and ``max_rss`` in MB).
:func:`cost_table` sums them per rule folder, so the README's timing figures come
from measured jobs rather than from hand-run timers. Wall seconds are exact; CPU
seconds are a lower bound: Snakemake samples a job's CPU time (every 0.5 s for its
first 15 s, then every 30 s), so up to 30 s at the end of a longer job go uncounted.
:func:`critical_chain` reads
when each job ended (Snakemake writes the benchmark file as the job ends) and
follows the jobs that held the run's end back.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from kernbench.errors import DataError

COLUMNS = ["rule", "jobs", "wall_s", "cpu_s", "longest_job_s", "peak_rss_mb"]
CHAIN_COLUMNS = ["step", "rule", "job", "start_s", "end_s", "wall_s", "cpu_s", "waited_s"]


def read_benchmarks(results_dir) -> pd.DataFrame:
    """One row per job: ``rule`` (first folder under ``benchmarks/jobs``), ``job``, ``wall_s``, ``cpu_s``, ``rss_mb``.

    Also ``end``: the benchmark file's modification time (seconds since the epoch), when the job ended.

    Raises
    ------
    DataError
        If the run has no benchmark files, or a file is not a Snakemake benchmark file.
    """
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
            "end": path.stat().st_mtime,
        })
    if not rows:
        raise DataError(f"{results_dir}: no benchmark files under benchmarks/jobs (run the workflow first)")
    jobs = pd.DataFrame(rows, columns=["rule", "job", "wall_s", "cpu_s", "rss_mb", "end"])
    return jobs


def cost_table(jobs: pd.DataFrame) -> pd.DataFrame:
    """Jobs, summed wall and CPU seconds, the longest job and the peak RSS per rule, and a ``total`` row.

    Parameters
    ----------
    jobs : pandas.DataFrame
        A run's jobs, from :func:`read_benchmarks`.
    """
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


def critical_chain(jobs: pd.DataFrame, *, tolerance_s: float = 0.5) -> pd.DataFrame:
    """The chain of jobs that set the run's end, followed back from the last job to end.

    A job starts once its inputs exist and a core is free, so what it waited for
    ended shortly before it started. From the job that ended last, each step back
    takes the job that ended last at or before this job's start (``tolerance_s``
    absorbs the file-system clock and Snakemake's own bookkeeping); the chain stops
    at a job with nothing before it. Shortening a job of the chain, or starting it
    earlier, is what can shorten the run.

    Parameters
    ----------
    jobs : pandas.DataFrame
        From :func:`read_benchmarks`.
    tolerance_s : float
        Seconds a predecessor may end after the job's computed start.

    Returns
    -------
    pandas.DataFrame
        ``step`` (1 = first), ``rule``, ``job``, ``start_s`` and ``end_s`` (seconds from
        the first job's start), ``wall_s``, ``cpu_s`` and ``waited_s`` (seconds between
        the previous step's end and this job's start).
    """
    if jobs.empty:
        return pd.DataFrame(columns=CHAIN_COLUMNS)
    start = jobs["end"] - jobs["wall_s"]
    origin = start.min()
    current = jobs["end"].idxmax()
    chain = [current]
    while True:
        before = jobs.index[(jobs["end"] <= start[current] + tolerance_s) & ~jobs.index.isin(chain)]
        if before.empty:
            break
        current = jobs.loc[before, "end"].idxmax()
        chain.append(current)
    rows = jobs.loc[chain[::-1]]
    frame = pd.DataFrame({
        "step": range(1, len(rows) + 1),
        "rule": rows["rule"].to_numpy(),
        "job": rows["job"].to_numpy(),
        "start_s": (start[rows.index] - origin).to_numpy(),
        "end_s": (rows["end"] - origin).to_numpy(),
        "wall_s": rows["wall_s"].to_numpy(),
        "cpu_s": rows["cpu_s"].to_numpy(),
    })  # fmt: skip
    frame["waited_s"] = (frame["start_s"] - frame["end_s"].shift(1, fill_value=0.0)).clip(lower=0.0)
    return frame[CHAIN_COLUMNS]


def core_use(jobs: pd.DataFrame) -> dict:
    """How busy the run kept the machine, from the first job's start to the last job's end.

    Parameters
    ----------
    jobs : pandas.DataFrame
        From :func:`read_benchmarks`.

    Returns
    -------
    dict
        ``span_s`` (seconds from the first start to the last end), ``cpu_s`` (the jobs' CPU seconds),
        ``mean_cores`` (``cpu_s / span_s``: cores busy on average) and ``one_job_s`` (seconds in which
        exactly one job ran: a core idles then unless that job runs several threads).
    """
    start = jobs["end"] - jobs["wall_s"]
    times = pd.concat([start, jobs["end"]], ignore_index=True)
    steps = pd.Series([1] * len(jobs) + [-1] * len(jobs))
    # At equal times a job's end counts before the next one's start.
    order = pd.DataFrame({"t": times, "step": steps}).sort_values(["t", "step"], kind="stable")
    running = order["step"].cumsum()
    lasting = order["t"].shift(-1) - order["t"]
    span = float(jobs["end"].max() - start.min()) if len(jobs) else 0.0
    cpu = float(jobs["cpu_s"].sum())
    return {
        "span_s": span, "cpu_s": cpu, "mean_cores": cpu / span if span > 0 else 0.0,
        "one_job_s": float(lasting[running == 1].sum()),
    }  # fmt: skip


def costs_markdown(table: pd.DataFrame, chain: pd.DataFrame | None = None, use: dict | None = None) -> str:
    """The cost table as markdown, seconds rounded to whole seconds; with ``chain``, its critical chain per rule below.

    The chain is summed per rule (its jobs and wall seconds, in order of first appearance);
    ``kernbench costs --chain-csv`` writes it job by job. With ``use`` (from :func:`core_use`),
    a line on how busy the run kept the cores comes first.
    """
    shown = table.copy()
    for column in ("wall_s", "cpu_s", "longest_job_s", "peak_rss_mb"):
        shown[column] = shown[column].round(0).astype("Int64")
    text = shown.to_markdown(index=False) + "\n"
    if use is not None:
        text += (
            f"\n**Core use**: {use['cpu_s']:.0f} s of CPU over the {use['span_s']:.0f} s from the first job's start "
            f"to the last job's end, {use['mean_cores']:.2f} cores busy on average; exactly one job ran for "
            f"{use['one_job_s']:.0f} s of them.\n"
        )
    if chain is None or chain.empty:
        return text
    span, waited = chain["end_s"].iloc[-1], chain["waited_s"].sum()
    per_rule = chain.groupby("rule", sort=False).agg(jobs=("job", "size"), wall_s=("wall_s", "sum")).reset_index()
    per_rule["wall_s"] = per_rule["wall_s"].round(0).astype("Int64")
    last = chain.iloc[-1]
    return (
        f"{text}\n**Critical chain**: the jobs that set the end of the run, followed back from the last one "
        f"({last['job']}): {len(chain)} jobs over {span:.0f} s from the first job's start to the last job's end, "
        f"{waited:.0f} s of it between jobs.\n\n" + per_rule.to_markdown(index=False) + "\n"
    )
