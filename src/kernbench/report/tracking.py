"""Run records to MLflow: one experiment per paper, one run per run key, idempotent.

Only the workflow's ``track`` rule calls :func:`log_records`, so a single
process writes to the store and parallel experiment jobs never contend for
the sqlite database. Each MLflow run carries the tags ``run_key`` and
``content_hash``; a record whose key is already logged with the same content
is skipped, and one whose content changed replaces the older run.

``content_hash`` is written last, after every param, metric, artifact and child
run, so it also marks a run as complete: a run of the key without it (a
``track`` job killed or failing mid-way) is deleted and logged again on the rerun.

What a run shows (metric names, table cells, names) comes from
:mod:`kernbench.report.tracking_entries`; prepared datasets, Keras models and the
per-paper summary runs from :mod:`kernbench.report.tracking_assets`.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from pathlib import Path

from kernbench.errors import KernbenchError
from kernbench.records import content_hash
from kernbench.report.tracking_entries import curve_metrics

EXPERIMENT_PREFIX = "kernbench-"
#: Part of every run's content hash: raising it relogs every run once, after a change of what a run holds.
LAYOUT_VERSION = "2"


class TrackingError(KernbenchError):
    """The MLflow store could not be reached or written."""


def default_tracking_uri(results_dir: str | Path) -> str:
    """Return the sqlite URI of the default store, ``<results_dir>/mlflow.db``."""
    return f"sqlite:///{Path(results_dir).resolve() / 'mlflow.db'}"


_PARAM_NAME = re.compile(r"^[\w\-. :/]+$")


def _flat_params(params: dict, prefix: str = "") -> dict[str, str]:
    """Nested params as dotted names; a dict whose keys MLflow cannot name (a grid of results) becomes JSON."""
    flat = {}
    for key, value in params.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and all(_PARAM_NAME.match(str(k)) for k in value):
            flat.update(_flat_params(value, prefix=f"{name}."))
        elif isinstance(value, dict):
            flat[name] = json.dumps(value, sort_keys=True)
        else:
            flat[name] = json.dumps(value) if isinstance(value, (list, tuple)) else str(value)
    return flat


def experiment_id(client, paper: str, artifact_root: Path | None) -> str:
    """Return the id of the paper's experiment ``kernbench-<paper>``, creating it if needed."""
    name = EXPERIMENT_PREFIX + paper
    experiment = client.get_experiment_by_name(name)
    if experiment is not None:
        return experiment.experiment_id
    location = (artifact_root / paper).resolve().as_uri() if artifact_root is not None else None
    return client.create_experiment(name, artifact_location=location)


def standard_tags(record: dict) -> dict[str, str]:
    """MLflow's own tags of a run from its record's provenance: source, git commit, user."""
    provenance = record.get("provenance", {})
    tags = {"mlflow.source.type": "JOB", "mlflow.source.name": provenance.get("command", "kernbench")}
    commit = provenance.get("git_commit", "unknown")
    if commit != "unknown":
        tags["mlflow.source.git.commit"] = commit.removesuffix("-dirty")
    if "user" in provenance:
        tags["mlflow.user"] = provenance["user"]
    return tags


def _run_times(record: dict) -> tuple[int, int]:
    provenance = record.get("provenance", {})
    now = int(time.time() * 1000)
    return int(provenance.get("started", now)), int(provenance.get("finished", now))


def _log_metrics(client, run_id: str, metrics) -> None:
    for start in range(0, len(metrics), 1000):  # MLflow caps one batch at 1000 metrics
        client.log_batch(run_id, metrics=metrics[start : start + 1000])


def _entry_digest(record: dict, parent, children) -> str:
    layout = [(e.name, e.metrics, e.tags) for e in (parent, *children)]
    payload = json.dumps([LAYOUT_VERSION, content_hash(record), layout], sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()


def log_record(
    client, record: dict, parent, children, *, record_path: Path, artifact_root: Path | None, assets=None
) -> list[dict]:
    """Log one run record (and its child runs) unless an identical one is already in the store.

    Parameters
    ----------
    client : mlflow.tracking.MlflowClient
        Client bound to the store.
    record : dict
        The run record.
    parent, children : kernbench.report.tracking_entries.Entry
        What the record's run and its children show (:func:`kernbench.report.tracking_entries.record_entries`,
        named by :func:`kernbench.report.tracking_entries.assign_names`).
    record_path : pathlib.Path
        Its file, logged as an artifact together with its predictions.
    artifact_root : pathlib.Path or None
        Artifact directory for new experiments (None: the server decides).
    assets : kernbench.report.tracking_assets.Assets, optional
        Logs the prepared dataset and Keras models; without it neither is logged.

    Returns
    -------
    list of dict
        ``{"run_key", "run_id", "run_name", "status"}`` for the run and each child, status
        ``"logged"``, ``"replaced"`` (an older or unfinished run of the key was deleted) or ``"unchanged"``.
    """
    from mlflow.entities import Metric, Param, RunTag

    from kernbench.report.tracking_assets import keep_or_clear

    experiment = experiment_id(client, record["paper"], artifact_root)
    digest = _entry_digest(record, parent, children)
    kept, existing = keep_or_clear(client, experiment, record["run_key"], digest)
    if kept is not None:
        return [{"run_key": record["run_key"], "run_id": r.info.run_id, "run_name": r.info.run_name,
                 "status": "unchanged"} for r in kept]
    status = "replaced" if existing else "logged"

    provenance = record.get("provenance", {})
    started, finished = _run_times(record)
    # content_hash is not among the first tags: it is the completion mark, set last.
    tags = {
        "run_key": record["run_key"],
        "paper": record["paper"],
        "dataset": record["dataset"],
        "system": record["system"],
        "git_commit": provenance.get("git_commit", "unknown"),
        "config_hash": provenance.get("config_hash", "unknown"),
        **({"seed": str(record["params"]["seed"])} if "seed" in record["params"] else {}),
        **standard_tags(record),
    }
    run_id = client.create_run(experiment, start_time=started, run_name=parent.name, tags={**tags, **parent.tags}).info.run_id
    metrics = [Metric(k, v, finished, 0) for k, v in sorted(parent.metrics.items())]
    metrics += [Metric(name, value, finished, step) for name, value, step in curve_metrics(record.get("curves", {}))]
    metrics += [Metric(f"time.{k}_s", float(v), finished, 0) for k, v in sorted(record.get("timings", {}).items())]
    params = [Param(k, v[:6000]) for k, v in sorted(_flat_params(record["params"]).items())]
    for start in range(0, len(params), 100):  # MLflow caps one batch at 100 params
        client.log_batch(run_id, params=params[start : start + 100])
    _log_metrics(client, run_id, metrics)
    client.log_batch(run_id, tags=[RunTag(f"pkg.{k}", v) for k, v in provenance.get("packages", {}).items()])
    client.log_artifact(run_id, str(record_path))
    for artifact in [record.get("predictions"), *record.get("artifacts", [])]:
        if artifact and Path(artifact).exists():
            if Path(artifact).is_dir():
                client.log_artifacts(run_id, artifact, artifact_path=Path(artifact).name)
            else:
                client.log_artifact(run_id, artifact)
    if assets is not None:
        assets.log_dataset(client, run_id, record["dataset"])
        assets.log_models(run_id, record.get("artifacts", []))

    manifest = [{"run_key": record["run_key"], "run_id": run_id, "run_name": parent.name, "status": status}]
    for child in children:
        child_id = client.create_run(
            experiment, start_time=started, run_name=child.name,
            tags={**tags, **child.tags, "mlflow.parentRunId": run_id},
        ).info.run_id
        _log_metrics(client, child_id, [Metric(k, v, finished, 0) for k, v in sorted(child.metrics.items())])
        if assets is not None:
            assets.log_dataset(client, child_id, record["dataset"])
        client.set_terminated(child_id, end_time=finished)
        manifest.append({"run_key": record["run_key"], "run_id": child_id, "run_name": child.name, "status": status})
    # Logging a model resumes the run through the fluent API, which may reset its tags and end time.
    client.log_batch(run_id, tags=[RunTag(k, v) for k, v in standard_tags(record).items()])
    client.set_terminated(run_id, end_time=finished)
    client.set_tag(run_id, "content_hash", digest)
    return manifest


def log_records(
    record_paths, *, tracking_uri: str, artifact_root: Path | None, table_paths=(), figure_paths=(),
    prepared_dir: Path | None = None, subsets: dict | None = None,
) -> list[dict]:
    """Log every run record, and one summary run per paper, to the MLflow store at ``tracking_uri``.

    Parameters
    ----------
    record_paths : iterable of path-like
        Run record files.
    tracking_uri : str
        MLflow tracking URI (``sqlite:///…`` or ``http://…``).
    artifact_root : pathlib.Path or None
        Where new experiments keep their artifacts (used with a local store).
    table_paths : iterable of path-like, optional
        Comparison tables (``tables/<table>.csv``): their paper values, deltas and intervals go
        beside each run's metrics, and each table goes into the summary run of its paper.
    figure_paths : iterable of path-like, optional
        Figures (``figures/<paper>_*.png``), logged to the summary run of the paper they name.
    prepared_dir : pathlib.Path, optional
        Directory of the prepared datasets (``<dataset>.parquet``), logged as MLflow datasets.
    subsets : dict, optional
        ``{table: {"xi": [levels]}}``: the reduction levels that get a child run.

    Returns
    -------
    list of dict
        One ``{"run_key", "run_id", "run_name", "status"}`` per MLflow run.

    Raises
    ------
    TrackingError
        If the store cannot be reached or written; the message names the URI.
    """
    from mlflow.exceptions import MlflowException
    from mlflow.tracking import MlflowClient
    from sqlalchemy.exc import SQLAlchemyError

    from kernbench.records import load_record
    from kernbench.report.tracking_assets import Assets, log_summary
    from kernbench.report.tracking_entries import assign_names, load_cells, record_entries

    cells = load_cells(table_paths)
    loaded = [(Path(path), load_record(path)) for path in record_paths]
    runs = [(record, *record_entries(record, cells, subsets)) for _, record in loaded]
    assign_names(runs)
    manifest = []
    try:
        client = MlflowClient(tracking_uri=tracking_uri)
        assets = Assets(tracking_uri=tracking_uri, prepared_dir=prepared_dir)
        for (path, record), (_, parent, children) in zip(loaded, runs):
            manifest += log_record(
                client, record, parent, children, record_path=path, artifact_root=artifact_root, assets=assets
            )
        for paper in sorted({record["paper"] for _, record in loaded}):
            summary = log_summary(client, paper, experiment_id(client, paper, artifact_root), table_paths, figure_paths)
            manifest += [summary] if summary else []
    except (MlflowException, SQLAlchemyError, OSError) as exc:
        raise TrackingError(
            f"MLflow store {tracking_uri} could not be written ({type(exc).__name__}: {exc}). "
            "The run records are kept; rerun the workflow once the store is reachable."
        ) from exc
    return manifest
