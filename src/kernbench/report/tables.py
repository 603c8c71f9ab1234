"""Comparison tables: reproduced values beside the papers' own, from run records."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from kernbench.config_check import load_yaml
from kernbench.errors import DataError
from kernbench.fileio import write_text_atomic
from kernbench.progress import progress
from kernbench.records import load_record
from kernbench.report.uncertainty import PERCENT_METRICS

COLUMNS = [
    "dataset", "system", "split", "metric", "value", "ci_low", "ci_high", "paper_value", "delta", "reproduces", "std",
    "n_seeds", "grid_edge", "paper", "source",
]
KEY = ["dataset", "system", "split", "metric"]


DECIMALS = 4

#: ``reproduces`` of a cell with a paper value: within the tolerance, else the paper's value inside the
#: cell's 95 % interval, else outside both.
WITHIN, IN_INTERVAL, OUTSIDE = "within_tolerance", "paper_in_interval", "outside"
#: How the markdown versions show them.
MARKS = {WITHIN: "✓ within tolerance", IN_INTERVAL: "≈ paper in 95 % CI", OUTSIDE: "✗ outside"}


def reproduction_status(frame: pd.DataFrame, tolerance: float | None) -> pd.Series:
    """Whether each cell reproduces its paper value: :data:`WITHIN`, :data:`IN_INTERVAL`, :data:`OUTSIDE` or "".

    Parameters
    ----------
    frame : pandas.DataFrame
        Rows with ``value``, ``ci_low``, ``ci_high``, ``paper_value`` (percent metrics in points).
    tolerance : float or None
        Points within which a value reproduces the paper's; None judges by the interval alone.

    Returns
    -------
    pandas.Series of str
        Blank where the paper gives no value.
    """
    paper = frame["paper_value"].astype(float)
    gap = (frame["value"].astype(float) - paper).abs()
    within = gap <= tolerance if tolerance is not None else pd.Series(False, index=frame.index)
    in_interval = (frame["ci_low"].astype(float) <= paper) & (paper <= frame["ci_high"].astype(float))
    status = np.where(within, WITHIN, np.where(in_interval, IN_INTERVAL, OUTSIDE))
    return pd.Series(np.where(paper.isna(), "", status), index=frame.index)


def reproduction_counts(frame: pd.DataFrame) -> dict[str, int]:
    """How many test cells of a table are in each :data:`MARKS` status (cells with a paper value only)."""
    if "reproduces" not in frame:
        return {s: 0 for s in MARKS}
    test = frame[frame["split"] == "test"] if "split" in frame else frame
    # A table without paper values reads its empty column back as float NaN, which equals no mark.
    return {s: int((test["reproduces"] == s).sum()) for s in MARKS}


def load_paper_values(path: str | Path) -> pd.DataFrame:
    """Read the papers' published numbers.

    Parameters
    ----------
    path : path-like
        YAML file mapping each paper to ``source`` and a list of ``values``
        (``dataset, system, split, metric, value``).

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset, system, split, metric, paper_value, source``.

    Raises
    ------
    DataError
        If an entry lacks a field or a (dataset, system, split, metric) repeats.
    """
    path = Path(path)
    document = load_yaml(path.read_text(encoding="utf-8"))
    rows = []
    for paper, block in document.items():
        for i, entry in enumerate(block["values"]):
            missing = [k for k in KEY + ["value"] if k not in entry]
            if missing:
                raise DataError(f"{path}: {paper} value #{i} lacks {', '.join(missing)}")
            rows.append({**{k: entry[k] for k in KEY}, "paper_value": float(entry["value"]), "source": block["source"]})
    frame = pd.DataFrame(rows, columns=KEY + ["paper_value", "source"])
    duplicated = frame[frame.duplicated(KEY, keep=False)]
    if not duplicated.empty:
        raise DataError(f"{path}: repeated entries {duplicated[KEY].to_dict('records')}")
    return frame


def grid_edge_note(record: dict) -> str:
    """The values a run chose on the edge of their grid, as ``"C = 1000 (top of 0.1-1000)"``; empty if none.

    A value chosen at the top or bottom of its grid may have been decided by the
    grid rather than by the data (:func:`kernbench.runs.grid_edge`).
    """
    from kernbench.runs import grid_edge

    notes = []
    for name, choice in sorted((record.get("grid_choices") or {}).items()):
        edge = grid_edge(choice)
        if edge:
            notes.append(f"{name} = {choice['value']:g} ({edge} of {min(choice['grid']):g}-{max(choice['grid']):g})")
    return "; ".join(notes)


def _join_notes(notes) -> str:
    return "; ".join(sorted({n for n in notes if n}))


def extra_keys(rows) -> list[str]:
    """Key fields rows carry beyond :data:`KEY` and ``value`` (such as ``xi``), sorted by name."""
    return sorted({k for row in rows for k in row} - {*KEY, "value", "system", "paper"})


def build_table(
    record_paths, paper_values: pd.DataFrame, *, resamples: int = 0, seed: int = 0, tolerance: float | None = None
) -> pd.DataFrame:
    """Collect the rows of every run record and set the paper's value and the delta beside each.

    Rows of several records with the same paper, dataset, system, split and
    metric (the seeds of one system) become one cell: their mean, standard
    deviation (``std``, sample, blank for one run) and count (``n_seeds``).
    A row may carry further key fields (for example ``xi``, a reduction
    level): each becomes a column after ``metric`` and part of the cell's
    key, blank in rows that lack it. ``grid_edge`` names the values the
    cell's runs chose on the edge of their grid (:func:`grid_edge_note`). With ``resamples``, every cell gets the
    95 % bootstrap interval of its value over the test items (``ci_low``,
    ``ci_high``; over the seed mean where there are seeds), from the
    predictions the records keep (see :func:`kernbench.report.uncertainty.bootstrap_interval`).

    Parameters
    ----------
    record_paths : iterable of path-like
        Run records to include.
    paper_values : pandas.DataFrame
        From :func:`load_paper_values`.
    resamples : int, optional
        Bootstrap resamples per cell; 0 leaves the interval columns blank.
    seed : int, optional
        Seed of the resampling.
    tolerance : float, optional
        Points within which a cell reproduces its paper value (``reproduces``,
        :func:`reproduction_status`); None judges by the interval alone.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`KEY`, the extra keys, then the rest of :data:`COLUMNS`,
        sorted by paper, the key columns and the extra keys; percent metrics
        scaled to percent, values rounded to :data:`DECIMALS` places so reruns
        give identical files.
    """
    rows = []
    for path in record_paths:
        record = load_record(path)
        edge = grid_edge_note(record)
        for row in record["rows"]:
            rows.append({**row, "system": record["system"], "paper": record["paper"],
                         "prediction_files": record.get("predictions") or "", "grid_edge": edge})
    extra = extra_keys([{k: v for k, v in r.items() if k not in ("prediction_files", "grid_edge")} for r in rows])
    frame = pd.DataFrame(rows, columns=KEY + extra + ["value", "paper", "prediction_files", "grid_edge"])
    scale = np.where(frame["metric"].isin(PERCENT_METRICS), 100.0, 1.0)
    frame["value"] = frame["value"].astype(float) * scale
    # Runs that differ only in their seed share a key: the cell is their mean.
    frame = (
        frame.groupby(["paper", *KEY, *extra], sort=True, dropna=False)
        .agg(value=("value", "mean"), std=("value", "std"), n_seeds=("value", "count"),
             prediction_files=("prediction_files", lambda p: tuple(sorted(p))),
             grid_edge=("grid_edge", _join_notes))
        .reset_index()
    )
    cells = frame.itertuples(index=False)
    intervals = [
        _cell_interval(row, extra, resamples, seed)
        for row in progress(cells, desc=f"bootstrap intervals ({resamples} resamples)", total=len(frame), unit="cell")
    ] if resamples else [(np.nan, np.nan)] * len(frame)
    cell_scale = np.where(frame["metric"].isin(PERCENT_METRICS), 100.0, 1.0)
    frame["ci_low"] = np.array([i[0] for i in intervals], dtype=float) * cell_scale
    frame["ci_high"] = np.array([i[1] for i in intervals], dtype=float) * cell_scale
    frame = frame.merge(paper_values, on=KEY, how="left")
    frame["delta"] = frame["value"] - frame["paper_value"]
    for column in ("value", "ci_low", "ci_high", "paper_value", "delta", "std"):
        frame[column] = frame[column].round(DECIMALS)
    frame["reproduces"] = reproduction_status(frame, tolerance)
    columns = KEY + extra + COLUMNS[len(KEY) :]
    return frame[columns].sort_values(["paper", *KEY, *extra], kind="stable").reset_index(drop=True)


_PREDICTIONS_CACHE: dict = {}


def _read_predictions(path: str) -> pd.DataFrame:
    if path not in _PREDICTIONS_CACHE:
        _PREDICTIONS_CACHE.clear()  # records are grouped by cell, so one file at a time is enough
        _PREDICTIONS_CACHE[path] = pd.read_parquet(path)
    return _PREDICTIONS_CACHE[path]


def cell_items(row, extra: list[str], path: str) -> pd.DataFrame | None:
    """The prediction rows of one record that a table cell was computed on (None if it has none).

    A prediction file's ``split``, ``category`` (the cell's dataset) and extra
    key columns (``xi``) select the items, where the file has them.
    """
    from kernbench.report.uncertainty import METRICS

    if not path or not Path(path).exists() or row.metric not in METRICS:
        return None
    items = _read_predictions(path)
    keep = np.ones(len(items), dtype=bool)
    if "split" in items and isinstance(row.split, str):
        keep &= (items["split"] == row.split).to_numpy()
    if "category" in items:
        keep &= (items["category"] == row.dataset).to_numpy()
    for key in extra:
        value = getattr(row, key)
        if key in items and pd.notna(value):
            keep &= np.isclose(items[key].to_numpy(dtype=float), float(value))
    needed = "score" if METRICS[row.metric][1] else "y_pred"
    items = items[keep]
    return items if needed in items and len(items) else None


def _cell_interval(row, extra, resamples: int, seed: int) -> tuple[float, float]:
    from kernbench.report.uncertainty import METRICS, bootstrap_interval

    parts = [cell_items(row, extra, path) for path in row.prediction_files]
    if not parts or any(p is None for p in parts):
        return np.nan, np.nan
    column = "score" if METRICS[row.metric][1] else "y_pred"
    ids = parts[0]["id"].to_numpy()
    aligned = [p.set_index("id").loc[ids] for p in parts]  # seeds on the same items, in the same order
    return bootstrap_interval(
        row.metric, aligned[0]["y_true"].to_numpy(), np.stack([a[column].to_numpy() for a in aligned]),
        n_resamples=resamples, seed=seed,
    )


def markdown_subset(frame: pd.DataFrame, subset: dict | None) -> pd.DataFrame:
    """Rows of ``frame`` to show in markdown: those whose column values are listed in ``subset``.

    Parameters
    ----------
    frame : pandas.DataFrame
        A table from :func:`build_table`.
    subset : dict or None
        ``{column: [values]}``; a row is shown if, for every listed column,
        its value is (numerically close to) one of the values or blank. None
        or empty shows every row.

    Raises
    ------
    DataError
        If a listed column is not in the table.
    """
    keep = np.ones(len(frame), dtype=bool)
    for column, values in (subset or {}).items():
        if column not in frame:
            raise DataError(f"markdown subset names column {column!r}, which the table lacks")
        cells = frame[column]
        numeric = pd.api.types.is_numeric_dtype(cells)
        listed = cells.isna().to_numpy().copy()
        for value in values:
            listed |= np.isclose(cells.to_numpy(dtype=float), float(value)) if numeric else (cells == value).to_numpy()
        keep &= listed
    return frame[keep]


def to_markdown(frame: pd.DataFrame) -> str:
    """Render a table as GitHub markdown (blank where a number is missing; the interval beside the value)."""
    shown = frame.drop(columns=["source"])
    if "reproduces" in shown:
        shown["reproduces"] = shown["reproduces"].map(MARKS)
    if "ci_low" in shown:
        ci = [
            "" if pd.isna(lo) else f"[{lo:.2f}, {hi:.2f}]" for lo, hi in zip(shown["ci_low"], shown["ci_high"])
        ]
        shown = shown.drop(columns=["ci_high"]).rename(columns={"ci_low": "95% CI"})
        shown["95% CI"] = ci
    shown = shown.astype(object)
    shown = shown.where(shown.notna(), None)  # tabulate blanks None, not NaN
    return shown.to_markdown(index=False, floatfmt=f".{DECIMALS}f", missingval="") + "\n"


def write_table(
    frame: pd.DataFrame, csv_path: str | Path, md_path: str | Path, *, md_subset: dict | None = None
) -> None:
    """Write ``frame`` as CSV and markdown, each atomically.

    ``md_subset`` (see :func:`markdown_subset`) limits the markdown version
    to a readable selection of rows; the CSV always holds every row.
    """
    shown = markdown_subset(frame, md_subset)
    write_text_atomic(csv_path, frame.to_csv(index=False, float_format=f"%.{DECIMALS}f", lineterminator="\n"))
    sources = sorted(set(shown["source"].dropna()))
    notes = "".join(f"\n- {s}" for s in sources)
    write_text_atomic(md_path, counts_line(frame) + to_markdown(shown) + (f"\nPaper values:{notes}\n" if notes else ""))


def counts_text(counts: dict[str, int]) -> str:
    """``"43 ✓ within tolerance, 14 ≈ paper in 95 % CI, 3 ✗ outside"`` of :func:`reproduction_counts`."""
    return ", ".join(f"{n} {MARKS[s]}" for s, n in counts.items())


def counts_line(frame: pd.DataFrame) -> str:
    """A table's opening line: how many of its test cells with a paper value reproduce it (empty if none has one)."""
    counts = reproduction_counts(frame)
    total = sum(counts.values())
    if not total:
        return ""
    return f"Test cells with a paper value: {total} ({counts_text(counts)}).\n\n"


def indistinguishable_systems(
    frame: pd.DataFrame, *, rtol: float = 5e-4, share: float = 0.75, min_cells: int = 3
) -> list[tuple[str, str, int, int]]:
    """Pairs of systems of one table whose values agree in (nearly) every cell they share.

    Two systems that a paper reports separately and that give the same value in
    almost every cell are, in all likelihood, one system measured twice (a
    parameter that switches off what tells them apart). Cells are matched on
    every key column but ``system`` (dataset, split, metric and extra keys such
    as ``xi``).

    Parameters
    ----------
    frame : pandas.DataFrame
        A table from :func:`build_table` (or read from its CSV).
    rtol : float, optional
        Two values agree when they differ by at most this share of the larger (0.05 points
        at 100 %, 0.0005 stars at an MAE of 1).
    share : float, optional
        A pair is flagged when at least this share of its shared cells agree.
    min_cells : int, optional
        Pairs sharing fewer cells are not judged.

    Returns
    -------
    list of (str, str, int, int)
        ``(system_a, system_b, cells agreeing, cells shared)``, sorted.
    """
    keys = [c for c in frame.columns if c in KEY and c != "system"]
    keys += [c for c in frame.columns if c not in COLUMNS and c not in keys and c != "system"]
    cells = _system_cells(frame, keys)
    out = []
    for a, b, both in _system_pairs(cells, min_cells):
        scale = np.maximum(abs(both[a]), abs(both[b]))
        agree = int((abs(both[a] - both[b]) <= rtol * scale).sum())
        if agree >= share * len(both):
            out.append((a, b, agree, len(both)))
    return out


def _system_cells(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Values of ``frame`` with one column per system, one row per cell (``keys``)."""
    return frame.assign(**{k: frame[k].astype(str) for k in keys}).pivot_table(
        index=keys, columns="system", values="value", aggfunc="first"
    )


def _system_pairs(cells: pd.DataFrame, min_cells: int):
    """Each pair of systems of :func:`_system_cells` with the cells both have, where they share ``min_cells``."""
    systems = sorted(cells.columns)
    for i, a in enumerate(systems):
        for b in systems[i + 1:]:
            both = cells[[a, b]].dropna()
            if len(both) >= min_cells:
                yield a, b, both


def identical_within_a_dataset(frame: pd.DataFrame, *, min_cells: int = 4) -> list[tuple[str, str, str]]:
    """Pairs of systems with the same value in every cell of one dataset, over more than one split.

    A west system at θ = 1 (only identical tokens match) is its sm system: it gives the same dev and
    test numbers on that dataset, to the last digit. Two systems that differ cannot do that by chance
    on several metrics of two splits; on one split alone they can (a perfect ranking on an easy Reuters
    category), so single-split datasets are not judged.

    Parameters
    ----------
    frame : pandas.DataFrame
        A table from :func:`build_table` (or read from its CSV).
    min_cells : int, optional
        Datasets where a pair shares fewer cells are not judged.

    Returns
    -------
    list of (str, str, str)
        ``(system_a, system_b, dataset)``, sorted.
    """
    if "split" not in frame or "dataset" not in frame:
        return []
    out = []
    for dataset, part in frame.groupby("dataset", sort=True):
        if part["split"].nunique() < 2:
            continue
        keys = [c for c in frame.columns if c in KEY and c not in ("system", "dataset")]
        for a, b, both in _system_pairs(_system_cells(part, keys), min_cells):
            if (both[a] == both[b]).all():
                out.append((a, b, str(dataset)))
    return out
