"""The SLURM profile executed on a real single-node cluster started by ``workflow/scripts/slurm-local.sh``.

Marked ``cluster`` and left out of the default run: ``python -m pytest -m cluster`` runs it, as root on a
machine with Debian's ``slurm-wlm`` and ``munge`` (see docs/operations.md). Without them it fails, it does
not skip. It runs the smoke profile locally and through SLURM, cancels one SLURM job mid-run with
``scancel``, reruns the same command, and checks that every job went through ``sbatch``, that the tables
are byte-identical to the local run's and that MLflow holds each run once. Both runs' Snakemake logs stay
in the test's temporary directory; a failure prints their paths and last lines.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from mlflow.entities import ViewType
from mlflow.tracking import MlflowClient

from kernbench.report.tracking import default_tracking_uri
from tests.conftest import REPO_ROOT, SNAKEMAKE

pytestmark = pytest.mark.cluster

SCRIPT = REPO_ROOT / "workflow" / "scripts" / "slurm-local.sh"
CANCELLED_RULE = "lstm"  # a job long enough (a Keras model) to be cancelled while its command runs


def _run(command, env, **kwargs):
    return subprocess.run(command, cwd=REPO_ROOT, env=env, capture_output=True, text=True, **kwargs)


@pytest.fixture(scope="module")
def cluster_env():
    """Environment of a running local cluster; started (and stopped afterwards) unless already running."""
    env = dict(os.environ)
    already_running = _run(["bash", str(SCRIPT), "status"], env).returncode == 0
    start = _run(["bash", str(SCRIPT), "start"], env)
    if start.returncode != 0:
        pytest.fail(f"the local SLURM cluster did not start ({SCRIPT} start):\n{start.stderr}")
    match = re.search(r"^export SLURM_CONF=(\S+)$", start.stdout, re.MULTILINE)
    assert match, start.stdout
    env["SLURM_CONF"] = match.group(1)
    yield env
    if not already_running:
        _run(["bash", str(SCRIPT), "stop"], env)


def _local_smoke_run(results: Path, env) -> Path:
    """The local smoke run to compare with: KERNBENCH_CLUSTER_LOCAL_RESULTS if set (a finished run of this
    checkout, e.g. one made while the SLURM run goes on), else a new run into ``results``."""
    given = os.environ.get("KERNBENCH_CLUSTER_LOCAL_RESULTS")
    if given:
        return Path(given)
    run = _run(
        [*SNAKEMAKE, "--cores", "2", "--quiet", "rules", "--config", "profile=smoke",
         f"results_dir={results}"], env
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    return results


def _wait_for_targets(local: Path, cluster: Path, timeout_s: float = 3600):
    """Wait until a given local run, which may still be going on, has every final output the SLURM run has."""
    targets = [Path("tracking/mlflow_runs.tsv"), Path("costs.csv")]
    targets += [p.relative_to(cluster) for p in (cluster / "tables").iterdir()]
    deadline = time.monotonic() + timeout_s
    while not all((local / t).exists() for t in targets) and time.monotonic() < deadline:
        time.sleep(10)


def _slurm_command(results: Path, slurm_logs: Path) -> list[str]:
    # --retries 0: the cancelled job fails the run instead of being retried, so the rerun has work to do.
    # squeue reports job states: the local cluster has no slurmdbd for sacct.
    return [
        *SNAKEMAKE, "--profile", "workflow/profiles/slurm", "--retries", "0",
        "--slurm-no-account", "--slurm-status-command", "squeue", "--slurm-init-seconds-before-status-checks", "5",
        f"--slurm-logdir={slurm_logs}", "--config", "profile=smoke", f"results_dir={results}",
    ]  # fmt: skip


def _jobcomp(env) -> dict[str, dict[str, str]]:
    """Ended SLURM jobs by id, from slurmctld's job completion file."""
    config = Path(env["SLURM_CONF"]).read_text()
    path = Path(re.search(r"^JobCompLoc=(\S+)$", config, re.MULTILINE).group(1))
    jobs = {}
    for line in path.read_text().splitlines():
        fields = dict(item.split("=", 1) for item in line.split() if "=" in item)
        jobs[fields["JobId"]] = fields
    return jobs


def _run_uuid(log: str) -> str:
    match = re.search(r"SLURM run ID: (\S+)", log)
    assert match, log[-3000:]
    return match.group(1)


def _submissions(log: str) -> dict[str, str]:
    """SLURM job id by Snakemake job id, for every job of the run that Snakemake submitted with sbatch."""
    return dict(re.findall(r"Job (\d+) has been submitted with SLURM jobid (\d+)", log))


def _submitted(log: str) -> set[str]:
    return set(_submissions(log).values())


def _finished(log: str) -> list[tuple[str, str]]:
    """Snakemake job id and rule of every job Snakemake finished in the run, in the order they finished."""
    # `all` only collects targets: it has no command and is never submitted.
    finished = re.findall(r"Finished jobid: (\d+) \(Rule: (\w+)\)", log)
    return [(jobid, rule) for jobid, rule in finished if rule != "all"]


def _assert_each_finished_job_went_through_sbatch(name: str, log: str):
    finished, submitted = _finished(log), _submissions(log)
    without = [f"{rule} (Snakemake jobid {jobid})" for jobid, rule in finished if jobid not in submitted]
    assert not without, f"{name}: jobs finished without an sbatch submission: {without}"
    twice = sorted({job for job in finished if finished.count(job) > 1})
    assert not twice, f"{name}: jobs reported finished more than once: {twice}"


def _stop(process: subprocess.Popen):
    """End a Snakemake run the test started and that still runs, so that it submits no more jobs."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=120)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextlib.contextmanager
def _logs_on_failure(*logs: Path, lines: int = 80):
    """Print each log's path and its last ``lines`` lines when the block fails, then fail as before."""
    try:
        yield
    except (Exception, pytest.fail.Exception):
        for log in logs:
            if log.exists():
                tail = "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
                print(f"\n--- {log} (last {lines} lines)\n{tail}", flush=True)
            else:
                print(f"\n--- {log}: not written", flush=True)
        raise


def _cancel_one_running_job(uuid: str, env, process, timeout_s: float = 4 * 3600) -> str:
    """Wait for a running job of CANCELLED_RULE that has run for 5 s, cancel it and return its id.

    On a loaded machine the first LSTM job can start an hour into the run, so the bound is generous.
    """
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and process.poll() is None:
        listing = _run(["squeue", "--noheader", f"--name={uuid}", "--states=RUNNING", "--format=%i|%k|%M"], env)
        for line in listing.stdout.splitlines():
            job_id, comment, elapsed = line.strip().split("|")
            seconds = sum(int(part) * 60**i for i, part in enumerate(reversed(elapsed.split(":"))))
            if comment.startswith(f"rule_{CANCELLED_RULE}_wildcards_") and seconds >= 5:
                cancel = _run(["scancel", job_id], env)
                assert cancel.returncode == 0, cancel.stderr
                return job_id
        time.sleep(1)
    pytest.fail(f"no {CANCELLED_RULE} job was seen running (snakemake exit code {process.poll()})")


def _assert_same_tables(local: Path, cluster: Path):
    names = sorted(p.name for p in (local / "tables").iterdir())
    assert names and names == sorted(p.name for p in (cluster / "tables").iterdir())
    different = [n for n in names if (local / "tables" / n).read_bytes() != (cluster / "tables" / n).read_bytes()]
    assert not different, f"tables differ between the local and the SLURM run: {different}"
    return len(names)


def _assert_each_run_once(results: Path) -> int:
    manifest = pd.read_csv(results / "tracking" / "mlflow_runs.tsv", sep="\t")
    client = MlflowClient(tracking_uri=default_tracking_uri(results))
    experiments = [e.experiment_id for e in client.search_experiments(view_type=ViewType.ALL)]
    runs = client.search_runs(experiments, run_view_type=ViewType.ALL, max_results=50_000)
    assert len(runs) == len(manifest) > 0
    assert all(run.info.lifecycle_stage == "active" for run in runs)
    assert sorted(run.info.run_id for run in runs) == sorted(manifest["run_id"])
    # One parent run per run key, complete (content_hash is its last tag); the per-category and
    # per-level child runs share their parent's key. Every run's name is unique in its experiment.
    parents = [run for run in runs if "mlflow.parentRunId" not in run.data.tags]
    children = [run for run in runs if "mlflow.parentRunId" in run.data.tags]
    keys = [run.data.tags["run_key"] for run in parents]
    assert len(set(keys)) == len(keys) and set(keys) == set(manifest["run_key"])
    assert all("content_hash" in run.data.tags for run in parents)
    assert {run.data.tags["mlflow.parentRunId"] for run in children} <= {run.info.run_id for run in parents}
    names = [(run.info.experiment_id, run.info.run_name) for run in runs]
    assert len(set(names)) == len(runs)
    return len(runs)


def test_smoke_profile_through_slurm_survives_a_cancelled_job(cluster_env, tmp_path):
    started = time.monotonic()
    cluster, slurm_logs = tmp_path / "cluster", tmp_path / "slurm_logs"
    first_log, second_log = tmp_path / "slurm-first.log", tmp_path / "slurm-rerun.log"
    print(f"\ncluster test: Snakemake logs {first_log} and {second_log}, SLURM job logs in {slurm_logs}", flush=True)
    local = _local_smoke_run(tmp_path / "local", cluster_env)

    with _logs_on_failure(first_log), first_log.open("w") as out:
        first = subprocess.Popen(
            _slurm_command(cluster, slurm_logs), cwd=REPO_ROOT, env=cluster_env, stdout=out, stderr=subprocess.STDOUT
        )
        try:
            deadline = time.monotonic() + 300
            while "SLURM run ID:" not in first_log.read_text() and time.monotonic() < deadline:
                time.sleep(1)
            first_uuid = _run_uuid(first_log.read_text())
            cancelled = _cancel_one_running_job(first_uuid, cluster_env, first)
            first.wait(timeout=4 * 3600)
        finally:
            _stop(first)  # a no-op unless the test failed: then Snakemake must not go on submitting jobs
        first_text = first_log.read_text()
        assert first.returncode != 0, "the run with a cancelled job succeeded"
        assert f"SLURM-job '{cancelled}' failed, SLURM status is: 'CANCELLED'" in first_text

    with _logs_on_failure(first_log, second_log):
        with second_log.open("w") as out:
            second = subprocess.Popen(
                _slurm_command(cluster, slurm_logs), cwd=REPO_ROOT, env=cluster_env, stdout=out,
                stderr=subprocess.STDOUT,
            )  # fmt: skip
            try:
                second.wait(timeout=4 * 3600)
            finally:
                _stop(second)
        second_text = second_log.read_text()
        assert second.returncode == 0, "the rerun failed"
        second_uuid = _run_uuid(second_text)
        assert second_uuid != first_uuid

        jobcomp = _jobcomp(cluster_env)
        for uuid, text in ((first_uuid, first_text), (second_uuid, second_text)):
            ended = {job_id for job_id, job in jobcomp.items() if job["Name"] == uuid}
            assert _submitted(text) == ended, f"run {uuid}: submitted and ended SLURM jobs differ"
        states = {job_id: jobcomp[job_id]["JobState"] for job_id in _submitted(first_text) | _submitted(second_text)}
        assert states.pop(cancelled) == "CANCELLED"
        assert set(states.values()) == {"COMPLETED"}
        # Every job Snakemake finished ran as a SLURM job, each once, and the rerun redid the cancelled rule.
        _assert_each_finished_job_went_through_sbatch("first run", first_text)
        _assert_each_finished_job_went_through_sbatch("rerun", second_text)
        finished_first, finished_second = _finished(first_text), _finished(second_text)
        assert len(finished_first) + len(finished_second) == len(states)
        assert CANCELLED_RULE in {rule for _, rule in finished_second}
        local_rules = set(re.findall(r"^local(?:rule|checkpoint) (\w+):", first_text + second_text, re.MULTILINE))
        assert local_rules <= {"all"}

        _wait_for_targets(local, cluster)
        tables = _assert_same_tables(local, cluster)
        runs = _assert_each_run_once(cluster)
        assert _assert_each_run_once(local) == runs

    print(
        f"\ncluster test: {len(states) + 1} SLURM jobs ({len(_submitted(first_text))} in the first run, "
        f"job {cancelled} of them cancelled, {len(_submitted(second_text))} in the rerun), {tables} table files "
        f"byte-identical to the local run, {runs} MLflow runs each logged once; "
        f"wall time {time.monotonic() - started:.0f} s"
    )
