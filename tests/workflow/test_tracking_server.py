"""The workflow against a real MLflow tracking server on loopback, read back through the REST API."""

from __future__ import annotations

import http.client
import json
import math
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import REPO_ROOT, SNAKEMAKE, write_record


def _rest(base: str, endpoint: str, payload: dict | None = None) -> dict:
    data = None if payload is None else json.dumps(payload).encode()
    request = urllib.request.Request(
        f"{base}/api/2.0/mlflow/{endpoint}", data=data, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


def _all_runs(base: str) -> list[dict]:
    experiments = _rest(base, "experiments/search", {"max_results": 100}).get("experiments", [])  # none at first
    ids = [e["experiment_id"] for e in experiments if e["name"].startswith("kernbench-")]
    if not ids:
        return []
    runs, token = [], None
    while True:
        page = _rest(base, "runs/search", {"experiment_ids": ids, "max_results": 1000, **({"page_token": token} if token else {})})
        runs += page.get("runs", [])
        token = page.get("next_page_token")
        if not token:
            return runs


def _copy_without_tracking(smoke_results: Path, results: Path) -> None:
    """The shared smoke run without its MLflow store: only the tracking steps run again."""
    store = shutil.ignore_patterns("mlflow.db", "mlartifacts", "tracking", ".kernbench-runs")
    shutil.copytree(smoke_results, results, ignore=store)


def _logged(tracking_uri: str) -> list[tuple]:
    """Every record's active run in the papers' experiments: ``(run_key, run_name, content_hash, metrics)``, sorted."""
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=tracking_uri)
    experiments = [e.experiment_id for e in client.search_experiments() if e.name.startswith("kernbench-")]
    runs = client.search_runs(experiments, max_results=50000)
    return sorted(
        (r.data.tags["run_key"], r.info.run_name, r.data.tags.get("content_hash"), sorted(r.data.metrics.items()))
        for r in runs
        if "mlflow.parentRunId" not in r.data.tags and r.data.tags.get("kind") != "summary"
    )


def _manifests(results: Path) -> list[pd.DataFrame]:
    """The papers' tracking manifests of a results directory."""
    return [pd.read_csv(p, sep="\t") for p in sorted((results / "tracking" / "papers").glob("*.tsv"))]


def _wait_for_runs(base: str, count: int, process: subprocess.Popen, log: Path) -> None:
    """Wait until the server holds ``count`` runs, while ``process`` logs to it."""
    deadline = time.monotonic() + 600
    while len(_all_runs(base)) < count:
        assert process.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
        # Each search returns every run with its data, which costs the server up to 0.35 s with the smoke
        # run's 126 runs: once a second leaves the server to the track job.
        time.sleep(1.0)


@pytest.mark.slow
def test_smoke_records_reach_a_server_killed_during_track_once_each(mlflow_server, smoke_run, tmp_path):
    from mlflow.tracking import MlflowClient

    # A copy of the shared smoke run without its MLflow store: only the tracking steps run again, to the server.
    results = tmp_path / "results"
    _copy_without_tracking(smoke_run[0], results)
    # --printshellcmds: the rule blocks of the jobs that ran, which the default profile's terminal leaves out
    command = [*SNAKEMAKE, "--cores", "2", "--printshellcmds", "--config", "profile=smoke",
               f"results_dir={results}", f"mlflow={{tracking_uri: '{mlflow_server.base}'}}"]

    # The server goes down while a track job is logging; without retries the job fails at its next request.
    first_log = tmp_path / "first.log"
    with open(first_log, "w") as log:
        first = subprocess.Popen(command, cwd=REPO_ROOT, stdout=log, stderr=subprocess.STDOUT,
                                 env={**os.environ, "MLFLOW_HTTP_REQUEST_MAX_RETRIES": "0"})
        _wait_for_runs(mlflow_server.base, 10, first, first_log)
        mlflow_server.kill()
        assert first.wait(timeout=600) != 0
    logs = "".join(p.read_text() for p in (results / "logs/track").glob("*.log"))
    assert f"MLflow store {mlflow_server.base} could not be written" in logs and "rerun the workflow" in logs
    # A run cut short has no completion mark (unless the server went down between two runs).
    store = MlflowClient(tracking_uri=f"sqlite:///{mlflow_server.root / 'server.db'}")  # read while the server is down
    cut_short = [r for r in store.search_runs([e.experiment_id for e in store.search_experiments()])
                 if "mlflow.parentRunId" not in r.data.tags and "content_hash" not in r.data.tags]

    # Started again on the same port and store, the same command (MLflow's default number of retries, each
    # waiting half the default backoff) completes; the server goes down once more mid-way and is back
    # within the client's retries.
    mlflow_server.start()
    second_log = tmp_path / "second.log"
    with open(second_log, "w") as log:
        second = subprocess.Popen(command, cwd=REPO_ROOT, stdout=log, stderr=subprocess.STDOUT,
                                  env={**os.environ, "MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR": "1"})
        _wait_for_runs(mlflow_server.base, len(_all_runs(mlflow_server.base)) + 10, second, second_log)
        mlflow_server.kill()
        time.sleep(2)
        mlflow_server.start()
        assert second.wait(timeout=900) == 0, second_log.read_text()[-3000:]
    output = second_log.read_text()
    assert "rule track:" in output and "rule lstm:" not in output
    assert not (results / "mlflow.db").exists()  # nothing went to the default sqlite store
    logs = "".join(p.read_text() for p in (results / "logs/track").glob("*.log"))
    assert "Retrying (Retry(" in logs  # urllib3's warning: a request met the server down and was sent again

    # Nothing lost, nothing twice: the server holds exactly the runs the smoke run logged to its own store,
    # with the same metrics and completion marks, and the papers' manifests name each of them once.
    records = {r["run_key"]: r for r in (json.loads(p.read_text()) for p in results.glob("runs/**/*.json"))}
    reference = _logged(f"sqlite:///{smoke_run[0] / 'mlflow.db'}")
    assert sorted(run[0] for run in reference) == sorted(records) and len(reference) > 50
    assert _logged(mlflow_server.base) == reference
    runs = _all_runs(mlflow_server.base)
    tags = [{t["key"]: t["value"] for t in run["data"].get("tags", [])} for run in runs]
    # Each paper's manifest starts with the rows of the papers tracked before it.
    manifests = _manifests(results)
    assert all(m["run_id"].is_unique for m in manifests)
    manifest_rows = pd.concat(manifests)
    assert sorted(set(manifest_rows["run_id"])) == sorted(
        run["info"]["run_id"] for run, t in zip(runs, tags) if t.get("kind") != "summary")
    # A run cut short is logged again, in place of the first (the second outage may replace more: a run whose
    # creation's answer it lost).
    replaced = set(manifest_rows.loc[manifest_rows["status"] == "replaced", "run_key"])
    assert {r.data.tags["run_key"] for r in cut_short} <= replaced
    assert sorted(t["paper"] for t in tags if t.get("kind") == "summary") == sorted({r["paper"] for r in records.values()})
    names = [run["info"]["run_name"] for run in runs]
    assert len(set(names)) == len(names)  # unique run names

    # One search by dataset gives the table's rows of that dataset, comparable column by column.
    # The dataset's systems: the paper's table (Table 3) and its baselines (BoW-TFIDF, Triv).
    table = pd.concat([pd.read_csv(results / "tables/anygram.csv"), pd.read_csv(results / "tables/baselines.csv")])
    test = table[(table["dataset"] == "semeval14_laptop") & (table["split"] == "test") & (table["metric"] == "accuracy")]
    client = MlflowClient(tracking_uri=mlflow_server.base)
    listed = client.search_experiments()  # what the UI lists: the papers' experiments, not an empty Default
    assert sorted(e.name for e in listed) == sorted(f"kernbench-{p}" for p in {r["paper"] for r in records.values()})
    assert {e.tags["mlflow.experimentKind"] for e in listed} == {"custom_model_development"}
    lstms = [r for r in records.values() if any(str(a).endswith(".keras") for a in r.get("artifacts", []))]
    assert lstms and {m.name for m in client.search_registered_models()} == {
        f"{r['dataset']}-{r['system']}-seed{r['params']['seed']}" for r in lstms}
    experiments = [e.experiment_id for e in listed]
    found = client.search_runs(experiments, filter_string="tags.dataset = 'semeval14_laptop'", max_results=1000)
    by_system = {run.data.tags["system"]: run.data.metrics for run in found}
    assert sorted(by_system) == sorted(test["system"]) and len(found) == len(test)
    assert len(test) >= 8 and test["paper_value"].notna().sum() >= 6
    for cell in test.itertuples():
        metrics = by_system[cell.system]
        assert metrics["test.accuracy"] == pytest.approx(cell.value, abs=1e-9)
        assert metrics["test.accuracy.ci_low"] <= metrics["test.accuracy"] <= metrics["test.accuracy.ci_high"]
        if cell.paper_value == cell.paper_value:
            assert metrics["test.accuracy.paper"] == cell.paper_value
            assert metrics["test.accuracy.delta"] == pytest.approx(cell.delta, abs=1e-4)
        else:
            assert "test.accuracy.paper" not in metrics and "test.accuracy.delta" not in metrics
        assert not any(math.isnan(value) for value in metrics.values())


class _LosingProxy:
    """An HTTP proxy in front of a server that passes the first request to ``path`` on and then drops the
    connection instead of returning the answer, as a server killed or a proxy timing out just after the write;
    with ``cut``, it sends the answer's headers and half its body before it drops the connection."""

    CREATE = "/api/2.0/mlflow/runs/create"

    def __init__(self, upstream: str, path: str = CREATE, cut: bool = False):
        host = upstream.removeprefix("http://")
        self.lost = 0
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _forward(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                connection = http.client.HTTPConnection(host, timeout=120)
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
                connection.request(self.command, self.path, body=body, headers=headers)
                response = connection.getresponse()
                data = response.read()
                connection.close()
                lose = self.path.split("?")[0] == path and not proxy.lost
                if lose and not cut:
                    proxy.lost += 1
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                self.send_response(response.status)
                for key, value in response.getheaders():
                    if key.lower() not in ("transfer-encoding", "connection", "content-length"):
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if lose:
                    proxy.lost += 1
                    self.wfile.write(data[: len(data) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _forward

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


def _log_two_records_through(proxy: _LosingProxy, server: str, directory: Path, dataset: str):
    """Log two records of ``dataset`` to ``server`` through ``proxy``; check that the server then holds one complete
    run per record of that dataset.

    Returns the manifest of ``log_records``.
    """
    from mlflow.tracking import MlflowClient

    from kernbench.report.tracking import log_records

    directory.mkdir()
    rows = [{"dataset": dataset, "split": "test", "metric": "accuracy", "value": 0.4}]
    records = [write_record(directory / f"{system}.json", paper="anygram", dataset=dataset, system=system, rows=rows)
               for system in ("Triv", "BoW-TFIDF")]
    try:
        manifest = log_records(records, tracking_uri=proxy.base, artifact_root=None, summaries=False)
    finally:
        proxy.httpd.shutdown()
        proxy.httpd.server_close()
    assert proxy.lost == 1
    client = MlflowClient(tracking_uri=server)
    runs = client.search_runs([client.get_experiment_by_name("kernbench-anygram").experiment_id],
                              filter_string=f"tags.dataset = '{dataset}'")
    assert sorted(r.info.run_id for r in runs) == sorted(m["run_id"] for m in manifest)
    assert sorted(r.data.tags["run_key"] for r in runs) == sorted(json.loads(p.read_text())["run_key"] for p in records)
    assert all(r.data.tags.get("content_hash") and r.data.metrics["test.accuracy"] == 40.0 for r in runs)
    return manifest


@pytest.mark.slow
def test_a_lost_or_cut_off_answer_leaves_one_complete_run_per_key(mlflow_server, tmp_path):
    # One server, one dataset per case.
    # A lost answer: the server creates the first run and the connection drops before its answer. MLflow's client
    # does not send a write again once it has reached the server: the record is logged again and the run created
    # without its completion mark replaced.
    manifest = _log_two_records_through(_LosingProxy(mlflow_server.base), mlflow_server.base, tmp_path / "lost", "sst")
    assert sorted(m["status"] for m in manifest) == ["logged", "replaced"]
    # An answer cut off: the server writes the first run's tags, metrics and params (runs/log-batch) and its answer
    # breaks off after half its body: the record is logged again and the half-logged run replaced.
    proxy = _LosingProxy(mlflow_server.base, path="/api/2.0/mlflow/runs/log-batch", cut=True)
    manifest = _log_two_records_through(proxy, mlflow_server.base, tmp_path / "cut", "semeval14_laptop")
    assert sorted(m["status"] for m in manifest) == ["logged", "replaced"]
