"""The stored reference: a finished run's tables and ``results.md``, kept under ``results/reference/<profile>/``."""

from __future__ import annotations

import re
import shutil
import uuid
from pathlib import Path

from kernbench.errors import DataError

#: Profiles a reference is kept for.
PROFILES = ("smoke", "full")
#: Where ``kernbench reference`` writes, relative to the repository root.
DEFAULT_ROOT = Path("results") / "reference"

_PROFILE_NOTE = re.compile(r"\((\w+) profile\)")


def reference_files(results_dir) -> list[Path]:
    """The files of a results directory that make its reference: ``tables/*.csv``, ``tables/*.md``, ``results.md``.

    Raises
    ------
    DataError
        If ``results.md`` or the tables are missing.
    """
    results_dir = Path(results_dir)
    summary = results_dir / "results.md"
    tables = sorted(p for p in (results_dir / "tables").glob("*") if p.suffix in (".csv", ".md") and p.is_file())
    if not any(p.suffix == ".csv" for p in tables):
        raise DataError(f"{results_dir / 'tables'}: no CSV tables (is {results_dir} a finished run's results_dir?)")
    if not summary.is_file():
        raise DataError(f"{summary}: missing (the results_summary rule writes it at the end of a run)")
    return [*tables, summary]


def run_profile(results_dir) -> str | None:
    """The profile a run's ``results.md`` says its tables come from (None if it does not say)."""
    match = _PROFILE_NOTE.search((Path(results_dir) / "results.md").read_text(encoding="utf-8"))
    return match.group(1) if match else None


def store_reference(results_dir, profile: str, root=DEFAULT_ROOT) -> Path:
    """Replace ``<root>/<profile>/`` with the tables and ``results.md`` of a finished run.

    The new folder is assembled beside the old one and swapped in at the end,
    so a failure leaves the previous reference as it was; files of the old
    reference that the run no longer writes disappear.

    Parameters
    ----------
    results_dir : path-like
        The finished run's ``results_dir``.
    profile : {"smoke", "full"}
        The profile the run used; it must match what its ``results.md`` says.
    root : path-like, optional
        Folder holding one reference per profile (default ``results/reference``).

    Returns
    -------
    pathlib.Path
        The reference folder written.

    Raises
    ------
    DataError
        If the profile is unknown or differs from the run's, or the run's
        tables or ``results.md`` are missing.
    """
    if profile not in PROFILES:
        raise DataError(f"profile must be one of {', '.join(PROFILES)}, got {profile!r}")
    *tables, summary = reference_files(results_dir)
    found = run_profile(results_dir)
    if found != profile:
        raise DataError(
            f"{Path(results_dir) / 'results.md'}: the run is from the {found or 'unnamed'} profile, not {profile}"
        )
    target = Path(root) / profile
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = target.parent / f".{profile}.{uuid.uuid4().hex}.tmp"
    retired = target.parent / f".{profile}.{uuid.uuid4().hex}.old"
    try:
        (staging / "tables").mkdir(parents=True)
        for path in tables:
            shutil.copyfile(path, staging / "tables" / path.name)
        shutil.copyfile(summary, staging / summary.name)
        if target.exists():
            target.rename(retired)
        try:
            staging.rename(target)
        except OSError:
            if retired.exists():
                retired.rename(target)
            raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        shutil.rmtree(retired, ignore_errors=True)
    return target
