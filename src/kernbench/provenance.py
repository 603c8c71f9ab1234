"""Provenance stamped on every run record: code version, config hash, package versions."""

from __future__ import annotations

import hashlib
import json
import platform
import subprocess
from importlib import metadata
from pathlib import Path

PACKAGES = ("kernbench", "numpy", "pandas", "scikit-learn", "scipy", "numba", "tensorflow-cpu", "keras", "mlflow", "snakemake")


def git_commit(cwd: str | Path = ".") -> str:
    """Return ``HEAD``'s commit (suffixed ``-dirty`` with local changes), or ``"unknown"`` outside git."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"], cwd=cwd, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("-dirty" if dirty else "")


def config_hash(config: object) -> str:
    """Return the sha256 of ``config`` serialised as canonical JSON (sorted keys)."""
    return hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode()).hexdigest()


def package_versions(names=PACKAGES) -> dict[str, str]:
    """Return the installed version of each named distribution (``"absent"`` if not installed)."""
    versions = {}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "absent"
    return versions


def provenance(*, config_digest: str, threads: int) -> dict:
    """Everything needed to tell where a run came from.

    Parameters
    ----------
    config_digest : str
        :func:`config_hash` of the resolved workflow config.
    threads : int
        Threads the job was given.

    Returns
    -------
    dict
        ``git_commit``, ``config_hash``, ``python``, ``packages``, ``threads``.
    """
    return {
        "git_commit": git_commit(),
        "config_hash": config_digest,
        "python": platform.python_version(),
        "packages": package_versions(),
        "threads": threads,
    }
