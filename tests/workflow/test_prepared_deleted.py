"""A prepared table deleted while the workflow runs: the job that needed it fails naming it; the rerun prepares it
again and makes what is missing or out of date."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from tests.conftest import REPO_ROOT, SNAKEMAKE, run_snakemake


def _snakemake(results, *targets):
    return [*SNAKEMAKE, "--cores", "1", *map(str, targets),
            "--config", "profile=smoke", f"results_dir={results}"]


def _wait_for_process(pattern: str, parent: subprocess.Popen, timeout: float = 300.0) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and parent.poll() is None:
        found = subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True).stdout.split()
        if found:
            return int(found[0])
        time.sleep(0.05)
    raise AssertionError(f"no process matching {pattern!r} started")


@pytest.mark.slow
def test_a_prepared_table_deleted_mid_run_is_prepared_again_on_the_rerun(tmp_path):
    results = tmp_path / "results"
    prepared = results / "prepared/reviews_hotel.parquet"
    triv = results / "runs/ordinal/reviews_hotel/Triv.json"  # the baselines' job of the dataset
    var = results / "runs/ordinal/reviews_hotel/featsel/var.json"  # the ordinal job of the dataset
    first = run_snakemake(_snakemake(results, triv), cwd=REPO_ROOT)
    assert first.returncode == 0, first.stderr[-3000:]
    table, made_from_it, rows = prepared.read_bytes(), triv.stat().st_mtime_ns, json.loads(triv.read_text())["rows"]

    # The next run's ordinal job starts; the table it reads is deleted as its process starts.
    with open(tmp_path / "second.log", "w") as log:
        second = subprocess.Popen(_snakemake(results, var), cwd=REPO_ROOT, stdout=log, stderr=subprocess.STDOUT)
        _wait_for_process(f"bin/kernbench ordinal-run .*{results}", second)
        prepared.unlink()
        assert second.wait(timeout=300) != 0
    assert not var.exists()
    job_log = (results / "logs/runs/ordinal/reviews_hotel/featsel.log").read_text()
    assert f"FileNotFoundError: {prepared}" in job_log

    # The rerun prepares the table again, byte for byte, and makes the run that failed. The run made before from the
    # deleted table is kept: its input is newer but has the checksum Snakemake recorded for it (Snakemake keeps
    # checksums of inputs up to --max-checksum-file-size, 1 MB).
    rerun = run_snakemake(_snakemake(results, triv, var), cwd=REPO_ROOT)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert prepared.read_bytes() == table
    assert json.loads(var.read_text())["system"] == "Var"
    assert triv.stat().st_mtime_ns == made_from_it

    # A table above that size (the full profile's larger corpora) is only newer: the runs made from it are redone,
    # with the same values.
    prepared.touch()
    larger = run_snakemake([*_snakemake(results, triv, var), "--max-checksum-file-size", "1000"], cwd=REPO_ROOT)
    assert larger.returncode == 0, larger.stderr[-3000:]
    assert triv.stat().st_mtime_ns > made_from_it and json.loads(triv.read_text())["rows"] == rows
