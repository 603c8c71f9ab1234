"""Per-process start-up of a finished run: its jobs' import cost against its jobs' CPU time.

Every job runs its ``kernbench`` command in a process of its own, which first imports the
libraries the command uses. This script measures the CPU time of those imports in fresh
interpreters (the least of ``--repeats`` runs per library set), gives each rule of the run
the set its command loads (:data:`RULE_LIBRARIES`; a rule not listed loads the base set),
and sets the jobs' summed start-up against the CPU seconds of all jobs that the run's
benchmark files give (:func:`kernbench.report.costs.read_benchmarks`).

Usage::

    python benchmarks/startup.py results [--repeats 3]
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys

#: Modules every command loads: the command parser, pandas and pyarrow (the prepared data and records).
BASE = ("kernbench.cli", "pandas", "pyarrow.parquet")

#: Library sets beyond the base, by name.
LIBRARIES = {
    "base": (),
    "scikit-learn": ("sklearn.svm", "sklearn.feature_extraction.text", "scipy.sparse"),
    "numba": ("sklearn.svm", "numba", "kernbench.kernels.anygram"),
    "tensorflow": ("tensorflow", "keras"),
    "mlflow": ("mlflow",),
    "matplotlib": ("matplotlib.pyplot",),
}

#: The library set each rule's command loads (a rule not listed: ``base``).
RULE_LIBRARIES = {
    "lstm": "tensorflow",
    "lstm_sensitivity_run": "tensorflow",
    "anygram_gram": "numba",
    "anygram_svm": "numba",
    "anygram_benchmark": "numba",
    "anygram_sensitivity": "numba",
    "baseline": "scikit-learn",
    "fisher_features": "numba",
    "fisher_svm": "scikit-learn",
    "fisher_sensitivity": "numba",
    "ordinal_run": "scikit-learn",
    "ordinal_claims": "scikit-learn",
    "ordinal_sensitivity": "scikit-learn",
    "significance_paper": "scikit-learn",
    "significance": "scikit-learn",
    "lstm_sensitivity_dataset": "scikit-learn",
    "track": "mlflow",
    "track_summaries": "mlflow",
    "anygram_accuracy_figure": "matplotlib",
    "anygram_throughput_figure": "matplotlib",
    "fisher_plot": "matplotlib",
    "ordinal_figure": "matplotlib",
}


def import_cpu_seconds(modules: tuple[str, ...], repeats: int) -> float:
    """The least CPU time (user + system, s) of a fresh interpreter importing ``modules``, over ``repeats`` runs."""
    code = "; ".join(f"import {m}" for m in modules)
    times = []
    for _ in range(repeats):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-c", code], check=True, stderr=subprocess.DEVNULL)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        times.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return min(times)


def rule_libraries(rule: str) -> str:
    """The library set of ``rule``, by its name or the name of its family (``anygram_sensitivity_lam``)."""
    for prefix, libraries in sorted(RULE_LIBRARIES.items(), key=lambda item: -len(item[0])):
        if rule == prefix or rule.startswith(f"{prefix}_"):
            return libraries
    return "base"


def main(argv: list[str] | None = None) -> int:
    """Print the start-up per library set and rule, and its share of the run's CPU time."""
    from kernbench.report.costs import read_benchmarks

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results_dir", help="a finished run's results directory (with benchmarks/jobs)")
    parser.add_argument("--repeats", type=int, default=3, help="fresh interpreters per library set (the least counts)")
    args = parser.parse_args(argv)

    jobs = read_benchmarks(args.results_dir)
    cost = {name: import_cpu_seconds(BASE + extra, args.repeats) for name, extra in LIBRARIES.items()}
    per_rule = jobs.groupby("rule").agg(jobs=("job", "size"), cpu_s=("cpu_s", "sum")).reset_index()
    per_rule["libraries"] = per_rule["rule"].map(rule_libraries)
    per_rule["startup_s"] = per_rule["jobs"] * per_rule["libraries"].map(cost)
    per_rule = per_rule.sort_values("startup_s", ascending=False)
    print("import CPU s per process:", ", ".join(f"{k} {v:.2f}" for k, v in cost.items()))
    print(per_rule.to_string(index=False, float_format=lambda v: f"{v:.1f}"))
    total, startup = jobs["cpu_s"].sum(), per_rule["startup_s"].sum()
    print(f"jobs {len(jobs)}, CPU {total:.0f} s, start-up {startup:.0f} s = {100 * startup / total:.1f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
