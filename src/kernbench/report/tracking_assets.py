"""MLflow's richer run contents: prepared datasets, Keras models with a signature, per-paper summary runs."""

from __future__ import annotations

import hashlib
import json
import re
import warnings
from pathlib import Path

import pandas as pd

from kernbench.errors import DataError, KernbenchError

#: ``mlflow.data.context`` of a prepared dataset: it holds every split of the run.
DATASET_CONTEXT = "prepared"
#: The tag of a run that a training job opened on an MLflow server (:mod:`kernbench.report.tracking_live`), and its
#: values: while the model trains, and once its record is written.
LIVE_TAG = "live"
TRAINING = "training"
TRAINED = "trained"


class Assets:
    """Logs prepared datasets and Keras models to runs; reads each dataset once.

    Parameters
    ----------
    tracking_uri : str
        The store, for MLflow's model logging (which goes through the active-run API).
    prepared_dir : pathlib.Path or None
        Directory of ``<dataset>.parquet``; None logs no datasets.
    """

    def __init__(self, *, tracking_uri: str, prepared_dir: Path | None):
        self.tracking_uri = tracking_uri
        self.prepared_dir = None if prepared_dir is None else Path(prepared_dir)
        self._inputs: dict[str, object] = {}
        self._keras_requirements: list[str] | None = None

    def dataset_input(self, dataset: str):
        """The MLflow dataset input of ``<prepared_dir>/<dataset>.parquet`` (None if the file is not there)."""
        if dataset not in self._inputs:
            self._inputs[dataset] = self._read_input(dataset)
        return self._inputs[dataset]

    def _read_input(self, dataset: str):
        import mlflow.data
        from mlflow.entities import DatasetInput, InputTag
        from mlflow.utils.mlflow_tags import MLFLOW_DATASET_CONTEXT

        if self.prepared_dir is None:
            return None
        path = self.prepared_dir / f"{dataset}.parquet"
        if not path.exists():
            return None
        try:
            frame = pd.read_parquet(path)
        except (OSError, ValueError) as exc:
            raise DataError(f"{path}: not a readable prepared dataset ({exc})") from exc
        # MLflow computes the digest from the frame's content. Two of its warnings do not apply here: a local path
        # matches two dataset-source classes of the same name, and its hint on integer columns is about serving a
        # model, not about a logged input.
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="The specified dataset source can be interpreted")
            warnings.filterwarnings("ignore", message="Hint: Inferred schema contains integer column")
            data = mlflow.data.from_pandas(frame, source=str(path.resolve()), name=dataset)
            entity = data._to_mlflow_entity()
        return DatasetInput(entity, tags=[InputTag(MLFLOW_DATASET_CONTEXT, DATASET_CONTEXT)])

    def log_dataset(self, client, run_id: str, dataset: str) -> None:
        """Log the prepared ``dataset`` as an input of the run, if it is there."""
        entity = self.dataset_input(dataset)
        if entity is not None:
            client.log_inputs(run_id, datasets=[entity])

    def log_models(self, run_id: str, artifacts, name: str) -> None:
        """Log every ``.keras`` file among ``artifacts`` as an MLflow Keras model and register it.

        Parameters
        ----------
        run_id : str
            The run that logs the models.
        artifacts : iterable of path-like
            The record's artifacts; the ``.keras`` files among them are logged.
        name : str
            The model's name (:func:`kernbench.report.tracking.model_name`), both as a logged model of the
            run and in the model registry, where each relog of a run adds a version; several models of one
            run add their file stem (``<name>-<stem>``).
        """
        models = [Path(a) for a in artifacts if str(a).endswith(".keras") and Path(a).exists()]
        if not models:
            return
        import keras
        import mlflow

        if self._keras_requirements is None:
            self._keras_requirements = keras_pip_requirements()
        mlflow.set_tracking_uri(self.tracking_uri)
        with mlflow.start_run(run_id=run_id):
            for path in models:
                try:
                    model = keras.models.load_model(path, compile=False)
                except (OSError, ValueError, TypeError) as exc:
                    raise DataError(f"{path}: not a loadable Keras model ({exc})") from exc
                model_name = name if len(models) == 1 else f"{name}-{path.stem}"
                mlflow.keras.log_model(model, name=model_name, signature=keras_signature(model),
                                       pip_requirements=self._keras_requirements, registered_model_name=model_name)


#: The top-level modules that a saved kernbench Keras model needs: what MLflow's requirement inference finds
#: when it loads one (it does so in a subprocess, several seconds per model; the list is the same for every model).
KERAS_MODEL_MODULES = ("mlflow", "keras", "numpy", "tensorflow")


def keras_pip_requirements() -> list[str]:
    """Pinned pip requirements of a logged Keras model, read from the installed distributions.

    Returns
    -------
    list of str
        ``name==version`` for the distribution that provides each of `KERAS_MODEL_MODULES` (for example
        ``tensorflow-cpu`` where that is the installed TensorFlow).
    """
    from importlib.metadata import packages_distributions, version

    providers = packages_distributions()
    pins = []
    for module in KERAS_MODEL_MODULES:
        names = providers.get(module)
        if not names:
            raise KernbenchError(f"cannot log a Keras model: no installed distribution provides the module {module!r}")
        # mlflow's module ships in mlflow, mlflow-skinny and mlflow-tracing; the one named after it is the package.
        name = module if module in names else sorted(names)[0]
        pins.append(f"{re.sub(r'[-_.]+', '-', name).lower()}=={version(name)}")  # PEP 503 normalised name
    return pins


def keras_signature(model):
    """The MLflow signature of a Keras model, read from its input and output tensors.

    Unknown dimensions (batch, sequence length) become -1.
    """
    import numpy as np
    from mlflow.models import ModelSignature
    from mlflow.types import Schema, TensorSpec

    def spec(tensor):
        shape = tuple(-1 if d is None else int(d) for d in tensor.shape)
        return TensorSpec(np.dtype(str(tensor.dtype)), shape, tensor.name.split(":")[0])

    return ModelSignature(inputs=Schema([spec(t) for t in model.inputs]), outputs=Schema([spec(t) for t in model.outputs]))


def _paper_names() -> list[str]:
    from kernbench.papers import PAPERS

    return list(PAPERS)


def summary_content(paper: str, table_paths, figure_paths) -> tuple[dict, list[Path]]:
    """The rows of ``paper`` in each table, and the figures named after it (``figures/<paper>_*.png``).

    A table with a ``paper`` column gives its rows of the paper (the comparison, significance and
    sensitivity tables); one without it belongs whole to the paper it is named after
    (``tables/ordinal_claims.csv``).

    Returns
    -------
    tuple
        ``({table: DataFrame}, [figure paths])``; tables without a row of the paper are left out.
    """
    tables = {}
    for path in sorted(Path(p) for p in table_paths):
        try:
            frame = pd.read_csv(path)
        except (OSError, ValueError) as exc:
            raise DataError(f"{path}: not a readable table ({exc})") from exc
        if "paper" not in frame:
            if not path.stem.startswith(f"{paper}_"):
                if any(path.stem.startswith(f"{other}_") for other in _paper_names()):
                    continue
                raise DataError(f"{path}: table lacks the column 'paper' and is not named after a paper (<paper>_*)")
            tables[path.stem] = frame
            continue
        rows = frame[frame["paper"] == paper].reset_index(drop=True)
        if not rows.empty:
            tables[path.stem] = rows
    figures = sorted(Path(p) for p in figure_paths if Path(p).name.startswith(f"{paper}_"))
    return tables, figures


def _png_figure(path: Path):
    """A matplotlib figure that shows the PNG at ``path`` pixel for pixel."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    image = plt.imread(path)
    height, width = image.shape[:2]
    fig = plt.figure(figsize=(width / 100, height / 100), dpi=100)
    axes = fig.add_axes((0, 0, 1, 1))
    axes.imshow(image, interpolation="nearest")
    axes.set_axis_off()
    return fig


def keep_or_clear(client, experiment: str, run_key: str, digest: str):
    """Find the complete run of ``run_key`` with ``digest``; delete every other run of the key.

    Returns
    -------
    tuple
        ``(kept, runs)``: the kept run with its children (None if there is no such run) and
        the runs of the key found (their number tells "logged" from "replaced").
    """
    existing = client.search_runs([experiment], filter_string=f"tags.run_key = '{run_key}'", max_results=5000)
    keep = next((run for run in existing if run.data.tags.get("content_hash") == digest), None)
    kept = [] if keep is None else [keep] + [
        run for run in existing if run.data.tags.get("mlflow.parentRunId") == keep.info.run_id
    ]
    kept_ids = {run.info.run_id for run in kept}
    for run in existing:
        if run.info.run_id not in kept_ids:
            client.delete_run(run.info.run_id)
    return (kept or None), existing


def drop_strays(client, experiment: str, run_key: str, logged) -> None:
    """Delete every run of ``run_key`` but the ``logged`` ones, once they are complete.

    MLflow's HTTP client sends a request again when its response is lost (a server restarted or a proxy
    timing out mid-request), POST requests too; a ``runs/create`` that reached the store before its response
    was lost leaves a second, empty run of the key, which nothing else would remove while the key's content
    stays the same.

    Parameters
    ----------
    client : mlflow.tracking.MlflowClient
        Client bound to the store.
    experiment : str
        The experiment's id.
    run_key : str
        The key just logged.
    logged : iterable of str
        The ids of the runs (and child runs) logged for it.
    """
    logged = set(logged)
    for run in client.search_runs([experiment], filter_string=f"tags.run_key = '{run_key}'", max_results=5000):
        if run.info.run_id not in logged:
            client.delete_run(run.info.run_id)


def log_summary(client, paper: str, experiment: str, table_paths, figure_paths) -> dict:
    """Log the summary run of ``paper``: its rows of every table (``log_table``) and its figures (``log_figure``).

    The run is keyed ``<paper>/summary`` and kept while its tables and figures are unchanged,
    with the same completion mark as the other runs (see :mod:`kernbench.report.tracking`).

    Returns
    -------
    dict or None
        ``{"run_key", "run_id", "run_name", "status"}``; None (and no run) when the paper has
        neither a table row nor a figure.
    """
    import matplotlib.pyplot as plt
    from mlflow.entities import RunTag

    tables, figures = summary_content(paper, table_paths, figure_paths)
    if not tables and not figures:
        return None
    digest = hashlib.sha256(json.dumps(
        [{name: frame.to_csv(index=False) for name, frame in tables.items()},
         {f.name: hashlib.sha256(f.read_bytes()).hexdigest() for f in figures}], sort_keys=True,
    ).encode()).hexdigest()
    run_key, run_name = f"{paper}/summary", f"{paper} summary"
    kept, existing = keep_or_clear(client, experiment, run_key, digest)
    if kept is not None:
        return {"run_key": run_key, "run_id": kept[0].info.run_id, "run_name": run_name, "status": "unchanged"}
    run_id = client.create_run(experiment, run_name=run_name, tags={
        "run_key": run_key, "paper": paper, "kind": "summary", "table": ",".join(tables), "mlflow.source.type": "JOB",
        "mlflow.source.name": "kernbench track",
    }).info.run_id
    for name, frame in tables.items():
        client.log_table(run_id, data=frame, artifact_file=f"tables/{name}.json")
    for path in figures:
        fig = _png_figure(path)
        try:
            client.log_figure(run_id, fig, f"figures/{path.name}", save_kwargs={"dpi": 100})
        finally:
            plt.close(fig)
    client.set_terminated(run_id)
    client.log_batch(run_id, tags=[RunTag("content_hash", digest)])
    drop_strays(client, experiment, run_key, [run_id])
    return {"run_key": run_key, "run_id": run_id, "run_name": run_name, "status": "replaced" if existing else "logged"}


def adoptable_run(client, experiment: str, run_key: str):
    """The run a training job opened for ``run_key`` and ``track`` has not completed yet, or None.

    That is a run tagged ``live`` = ``trained`` without ``content_hash``; of several (which a job deletes
    before it opens its own), the latest.
    """
    runs = client.search_runs(
        [experiment], filter_string=f"tags.run_key = '{run_key}' and tags.{LIVE_TAG} = '{TRAINED}'", max_results=5000
    )
    runs = [run for run in runs if "content_hash" not in run.data.tags]
    return max(runs, key=lambda run: run.info.start_time) if runs else None


def delete_others(client, experiment: str, run_key: str, keep: str) -> list:
    """Delete every run of ``run_key`` but the run ``keep``; return the runs deleted."""
    runs = client.search_runs([experiment], filter_string=f"tags.run_key = '{run_key}'", max_results=5000)
    others = [run for run in runs if run.info.run_id != keep]
    for run in others:
        client.delete_run(run.info.run_id)
    return others


def unlogged(client, run_id: str, metrics) -> list:
    """The ``metrics`` (``mlflow.entities.Metric``) whose name and step the run does not hold yet."""
    present = set(client.get_run(run_id).data.metrics)
    logged = {
        (point.key, point.step)
        for key in present & {metric.key for metric in metrics}
        for point in client.get_metric_history(run_id, key)
    }
    return [metric for metric in metrics if (metric.key, metric.step) not in logged]
