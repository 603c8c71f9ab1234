"""Run records to MLflow: one experiment per paper, one run per run key, idempotent.

Only the workflow's ``track`` rule calls :func:`log_records`, so a single
process writes to the store and parallel experiment jobs never contend for
the sqlite database. On an MLflow server, an LSTM job opens its runs while it
trains (:mod:`kernbench.report.tracking_live`), and ``track`` completes them. Each MLflow run carries the tags ``run_key`` and
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
LAYOUT_VERSION = "3"
#: MLflow's experiment-kind tag and its value for model training: the UI opens such an experiment on its runs
#: table rather than on the GenAI overview (traces, tokens, cost).
EXPERIMENT_KIND_TAG = "mlflow.experimentKind"
EXPERIMENT_KIND = "custom_model_development"
#: The experiment's description in MLflow's UI.
NOTE_TAG = "mlflow.note.content"
#: The experiment MLflow creates in every store; kernbench logs nothing there.
DEFAULT_EXPERIMENT_ID = "0"


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


def experiment_description(paper: str) -> str:
    """The markdown description of a paper's experiment: the paper, its table, and how to read the runs."""
    from kernbench.papers import PAPERS

    caption = PAPERS[paper].caption if paper in PAPERS else paper
    return (
        f"**{caption}**, re-run by kernbench.\n\n"
        "One run per run record (a system on a dataset; LSTMs once per seed). A record that covers several rows "
        "of the table (Reuters categories, reduction levels ξ) has one child run per row.\n\n"
        "Metrics are `<split>.<metric>` in the table's units (`test.accuracy`, in %), each followed by its "
        "table cell: `test.accuracy.ci_low` and `test.accuracy.ci_high` (95 % interval), `test.accuracy.delta` "
        "(this run minus the paper) and `test.accuracy.paper` (the published value). `cost.*` is the time and peak memory of the jobs behind the run, "
        "`time.*` the phases of its own job, `curve.*` per-epoch or per-level values.\n\n"
        "Search `tags.dataset = '<dataset>'` for one row per system of a dataset. "
        f"The run `{paper} summary` holds the paper's tables (Evaluation tab) and figures."
    )


def experiment_id(client, paper: str, artifact_root: Path | None) -> str:
    """Return the id of the paper's experiment ``kernbench-<paper>``, creating it if needed.

    The experiment is tagged as a model-training experiment (:data:`EXPERIMENT_KIND`) and carries
    :func:`experiment_description`; both are set again on an experiment made by an older version.
    """
    name = EXPERIMENT_PREFIX + paper
    tags = {EXPERIMENT_KIND_TAG: EXPERIMENT_KIND, NOTE_TAG: experiment_description(paper)}
    experiment = client.get_experiment_by_name(name)
    if experiment is None:
        location = (artifact_root / paper).resolve().as_uri() if artifact_root is not None else None
        return client.create_experiment(name, artifact_location=location, tags=tags)
    for key, value in tags.items():
        if experiment.tags.get(key) != value:
            client.set_experiment_tag(experiment.experiment_id, key, value)
    return experiment.experiment_id


def hide_empty_default_experiment(client) -> bool:
    """Delete MLflow's ``Default`` experiment if it holds no run, so the UI lists only the papers' experiments.

    Returns
    -------
    bool
        True if it was deleted now.
    """
    from mlflow.entities import ViewType
    from mlflow.exceptions import MlflowException

    try:
        default = client.get_experiment(DEFAULT_EXPERIMENT_ID)
    except MlflowException:  # a store without it
        return False
    if default.lifecycle_stage != "active":
        return False
    if client.search_runs([DEFAULT_EXPERIMENT_ID], run_view_type=ViewType.ALL, max_results=1):
        return False
    client.delete_experiment(DEFAULT_EXPERIMENT_ID)
    return True


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


def model_name(record: dict) -> str:
    """The name of a run's model in MLflow and its model registry: ``<dataset>-<system>-seed<seed>``."""
    name = f"{record['dataset']}-{record['system']}"
    return f"{name}-seed{record['params']['seed']}" if "seed" in record.get("params", {}) else name


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

    from kernbench.report.tracking_assets import adoptable_run, delete_others, drop_strays, keep_or_clear, unlogged

    experiment = experiment_id(client, record["paper"], artifact_root)
    digest = _entry_digest(record, parent, children)
    # A run its training job opened on a server (kernbench.report.tracking_live) is completed, not replaced.
    live = adoptable_run(client, experiment, record["run_key"])
    if live is not None:
        existing = delete_others(client, experiment, record["run_key"], live.info.run_id)
    else:
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
    if live is not None:
        run_id = live.info.run_id
        client.update_run(run_id, name=parent.name)
        client.log_batch(run_id, tags=[RunTag(k, v) for k, v in {**tags, **parent.tags}.items()])
    else:
        run_id = client.create_run(experiment, start_time=started, run_name=parent.name, tags={**tags, **parent.tags}).info.run_id
    metrics = [Metric(k, v, finished, 0) for k, v in sorted(parent.metrics.items())]
    metrics += [Metric(name, value, finished, step) for name, value, step in curve_metrics(record.get("curves", {}))]
    metrics += [Metric(f"time.{k}_s", float(v), finished, 0) for k, v in sorted(record.get("timings", {}).items())]
    if live is not None:
        metrics = unlogged(client, run_id, metrics)
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
        assets.log_models(run_id, record.get("artifacts", []), model_name(record))

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
    drop_strays(client, experiment, record["run_key"], [m["run_id"] for m in manifest])
    return manifest


def benchmark_jobs(results_dir):
    """The jobs of ``<results_dir>/benchmarks/jobs`` (:func:`kernbench.report.costs.read_benchmarks`), None if there are none."""
    from kernbench.report.costs import read_benchmarks

    if results_dir is None or not any((Path(results_dir) / "benchmarks" / "jobs").rglob("*.tsv")):
        return None
    return read_benchmarks(results_dir)


def log_records(
    record_paths, *, tracking_uri: str, artifact_root: Path | None, table_paths=(), figure_paths=(),
    prepared_dir: Path | None = None, subsets: dict | None = None, results_dir: Path | None = None,
    cost_inputs: dict | None = None, summaries: bool = True,
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
    results_dir : pathlib.Path, optional
        The run's results directory: each run gets the ``cost.*`` metrics of its jobs from the benchmark
        files under ``benchmarks/jobs`` (:func:`kernbench.report.tracking_entries.cost_metrics`).
    cost_inputs : dict, optional
        ``{record path: {part: [output directories]}}``: the cached jobs a record's run reads (an any-gram
        SVC run's Gram matrices), whose cost is logged as ``cost.<part>.*`` beside its own job's.
    summaries : bool, optional
        Also log each paper's summary run (:func:`log_summaries`) with ``table_paths`` and ``figure_paths``;
        the workflow logs them in a job of their own, once every table is built.

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
    from kernbench.report.tracking_assets import Assets
    from kernbench.report.tracking_entries import assign_names, cost_metrics, load_cells, record_entries

    cells = load_cells(table_paths)
    loaded = [(Path(path), load_record(path)) for path in record_paths]
    runs = [(record, *record_entries(record, cells, subsets)) for _, record in loaded]
    jobs = benchmark_jobs(results_dir)
    inputs = {str(Path(path).resolve()): parts for path, parts in (cost_inputs or {}).items()}
    for (path, _), (_, parent, _) in zip(loaded, runs):
        parent.metrics.update(cost_metrics(path, results_dir, jobs, inputs.get(str(path.resolve()))))
    assign_names(runs)
    manifest = []
    try:
        client = MlflowClient(tracking_uri=tracking_uri)
        hide_empty_default_experiment(client)
        assets = Assets(tracking_uri=tracking_uri, prepared_dir=prepared_dir)
        for (path, record), (_, parent, children) in zip(loaded, runs):
            manifest += resent_if_answer_lost(
                lambda: log_record(
                    client, record, parent, children, record_path=path, artifact_root=artifact_root, assets=assets
                )
            )
    except (MlflowException, SQLAlchemyError, OSError) as exc:
        raise _tracking_error(tracking_uri, exc) from exc
    if summaries:
        manifest += log_summaries(
            sorted({record["paper"] for _, record in loaded}), tracking_uri=tracking_uri, artifact_root=artifact_root,
            table_paths=table_paths, figure_paths=figure_paths,
        )
    return manifest


def _answer_lost(exc: BaseException) -> bool:
    """Whether ``exc`` (an ``MlflowException``) comes from a request whose answer was lost once it was sent: the
    connection dropped before the answer (urllib3's ``ProtocolError``) or while it came (requests'
    ``ChunkedEncodingError``)."""
    from requests.exceptions import ChunkedEncodingError
    from urllib3.exceptions import ProtocolError

    seen = exc
    while seen is not None:
        if isinstance(seen, (ChunkedEncodingError, ProtocolError)):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def resent_if_answer_lost(log):
    """Call ``log()``; when a server's answer to one of its requests is lost, call it again.

    MLflow's client resends a request that meets the server down (``MLFLOW_HTTP_REQUEST_MAX_RETRIES``
    times, waiting ``MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR`` seconds times 2 to the attempt, at most
    urllib3's ``Retry.DEFAULT_BACKOFF_MAX``), but not a write whose answer is lost once the request was
    sent (the connection drops before the answer, or while it comes), as when the server goes down while
    answering: the server may have done the write. Logging a record or a summary is idempotent (a run of
    the key without its completion mark is replaced), so the whole logging is done again, as often and as
    patiently as MLflow resends a request.

    Parameters
    ----------
    log : callable
        Logs one record or summary, with no arguments.

    Returns
    -------
    object
        What ``log`` returns.
    """
    from mlflow.environment_variables import MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR, MLFLOW_HTTP_REQUEST_MAX_RETRIES
    from mlflow.exceptions import MlflowException
    from urllib3.util.retry import Retry

    attempts = MLFLOW_HTTP_REQUEST_MAX_RETRIES.get()
    for attempt in range(attempts + 1):
        try:
            return log()
        except MlflowException as exc:
            if attempt == attempts or not _answer_lost(exc):
                raise
            time.sleep(min(MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR.get() * 2**attempt, Retry.DEFAULT_BACKOFF_MAX))


def _tracking_error(tracking_uri: str, exc: Exception) -> TrackingError:
    return TrackingError(
        f"MLflow store {tracking_uri} could not be written ({type(exc).__name__}: {exc}). "
        "The run records are kept; rerun the workflow once the store is reachable."
    )


def log_summaries(papers, *, tracking_uri: str, artifact_root: Path | None, table_paths=(), figure_paths=()) -> list[dict]:
    """Log the summary run of each paper: its rows of every table (``log_table``) and its figures (``log_figure``).

    Parameters
    ----------
    papers : iterable of str
        The papers whose experiments get a summary run.
    tracking_uri : str
        MLflow tracking URI.
    artifact_root : pathlib.Path or None
        Where new experiments keep their artifacts.
    table_paths : iterable of path-like, optional
        Tables: the comparison tables, ``significance.csv`` and ``sensitivity.csv`` (each paper gets its
        rows) and a paper's own tables such as ``ordinal_claims.csv`` (see
        :func:`kernbench.report.tracking_assets.summary_content`).
    figure_paths : iterable of path-like, optional
        Figures (``figures/<paper>_*.png``).

    Returns
    -------
    list of dict
        One ``{"run_key", "run_id", "run_name", "status"}`` per summary run logged or kept.

    Raises
    ------
    TrackingError
        If the store cannot be reached or written; the message names the URI.
    """
    from mlflow.exceptions import MlflowException
    from mlflow.tracking import MlflowClient
    from sqlalchemy.exc import SQLAlchemyError

    from kernbench.report.tracking_assets import log_summary

    manifest = []
    try:
        client = MlflowClient(tracking_uri=tracking_uri)
        hide_empty_default_experiment(client)
        for paper in papers:
            summary = resent_if_answer_lost(
                lambda: log_summary(client, paper, experiment_id(client, paper, artifact_root), table_paths, figure_paths)
            )
            manifest += [summary] if summary else []
    except (MlflowException, SQLAlchemyError, OSError) as exc:
        raise _tracking_error(tracking_uri, exc) from exc
    return manifest
