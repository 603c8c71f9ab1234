"""Run records to MLflow: one experiment per paper, one run per run key, idempotent.

Only the workflow's ``track`` rule calls :func:`log_records`, so a single
process writes to the store and parallel experiment jobs never contend for
the sqlite database. Each MLflow run carries the tags ``run_key`` and
``content_hash``; a record whose key is already logged with the same content
is skipped, and one whose content changed replaces the older run.

``content_hash`` is written last, after every param, metric and artifact, so it
also marks a run as complete: a run of the key without it (a ``track`` job killed
or failing mid-way) is deleted and logged again on the rerun.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from kernbench.errors import KernbenchError
from kernbench.records import content_hash

EXPERIMENT_PREFIX = "kernbench-"


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


def _experiment_id(client, paper: str, artifact_root: Path | None) -> str:
    name = EXPERIMENT_PREFIX + paper
    experiment = client.get_experiment_by_name(name)
    if experiment is not None:
        return experiment.experiment_id
    location = (artifact_root / paper).resolve().as_uri() if artifact_root is not None else None
    return client.create_experiment(name, artifact_location=location)


def log_record(client, record: dict, *, record_path: Path, artifact_root: Path | None) -> tuple[str, str]:
    """Log one run record unless an identical one is already in the store.

    Parameters
    ----------
    client : mlflow.tracking.MlflowClient
        Client bound to the store.
    record : dict
        The run record.
    record_path : pathlib.Path
        Its file, logged as an artifact together with its predictions.
    artifact_root : pathlib.Path or None
        Artifact directory for new experiments (None: the server decides).

    Returns
    -------
    tuple of str
        ``(run_id, status)`` with status ``"logged"``, ``"replaced"`` (an older or unfinished run of
        the key was deleted) or ``"unchanged"``.
    """
    from mlflow.entities import Metric, Param, RunTag

    experiment_id = _experiment_id(client, record["paper"], artifact_root)
    digest = content_hash(record)
    existing = client.search_runs(
        [experiment_id], filter_string=f"tags.run_key = '{record['run_key']}'", max_results=100
    )
    if any(run.data.tags.get("content_hash") == digest for run in existing):
        keep = next(run for run in existing if run.data.tags.get("content_hash") == digest)
        for run in existing:
            if run.info.run_id != keep.info.run_id:
                client.delete_run(run.info.run_id)
        return keep.info.run_id, "unchanged"
    for run in existing:
        client.delete_run(run.info.run_id)

    provenance = record.get("provenance", {})
    # content_hash is not among the first tags: it is the completion mark, set last.
    tags = {
        "run_key": record["run_key"],
        "paper": record["paper"],
        "dataset": record["dataset"],
        "system": record["system"],
        "git_commit": provenance.get("git_commit", "unknown"),
        "config_hash": provenance.get("config_hash", "unknown"),
    }
    run = client.create_run(experiment_id, run_name=f"{record['dataset']}/{record['system']}", tags=tags)
    run_id = run.info.run_id
    now = int(time.time() * 1000)
    metrics = [Metric(k, float(v), now, 0) for k, v in sorted(record["metrics"].items())]
    for name, values in sorted(record.get("curves", {}).items()):
        metrics += [Metric(name, float(v), now, step) for step, v in enumerate(values)]
    for name, seconds in sorted(record.get("timings", {}).items()):
        metrics.append(Metric(f"time.{name}_s", float(seconds), now, 0))
    params = [Param(k, v[:6000]) for k, v in sorted(_flat_params(record["params"]).items())]
    # MLflow caps one batch at 100 params and 1000 metrics.
    for start in range(0, len(params), 100):
        client.log_batch(run_id, params=params[start : start + 100])
    for start in range(0, len(metrics), 1000):
        client.log_batch(run_id, metrics=metrics[start : start + 1000])
    client.log_batch(run_id, tags=[RunTag(f"pkg.{k}", v) for k, v in provenance.get("packages", {}).items()])
    client.log_artifact(run_id, str(record_path))
    for artifact in [record.get("predictions"), *record.get("artifacts", [])]:
        if artifact and Path(artifact).exists():
            if Path(artifact).is_dir():
                client.log_artifacts(run_id, artifact, artifact_path=Path(artifact).name)
            else:
                client.log_artifact(run_id, artifact)
    client.set_terminated(run_id)
    client.set_tag(run_id, "content_hash", digest)
    return run_id, "replaced" if existing else "logged"


def log_records(record_paths, *, tracking_uri: str, artifact_root: Path | None) -> list[dict]:
    """Log every run record to the MLflow store at ``tracking_uri``.

    Parameters
    ----------
    record_paths : iterable of path-like
        Run record files.
    tracking_uri : str
        MLflow tracking URI (``sqlite:///…`` or ``http://…``).
    artifact_root : pathlib.Path or None
        Where new experiments keep their artifacts (used with a local store).

    Returns
    -------
    list of dict
        One ``{"run_key", "run_id", "status"}`` per record.

    Raises
    ------
    TrackingError
        If the store cannot be reached or written; the message names the URI.
    """
    from mlflow.exceptions import MlflowException
    from mlflow.tracking import MlflowClient
    from sqlalchemy.exc import SQLAlchemyError

    from kernbench.records import load_record

    manifest = []
    try:
        client = MlflowClient(tracking_uri=tracking_uri)
        for path in record_paths:
            record = load_record(path)
            run_id, status = log_record(client, record, record_path=Path(path), artifact_root=artifact_root)
            manifest.append({"run_key": record["run_key"], "run_id": run_id, "status": status})
    except (MlflowException, SQLAlchemyError, OSError) as exc:
        raise TrackingError(
            f"MLflow store {tracking_uri} could not be written ({type(exc).__name__}: {exc}). "
            "The run records are kept; rerun the workflow once the store is reachable."
        ) from exc
    return manifest
