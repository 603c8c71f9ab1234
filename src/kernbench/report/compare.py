"""Differences between the tables of two results directories, cell by cell."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from kernbench.errors import DataError, KernbenchError

#: Columns that identify a row of kernbench's tables; the others hold what was measured about it.
KEY_COLUMNS = (
    "paper", "table", "choice", "dataset", "claim", "system", "system_a", "system_b", "split", "metric",
    "default", "alternative", "xi",
)


@dataclass
class TableDifferences:
    """What differs between two results directories' ``tables/*.csv``.

    Attributes
    ----------
    only_in_a, only_in_b : list of str
        Table files present on one side only.
    column_changes : list of str
        One line per table whose columns differ.
    rows_only_in_a, rows_only_in_b : list of str
        One line per row (``file: key``) present on one side only.
    moved : list of dict
        One entry per cell that differs beyond the tolerance: ``file``, ``row``
        (the row's key as ``column=value`` pairs), ``column``, ``a`` and ``b``.
    tables_compared : int
        Table files present on both sides.
    """

    only_in_a: list[str] = field(default_factory=list)
    only_in_b: list[str] = field(default_factory=list)
    column_changes: list[str] = field(default_factory=list)
    rows_only_in_a: list[str] = field(default_factory=list)
    rows_only_in_b: list[str] = field(default_factory=list)
    moved: list[dict] = field(default_factory=list)
    tables_compared: int = 0

    @property
    def identical(self) -> bool:
        """True when nothing differs beyond the tolerance."""
        return not (self.only_in_a or self.only_in_b or self.column_changes or self.rows_only_in_a
                    or self.rows_only_in_b or self.moved)


def table_files(results_dir) -> dict[str, Path]:
    """``{file name: path}`` of every CSV under ``<results_dir>/tables``.

    Raises
    ------
    DataError
        If ``<results_dir>/tables`` is not a directory.
    """
    tables = Path(results_dir) / "tables"
    if not tables.is_dir():
        raise DataError(f"{tables}: no tables directory (is {results_dir} a results directory?)")
    return {p.name: p for p in sorted(tables.glob("*.csv"))}


def key_columns(frame: pd.DataFrame) -> list[str]:
    """Columns that identify a row of ``frame``, in table order.

    The table's :data:`KEY_COLUMNS` when they tell its rows apart; otherwise
    (a table of another shape) those and every text column.
    """
    known = [c for c in frame.columns if c in KEY_COLUMNS]
    if known and not frame.duplicated(subset=known).any():
        return known
    return [c for c in frame.columns if c in KEY_COLUMNS or not pd.api.types.is_numeric_dtype(frame[c])]


def _read(path: Path) -> pd.DataFrame:
    try:
        return pd.read_csv(path)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise DataError(f"{path}: not a readable CSV table ({exc})") from exc


def _keyed(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """``frame`` indexed by a label of its key values (blanks left out); a repeated key gets its occurrence, ``(#2)``."""
    if not keys:
        labels = [f"row {i + 1}" for i in range(len(frame))]
    else:
        labels = [
            ", ".join(f"{k}={v}" for k, v in zip(keys, values) if not pd.isna(v))
            for values in frame[keys].itertuples(index=False)
        ]
        occurrence = pd.Series(labels).groupby(labels).cumcount()
        labels = [label if n == 0 else f"{label} (#{n + 1})" for label, n in zip(labels, occurrence)]
    return frame.set_index(pd.Index(labels, name="row"))


def _differs(a: pd.Series, b: pd.Series, tolerance: float) -> np.ndarray:
    both_missing = a.isna().to_numpy() & b.isna().to_numpy()
    if pd.api.types.is_numeric_dtype(a) and pd.api.types.is_numeric_dtype(b):
        x, y = a.to_numpy(dtype=float), b.to_numpy(dtype=float)
        with np.errstate(invalid="ignore"):
            close = np.abs(x - y) <= tolerance
        return ~(close | both_missing)
    return ~((a.astype(str).to_numpy() == b.astype(str).to_numpy()) | both_missing)


def compare_table(name: str, a: pd.DataFrame, b: pd.DataFrame, tolerance: float, out: TableDifferences) -> None:
    """Add the differences between two versions ``a`` and ``b`` of table ``name`` to ``out``."""
    if list(a.columns) != list(b.columns):
        gone, new = [c for c in a.columns if c not in b.columns], [c for c in b.columns if c not in a.columns]
        out.column_changes.append(
            f"{name}: columns differ (only in A: {gone or 'none'}; only in B: {new or 'none'}"
            + ("; same columns in another order" if not gone and not new else "") + ")"
        )
    common = [c for c in a.columns if c in b.columns]
    keys = [c for c in key_columns(a[common]) if c in key_columns(b[common])]
    a, b = _keyed(a[common], keys), _keyed(b[common], keys)
    out.rows_only_in_a += [f"{name}: {row}" for row in a.index.difference(b.index, sort=False)]
    out.rows_only_in_b += [f"{name}: {row}" for row in b.index.difference(a.index, sort=False)]
    shared = a.index.intersection(b.index, sort=False)
    a, b = a.loc[shared], b.loc[shared]
    for column in (c for c in common if c not in keys):
        for row in shared[_differs(a[column], b[column], tolerance)]:
            out.moved.append({"file": name, "row": row, "column": column, "a": a.at[row, column], "b": b.at[row, column]})


def compare_results(results_a, results_b, *, tolerance: float = 0.0) -> TableDifferences:
    """Compare every ``tables/*.csv`` of two results directories, row by row and cell by cell.

    Rows are matched by their key (:func:`key_columns`: dataset, system,
    split, metric, ``xi`` and the like); a key that repeats is told apart by
    its occurrence. Numbers match when they differ by at most ``tolerance`` (in the
    table's own units), blanks match blanks, text matches exactly.

    Parameters
    ----------
    results_a, results_b : path-like
        Results directories (each with a ``tables`` folder).
    tolerance : float, optional
        Largest absolute difference of two numbers still counted as equal.

    Returns
    -------
    TableDifferences

    Raises
    ------
    DataError
        If a directory has no ``tables`` folder, a table cannot be read, or
        the tolerance is negative or not finite.
    """
    if not np.isfinite(tolerance) or tolerance < 0:
        raise DataError(f"tolerance must be a finite number >= 0, got {tolerance!r}")
    files_a, files_b = table_files(results_a), table_files(results_b)
    out = TableDifferences(
        only_in_a=sorted(set(files_a) - set(files_b)), only_in_b=sorted(set(files_b) - set(files_a))
    )
    for name in sorted(set(files_a) & set(files_b)):
        compare_table(name, _read(files_a[name]), _read(files_b[name]), tolerance, out)
        out.tables_compared += 1
    return out


def differences_text(diff: TableDifferences, label_a: str, label_b: str) -> str:
    """Every missing table and row and every moved cell found by :func:`compare_results`, one per line."""
    lines = [f"A = {label_a}", f"B = {label_b}"]
    lines += [f"table only in A: {name}" for name in diff.only_in_a]
    lines += [f"table only in B: {name}" for name in diff.only_in_b]
    lines += diff.column_changes
    lines += [f"row only in A: {row}" for row in diff.rows_only_in_a]
    lines += [f"row only in B: {row}" for row in diff.rows_only_in_b]
    lines += [f"moved: {m['file']}: {m['row']}: {m['column']}: A {m['a']} -> B {m['b']}" for m in diff.moved]
    return "\n".join(lines) + "\n"


def summary_line(diff: TableDifferences, tolerance: float) -> str:
    """One line: the tables match, or how many cells, rows, tables and column sets differ."""
    if diff.identical:
        return f"{diff.tables_compared} table(s) match within tolerance {tolerance:g}"
    return (
        f"{len(diff.moved)} cell(s) moved beyond tolerance {tolerance:g}, "
        f"{len(diff.rows_only_in_a) + len(diff.rows_only_in_b)} row(s) and "
        f"{len(diff.only_in_a) + len(diff.only_in_b)} table(s) on one side only, "
        f"{len(diff.column_changes)} table(s) with other columns"
    )


class ProfilesDiffer(KernbenchError):
    """Two results directories come from different profiles, whose tables are not comparable."""


def results_profile(results_dir) -> str | None:
    """The profile a results directory's ``results.md`` names (None without the file or the note).

    See :func:`kernbench.report.reference.run_profile`.
    """
    from kernbench.report.reference import run_profile

    if not (Path(results_dir) / "results.md").is_file():
        return None
    return run_profile(results_dir)


def profile_lines(results_a, results_b, *, allow_other_profile: bool = False) -> list[str]:
    """The line naming both profiles, and a warning when they differ and ``allow_other_profile`` is set.

    Raises
    ------
    ProfilesDiffer
        If both directories name a profile, the two differ and ``allow_other_profile`` is False; the
        message names both directories and both profiles.
    """
    profile_a, profile_b = results_profile(results_a), results_profile(results_b)
    lines = [f"profiles: A {profile_a or 'not named'}, B {profile_b or 'not named'}"]
    if profile_a and profile_b and profile_a != profile_b:
        mismatch = f"A ({results_a}) is from the {profile_a} profile, B ({results_b}) from the {profile_b} profile"
        if not allow_other_profile:
            raise ProfilesDiffer(
                f"{mismatch}: their tables differ by design, not comparing them "
                "(--allow-other-profile compares them anyway)"
            )
        lines.append(f"WARNING: {mismatch}; the differences below come from that as much as from the code")
    return lines


def comparison_text(diff: TableDifferences, label_a: str, label_b: str, tolerance: float, profiles=()) -> str:
    """What ``kernbench compare`` prints: the two directories, their profiles, the summary, then every difference."""
    details = differences_text(diff, label_a, label_b).splitlines()
    head, rest = details[:2], details[2:]
    return "\n".join([*head, *profiles, summary_line(diff, tolerance), *rest]) + "\n"
