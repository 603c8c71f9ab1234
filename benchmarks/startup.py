"""Per-process start-up of a finished run: its jobs' import cost against its jobs' CPU time.

Every job runs its ``kernbench`` command in a process of its own, which first imports what the
command uses. What each job's command imports is read from a run made with Python's import
profiler on (``PYTHONPROFILEIMPORTTIME=1``), whose job logs hold one line per import: the modules
a job imports at the top level, eagerly or later inside a function, are the ones its process
loads (:func:`modules_of` tells how a job of the measured run finds its profiled job). This
script measures the CPU time of importing each job's modules in a fresh interpreter, the least
of ``--repeats`` runs, and sets the jobs' summed start-up against the CPU seconds of all jobs
that the measured run's benchmark files give (:func:`kernbench.report.costs.read_benchmarks`).

The profiled run only tells which modules a job's command imports; the smoke profile runs the
same commands as the full profile, so it serves::

    PYTHONPROFILEIMPORTTIME=1 snakemake --cores 2 --config profile=smoke results_dir=results-imports
    python benchmarks/startup.py results --imports results-imports [--repeats 3]
"""

from __future__ import annotations

import argparse
import re
import resource
import subprocess
import sys
from pathlib import Path

#: What every command loads: the command parser, pandas and pyarrow (the prepared data and records).
BASE = ("kernbench.cli", "pandas", "pyarrow.parquet")

#: An import profiler line of a module imported at the top level (not by another module):
#: ``import time: <self us> | <cumulative us> | <name>`` with one space before the name.
TOP_LEVEL_IMPORT = re.compile(r"^import time:\s+\d+ \|\s+\d+ \| (\S+)$")


def import_cpu_seconds(modules: tuple[str, ...], repeats: int) -> float:
    """The least CPU time (user + system, s) of a fresh interpreter importing ``modules``, over ``repeats`` runs.

    A module that does not import on its own (a part of a package that its package loads first) is skipped.
    """
    code = "\n".join(f"try:\n    import {m}\nexcept Exception:\n    pass" for m in modules)
    times = []
    for _ in range(repeats):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-c", code], check=True, stderr=subprocess.DEVNULL)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        times.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return min(times)


def top_level_imports(log: Path) -> set[str]:
    """The modules a job imported at the top level, from its log written with ``PYTHONPROFILEIMPORTTIME=1``."""
    lines = log.read_text(errors="replace").splitlines()
    return {m.group(1) for m in map(TOP_LEVEL_IMPORT.match, lines) if m and not m.group(1).startswith("__")}


def job_imports(profiled: Path) -> dict[tuple[str, str], frozenset[str]]:
    """``{(rule, job): modules}``: the top-level imports of each job of the profiled run.

    A job's log has the path of its benchmark file, ``benchmarks/jobs/<rule>/<job>.tsv``, as ``logs/<job>.log``.
    """
    imports = {}
    for benchmark in sorted((profiled / "benchmarks/jobs").rglob("*.tsv")):
        rule, _, job = str(benchmark.relative_to(profiled / "benchmarks/jobs"))[: -len(".tsv")].partition("/")
        log = profiled / "logs" / f"{job}.log"
        modules = top_level_imports(log) if log.is_file() else set()
        if modules:
            imports[rule, job] = frozenset(modules)
    return imports


def modules_of(rule: str, job: str, imports: dict) -> tuple[tuple[str, ...], str]:
    """The modules a job of the measured run imports, and where they come from.

    The profiled job of the same path (``"job"``); else the union over the profiled jobs of its rule
    (``"rule"``: the same command on other settings); else :data:`BASE` (``"base"``).
    """
    if (rule, job) in imports:
        return tuple(sorted(imports[rule, job])), "job"
    same_rule = [modules for (r, _), modules in imports.items() if r == rule]
    if same_rule:
        return tuple(sorted(frozenset().union(*same_rule))), "rule"
    return BASE, "base"


def main(argv: list[str] | None = None) -> int:
    """Print the start-up per rule and its share of the run's CPU time."""
    from kernbench.report.costs import read_benchmarks

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results_dir", help="a finished run's results directory (with benchmarks/jobs)")
    parser.add_argument("--imports", required=True, type=Path,
                        help="results directory of a run made with PYTHONPROFILEIMPORTTIME=1 (its job logs)")
    parser.add_argument("--repeats", type=int, default=3, help="fresh interpreters per set of modules (the least counts)")
    args = parser.parse_args(argv)

    jobs = read_benchmarks(args.results_dir)
    imports = job_imports(args.imports)
    names = jobs["job"].str.partition("/")[2]
    found = [modules_of(rule, job, imports) for rule, job in zip(jobs["rule"], names)]
    jobs["modules"], jobs["profiled"] = [m for m, _ in found], [source for _, source in found]
    cost = {modules: import_cpu_seconds(modules, args.repeats) for modules in set(jobs["modules"])}
    jobs["startup_s"] = jobs["modules"].map(cost)
    per_rule = (
        jobs.groupby("rule")
        .agg(jobs=("job", "size"), cpu_s=("cpu_s", "sum"), startup_s=("startup_s", "sum"),
             profiled=("profiled", lambda s: ",".join(sorted(set(s)))))
        .reset_index()
        .sort_values("startup_s", ascending=False)
    )
    print(per_rule.to_string(index=False, float_format=lambda v: f"{v:.2f}"))
    total, startup = jobs["cpu_s"].sum(), per_rule["startup_s"].sum()
    print(f"jobs {len(jobs)}, CPU {total:.0f} s, start-up {startup:.0f} s = {100 * startup / total:.1f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
