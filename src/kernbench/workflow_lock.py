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
OWNER_WRITE_ATTEMPTS = 5


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
    for attempt in range(1, OWNER_WRITE_ATTEMPTS + 1):
        try:
            write_text_atomic(path, json.dumps(owner, indent=1))
            break
        except FileNotFoundError:
            # Snakemake removes the whole lock directory when a run ends, so another run of this checkout
            # that ends while this one starts can take the directory away mid-write; it is made again.
            if attempt == OWNER_WRITE_ATTEMPTS:
                raise
    return path


def _alive(owner: dict) -> bool:
    try:
        started = psutil.Process(int(owner["pid"])).create_time()
    except psutil.NoSuchProcess:
        return False
    return abs(started - float(owner["started"])) < 0.01


def _owners(lockdir: Path):
    """``(owner file, owner, stale)`` of every readable owner file in ``lockdir``, sorted by file name.

    ``stale``: the owner is a process of this host that no longer runs. An unreadable file is skipped: not
    ours to judge.
    """
    host = socket.gethostname()
    for path in sorted(lockdir.glob(f"{OWNER_PREFIX}*.json")):
        try:
            owner = json.loads(path.read_text())
            stale = owner["host"] == host and not _alive(owner)
        except (OSError, ValueError, KeyError, TypeError):
            continue
        yield path, owner, stale


def unclaimed_locks(lockdir: str | os.PathLike) -> list[Path]:
    """The lock files in ``lockdir`` that no owner file of a live process lists.

    Called as a run starts, after Snakemake took its locks, these are the run's own (another run
    of the checkout that is still going has recorded its own already).

    Parameters
    ----------
    lockdir
        Snakemake's lock directory (``.snakemake/locks``); a missing directory holds no lock.

    Returns
    -------
    list of Path
        The unclaimed lock files, sorted.
    """
    lockdir = Path(lockdir)
    if not lockdir.is_dir():
        return []
    claimed = {
        os.path.basename(name) for _, owner, stale in _owners(lockdir) if not stale for name in owner.get("locks", [])
    }
    return sorted(p for p in lockdir.glob("*.lock") if p.name not in claimed)


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
    removed = []
    for path, owner, stale in _owners(lockdir):
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


class ResultsDirInUse(RuntimeError):
    """Another checkout's Snakemake is writing into the same results directory."""


RUNS_DIR = ".kernbench-runs"


def claim_results_dir(results_dir: str | os.PathLike, workdir: str | os.PathLike, pid: int | None = None) -> Path:
    """Register this run in ``<results_dir>/.kernbench-runs/``, refusing if another checkout writes there.

    Snakemake's locks live in the working directory's ``.snakemake``, so two clones of the workflow
    pointed at one ``results_dir`` do not see each other and would overwrite each other's outputs
    and logs. Runs from the same working directory are left to Snakemake's own locks; the record of
    a process that no longer runs on this host is removed.

    Parameters
    ----------
    results_dir
        The results directory of the run.
    workdir
        The run's working directory (its checkout).
    pid
        The running Snakemake process; this process by default.

    Returns
    -------
    Path
        This run's record, to remove with :func:`release_results_dir` when the run ends.

    Raises
    ------
    ResultsDirInUse
        If a live run from another working directory, or any run of another host, is registered.
    """
    pid = os.getpid() if pid is None else pid
    runs = Path(results_dir) / RUNS_DIR
    mine = runs / f"{socket.gethostname()}.{pid}.json"
    write_text_atomic(mine, json.dumps({**_identity(pid), "workdir": os.path.abspath(workdir)}, indent=1))
    host = socket.gethostname()
    for path in sorted(runs.glob("*.json")):
        if path == mine:
            continue
        try:
            other = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if other.get("host") == host and not _alive(other):
            path.unlink(missing_ok=True)
            continue
        if other.get("host") != host or other.get("workdir") != os.path.abspath(workdir):
            mine.unlink(missing_ok=True)
            raise ResultsDirInUse(
                f"results directory {results_dir} is in use by Snakemake process {other.get('pid')} on "
                f"{other.get('host')}, running from {other.get('workdir')}: two checkouts must not write into one "
                f"results directory (set results_dir to another directory, or wait for that run to end; if it is "
                f"certainly gone, delete {path})"
            )
    return mine


def release_results_dir(record: str | os.PathLike | None) -> None:
    """Remove this run's record made by :func:`claim_results_dir` (nothing if None)."""
    if record is not None:
        Path(record).unlink(missing_ok=True)
