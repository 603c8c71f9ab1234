"""Faults a long run meets: killed jobs, an unreachable or locked MLflow store."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import numpy as np
import pytest

from kernbench.tracking import TrackingError, default_tracking_uri, log_records
from tests.conftest import REPO_ROOT


def _snakemake_args(results, *targets):
    return [sys.executable, "-m", "snakemake", "--cores", "2", *targets, "--config", f"results_dir={results}"]


@pytest.mark.slow
def test_job_killed_mid_way_leaves_no_output_and_reruns(tmp_path):
    results = tmp_path / "results"
    record = results / "runs/ordinal/reviews_clothing/BoW-TFIDF.json"
    proc = subprocess.Popen(
        _snakemake_args(results, str(record)), cwd=REPO_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    # The Python process of the job (its script path ends in bin/kernbench), not the shell around it.
    job = _wait_for_process(f"bin/kernbench baseline .*{results}", proc)
    time.sleep(1.0)  # inside the job: data loaded, models fitting
    os.kill(job, signal.SIGKILL)
    assert proc.wait(timeout=120) != 0
    assert not record.exists()
    assert not (record.parent / "BoW-TFIDF.predictions.parquet").exists()

    rerun = subprocess.run(_snakemake_args(results, str(record)), cwd=REPO_ROOT, capture_output=True, text=True)
    assert rerun.returncode == 0, rerun.stdout[-2000:] + rerun.stderr[-2000:]
    assert json.loads(record.read_text())["system"] == "BoW-TFIDF"


def _smoke_args(results, *targets):
    return [*_snakemake_args(results, *targets), "profile=smoke"]


@pytest.mark.slow
def test_killed_gram_job_leaves_no_gram_matrix_and_reruns(tmp_path):
    from kernbench.cache import load_dense

    results = tmp_path / "results"
    gram_dir = results / "cache/anygram/semeval14_laptop/AGKwess_lam0.4"
    target = gram_dir / "train.npz"
    proc = subprocess.Popen(
        _smoke_args(results, str(target)), cwd=REPO_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    job = _wait_for_process(f"bin/kernbench anygram-gram.*{results}", proc)
    os.kill(job, signal.SIGKILL)
    assert proc.wait(timeout=120) != 0
    # No Gram matrix of the killed job exists; any tile that does is complete (its checksum holds).
    assert not any((gram_dir / f"{s}{x}.npz").exists() for s in ("train", "dev", "test") for x in ("", "_diag"))
    for tile in (gram_dir / "tiles").glob("*.npz"):
        load_dense(tile)

    rerun = subprocess.run(_smoke_args(results, str(target)), cwd=REPO_ROOT, capture_output=True, text=True)
    assert rerun.returncode == 0, rerun.stdout[-2000:] + rerun.stderr[-2000:]
    train = load_dense(target)
    assert train.shape[0] == train.shape[1] > 0 and np.isfinite(train).all()


@pytest.mark.slow
def test_killed_lstm_job_leaves_no_record_or_model_and_reruns(tmp_path):
    results = tmp_path / "results"
    record = results / "runs/anygram/semeval14_laptop/lstm/UniLSTM_seed20140823.json"
    proc = subprocess.Popen(
        _smoke_args(results, str(record)), cwd=REPO_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    job = _wait_for_process(f"bin/kernbench lstm .*{results}", proc)
    time.sleep(2.0)  # inside the job: TensorFlow loading or the model training
    os.kill(job, signal.SIGKILL)
    assert proc.wait(timeout=120) != 0
    for suffix in (".json", ".predictions.parquet", ".keras"):
        assert not record.with_name(record.name.replace(".json", suffix)).exists()

    rerun = subprocess.run(_smoke_args(results, str(record)), cwd=REPO_ROOT, capture_output=True, text=True)
    assert rerun.returncode == 0, rerun.stdout[-2000:] + rerun.stderr[-2000:]
    assert json.loads(record.read_text())["system"] == "UniLSTM"
    assert record.with_name(record.name.replace(".json", ".keras")).stat().st_size > 0


def _wait_for_process(pattern: str, parent: subprocess.Popen, timeout: float = 240.0) -> int:
    """PID of the first process whose command line matches ``pattern``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and parent.poll() is None:
        found = subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True).stdout.split()
        if found:
            return int(found[0])
        time.sleep(0.1)
    raise AssertionError(f"no process matching {pattern!r} started")


def _records(tmp_path):
    from tests.test_tables_and_tracking import _record

    rows = [{"dataset": "sst", "split": "test", "metric": "accuracy", "value": 0.4}]
    return [_record(tmp_path, "sst", "Triv", rows), _record(tmp_path, "sst", "BoW-TFIDF", rows)]


def test_unreachable_tracking_server_fails_clearly_and_keeps_records(tmp_path, monkeypatch):
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "0")
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_TIMEOUT", "5")
    records = _records(tmp_path)
    manifest = tmp_path / "tracking/mlflow_runs.tsv"
    result = subprocess.run(
        [sys.executable, "-m", "kernbench.cli", "track", "--records", *map(str, records), "--results-dir",
         str(tmp_path), "--tracking-uri=http://127.0.0.1:9", "--manifest", str(manifest)],
        capture_output=True, text=True,
    )
    assert result.returncode == 1
    assert "http://127.0.0.1:9" in result.stderr and "rerun" in result.stderr
    assert all(r.exists() for r in records) and not manifest.exists()


def test_locked_store_fails_clearly_then_succeeds_when_rerun(tmp_path):
    records = _records(tmp_path)
    uri = default_tracking_uri(tmp_path)
    log_records(records[:1], tracking_uri=uri, artifact_root=tmp_path / "art")
    holder = sqlite3.connect(tmp_path / "mlflow.db", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(TrackingError, match="locked"):
            log_records(records, tracking_uri=uri, artifact_root=tmp_path / "art")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    manifest = log_records(records, tracking_uri=uri, artifact_root=tmp_path / "art")
    assert [m["status"] for m in manifest] == ["unchanged", "logged"]
