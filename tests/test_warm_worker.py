"""The warm worker: a ``kernbench`` command handed to it runs there, with the caller's streams, directory and exit code."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from kernbench import warm_client, warm_worker
from kernbench.cli import version_text
from kernbench.report.costs import read_benchmarks

KERNBENCH = Path(sys.executable).with_name("kernbench")


@pytest.fixture()
def worker(tmp_path):
    """A running worker for a run into ``tmp_path/results``: its socket path."""
    process, path = warm_worker.start(tmp_path / "results")
    yield path
    warm_worker.stop(process, path)
    assert process.returncode == 0
    assert not os.path.exists(path)


def _run(args, socket_path, *, cwd, log):
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "w") as out:
        return subprocess.run(
            [str(KERNBENCH), *args], cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
            env={**os.environ, warm_client.SOCKET_ENV: socket_path},
        )  # fmt: skip


def _ledger(tmp_path):
    return pd.read_csv(tmp_path / "results/benchmarks/warm_worker.tsv", sep="\t")


def test_command_runs_in_the_worker_and_writes_to_the_callers_log(worker, tmp_path):
    log = tmp_path / "results/logs/version.log"
    run = _run(["--version"], worker, cwd=tmp_path, log=log)
    assert run.returncode == 0
    assert log.read_text() == f"{version_text()}\n"
    (row,) = _ledger(tmp_path).itertuples()
    # Run by a child of the worker, whose own log records nothing of it.
    assert row.log == str(log) and row.command == "--version" and row.status == 0
    assert "kernbench" not in (tmp_path / "results/logs/warm_worker.log").read_text()
    assert row.cpu_s >= 0 and row.max_rss_mb > 0


def test_failing_command_keeps_its_exit_code_message_and_directory(worker, tmp_path):
    log = tmp_path / "results/logs/costs.log"
    run = _run(["costs", "missing_results"], worker, cwd=tmp_path, log=log)
    assert run.returncode == 1
    # The relative path is resolved in the caller's working directory.
    assert log.read_text().strip() == (
        "kernbench costs: error: missing_results: no benchmark files under benchmarks/jobs (run the workflow first)"
    )
    assert _ledger(tmp_path)["status"].tolist() == [256]  # wait status of exit code 1


def test_usage_error_exits_as_argparse_does(worker, tmp_path):
    log = tmp_path / "results/logs/usage.log"
    assert _run(["no-such-command"], worker, cwd=tmp_path, log=log).returncode == 2
    assert "invalid choice: 'no-such-command'" in log.read_text()


def test_without_a_worker_the_command_runs_in_its_own_process(tmp_path):
    log = tmp_path / "version.log"
    assert _run(["--version"], str(tmp_path / "no-socket"), cwd=tmp_path, log=log).returncode == 0
    assert log.read_text() == f"{version_text()}\n"


def test_costs_add_the_workers_cpu_and_memory_to_the_job(tmp_path):
    results = tmp_path / "results"
    bench = results / "benchmarks/jobs/baseline/runs/x/Triv.tsv"
    bench.parent.mkdir(parents=True)
    bench.write_text("s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
                     "10.0\t0:00:10\t30.0\t40\t20\t25\t0\t0\t1\t0.2\n")
    other = results / "benchmarks/jobs/fetch/fetch/sst.tsv"
    other.parent.mkdir(parents=True)
    other.write_text(bench.read_text())
    end = bench.stat().st_mtime
    ledger = pd.DataFrame({
        "log": [str(results / "logs/runs/x/Triv.log"), str(results / "logs/runs/x/Triv.log"), "/dev/elsewhere.log"],
        "command": ["baseline"] * 3, "pid": [1, 2, 3],
        "start": [end - 10.0, end - 1000.0, end - 10.0],  # the second row: an earlier run of the same job
        "wall_s": [9.9, 9.9, 9.9], "cpu_s": [7.5, 99.0, 99.0], "max_rss_mb": [900.0, 5000.0, 5000.0],
        "status": [0, 0, 0],
    })  # fmt: skip
    ledger.to_csv(results / "benchmarks/warm_worker.tsv", sep="\t", index=False)
    jobs = read_benchmarks(results).set_index("job")
    assert jobs.loc["baseline/runs/x/Triv", "cpu_s"] == pytest.approx(7.7)
    assert jobs.loc["baseline/runs/x/Triv", "rss_mb"] == 900.0
    assert jobs.loc["fetch/fetch/sst", "cpu_s"] == pytest.approx(0.2)  # no ledger row: as Snakemake measured it
    assert jobs.loc["fetch/fetch/sst", "rss_mb"] == 30.0


def test_on_demand_entries_name_every_command_and_load():
    # A misspelt command or module would only be logged by the worker, and its jobs would import for themselves.
    from kernbench.cli import build_parser

    (commands,) = [action.choices for action in build_parser()._actions if action.dest == "command"]
    assert set(warm_worker.ON_DEMAND) <= set(commands)
    assert not set(warm_worker.ON_DEMAND) & warm_worker.PRELOAD_ONLY
    assert set(warm_worker.ON_DEMAND) | warm_worker.PRELOAD_ONLY == set(commands)
    entries = sorted({e for group in warm_worker.ON_DEMAND.values() for e in group} - {"tensorflow", "keras", "mlflow"})
    script = f"from kernbench import warm_worker\nfor entry in {entries!r}:\n    warm_worker.load(entry)"
    subprocess.run([sys.executable, "-c", script], check=True)


def test_preload_covers_what_a_baseline_job_imports(tmp_path):
    # After the entries a baseline job gets, a Triv baseline may import no other library module.
    script = """
import json, sys
from kernbench import warm_worker
for entry in (*warm_worker.PRELOAD, *warm_worker.ON_DEMAND["baseline"]):
    warm_worker.load(entry)
before = set(sys.modules)
from kernbench.cli import main
code = main(sys.argv[1:])
print(json.dumps([code, sorted(m for m in set(sys.modules) - before if not m.startswith("kernbench"))]))
"""
    prepared = tmp_path / "hotel.parquet"
    pd.DataFrame(
        {"id": ["a", "b", "c", "d"], "split": ["train", "train", "test", "test"], "label": [1, 5, 5, 1],
         "text": ["bad room", "great view", "great stay", "bad bed"]}
    ).to_parquet(prepared)
    result = subprocess.run(
        [sys.executable, "-c", script, "baseline", "--dataset", "reviews_hotel", "--system", "Triv",
         "--prepared", str(prepared), "--params", '{"C": [1.0], "min_df": 1, "sublinear_tf": false, "svr_epsilon": 0.0}',
         "--seed", "1", "--profile", "smoke", "--record", str(tmp_path / "r.json"),
         "--predictions", str(tmp_path / "p.parquet")],
        capture_output=True, text=True, check=True,
    )
    code, imported = json.loads(result.stdout.strip().splitlines()[-1])
    assert code == 0, result.stderr
    libraries = sorted({name.split(".")[0] for name in imported} - set(sys.stdlib_module_names))
    assert libraries == [], f"imported by the job, not preloaded: {imported}"
