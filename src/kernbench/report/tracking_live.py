"""Live LSTM runs on an MLflow server: per-epoch and system metrics while a model trains.

With an MLflow server as the store (``mlflow.tracking_uri`` = ``http(s)://host:port``), ``kernbench lstm``
opens each seed's MLflow run before the model trains (:class:`LiveRun`): in the paper's experiment, tagged
with the run key that ``track`` logs the record under and ``live`` = ``training``. After each epoch its
curve metrics go there, under the names, units and steps ``track`` gives them (``curve.train.loss``,
``curve.dev.accuracy``, step = epoch), and MLflow's system metrics monitor logs ``system/*`` (CPU,
memory, disk, network) every 10 s while the model trains. Once the record is written the run ends
(FINISHED) with ``live`` = ``trained``. ``track`` then completes that same run
(:func:`kernbench.report.tracking_assets.adoptable_run`) instead of creating another: it logs the params,
the table metrics, the artifacts and the model, leaves out the per-epoch values already there
(:func:`kernbench.report.tracking_assets.unlogged`) and sets ``content_hash`` last, as for any run.

A local store (the default sqlite file) is left alone by the training jobs: only ``track`` writes to it,
one job at a time, since sqlite lets one writer in at a time and parallel jobs would wait on its lock or
fail with "database is locked".
"""

from __future__ import annotations

import logging
import time
from urllib.parse import urlparse

from kernbench.report.tracking_assets import LIVE_TAG, TRAINED, TRAINING

log = logging.getLogger("kernbench")


def is_server(tracking_uri: str | None) -> bool:
    """Whether ``tracking_uri`` names an MLflow tracking server (``http://`` or ``https://``)."""
    return urlparse(tracking_uri or "").scheme in ("http", "https")


def _store_errors() -> tuple:
    from mlflow.exceptions import MlflowException

    # requests' errors (a refused connection, a timeout) are OSErrors.
    return (MlflowException, OSError)


class LiveRun:
    """The MLflow run of one model, open on a tracking server while the model trains.

    Used as a context manager around the training and the writing of the run record: entering opens the run
    and starts MLflow's system metrics monitor, :meth:`log_epoch` logs each epoch, leaving ends the run
    (FINISHED and ``live`` = ``trained`` if the block succeeded, FAILED if it raised). Runs of the same key
    left unfinished by an earlier attempt (a job killed while training) are deleted first.

    The server is a view of the training, not its record: if it cannot be reached, a warning naming it goes to
    the job's log and the model trains on without it; ``track`` logs the run from the record.

    Parameters
    ----------
    tracking_uri : str
        The server, ``http(s)://host:port``.
    paper : str
        The paper whose experiment holds the run (:func:`kernbench.report.tracking.experiment_id`).
    artifact_root : path-like or None
        Artifact directory of the experiment if this job creates it (as ``track`` gives it:
        ``<results_dir>/mlartifacts``); None lets the server decide.
    run_key : str
        The key of the run record the job writes (:func:`kernbench.records.make_run_key`).
    run_name : str
        The run's name until ``track`` names it.
    tags : dict
        Further tags (``dataset``, ``system``, ``seed``).
    """

    def __init__(self, tracking_uri: str, *, paper: str, artifact_root, run_key: str, run_name: str, tags: dict):
        self.tracking_uri = tracking_uri
        self.paper = paper
        self.artifact_root = artifact_root
        self.run_key = run_key
        self.run_name = run_name
        self.tags = {k: str(v) for k, v in tags.items()}
        self.client = None
        self.run_id: str | None = None

    def __enter__(self) -> LiveRun:
        from pathlib import Path

        import mlflow
        from mlflow.tracking import MlflowClient

        from kernbench.report.tracking import experiment_id

        try:
            self.client = MlflowClient(tracking_uri=self.tracking_uri)
            root = None if self.artifact_root is None else Path(self.artifact_root)
            experiment = experiment_id(self.client, self.paper, root)
            delete_unfinished(self.client, experiment, self.run_key)
            tags = {**self.tags, "run_key": self.run_key, "paper": self.paper, LIVE_TAG: TRAINING}
            self.run_id = self.client.create_run(experiment, run_name=self.run_name, tags=tags).info.run_id
            mlflow.set_tracking_uri(self.tracking_uri)
            mlflow.start_run(run_id=self.run_id, log_system_metrics=True)
        except _store_errors() as exc:
            self._give_up(exc)
        return self

    def log_epoch(self, epoch: int, logs: dict) -> None:
        """Log one epoch's Keras logs as the run's curve metrics at step ``epoch`` (1-based).

        The names and values are those ``track`` derives from the record's curves
        (:func:`kernbench.report.tracking_entries.curve_metrics`), so the run holds each point once.
        """
        if self.run_id is None:
            return
        from mlflow.entities import Metric

        from kernbench.report.tracking_entries import curve_metrics

        now = int(time.time() * 1000)
        points = curve_metrics({key: [float(value)] for key, value in logs.items()})
        try:
            self.client.log_batch(self.run_id, metrics=[Metric(name, value, now, epoch) for name, value, _ in points])
        except _store_errors() as exc:
            self._give_up(exc)

    def _give_up(self, exc: Exception) -> None:
        import mlflow

        log.warning(
            "MLflow server %s: %s: %s; the model trains on without live metrics, and track logs its run from the "
            "record", self.tracking_uri, type(exc).__name__, exc,
        )  # fmt: skip
        if self.run_id is not None:
            self.run_id = None
            try:
                mlflow.end_run("FAILED")  # stops the system metrics monitor
            except _store_errors():
                pass

    def __exit__(self, exc_type, exc, tb) -> bool:
        import mlflow

        if self.run_id is None:
            return False
        try:
            if exc_type is None:
                self.client.set_tag(self.run_id, LIVE_TAG, TRAINED)
            mlflow.end_run("FINISHED" if exc_type is None else "FAILED")
        except _store_errors() as error:
            log.warning("MLflow server %s: the run %s could not be ended (%s)", self.tracking_uri, self.run_id, error)
        return False


def live_run(tracking_uri: str | None, **run) -> LiveRun | None:
    """A :class:`LiveRun` (keyword arguments ``run``) if ``tracking_uri`` is a server, else None.

    Use as ``with live_run(...) or contextlib.nullcontext() as live:``; None means the job leaves the store
    alone (a local store, or none given).
    """
    return LiveRun(tracking_uri, **run) if is_server(tracking_uri) else None


def delete_unfinished(client, experiment: str, run_key: str) -> list[str]:
    """Delete the runs of ``run_key`` that lack ``content_hash`` (left by a killed job); return their ids."""
    runs = client.search_runs([experiment], filter_string=f"tags.run_key = '{run_key}'", max_results=5000)
    gone = [run.info.run_id for run in runs if "content_hash" not in run.data.tags]
    for run_id in gone:
        client.delete_run(run_id)
    return gone
