"""LSTM epochs and system metrics on a real MLflow server while the model trains; ``track`` completes that run."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from kernbench.cli import main
from kernbench.records import make_run_key
from kernbench.report.tracking import experiment_id, log_records
from kernbench.report.tracking_entries import curve_metrics
from kernbench.report.tracking_live import LIVE_TAG, TRAINED, TRAINING, LiveRun, is_server, live_run
from tests.conftest import free_port, glove_for

SETTINGS = {"batch_size": 16, "layers": 1, "hidden_size": 6, "learning_rate": 0.01, "dropout": 0.3, "max_epochs": 4,
            "patience": 4, "trainable_embeddings": True, "bucket_batches": 2}  # fmt: skip
SEEDS = (1, 2)
CURVES = ("curve.train.loss", "curve.train.accuracy", "curve.dev.loss", "curve.dev.accuracy")


@pytest.fixture
def server(mlflow_server):
    """``mlflow server`` on 127.0.0.1 with a sqlite store under ``tmp_path``: its URI."""
    return mlflow_server.base


@pytest.fixture
def laptop_inputs(tmp_path, laptop):
    """A 120-sentence-per-split slice of SemEval laptop and its GloVe vectors: ``(prepared, embeddings)``."""
    frame = pd.concat([laptop[laptop["split"] == s].head(120) for s in ("train", "dev", "test")], ignore_index=True)
    prepared = tmp_path / "laptop.parquet"
    frame.to_parquet(prepared, index=False)
    words, vectors = glove_for(frame)
    embeddings = tmp_path / "emb.npz"
    np.savez(embeddings, words=words, vectors=vectors, cased=False)
    return prepared, embeddings


def _lstm_args(prepared, embeddings, out: Path, seeds) -> list[str]:
    return [
        "lstm", "--dataset", "semeval14_laptop", "--system", "BiLSTM", "--seed", *map(str, seeds),
        "--prepared", str(prepared), "--embeddings", str(embeddings), "--settings", json.dumps(SETTINGS),
        "--profile", "test", "--threads", "1", "--record", str(out / "r{seed}.json"),
        "--predictions", str(out / "p{seed}.parquet"), "--model", str(out / "m{seed}.keras"),
    ]  # fmt: skip


def _run_key(seed: int) -> str:
    return make_run_key("anygram", "semeval14_laptop", "BiLSTM", {**SETTINGS, "seed": seed, "profile": "test",
                                                                   "embedding_dim": 50})  # fmt: skip


def _runs_of(client, experiment: str, run_key: str):
    return client.search_runs([experiment], filter_string=f"tags.run_key = '{run_key}'")


@pytest.mark.slow
def test_lstm_epochs_reach_the_server_while_training_and_track_completes_that_run(server, laptop_inputs, tmp_path):
    from mlflow.tracking import MlflowClient

    prepared, embeddings = laptop_inputs
    client = MlflowClient(tracking_uri=server)
    experiment = experiment_id(client, "anygram", tmp_path / "mlartifacts")
    # What a job killed while training leaves behind: an open run of the key that no record completes.
    killed = client.create_run(experiment, tags={"run_key": _run_key(1), LIVE_TAG: TRAINING}).info.run_id

    out = tmp_path / "live"
    command = [str(Path(sys.executable).parent / "kernbench"), *_lstm_args(prepared, embeddings, out, SEEDS),
               f"--tracking-uri={server}", "--mlflow-artifacts", str(tmp_path / "mlartifacts")]  # fmt: skip
    run = subprocess.run(command, capture_output=True, text=True,
                         env={**os.environ, "MLFLOW_SYSTEM_METRICS_SAMPLING_INTERVAL": "0.5"})  # fmt: skip
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert client.get_run(killed).info.lifecycle_stage == "deleted"

    records = {seed: json.loads((out / f"r{seed}.json").read_text()) for seed in SEEDS}
    live_ids = {}
    for seed, record in records.items():
        assert record["run_key"] == _run_key(seed)
        [live] = _runs_of(client, experiment, record["run_key"])
        live_ids[seed] = live.info.run_id
        assert live.info.status == "FINISHED" and live.data.tags[LIVE_TAG] == TRAINED
        assert "content_hash" not in live.data.tags and "test.accuracy" not in live.data.metrics
        assert live.data.tags["seed"] == str(seed) and live.data.tags["system"] == "BiLSTM"
        # Every epoch, under the name, step and value track gives it, logged before the record was written.
        expected = sorted((name, step, value) for name, value, step in curve_metrics(record["curves"]))
        assert len(expected) == len(CURVES) * SETTINGS["max_epochs"]
        history = [point for name in CURVES for point in client.get_metric_history(live.info.run_id, name)]
        assert sorted((p.key, p.step, p.value) for p in history) == expected
        stamps = [p.timestamp for p in sorted(history, key=lambda p: p.step)]
        assert stamps == sorted(stamps) and stamps[-1] < record["provenance"]["finished"]
        assert {"system/cpu_utilization_percentage", "system/system_memory_usage_megabytes"} <= set(live.data.metrics)

    # track completes the runs the job opened: one run per key, the same run, FINISHED, with its content hash.
    paths = [out / f"r{seed}.json" for seed in SEEDS]
    manifest = log_records(paths, tracking_uri=server, artifact_root=tmp_path / "mlartifacts", summaries=False)
    assert [(m["run_id"], m["status"]) for m in manifest] == [(live_ids[seed], "logged") for seed in SEEDS]
    for seed, record in records.items():
        [done] = _runs_of(client, experiment, record["run_key"])
        assert done.info.run_id == live_ids[seed] and done.info.status == "FINISHED"
        assert len(done.data.tags["content_hash"]) == 64 and done.info.run_name == f"semeval14_laptop/BiLSTM seed {seed}"
        assert done.data.metrics["test.accuracy"] == pytest.approx(100 * record["metrics"]["semeval14_laptop.test.accuracy"])
        assert done.data.params["epochs_trained"] == str(SETTINGS["max_epochs"])
        for name in CURVES:  # each epoch once: track left out the points the job logged
            assert [p.step for p in client.get_metric_history(done.info.run_id, name)] == [1, 2, 3, 4]
        assert any(key.startswith("system/") for key in done.data.metrics)
        assert [m.name for m in client.search_logged_models([experiment], filter_string=f"source_run_id = '{done.info.run_id}'")] == [
            f"semeval14_laptop-BiLSTM-seed{seed}"]
    again = log_records(paths, tracking_uri=server, artifact_root=tmp_path / "mlartifacts", summaries=False)
    assert [(m["run_id"], m["status"]) for m in again] == [(live_ids[seed], "unchanged") for seed in SEEDS]

    # The live run changes no number: the same seed trained with the default sqlite store as its store, which the job
    # leaves alone, gives the same record.
    store = tmp_path / "results" / "mlflow.db"
    quiet = tmp_path / "quiet"
    assert main([*_lstm_args(prepared, embeddings, quiet, [1]), f"--tracking-uri=sqlite:///{store}"]) == 0
    alone = json.loads((quiet / "r1.json").read_text())
    assert not store.exists() and not store.parent.exists()
    assert (alone["run_key"], alone["curves"], alone["rows"]) == (records[1]["run_key"], records[1]["curves"], records[1]["rows"])
    pd.testing.assert_frame_equal(pd.read_parquet(quiet / "p1.parquet"), pd.read_parquet(out / "p1.parquet"))


def test_only_a_server_gets_a_live_run(tmp_path):
    assert is_server("http://127.0.0.1:5000") and is_server("https://mlflow.example.org")
    for uri in ("", None, f"sqlite:///{tmp_path / 'mlflow.db'}", f"file://{tmp_path / 'mlruns'}", "databricks"):
        assert not is_server(uri)
        assert live_run(uri, paper="anygram", artifact_root=None, run_key="k", run_name="n", tags={}) is None
    assert not any(tmp_path.iterdir())


def test_an_unreachable_server_leaves_training_to_go_on(monkeypatch, caplog):
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "0")
    uri = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    live = LiveRun(uri, paper="anygram", artifact_root=None, run_key="anygram/x/BiLSTM/0", run_name="x", tags={})
    with caplog.at_level(logging.WARNING, logger="kernbench"), live:
        live.log_epoch(1, {"loss": 1.0})
    assert live.run_id is None
    assert [r.getMessage() for r in caplog.records if uri in r.getMessage() and "without live metrics" in r.getMessage()]
