"""Stale Snakemake locks: tell a lock of a dead Snakemake process from one of a running one.

Snakemake locks the files a run will read and write (``.snakemake/locks/<n>.input.lock`` and
``<n>.output.lock``) and removes the locks when it exits. A Snakemake process killed with SIGKILL, or
by a lost terminal, leaves them behind, and every later run refuses to start until ``--unlock``. The
workflow records, beside the locks it took, which process holds them (:func:`record_owner`); at the
next start-up :func:`clear_stale_locks` removes the locks whose process no longer runs on this host,
so the plain rerun resumes. Locks of a live process, of another host or without an owner file are
left alone.
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Iterable
from pathlib import Path

import psutil

from kernbench.fileio import write_text_atomic

OWNER_PREFIX = "kernbench-owner."


def _identity(pid: int) -> dict:
    """Host, pid and start time of a process: the start time tells a reused pid from the original."""
    return {"host": socket.gethostname(), "pid": pid, "started": psutil.Process(pid).create_time()}


def record_owner(lockdir: str | os.PathLike, lock_files: Iterable[str | os.PathLike], pid: int | None = None) -> Path:
    """Write ``<lockdir>/kernbench-owner.<pid>.json`` naming the process that holds ``lock_files``.

    Parameters
    ----------
    lockdir
        Snakemake's lock directory (``.snakemake/locks``).
    lock_files
        The lock files the process took.
    pid
        The owning process; this process by default.

    Returns
    -------
    Path
        The owner file.
    """
    pid = os.getpid() if pid is None else pid
    owner = {**_identity(pid), "locks": sorted(os.path.basename(os.fspath(f)) for f in lock_files)}
    path = Path(lockdir) / f"{OWNER_PREFIX}{pid}.json"
    write_text_atomic(path, json.dumps(owner, indent=1))
    return path


def _alive(owner: dict) -> bool:
    try:
        started = psutil.Process(int(owner["pid"])).create_time()
    except psutil.NoSuchProcess:
        return False
    return abs(started - float(owner["started"])) < 0.01


def clear_stale_locks(lockdir: str | os.PathLike) -> list[str]:
    """Remove the locks of Snakemake processes of this host that no longer run.

    Parameters
    ----------
    lockdir
        Snakemake's lock directory (``.snakemake/locks``); a missing directory holds no lock.

    Returns
    -------
    list of str
        One message per removed owner, naming its pid and lock files.
    """
    lockdir = Path(lockdir)
    if not lockdir.is_dir():
        return []
    host = socket.gethostname()
    removed = []
    for path in sorted(lockdir.glob(f"{OWNER_PREFIX}*.json")):
        try:
            owner = json.loads(path.read_text())
            stale = owner["host"] == host and not _alive(owner)
        except (OSError, ValueError, KeyError, TypeError):
            continue  # unreadable: not ours to judge
        if not stale:
            continue
        for name in owner.get("locks", []):
            (lockdir / os.path.basename(name)).unlink(missing_ok=True)
        path.unlink(missing_ok=True)
        removed.append(
            f"removed the stale lock of Snakemake process {owner['pid']} (no longer running): "
            f"{', '.join(owner.get('locks', [])) or 'no lock files'}"
        )
    return removed
