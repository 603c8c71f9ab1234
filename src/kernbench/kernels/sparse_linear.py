"""The linear kernel between sparse rows, as a dense Gram matrix.

It serves the any-gram sm kernel (the dot products of n-gram maps, :mod:`kernbench.kernels.anygram`) and
the Fisher paper's SVMs (document vectors of n-gram or FSA features). Such rows have hundreds of
non-zeros out of tens of thousands of columns or more, but two of them nearly always share one, so their
Gram matrix is dense: each output row is accumulated densely from the posting lists of its row's
columns. Entry ``(i, j)`` is the sum over the columns of row ``i``, in the order row ``i`` stores them,
of ``x[i, k] * y[j, k]``: the sum scipy's sparse product forms, in the same order, so the values are the
same bit for bit (scipy's product also builds the sparse result first, in two passes, before the dense
copy).
"""

from __future__ import annotations

import numba
import numpy as np
import scipy.sparse as sp

from kernbench.kernels._prange import prange_njit


@numba.njit(cache=True)
def accumulate_row(x_ptr, x_idx, x_val, y_ptr, y_idx, y_val, a, upper, acc):
    """Add row ``a`` of ``X Y^T`` into ``acc`` (columns ``>= a`` only, with ``upper``); see :func:`sparse_gram`."""
    for q in range(x_ptr[a], x_ptr[a + 1]):
        u, w = x_idx[q], x_val[q]
        start = y_ptr[u]
        if upper:
            start += np.searchsorted(y_idx[y_ptr[u] : y_ptr[u + 1]], a)
        for r in range(start, y_ptr[u + 1]):
            acc[y_idx[r]] += w * y_val[r]


@prange_njit
def sparse_gram(x_ptr, x_idx, x_val, y_ptr, y_idx, y_val, ny, symmetric, out):
    """``out = X Y^T`` for CSR ``X`` and ``Y^T`` given by feature (sorted posting lists of ``Y``'s rows).

    Each output row is accumulated densely from the posting lists of its
    features, in parallel over rows; when ``symmetric`` (``Y = X``) only the
    upper triangle is accumulated and then mirrored.
    """
    n = x_ptr.shape[0] - 1
    for a in numba.prange(n):
        acc = np.zeros(ny)
        accumulate_row(x_ptr, x_idx, x_val, y_ptr, y_idx, y_val, a, symmetric, acc)
        # Element loops, not slice assignments: numba builds a slice assignment's shape check with its error
        # message, which takes seconds to compile in every process that compiles the kernel.
        for b in range(a if symmetric else 0, ny):
            out[a, b] = acc[b]
    if symmetric:
        for a in numba.prange(n):
            for b in range(a):
                out[a, b] = out[b, a]


def gram_operands(x, y=None) -> tuple[np.ndarray, ...]:
    """The arrays :func:`sparse_gram` takes for ``x @ y.T``: the CSR rows of ``x`` and the posting lists of
    ``y``'s columns (each column's rows in increasing order, with their values; ``y`` is ``x`` when None).

    Raises
    ------
    ValueError
        If ``x`` and ``y`` have different numbers of columns.
    """
    x = sp.csr_matrix(x, dtype=float)
    posting = sp.csc_matrix(x if y is None else y, dtype=float)
    if posting.shape[1] != x.shape[1]:
        raise ValueError(f"x has {x.shape[1]} columns and y {posting.shape[1]}")
    posting.sort_indices()
    return (
        x.indptr.astype(np.int64), x.indices.astype(np.int64), x.data,
        posting.indptr.astype(np.int64), posting.indices.astype(np.int64), posting.data,
    )  # fmt: skip


def sparse_linear_gram(x, y=None) -> np.ndarray:
    """Dense ``x @ y.T`` of two sets of sparse rows.

    Parameters
    ----------
    x : scipy.sparse matrix of shape (n, d)
    y : scipy.sparse matrix of shape (m, d), optional
        Default ``x``: the Gram matrix of ``x``, computed on and above the diagonal and mirrored.
        Entry ``(i, j)``, ``j > i``, is then summed in the order row ``i`` stores its columns, so it
        equals scipy's ``(x @ x.T)[i, j]`` bit for bit, and scipy's ``[j, i]`` too whenever the rows
        store their columns in one order (sorted, or sorted the other way, as the Fisher features are).

    Returns
    -------
    numpy.ndarray of shape (n, m)
    """
    operands = gram_operands(x, y)
    n = operands[0].size - 1
    m = n if y is None else y.shape[0]
    out = np.empty((n, m))
    sparse_gram(*operands, m, y is None, out)
    return out
