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
import pandas as pd
import pytest

from kernbench.report.tracking import TrackingError, default_tracking_uri, log_records
from tests.conftest import REPO_ROOT, SNAKEMAKE, SNAKEMAKE_WITH_LOCKS, run_snakemake, write_record


def _snakemake_args(results, *targets):
    return [*SNAKEMAKE, "--cores", "2", *targets, "--config", f"results_dir={results}"]


@pytest.mark.slow
def test_job_killed_mid_way_leaves_no_output_and_reruns(tmp_path):
    results = tmp_path / "results"
    # The smoke profile's ordinal job of a dataset runs its nine systems in about 4 s on an idle machine;
    # killed at 1 s
    record = results / "runs/ordinal/reviews_clothing/featsel/var.json"
    proc = subprocess.Popen(
        _smoke_args(results, str(record)), cwd=REPO_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    # The Python process of the job (its script path ends in bin/kernbench), not the shell around it.
    job = _wait_for_process(f"bin/kernbench ordinal-run .*{results}", proc)
    time.sleep(1.0)  # inside the job: data loaded, models fitting
    os.kill(job, signal.SIGKILL)
    assert proc.wait(timeout=120) != 0
    assert not record.exists()
    assert not (record.parent / "var.predictions.parquet").exists()

    assert not list(record.parent.glob("*.json")), "a killed job leaves none of its runs"

    rerun = run_snakemake(_smoke_args(results, str(record)), cwd=REPO_ROOT)
    assert rerun.returncode == 0, rerun.stdout[-2000:] + rerun.stderr[-2000:]
    assert json.loads(record.read_text())["system"] == "Var"


def _smoke_args(results, *targets):
    return [*_snakemake_args(results, *targets), "profile=smoke"]


@pytest.mark.slow
def test_killed_gram_job_leaves_no_gram_matrix_and_reruns(tmp_path):
    from kernbench.cache import load_dense

    results = tmp_path / "results"
    gram_dir = results / "cache/anygram/semeval14_laptop/AGKwess_lam0.4"
    target = gram_dir / "train.npz"
    tiled = [*_smoke_args(results, str(target)), "anygram={tile_rows: 256}"]  # the tile and assembly rules
    proc = subprocess.Popen(tiled, cwd=REPO_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    job = _wait_for_process(f"bin/kernbench anygram-gram-tile.*{results}", proc)
    os.kill(job, signal.SIGKILL)
    assert proc.wait(timeout=120) != 0
    # No Gram matrix of the killed job exists; any tile that does is complete (its checksum holds).
    assert not any((gram_dir / f"{s}{x}.npz").exists() for s in ("train", "dev", "test") for x in ("", "_diag"))
    for tile in (gram_dir / "tiles").glob("*.npz"):
        load_dense(tile)

    rerun = run_snakemake(tiled, cwd=REPO_ROOT)
    assert rerun.returncode == 0, rerun.stdout[-2000:] + rerun.stderr[-2000:]
    assert len(list((gram_dir / "tiles").glob("train_*.npz"))) == 2  # 400 training rows in tiles of 256
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

    rerun = run_snakemake(_smoke_args(results, str(record)), cwd=REPO_ROOT)
    assert rerun.returncode == 0, rerun.stdout[-2000:] + rerun.stderr[-2000:]
    assert json.loads(record.read_text())["system"] == "UniLSTM"
    assert record.with_name(record.name.replace(".json", ".keras")).stat().st_size > 0


@pytest.mark.slow
@pytest.mark.parametrize(
    "sig",
    [signal.SIGKILL, signal.SIGTERM],
    ids=["SIGKILL", "SIGTERM"],
)
@pytest.mark.xdist_group("snakemake_locks")
def test_interrupted_snakemake_resumes_with_the_same_command(tmp_path, sig):
    """The README's recovery: after Snakemake itself is killed mid-job, rerunning the same command works.

    With Snakemake's locks, as a user runs it: a killed Snakemake leaves its locks behind, and the rerun
    removes them (:func:`kernbench.workflow_lock.clear_stale_locks`).
    """
    results = tmp_path / "results"
    target = results / "prepared/sst.parquet"
    command = [*SNAKEMAKE_WITH_LOCKS, *_smoke_args(results, str(target))[len(SNAKEMAKE):]]
    output = tmp_path / "snakemake.out"
    # Its own process group, signalled as a terminal signals the foreground job (all of it).
    with open(output, "w") as out:
        proc = subprocess.Popen(command, cwd=REPO_ROOT, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        _wait_for_process(f"bin/kernbench prepare .*{results}", proc)
        time.sleep(0.2)  # inside the prepare job, whose output appears about 1.3 s after its process starts
        os.killpg(proc.pid, sig)
        assert proc.wait(timeout=120) != 0
    assert not target.exists()
    if sig in (signal.SIGINT, signal.SIGTERM):  # Snakemake's handlers run, and so does the workflow's onerror
        assert f"the run was interrupted ({sig.name})" in output.read_text()

    rerun = run_snakemake(command, cwd=REPO_ROOT)
    assert rerun.returncode == 0, rerun.stdout[-2000:] + rerun.stderr[-2000:]
    assert len(pd.read_parquet(target)) > 0


def test_second_checkout_on_the_same_results_dir_is_refused(tmp_path):
    """Two clones do not share Snakemake's locks; the second one writing into the same results_dir stops."""
    from kernbench.workflow_lock import claim_results_dir

    results = tmp_path / "results"
    target = results / "raw/sst/train.txt"
    other_clone = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        record = claim_results_dir(results, tmp_path / "other-clone", pid=other_clone.pid)
        refused = run_snakemake(_snakemake_args(results, str(target)), cwd=REPO_ROOT)
        assert refused.returncode != 0
        message = refused.stdout + refused.stderr
        assert f"in use by Snakemake process {other_clone.pid}" in message and str(tmp_path / "other-clone") in message
        assert not target.exists() and record.exists()
    finally:
        other_clone.kill()
        other_clone.wait()
    # The other run is gone (killed without cleaning up): its record is stale and the run goes ahead.
    rerun = run_snakemake(_snakemake_args(results, str(target)), cwd=REPO_ROOT)
    assert rerun.returncode == 0, rerun.stdout[-2000:] + rerun.stderr[-2000:]
    assert target.stat().st_size > 0
    assert list((results / ".kernbench-runs").iterdir()) == []  # its own record removed at the end


def _lock_dir_and_processes(tmp_path):
    """A lock directory of five lock files, a process that has ended and one that runs for a minute."""
    locks = tmp_path / "locks"
    locks.mkdir()
    for name in ("0.input.lock", "0.output.lock", "1.input.lock", "1.output.lock", "2.output.lock"):
        (locks / name).write_text("/some/file\n")
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    return locks, dead, live


def test_stale_snakemake_locks_are_removed_and_live_ones_kept(tmp_path):
    from kernbench.workflow_lock import clear_stale_locks, record_owner

    locks, dead, live = _lock_dir_and_processes(tmp_path)
    try:
        record_owner(locks, ["0.input.lock", "0.output.lock"], pid=dead.pid)
        dead.wait()
        elsewhere = record_owner(locks, ["2.output.lock"], pid=live.pid).rename(locks / "kernbench-owner.1.json")
        elsewhere.write_text(elsewhere.read_text().replace('"host": "', '"host": "other-'))
        record_owner(locks, [locks / "1.input.lock", locks / "1.output.lock"], pid=live.pid)
        messages = clear_stale_locks(locks)
        assert len(messages) == 1 and str(dead.pid) in messages[0]
        assert sorted(p.name for p in locks.iterdir()) == [
            "1.input.lock", "1.output.lock", "2.output.lock",
            "kernbench-owner.1.json", f"kernbench-owner.{live.pid}.json",
        ]
    finally:
        live.kill()
        live.wait()
    clear_stale_locks(locks)  # now the live one is dead too; the other host's lock stays
    assert sorted(p.name for p in locks.iterdir()) == ["2.output.lock", "kernbench-owner.1.json"]
    assert clear_stale_locks(tmp_path / "missing") == []


def test_a_starting_run_claims_the_locks_no_live_run_holds(tmp_path):
    from kernbench.workflow_lock import record_owner, unclaimed_locks

    locks, dead, live = _lock_dir_and_processes(tmp_path)
    try:
        record_owner(locks, ["0.input.lock"], pid=dead.pid)  # a killed run's lock is free to claim
        dead.wait()
        record_owner(locks, ["1.input.lock", "1.output.lock"], pid=live.pid)
        assert [p.name for p in unclaimed_locks(locks)] == ["0.input.lock", "0.output.lock", "2.output.lock"]
    finally:
        live.kill()
        live.wait()
    assert unclaimed_locks(tmp_path / "missing") == []


def test_owner_record_is_written_when_another_run_removes_the_lock_directory_meanwhile(tmp_path, monkeypatch):
    """Snakemake removes the whole lock directory when a run ends; a run of the same checkout starting then
    (as parallel tests do) finds the directory gone between creating it and writing its owner file."""
    import shutil

    import kernbench.fileio
    from kernbench.workflow_lock import record_owner

    locks = tmp_path / "locks"
    real = kernbench.fileio._remove_stale_temporaries
    removed = []

    def other_run_ends(target):
        # Called by atomic_path after it made the directory and before it opens its temporary file.
        if not removed:
            shutil.rmtree(target.parent)
            removed.append(target.parent)
        real(target)

    monkeypatch.setattr(kernbench.fileio, "_remove_stale_temporaries", other_run_ends)
    path = record_owner(locks, ["0.input.lock"])
    assert removed == [locks]
    assert json.loads(path.read_text())["locks"] == ["0.input.lock"]
    assert [p.name for p in locks.iterdir()] == [f"kernbench-owner.{os.getpid()}.json"]


def _wait_for_process(pattern: str, parent: subprocess.Popen, timeout: float = 240.0) -> int:
    """PID of the first process whose command line matches ``pattern``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and parent.poll() is None:
        found = subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True).stdout.split()
        if found:
            return int(found[0])
        time.sleep(0.1)
    raise AssertionError(f"no process matching {pattern!r} started")


def test_temporary_files_of_a_killed_write_are_removed_by_the_next_write(tmp_path):
    from kernbench.fileio import write_text_atomic

    target = tmp_path / "runs/x.json"
    target.parent.mkdir(parents=True)
    stale = target.parent / f".x.json.{'a' * 32}.tmp"  # what a write killed mid-way leaves
    other = target.parent / f".x.json.old.{'b' * 32}.tmp"  # the temporary of another file, x.json.old
    unrelated = target.parent / ".x.json.notes.tmp"
    for path in (stale, other, unrelated):
        path.write_text("partial")
    write_text_atomic(target, "done")
    assert target.read_text() == "done"
    assert sorted(p.name for p in target.parent.iterdir()) == sorted(["x.json", other.name, unrelated.name])


def _records(tmp_path):
    rows = [{"dataset": "sst", "split": "test", "metric": "accuracy", "value": 0.4}]
    return [
        write_record(
            tmp_path / f"anygram-sst-{system}.json", paper="anygram", dataset="sst", system=system, rows=rows,
            key_params={"C": [1.0]}, curves={"val_accuracy": [0.5, 0.6, 0.7]}, timings={"fit": 1.5},
            provenance={"git_commit": "abc", "config_hash": "def", "packages": {"numpy": "2"}},
        )
        for system in ("Triv", "BoW-TFIDF")
    ]


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


def _track(records, tmp_path, manifest, *previous):
    return subprocess.run(
        [sys.executable, "-m", "kernbench.cli", "track", "--records", *map(str, records), "--results-dir",
         str(tmp_path), "--manifest", str(manifest), "--previous", *map(str, previous)],
        capture_output=True, text=True,
    )


def test_track_starts_its_manifest_with_the_previous_papers_and_refuses_a_broken_one(tmp_path):
    records = _records(tmp_path)
    earlier = tmp_path / "tracking/papers/ordinal.tsv"
    earlier.parent.mkdir(parents=True)
    earlier.write_text("run_key\trun_id\trun_name\tstatus\nordinal/x\tabc\tx\tlogged\n")
    broken = tmp_path / "broken.tsv"
    broken.write_text("run_key\trun_id\nordinal/x\tabc\n")
    manifest = tmp_path / "tracking/papers/anygram.tsv"

    result = _track(records, tmp_path, manifest, earlier, broken)
    assert result.returncode == 1
    assert str(broken) in result.stderr and "run_name, status" in result.stderr
    assert not manifest.exists() and not (tmp_path / "mlflow.db").exists()  # checked before anything is logged

    result = _track(records, tmp_path, manifest, earlier)
    assert result.returncode == 0, result.stderr[-3000:]
    rows = pd.read_csv(manifest, sep="\t")
    assert rows["run_key"].tolist()[:1] == ["ordinal/x"] and len(rows) == 1 + len(records)
    assert rows["status"].tolist() == ["logged"] * (1 + len(records))


def test_track_failing_mid_run_is_redone_on_rerun(tmp_path):
    """A run whose logging stopped part-way (here: an artifact that cannot be copied) is not kept as logged."""
    from mlflow.tracking import MlflowClient

    records = _records(tmp_path)
    extra = tmp_path / "model"
    extra.mkdir()
    (extra / "weights.bin").write_bytes(b"w")
    (extra / "broken").symlink_to(tmp_path / "nowhere")  # copying the directory fails
    record = json.loads(records[1].read_text())
    record["artifacts"] = [str(extra)]
    records[1].write_text(json.dumps(record))
    uri = default_tracking_uri(tmp_path)
    with pytest.raises(TrackingError):
        log_records(records, tracking_uri=uri, artifact_root=tmp_path / "art")

    (extra / "broken").unlink()
    manifest = log_records(records, tracking_uri=uri, artifact_root=tmp_path / "art")
    assert [m["status"] for m in manifest] == ["unchanged", "replaced"]
    client = MlflowClient(tracking_uri=uri)
    runs = client.search_runs([client.get_experiment_by_name("kernbench-anygram").experiment_id])
    assert len(runs) == 2 and all(r.data.tags.get("content_hash") for r in runs)
    artifacts = {a.path for a in client.list_artifacts(manifest[1]["run_id"])}
    assert {records[1].name, "model"} <= artifacts
    assert [a.path for a in client.list_artifacts(manifest[1]["run_id"], "model")] == ["model/weights.bin"]
    again = log_records(records, tracking_uri=uri, artifact_root=tmp_path / "art")
    assert [m["status"] for m in again] == ["unchanged", "unchanged"]


@pytest.mark.slow  # mostly a wait: started early, beside the shared smoke run, which takes up the idle core
def test_locked_store_fails_clearly_then_succeeds_when_rerun(tmp_path):
    records = _records(tmp_path)
    uri = default_tracking_uri(tmp_path)
    log_records(records[:1], tracking_uri=uri, artifact_root=tmp_path / "art")
    # Another writer holds the store's write lock (readers go on); the first write waits MLflow's sqlite
    # busy timeout (20 s) and fails.
    holder = sqlite3.connect(tmp_path / "mlflow.db", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(TrackingError, match="locked"):
            log_records(records, tracking_uri=uri, artifact_root=tmp_path / "art")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    manifest = log_records(records, tracking_uri=uri, artifact_root=tmp_path / "art")
    assert [m["status"] for m in manifest] == ["unchanged", "logged"]
