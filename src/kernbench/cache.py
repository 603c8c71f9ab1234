"""Cached arrays (Gram matrices, feature matrices) that prove their own integrity.

Each cache file is an ``.npz`` holding the array's parts and the sha256 of
their bytes, written atomically. :func:`load_dense` and :func:`load_sparse`
recompute the digest, so a truncated or corrupted file is reported as such
and never used.
"""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from kernbench.errors import DataError
from kernbench.fileio import atomic_path


class CacheError(DataError):
    """A cache file is truncated, corrupted or not what its name claims; delete it and rerun."""


def _digest(*arrays: np.ndarray) -> str:
    digest = hashlib.sha256()
    for array in arrays:
        array = np.ascontiguousarray(array)
        digest.update(f"{array.dtype.str}{array.shape}".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


def save_arrays(path: str | Path, **arrays: np.ndarray) -> None:
    """Write named arrays with the sha256 of their content to ``path`` (``.npz``) atomically."""
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as handle:
            np.savez(handle, sha256=np.array(_digest(*arrays.values())), **arrays)


def load_arrays(path: str | Path, names: tuple[str, ...]) -> dict[str, np.ndarray]:
    """Read the named arrays written by :func:`save_arrays`, verifying their checksum.

    Raises
    ------
    CacheError
        If the file is truncated, corrupted or lacks one of ``names``.
    """
    path = Path(path)
    try:
        archive = np.load(path, allow_pickle=False)
        if not isinstance(archive, np.lib.npyio.NpzFile):
            raise ValueError("not an .npz archive")
        with archive:
            arrays = {name: archive[name] for name in names}
            stored = str(archive["sha256"])
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
        raise CacheError(f"{path}: unreadable cache file ({type(exc).__name__}: {exc}); delete it and rerun") from exc
    if _digest(*arrays.values()) != stored:
        raise CacheError(f"{path}: cache content does not match its sha256 (corrupted); delete it and rerun")
    return arrays


def save_dense(path: str | Path, array: np.ndarray) -> None:
    """Write a dense array with its checksum to ``path`` (``.npz``) atomically."""
    save_arrays(path, data=np.asarray(array))


def load_dense(path: str | Path) -> np.ndarray:
    """Read an array written by :func:`save_dense`, verifying its checksum.

    Raises
    ------
    CacheError
        If the file is truncated, corrupted or lacks a part.
    """
    return load_arrays(path, ("data",))["data"]


def save_sparse(path: str | Path, matrix: sp.spmatrix | sp.sparray) -> None:
    """Write a sparse matrix (as CSR) with its checksum to ``path`` (``.npz``) atomically."""
    csr = sp.csr_array(matrix)
    save_arrays(path, data=csr.data, indices=csr.indices, indptr=csr.indptr, shape=np.array(csr.shape, dtype=np.int64))


def load_sparse(path: str | Path) -> sp.csr_array:
    """Read a matrix written by :func:`save_sparse`, verifying its checksum.

    Raises
    ------
    CacheError
        If the file is truncated, corrupted or lacks a part.
    """
    parts = load_arrays(path, ("data", "indices", "indptr", "shape"))
    return sp.csr_array((parts["data"], parts["indices"], parts["indptr"]), shape=tuple(parts["shape"]))
