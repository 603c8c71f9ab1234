"""The workflow against a real MLflow tracking server on loopback, read back through the REST API."""

from __future__ import annotations

import json
import math
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import REPO_ROOT


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _rest(base: str, endpoint: str, payload: dict | None = None) -> dict:
    data = None if payload is None else json.dumps(payload).encode()
    request = urllib.request.Request(
        f"{base}/api/2.0/mlflow/{endpoint}", data=data, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


@pytest.fixture
def tracking_server(tmp_path):
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [Path(sys.executable).parent / "mlflow", "server", "--host", "127.0.0.1", "--port", str(port),
         "--backend-store-uri", f"sqlite:///{tmp_path / 'server.db'}",
         "--artifacts-destination", str(tmp_path / "server-artifacts"), "--workers", "1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"{base}/health", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise AssertionError("mlflow server did not come up")
                time.sleep(0.5)
        yield base
    finally:
        server.terminate()
        server.wait(timeout=30)


def _all_runs(base: str) -> list[dict]:
    experiments = _rest(base, "experiments/search", {"max_results": 100})["experiments"]
    ids = [e["experiment_id"] for e in experiments if e["name"].startswith("kernbench-")]
    runs, token = [], None
    while True:
        page = _rest(base, "runs/search", {"experiment_ids": ids, "max_results": 1000, **({"page_token": token} if token else {})})
        runs += page.get("runs", [])
        token = page.get("next_page_token")
        if not token:
            return runs


@pytest.mark.slow
def test_smoke_records_reach_a_tracking_server_once(tracking_server, smoke_run, tmp_path):
    # A copy of the shared smoke run without its MLflow store: only the tracking step runs again, to the server.
    results = tmp_path / "results"
    store = shutil.ignore_patterns("mlflow.db", "mlartifacts", "tracking", ".kernbench-runs")
    shutil.copytree(smoke_run[0], results, ignore=store)
    command = [sys.executable, "-m", "snakemake", "--cores", "2", "--config", "profile=smoke",
               f"results_dir={results}", f"mlflow={{tracking_uri: '{tracking_server}'}}"]
    first = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True)
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    assert "rule track:" in first.stdout + first.stderr and "rule lstm:" not in first.stdout + first.stderr
    assert not (results / "mlflow.db").exists()  # nothing went to the default sqlite store

    records = {json.loads(p.read_text())["run_key"]: json.loads(p.read_text()) for p in results.glob("runs/**/*.json")}
    runs = _all_runs(tracking_server)
    tags = [{t["key"]: t["value"] for t in run["data"].get("tags", [])} for run in runs]
    record_runs = [t for t in tags if "mlflow.parentRunId" not in t and t.get("kind") != "summary"]
    assert sorted(t["run_key"] for t in record_runs) == sorted(records)
    assert sorted(t["paper"] for t in tags if t.get("kind") == "summary") == sorted({r["paper"] for r in records.values()})
    names = [run["info"]["run_name"] for run in runs]
    assert len(set(names)) == len(names)  # unique run names

    # One search by dataset gives the table's rows of that dataset, comparable column by column.
    from mlflow.tracking import MlflowClient

    # The dataset's systems: the paper's table (Table 3) and its baselines (BoW-TFIDF, Triv).
    table = pd.concat([pd.read_csv(results / "tables/anygram.csv"), pd.read_csv(results / "tables/baselines.csv")])
    test = table[(table["dataset"] == "semeval14_laptop") & (table["split"] == "test") & (table["metric"] == "accuracy")]
    client = MlflowClient(tracking_uri=tracking_server)
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

    again = subprocess.run(command + ["--forcerun", "track"], cwd=REPO_ROOT, capture_output=True, text=True)
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
    assert sorted(r["info"]["run_id"] for r in _all_runs(tracking_server)) == sorted(r["info"]["run_id"] for r in runs)
