"""The message printed when a workflow run succeeds: where its tables are, how to open its report and dashboard."""

from __future__ import annotations

import os
import shlex
from pathlib import Path


def _program(bin_dir: str, name: str) -> str:
    """``name`` in ``bin_dir``, written relative to the working directory when it lies below it."""
    path = os.path.join(bin_dir, name)
    relative = os.path.relpath(path)
    return shlex.quote(relative if not relative.startswith("..") else path)


def closing_message(results_dir: str, *, profile: str, tracking_uri: str, bin_dir: str) -> str:
    """Text naming a finished run's tables, its report command and its MLflow dashboard command.

    Parameters
    ----------
    results_dir : str
        The run's ``results_dir``, as configured.
    profile : str
        The run's profile; the report command repeats it unless it is ``full``
        (the default), since the report must see the same configuration.
    tracking_uri : str
        The config's ``mlflow.tracking_uri``; empty means the run's own
        ``<results_dir>/mlflow.db``.
    bin_dir : str
        Folder of the ``snakemake`` and ``mlflow`` executables (the virtualenv's ``bin``).

    Returns
    -------
    str
        A few lines, ending with a newline.
    """
    from kernbench.report.tracking import default_tracking_uri

    results = Path(results_dir)
    overrides = ([f"profile={profile}"] if profile != "full" else []) + [f"results_dir={results_dir}"]
    report = (
        f"{_program(bin_dir, 'snakemake')} --report {shlex.quote(str(results / 'report.html'))} "
        f"--config {' '.join(shlex.quote(o) for o in overrides)}"
    )
    if tracking_uri:
        dashboard = f"MLflow server {tracking_uri} (the runs are there)"
    else:
        uri = default_tracking_uri(results)
        dashboard = f"{_program(bin_dir, 'mlflow')} ui --backend-store-uri {shlex.quote(uri)}, then http://127.0.0.1:5000"
    return (
        f"kernbench: finished ({profile} profile).\n"
        f"  tables:    {results / 'tables'}/*.csv and .md; headline numbers in {results / 'results.md'}\n"
        f"  report:    {report}\n"
        f"  dashboard: {dashboard}\n"
    )
