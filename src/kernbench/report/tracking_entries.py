"""What each MLflow run shows: comparable metric names, table cells beside them, unique run names.

A run record becomes one MLflow run. A record whose rows span several table
rows of one system (the Reuters categories of a Fisher run, the reduction
levels ξ of an ordinal run) also gets one child run per table row, so that
every run holding ``test.<metric>`` holds exactly one table cell per metric.
Metric names carry only split and metric (``test.accuracy``), never the
dataset, and are in the tables' units (percent where the tables are). The table
cell's columns follow the value's name (``test.accuracy.paper``,
``test.accuracy.delta``, ``test.accuracy.ci_low``), so that a sorted list of
metrics shows each value first, then its interval, Δ and paper value.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from kernbench.data import SPLITS
from kernbench.errors import DataError
from kernbench.report.tables import DECIMALS
from kernbench.report.uncertainty import PERCENT_METRICS

#: Prefix of per-step metrics (training epochs, reduction levels).
CURVE_PREFIX = "curve."
#: Ordinal curves are stepped by ξ in thousandths (MLflow steps are integers; the levels are multiples of 0.001).
XI_STEPS = 1000
#: Table columns logged beside each metric, as ``<split>.<metric>.<suffix>``.
CELL_COLUMNS = {"paper": "paper_value", "ci_low": "ci_low", "ci_high": "ci_high"}
#: Suffix of this run's value minus the paper's.
DELTA_SUFFIX = "delta"


@dataclass
class Entry:
    """One MLflow run to write: a whole record, or one of its table rows.

    Attributes
    ----------
    category : str or None
        The table's ``dataset`` where it differs from the record's (a Reuters category).
    xi : float or None
        The reduction level of the table row, for ordinal runs.
    metrics : dict
        ``{name: value}`` in table units.
    tags : dict
        Tags beyond the record's own (``table``, ``category``, ``xi``).
    name : str
        Run name, unique over the whole store once :func:`assign_names` ran.
    """

    category: str | None = None
    xi: float | None = None
    metrics: dict = field(default_factory=dict)
    tags: dict = field(default_factory=dict)
    name: str = ""


def metric_name(split: str, metric: str) -> str:
    """Return the MLflow name of a table metric, ``<split>.<metric>`` (``test.accuracy``)."""
    return f"{split}.{metric}"


def cell_metric_name(name: str, suffix: str) -> str:
    """Return the name of a table cell's column logged beside metric ``name`` (``test.accuracy.paper``)."""
    return f"{name}.{suffix}"


def table_units(metric: str, value: float) -> float:
    """Scale a record's value to the tables' units (percent for :data:`PERCENT_METRICS`) and round as they do."""
    scale = 100.0 if metric in PERCENT_METRICS else 1.0
    return round(float(value) * scale, DECIMALS)


def _xi_key(value) -> float | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return round(float(value), 6)


def load_cells(table_paths) -> dict[tuple, dict]:
    """Read the comparison tables into ``{(table, dataset, system, split, metric, xi): cell}``, table = the file's stem.

    Parameters
    ----------
    table_paths : iterable of path-like
        ``tables/<table>.csv`` files written by :func:`kernbench.report.tables.write_table`.

    Returns
    -------
    dict
        Each cell is the table row as a dict plus ``table`` (the file's stem); ``xi`` is None
        in tables without that column.

    Raises
    ------
    DataError
        If a file cannot be read or lacks a column of the key.
    """
    cells = {}
    for path in table_paths:
        path = Path(path)
        try:
            frame = pd.read_csv(path)
        except (OSError, ValueError) as exc:
            raise DataError(f"{path}: not a readable table ({exc})") from exc
        missing = {"paper", "dataset", "system", "split", "metric", *CELL_COLUMNS.values()} - set(frame.columns)
        if missing:
            raise DataError(f"{path}: table lacks column(s) {sorted(missing)}")
        for row in frame.to_dict("records"):
            key = (path.stem, row["dataset"], row["system"], row["split"], row["metric"], _xi_key(row.get("xi")))
            cells[key] = {**row, "table": path.stem}
    return cells


def _cell_metrics(name: str, value: float, cell: dict | None) -> dict:
    metrics = {name: value}
    if cell is None:
        return metrics
    for suffix, column in CELL_COLUMNS.items():
        if pd.notna(cell[column]):
            metrics[cell_metric_name(name, suffix)] = float(cell[column])
    if pd.notna(cell["paper_value"]):
        # This run's distance from the paper; for a cell of one seed it is the table's delta.
        metrics[cell_metric_name(name, DELTA_SUFFIX)] = round(value - float(cell["paper_value"]), DECIMALS)
    return metrics


def _shown(xi: float | None, subset: dict) -> bool:
    levels = subset.get("xi")
    return xi is None or not levels or any(math.isclose(xi, float(level)) for level in levels)


def record_entries(record: dict, cells: dict, subsets: dict | None = None) -> tuple[Entry, list[Entry]]:
    """Split a run record into its own run and one child per table row it covers.

    Parameters
    ----------
    record : dict
        A run record (see :mod:`kernbench.records`).
    cells : dict
        From :func:`load_cells`.
    subsets : dict, optional
        ``{table: {"xi": [levels]}}``: the reduction levels that get a child run (the
        levels the markdown tables show); every level where absent.

    Returns
    -------
    tuple
        ``(parent, children)``. With one table row the record's metrics are on the parent and
        there are no children; otherwise the parent holds none and each child holds one row's.
    """
    subsets = subsets or {}
    groups: dict[tuple, Entry] = {}
    for row in record["rows"]:
        category = row["dataset"] if row["dataset"] != record["dataset"] else None
        xi = _xi_key(row.get("xi"))
        entry = groups.setdefault((category, xi), Entry(category=category, xi=xi))
        key = (record["table"], row["dataset"], record["system"], row["split"], row["metric"], xi)
        cell = cells.get(key)
        value = table_units(row["metric"], row["value"])
        entry.metrics.update(_cell_metrics(metric_name(row["split"], row["metric"]), value, cell))
        if cell is not None:
            entry.tags["table"] = cell["table"]
    for entry in groups.values():
        if entry.category is not None:
            entry.tags["category"] = entry.category
        if entry.xi is not None:
            entry.tags["xi"] = f"{entry.xi:g}"
    if len(groups) == 1:
        return next(iter(groups.values())), []
    table = next((e.tags["table"] for e in groups.values() if "table" in e.tags), None)
    children = [e for e in groups.values() if _shown(e.xi, subsets.get(table, {}))] or list(groups.values())
    parent_tags = {"table": table} if table else {}
    return Entry(tags=parent_tags), sorted(children, key=lambda e: (e.category or "", e.xi or 0.0))


def curve_metrics(curves: dict) -> list[tuple[str, float, int]]:
    """Per-step metrics in one naming style: ``curve.<split>.<metric>[.<variant>]``.

    Keras histories (``loss``, ``val_accuracy``) become ``curve.train.loss`` and
    ``curve.dev.accuracy``, stepped by epoch (1, 2, …). Curves recorded beside an
    ``xi`` list (ordinal runs) are stepped by ξ in thousandths (``ξ = step / 1000``)
    and the ``xi`` list itself is not logged. Percent metrics are in percent.

    Returns
    -------
    list of tuple
        ``(name, value, step)``.
    """
    levels = curves.get("xi")
    out = []
    for key, values in sorted(curves.items()):
        if key == "xi":
            continue
        if key.startswith("val_"):
            name = f"dev.{key[4:]}"
        elif key.split(".")[0] in SPLITS:
            name = key
        else:
            name = f"train.{key}"
        metric = name.split(".")[1]
        if levels is not None and len(levels) == len(values):
            steps = [round(float(x) * XI_STEPS) for x in levels]
        else:
            steps = list(range(1, len(values) + 1))
        out += [(CURVE_PREFIX + name, table_units(metric, v), s) for v, s in zip(values, steps)]
    return out


def _subcommand(record: dict) -> str:
    return record.get("provenance", {}).get("command", "").removeprefix("kernbench").strip()


def assign_names(runs: list[tuple[dict, Entry, list[Entry]]]) -> None:
    """Give every entry a readable run name that no other run of the store shares.

    The name is ``<dataset>/<system>`` (``<category>/<system>`` and ``… ξ=<level>`` for
    children). A name several runs share gains the first of these that tells them apart:
    the seed (``… seed <n>``), the paper in front (``<paper>: …``), the ``kernbench``
    subcommand that made the record (``… (baseline)``), the run key's parameter hash
    (``… [<hash>]``).

    Parameters
    ----------
    runs : list of tuple
        ``(record, parent, children)`` as from :func:`record_entries`; names are set in place.
    """
    items = []
    for record, parent, children in runs:
        for entry in (parent, *children):
            base = f"{entry.category or record['dataset']}/{record['system']}"
            if entry.xi is not None and children:
                base += f" ξ={entry.xi:g}"
            items.append((record, entry, base))
    names = [base for _, _, base in items]
    # Each clashing group gains the first field that tells its members apart.
    refinements = (
        (lambda record: record["params"].get("seed"), lambda record, name: f"{name} seed {record['params']['seed']}"),
        (lambda record: record["paper"], lambda record, name: f"{record['paper']}: {name}"),
        (_subcommand, lambda record, name: f"{name} ({_subcommand(record)})"),
        (lambda record: record["run_key"], lambda record, name: f"{name} [{record['run_key'].rsplit('/', 1)[-1]}]"),
    )
    for field_of, refine in refinements:
        groups: dict[str, set] = {}
        for (record, _, _), name in zip(items, names):
            groups.setdefault(name, set()).add(str(field_of(record)))
        counts = Counter(names)
        names = [
            refine(record, name) if counts[name] > 1 and len(groups[name]) > 1 else name
            for (record, _, _), name in zip(items, names)
        ]
    for (_, entry, _), name in zip(items, names):
        entry.name = name


#: Prefix of the cost metrics: ``cost.<part>.<measure>``.
COST_PREFIX = "cost."


def _job_paths(jobs: pd.DataFrame) -> pd.Series:
    """Each job's output path relative to the results directory: its benchmark path without the rule folder."""
    return jobs["job"].map(lambda job: "/".join(Path(job).parts[1:]))


def _cost(part: str, rows: pd.DataFrame) -> dict:
    return {
        f"{COST_PREFIX}{part}.jobs": float(len(rows)),
        f"{COST_PREFIX}{part}.wall_s": round(float(rows["wall_s"].sum()), 2),
        f"{COST_PREFIX}{part}.cpu_s": round(float(rows["cpu_s"].sum()), 2),
        f"{COST_PREFIX}{part}.peak_rss_mb": round(float(rows["rss_mb"].max()), 2),
    }


def cost_metrics(record_path, results_dir, jobs: pd.DataFrame | None, inputs: dict | None = None) -> dict:
    """The measured cost of a run: its own job and the cached jobs whose outputs it reads, from their benchmarks.

    Parameters
    ----------
    record_path : path-like
        The run record; its job is the one whose benchmark file is ``<rule>/<record path without .json>.tsv``.
    results_dir : path-like
        The results directory the paths are relative to.
    jobs : pandas.DataFrame or None
        The run's jobs, from :func:`kernbench.report.costs.read_benchmarks` (None: no cost is logged).
    inputs : dict, optional
        ``{part: [output directories relative to results_dir]}``: the cached jobs the run reads
        (``{"gram": ["cache/anygram/sst/AGKsm_lam0.4"]}``); a job counts when its output is one of
        them or lies under one (the tiles of a Gram matrix).

    Returns
    -------
    dict
        ``cost.job.*`` (the run's own job), ``cost.<part>.*`` for each part with a job, and ``cost.total.*``
        (jobs, summed ``wall_s`` and ``cpu_s``, largest ``peak_rss_mb``); empty when no job is found.
        A cached output read by several runs counts in each.
    """
    if jobs is None or jobs.empty:
        return {}
    paths = _job_paths(jobs)
    try:
        own = Path(record_path).resolve().relative_to(Path(results_dir).resolve()).with_suffix("")
    except ValueError:
        own = None
    parts = {"job": paths == str(own)} if own is not None else {}
    for part, directories in sorted((inputs or {}).items()):
        directories = [str(d).rstrip("/") for d in directories]
        parts[part] = paths.map(lambda p: any(p == d or p.startswith(f"{d}/") for d in directories))
    metrics, used = {}, pd.Series(False, index=jobs.index)
    for part, mask in parts.items():
        if mask.any():
            metrics.update(_cost(part, jobs[mask]))
            used |= mask
    if used.any():
        metrics.update(_cost("total", jobs[used]))
    return metrics
