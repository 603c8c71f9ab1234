"""The linear kernel between sparse rows, as a dense Gram matrix (the Fisher paper's SVMs).

Document vectors of n-gram or FSA features have hundreds of non-zeros out of tens of thousands of
columns or more, but two documents nearly always share one, so their Gram matrix is dense. The loops
here write each product straight into the dense matrix. Entry ``(i, j)`` is the sum over the columns of
row ``i``, in the order row ``i`` stores them, of ``x[i, k] * y[j, k]``: the sum scipy's sparse product
forms, in the same order, so the values are the same bit for bit (scipy's product also builds the
sparse result first, in two passes, before the dense copy).
"""

from __future__ import annotations

import numba
import numpy as np
import scipy.sparse as sp


@numba.njit(cache=True)
def _cross_rows(x_indptr, x_indices, x_data, col_ptr, col_rows, col_data, out):
    for i in range(x_indptr.size - 1):
        row = out[i]
        for p in range(x_indptr[i], x_indptr[i + 1]):
            k, v = x_indices[p], x_data[p]
            for q in range(col_ptr[k], col_ptr[k + 1]):
                row[col_rows[q]] += v * col_data[q]


@numba.njit(cache=True)
def _self_rows(x_indptr, x_indices, x_data, col_ptr, col_rows, col_data, out):
    # Rows in increasing order; next_entry[k] skips the entries of column k that belong to rows before i, so
    # row i adds only to entries (i, j >= i). Row i's own entry in column k is then the first one left.
    next_entry = col_ptr[:-1].copy()
    n = x_indptr.size - 1
    for i in range(n):
        row = out[i]
        for p in range(x_indptr[i], x_indptr[i + 1]):
            k, v = x_indices[p], x_data[p]
            for q in range(next_entry[k], col_ptr[k + 1]):
                row[col_rows[q]] += v * col_data[q]
            next_entry[k] += 1
    for i in range(n):
        for j in range(i + 1, n):
            out[j, i] = out[i, j]


def _repeats_a_column(by_column: sp.csc_matrix) -> bool:
    """Whether a row stores a column twice (scipy adds both; the mirrored loop assumes one)."""
    same_row = np.diff(by_column.indices) == 0
    same_column = np.diff(np.repeat(np.arange(by_column.shape[1]), np.diff(by_column.indptr))) == 0
    return bool((same_row & same_column).any())


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
    x = sp.csr_matrix(x, dtype=float)
    by_column = sp.csc_matrix(x if y is None else y, dtype=float)
    if by_column.shape[1] != x.shape[1]:
        raise ValueError(f"x has {x.shape[1]} columns and y {by_column.shape[1]}")
    by_column.sort_indices()
    out = np.zeros((x.shape[0], by_column.shape[0]))
    rows = _self_rows if y is None and not _repeats_a_column(by_column) else _cross_rows
    rows(x.indptr, x.indices, x.data, by_column.indptr, by_column.indices, by_column.data, out)
    return out
