"""Run records: the self-contained JSON each experiment job writes.

A record holds ``run_key``, ``paper``, ``table``, ``dataset``, ``system``, ``params``,
``rows`` (the numbers tables are built from), ``metrics`` (the same numbers,
flat, for MLflow), ``curves`` (per-step metrics, ``{name: [value per step]}``),
``timings`` (seconds), ``predictions`` (path of the per-item predictions),
optionally ``artifacts`` (further files or directories to attach, such as a
saved model) and ``provenance``. A run's identity is its table and system: the
``table`` is the paper's own (``anygram``, ``fisher``, ``ordinal``), ``baselines``,
or ``sensitivity`` for a run that only a sensitivity row uses, so a ``Triv`` of the
baselines table and one of a paper's table are never taken for each other. Tables and MLflow are
both built from records, so either can be rebuilt without re-running anything.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from kernbench.errors import DataError

REQUIRED = ("run_key", "paper", "table", "dataset", "system", "params", "rows", "metrics")


def make_run_key(table: str, dataset: str, system: str, params: dict) -> str:
    """Return the stable key that identifies a run: table/dataset/system/params-hash."""
    digest = hashlib.sha256(json.dumps(params, sort_keys=True).encode()).hexdigest()[:12]
    return f"{table}/{dataset}/{system}/{digest}"


def flat_metrics(rows: list[dict]) -> dict[str, float]:
    """Turn table rows into MLflow metric names ``<dataset>.<split>.<metric>``.

    Extra key fields of a row (such as a reduction level ``xi``) are appended
    as ``.<field>_<value>``, sorted by field name, so the names stay distinct.
    """
    flat = {}
    for r in rows:
        extra = sorted(set(r) - {"dataset", "split", "metric", "value"})
        suffix = "".join(f".{k}_{r[k]:g}" if isinstance(r[k], float) else f".{k}_{r[k]}" for k in extra)
        flat[f"{r['dataset']}.{r['split']}.{r['metric']}{suffix}"] = r["value"]
    return flat


def make_record(
    *,
    paper: str,
    dataset: str,
    system: str,
    key_params: dict,
    params: dict,
    rows: list[dict],
    timings: dict,
    predictions: str,
    threads: int,
    curves: dict | None = None,
    artifacts: list[str] | None = None,
    table: str | None = None,
    grid_choices: dict | None = None,
) -> dict:
    """Assemble a run record, deriving ``run_key``, ``metrics`` and ``provenance``.

    Parameters
    ----------
    paper, dataset, system : str
        What was run.
    key_params : dict
        The parameters that define the run (seed and profile included); they make the run key.
    params : dict
        Everything to record as parameters (``key_params`` plus choices made during the run).
    rows : list of dict
        Table rows ``{"dataset", "split", "metric", "value"}``.
    timings : dict
        Seconds per phase.
    predictions : str
        Path of the per-item predictions.
    threads : int
        Threads the job was given.
    curves : dict, optional
        Per-step metrics.
    artifacts : list of str, optional
        Further files to attach in MLflow.
    table : str, optional
        The table the run belongs to; the paper's own table if not given.
    grid_choices : dict, optional
        ``{parameter: {"value": chosen, "grid": [candidates]}}`` of every value
        chosen from a grid (on dev or by cross-validation), built with
        :func:`kernbench.runs.grid_choice`; the tables flag a choice on the
        edge of its grid.

    Returns
    -------
    dict
        The record, ready for :func:`kernbench.fileio.write_json_atomic`.
    """
    from kernbench.provenance import provenance

    table = table or paper
    record = {
        "run_key": make_run_key(table, dataset, system, key_params),
        "paper": paper,
        "table": table,
        "dataset": dataset,
        "system": system,
        "params": params,
        "rows": rows,
        "metrics": flat_metrics(rows),
        "curves": curves or {},
        "timings": timings,
        "predictions": str(predictions),
        "provenance": provenance(config_digest=os.environ.get("KERNBENCH_CONFIG_HASH", "unknown"), threads=threads),
    }
    if grid_choices:
        record["grid_choices"] = grid_choices
    if artifacts:
        record["artifacts"] = [str(a) for a in artifacts]
    return record


def content_hash(record: dict) -> str:
    """Hash of what a run produced (key, params, metrics, curves), ignoring timings and provenance."""
    core = {k: record.get(k) for k in ("run_key", "params", "metrics", "curves")}
    return hashlib.sha256(json.dumps(core, sort_keys=True).encode()).hexdigest()


def load_record(path: str | Path) -> dict:
    """Read and check a run record.

    Raises
    ------
    DataError
        If the file is not JSON or lacks a required field.
    """
    path = Path(path)
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise DataError(f"{path}: not a readable run record ({exc})") from exc
    missing = [k for k in REQUIRED if k not in record]
    if missing:
        raise DataError(
            f"{path}: run record lacks field(s) {', '.join(missing)}; a record of an earlier kernbench: "
            "delete it (or the results directory) and rerun, so that its job writes it again"
        )
    return record
