"""Atomic file output and checksums.

Every output goes to a temporary file beside its target and is renamed into
place only once complete, so a killed job never leaves a partial file that
looks finished.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import json
import os
import re
import uuid
from pathlib import Path
from typing import Iterator

import pandas as pd


def sha256_of(path: str | os.PathLike, *, chunk_size: int = 1 << 20) -> str:
    """Return the hex sha256 digest of a file.

    Parameters
    ----------
    path : path-like
        File to hash.
    chunk_size : int, optional
        Bytes read at a time.

    Returns
    -------
    str
        Lower-case hexadecimal digest.
    """
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(chunk_size), b""):
            digest.update(block)
    return digest.hexdigest()


_TMP_SUFFIX = re.compile(r"^\.[0-9a-f]{32}\.tmp$")


def _remove_stale_temporaries(target: Path) -> None:
    """Remove the temporary files an earlier, killed write of ``target`` left beside it.

    Only one job writes a given output at a time (Snakemake locks it), so a temporary file of the
    same target found when a new write starts belongs to a writer that is gone.
    """
    prefix = f".{target.name}"
    for stale in target.parent.glob(f"{glob.escape(prefix)}.*.tmp"):
        if _TMP_SUFFIX.match(stale.name[len(prefix):]):
            stale.unlink(missing_ok=True)


@contextlib.contextmanager
def atomic_path(target: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path that replaces ``target`` when the block succeeds.

    Parameters
    ----------
    target : path-like
        Final location of the file. Its parent directory is created.

    Yields
    ------
    pathlib.Path
        Temporary file in the same directory; write to it inside the block.
        On an exception it is removed and ``target`` is left untouched.
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_temporaries(target)
    tmp = target.parent / f".{target.name}.{uuid.uuid4().hex}.tmp"
    # Created as a plain open() would (0o666 less the umask), not owner-only like tempfile.mkstemp.
    os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    try:
        yield tmp
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def write_text_atomic(target: str | os.PathLike, text: str) -> None:
    """Write ``text`` (UTF-8) to ``target`` atomically."""
    with atomic_path(target) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_json_atomic(target: str | os.PathLike, obj: object) -> None:
    """Write ``obj`` as indented, key-sorted JSON to ``target`` atomically."""
    write_text_atomic(target, json.dumps(obj, indent=2, sort_keys=True, allow_nan=True) + "\n")


def write_parquet_atomic(target: str | os.PathLike, frame: pd.DataFrame) -> None:
    """Write ``frame`` to ``target`` as parquet (no index) atomically."""
    with atomic_path(target) as tmp:
        frame.to_parquet(tmp, index=False)
