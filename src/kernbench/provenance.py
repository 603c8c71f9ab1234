"""Provenance stamped on every run record: code version, config hash, package versions, who ran it and when."""

from __future__ import annotations

import getpass
import hashlib
import json
import os
import platform
import subprocess
import sys
import time
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


def process_start_time() -> float | None:
    """Return when this process started, in seconds since the epoch (None where ``/proc`` is not available).

    A job's record is written at its end; its process start is the job's real start.
    """
    try:
        stat = Path("/proc/self/stat").read_text()
        boot = next(line for line in Path("/proc/stat").read_text().splitlines() if line.startswith("btime "))
    except (OSError, StopIteration):
        return None
    # Field 22 (starttime, clock ticks after boot) counted after the command name, which may hold spaces.
    ticks = int(stat.rsplit(")", 1)[1].split()[19])
    return int(boot.split()[1]) + ticks / os.sysconf("SC_CLK_TCK")


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


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
        ``git_commit``, ``config_hash``, ``python``, ``packages``, ``threads``, ``command``
        (``kernbench <subcommand>``), ``user``, ``host``, and ``started`` / ``finished``
        (milliseconds since the epoch: the process start and now).
    """
    started = process_start_time()
    finished = time.time()
    return {
        "git_commit": git_commit(),
        "config_hash": config_digest,
        "python": platform.python_version(),
        "packages": package_versions(),
        "threads": threads,
        "command": " ".join(["kernbench", *sys.argv[1:2]]),
        "user": _user(),
        "host": platform.node(),
        "started": int(1000 * (started if started is not None else finished)),
        "finished": int(1000 * finished),
    }
